// The editor suite: the same bundle runs under @vscode/test-electron (npm run test:vscode) and inside
// code-server (test/editors/code-server.test.ts). It checks the wiring a user sees: activation,
// diagnostics, a quick fix, hover, completion, the outline and every contributed command.
// Waits are on editor events (diagnostics changes, document changes, promises), never on fixed sleeps.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'apacheconf.apacheconf';
const LANGUAGE_ID = 'apacheconf';
/** A safety net so a missing event fails the test with a message instead of hanging mocha. */
const EVENT_LIMIT_MS = 60_000;

const lines = (...l: string[]) => l.join('\n') + '\n';
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' && d.code ? String(d.code.value) : String(d.code));

/** Resolves once `pred` holds for the document's diagnostics, checking on every diagnostics change. */
function diagnosticsWhere(uri: vscode.Uri, pred: (d: readonly vscode.Diagnostic[]) => boolean, what: string): Promise<readonly vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const d = vscode.languages.getDiagnostics(uri);
      if (!pred(d)) return false;
      clearTimeout(limit);
      sub.dispose();
      resolve(d);
      return true;
    };
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === uri.toString())) check();
    });
    const limit = setTimeout(() => {
      sub.dispose();
      const now = vscode.languages.getDiagnostics(uri).map((d) => `${codeOf(d)}@${d.range.start.line}: ${d.message}`);
      reject(new Error(`no diagnostics change brought ${what}; now: ${JSON.stringify(now)}`));
    }, EVENT_LIMIT_MS);
    check();
  });
}

/** Resolves on the next change of the document's text that makes `pred` true. */
function textWhere(doc: vscode.TextDocument, pred: (text: string) => boolean, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (pred(doc.getText())) return resolve(doc.getText());
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document !== doc || !pred(doc.getText())) return;
      clearTimeout(limit);
      sub.dispose();
      resolve(doc.getText());
    });
    const limit = setTimeout(() => {
      sub.dispose();
      reject(new Error(`the document never became ${what}:\n${doc.getText()}`));
    }, EVENT_LIMIT_MS);
  });
}

let fileCounter = 0;

/** Writes `text` to a fresh `<n>/<name>` in the workspace, opens it in an editor and gives it our language. */
async function openConfig(text: string, name = 'httpd.conf'): Promise<vscode.TextDocument> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  assert.ok(folder, 'the suite needs a workspace folder');
  const uri = vscode.Uri.joinPath(folder, `case-${++fileCounter}`, name);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  let doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== LANGUAGE_ID) doc = await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
  await vscode.window.showTextDocument(doc);
  return doc;
}

/** Writes `text` to `rel` under the workspace folder and returns its uri (the file is not opened). */
async function writeWorkspaceFile(rel: string, text: string): Promise<vscode.Uri> {
  const folder = vscode.workspace.workspaceFolders![0].uri;
  const uri = vscode.Uri.joinPath(folder, ...rel.split('/'));
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  return uri;
}

/** Opens an existing file in an editor, in our language. */
async function openExisting(uri: vscode.Uri): Promise<vscode.TextDocument> {
  let doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== LANGUAGE_ID) doc = await vscode.languages.setTextDocumentLanguage(doc, LANGUAGE_ID);
  await vscode.window.showTextDocument(doc);
  return doc;
}

/** The httpd binary and its modules folder, when this machine has them. */
function findHttpd(): { binary: string; modules: string } | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'].filter(Boolean);
  let binary: string | undefined;
  for (const name of ['apache2', 'httpd']) {
    binary = dirs.map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
    if (binary) break;
  }
  if (!binary) return undefined;
  const modules = [process.env.APACHECONF_HTTPD_MODULES, '/usr/lib/apache2/modules', '/usr/lib64/httpd/modules', '/usr/lib/httpd/modules', path.resolve(path.dirname(binary), '..', 'modules')]
    .filter((d): d is string => !!d)
    .find((d) => fs.existsSync(path.join(d, 'mod_mpm_event.so')));
  return modules ? { binary, modules } : undefined;
}

/** Where `needle` starts in the document, `delta` characters further. */
function positionOf(doc: vscode.TextDocument, needle: string, delta = 0): vscode.Position {
  const at = doc.getText().indexOf(needle);
  assert.ok(at >= 0, `${JSON.stringify(needle)} is in the document`);
  return doc.positionAt(at + delta);
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
}

const LEGACY = lines('<Directory "/srv/private">', '    Order deny,allow', '    Deny from all', '</Directory>');
const MIGRATED = lines('<Directory "/srv/private">', '    Require all denied', '</Directory>');
const hasLegacy = (d: readonly vscode.Diagnostic[]) => d.some((x) => codeOf(x) === 'legacy-access');

describe('apacheconf in a real VS Code', function () {
  this.timeout(2 * EVENT_LIMIT_MS);

  before(async () => {
    // The first diagnostics for a 2.2 file mean the client is up and the server answers.
    const doc = await openConfig(LEGACY);
    await diagnosticsWhere(doc.uri, hasLegacy, 'the first legacy-access finding (server start)');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('recognizes httpd.conf, .htaccess and apache2.conf by name and activates', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    for (const name of ['httpd.conf', '.htaccess', 'apache2.conf']) {
      const uri = vscode.Uri.joinPath(folder, `names-${name}`, name);
      await vscode.workspace.fs.writeFile(uri, Buffer.from('ServerName example.org\n', 'utf8'));
      const doc = await vscode.workspace.openTextDocument(uri);
      assert.strictEqual(doc.languageId, LANGUAGE_ID, name);
    }
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.ok(ext.isActive, 'opening a config activated the extension');
  });

  it('reports 2.2 access control as deprecated warnings on the right lines', async () => {
    const doc = await openConfig(LEGACY);
    const diags = await diagnosticsWhere(doc.uri, (d) => d.filter((x) => codeOf(x) === 'legacy-access').length === 2, 'two legacy-access findings');
    const legacy = diags.filter((x) => codeOf(x) === 'legacy-access');
    assert.deepStrictEqual(legacy.map((d) => doc.lineAt(d.range.start.line).text.trim()), ['Order deny,allow', 'Deny from all']);
    for (const d of legacy) {
      assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Warning);
      assert.ok(d.tags?.includes(vscode.DiagnosticTag.Deprecated), 'tagged deprecated');
      assert.strictEqual(d.source, 'apacheconf');
    }
  });

  it('offers a preferred quick fix that rewrites to Require, and the diagnostics clear', async () => {
    const doc = await openConfig(LEGACY);
    const diags = await diagnosticsWhere(doc.uri, hasLegacy, 'a legacy-access finding');
    const target = diags.find((x) => codeOf(x) === 'legacy-access')!;
    // The server answers from the full pass, which may still be under way (or restart once, when
    // the client's settings arrive). A few times in many runs the editor dropped that request while
    // it waited: the answer came back empty, or the command failed with "Canceled", while the server,
    // asked again at once, gave the fix. The editor asks again as the cursor moves or the diagnostics
    // change, so the test asks up to three times, half a second apart, and says when it needed to.
    let actions: vscode.CodeAction[] = [];
    let fix: vscode.CodeAction | undefined;
    let previous = '';
    for (let attempt = 0; attempt < 3 && !fix; attempt++) {
      if (attempt) {
        console.log(`      (code actions: attempt ${attempt + 1}; the previous answer: ${previous})`);
        await new Promise((r) => setTimeout(r, 500));
      }
      try {
        actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
          'vscode.executeCodeActionProvider', doc.uri, target.range, vscode.CodeActionKind.QuickFix.value);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (!/Canceled/.test(message) || attempt === 2) throw e;
        previous = `cancelled (${message})`;
        continue;
      }
      fix = actions.find((a) => a.isPreferred && a.edit);
      previous = `no preferred fix among [${actions.map((a) => a.title).join(' | ')}]`;
    }
    if (!fix) {
      // Say what the server itself answers for the same range (its reply or its error), straight
      // through the client: a failure here has been seen once in many runs and not reproduced.
      const diagnosticsThen = JSON.stringify(vscode.languages.getDiagnostics(doc.uri).map((d) => [codeOf(d), d.range.start.line, d.message.slice(0, 40)]));
      let direct: string;
      try {
        const api = vscode.extensions.getExtension<{ client: { sendRequest(method: string, params: unknown): Promise<unknown> } }>(EXTENSION_ID)!.exports;
        const r = { start: { line: target.range.start.line, character: target.range.start.character }, end: { line: target.range.end.line, character: target.range.end.character } };
        const reply = await api.client.sendRequest('textDocument/codeAction', { textDocument: { uri: doc.uri.toString() }, range: r, context: { diagnostics: [], only: ['quickfix'] } });
        direct = JSON.stringify(reply).slice(0, 600);
      } catch (e) {
        direct = `error: ${e instanceof Error ? e.message : String(e)}`;
      }
      assert.fail(
        `a preferred quick fix: [${actions.map((a) => `${a.title}${a.isPreferred ? ' (preferred)' : ''}${a.edit ? '' : ' (no edit)'}`).join(' | ')}] for ${JSON.stringify(target.range)}; ` +
          `diagnostics then: ${diagnosticsThen}; the server asked directly: ${direct}`,
      );
    }
    assert.ok(fix.kind && vscode.CodeActionKind.QuickFix.contains(fix.kind), 'it is a quick fix');
    assert.ok(await vscode.workspace.applyEdit(fix.edit!), 'the edit applies');
    assert.strictEqual(doc.getText(), MIGRATED);
    await diagnosticsWhere(doc.uri, (d) => !hasLegacy(d), 'no legacy-access finding');
  });

  it('hovers a directive with its documentation', async () => {
    const doc = await openConfig(lines('<Directory "/srv">', '    Require all granted', '</Directory>'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, positionOf(doc, 'Require', 3));
    const text = hoverText(hovers);
    assert.match(text, /Require/);
    assert.match(text, /mod_authz_core/);
  });

  it('completes directive names valid in the section', async () => {
    const doc = await openConfig(lines('<Directory "/srv">', '    Requ', '</Directory>'));
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, positionOf(doc, 'Requ', 4));
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('Require'), 'Require is offered: ' + labels.slice(0, 30).join(', '));
  });

  it('lists sections and notable directives in the outline', async () => {
    const doc = await openConfig(lines(
      'Listen 443',
      '<VirtualHost *:443>',
      '    ServerName www.example.org',
      '    DocumentRoot "/srv/www"',
      '    <Directory "/srv/www">',
      '        Require all granted',
      '    </Directory>',
      '</VirtualHost>',
    ));
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', doc.uri);
    const outline = (list: vscode.DocumentSymbol[]): string[] => list.flatMap((s) => [s.name, ...outline(s.children).map((c) => '  ' + c)]);
    const names = outline(symbols).map((n) => n.replace(/\s+$/, ''));
    const vhost = names.findIndex((n) => /^<VirtualHost \*:443>/.test(n));
    assert.ok(vhost >= 0, 'the virtual host is a top-level symbol: ' + JSON.stringify(names));
    assert.ok(names.some((n) => /^ {2}\S/.test(n) && /Directory/.test(n)), 'the directory is nested under it: ' + JSON.stringify(names));
    assert.ok(names.some((n) => /^ {2}\S/.test(n) && /www\.example\.org/.test(n)), 'its ServerName is listed under it: ' + JSON.stringify(names));
  });

  describe('contributed commands', () => {
    // One check per command the manifest contributes; a new command without a check here fails.
    const checks: Record<string, () => Promise<void>> = {
      'apacheconf.migrateFile': async () => {
        // (A whole configuration: a file with no Listen line is planned as one another includes.)
        const doc = await openConfig(lines(
          'Listen 80',
          '<Location "/status">', '  Order allow,deny', '  Allow from all', '</Location>',
          '<Directory "/srv/private">', '    Order deny,allow', '    Deny from all', '</Directory>'));
        await diagnosticsWhere(doc.uri, (d) => d.filter((x) => codeOf(x) === 'legacy-access').length === 4, 'four legacy-access findings');
        const changed = textWhere(doc, (t) => !/Order/.test(t), 'free of Order lines');
        await vscode.commands.executeCommand('apacheconf.migrateFile');
        assert.strictEqual(await changed, lines('Listen 80', '<Location "/status">', '  Require all granted', '</Location>', '<Directory "/srv/private">', '    Require all denied', '</Directory>'));
        await diagnosticsWhere(doc.uri, (d) => !hasLegacy(d), 'no legacy-access finding');
      },
      'apacheconf.migrateWorkspace': async () => {
        // A configuration of three files: the root, one open file and one that stays closed.
        const legacy = lines('<Directory "/srv/a">', '    Order allow,deny', '    Allow from all', '</Directory>');
        await writeWorkspaceFile('migrate-ws/httpd.conf', lines('LoadModule authz_core_module modules/mod_authz_core.so', 'Include conf.d/*.conf'));
        const openUri = await writeWorkspaceFile('migrate-ws/conf.d/a.conf', 'RewriteEngine On\n' + legacy);
        const closedUri = await writeWorkspaceFile('migrate-ws/conf.d/b.conf', legacy.replace('/srv/a', '/srv/b'));
        const config = vscode.workspace.getConfiguration('apacheconf');
        await config.update('rootFile', 'migrate-ws/httpd.conf', vscode.ConfigurationTarget.Workspace);
        try {
          const doc = await openExisting(openUri);
          // module-not-loaded needs the include graph: once it shows, the server follows the root file.
          await diagnosticsWhere(doc.uri, (d) => d.some((x) => codeOf(x) === 'module-not-loaded'), "module-not-loaded from the root file's graph");
          const changed = textWhere(doc, (t) => !/Order/.test(t), 'free of Order lines');
          const result = await vscode.commands.executeCommand<{ scope: string; files: Array<{ uri: string }>; applied: boolean }>(
            'apacheconf.migrateWorkspace', { confirm: false });
          assert.strictEqual(result.scope, 'configuration');
          assert.strictEqual(result.applied, true);
          assert.deepStrictEqual(result.files.map((f) => vscode.Uri.parse(f.uri).path).sort(), [openUri.path, closedUri.path].sort());
          assert.strictEqual(await changed, 'RewriteEngine On\n' + lines('<Directory "/srv/a">', '    Require all granted', '</Directory>'));
          const closed = await vscode.workspace.openTextDocument(closedUri);
          assert.strictEqual(closed.getText(), lines('<Directory "/srv/b">', '    Require all granted', '</Directory>'));
          await doc.save();
          await closed.save();
        } finally {
          await config.update('rootFile', undefined, vscode.ConfigurationTarget.Workspace);
        }
      },
      'apacheconf.explainAccess': async () => {
        const doc = await openConfig(lines('<Location "/private">', '    Require ip 10.0.0.0/8', '</Location>'));
        await diagnosticsWhere(doc.uri, () => true, 'the first diagnostics');
        type Answer = { status: number; decision: string; steps: Array<{ uri: string; line: number; directive: string }> };
        const ask = (ip: string) => vscode.commands.executeCommand<Answer>('apacheconf.explainAccess', { path: '/private/report.html', ip });
        const denied = await ask('192.0.2.7');
        assert.strictEqual(denied.status, 403);
        assert.strictEqual(denied.decision, 'denied');
        assert.deepStrictEqual(denied.steps.map((s) => [vscode.Uri.parse(s.uri).toString(), s.line, s.directive]), [[doc.uri.toString(), 1, 'Require ip 10.0.0.0/8']]);
        const granted = await ask('10.2.3.4');
        assert.strictEqual(granted.status, 200);
      },
      'apacheconf.checkWithHttpd': async () => {
        const httpd = findHttpd();
        if (!httpd) {
          if (process.env.CI === 'true') assert.fail('no apache2/httpd with its modules on this machine (CI must have it)');
          console.log('      (no apache2/httpd here: only the registration of checkWithHttpd is checked)');
          return;
        }
        const site = await writeWorkspaceFile('httpd-check/conf.d/site.conf', lines('# a negative Require alone', '<Directory "/srv/www">', '    Require not ip 192.0.2.1', '</Directory>'));
        await writeWorkspaceFile('httpd-check/httpd.conf', lines(
          `LoadModule mpm_event_module ${httpd.modules}/mod_mpm_event.so`,
          `LoadModule authz_core_module ${httpd.modules}/mod_authz_core.so`,
          `LoadModule authz_host_module ${httpd.modules}/mod_authz_host.so`,
          'ServerName localhost',
          'Listen 127.0.0.1:8080',
          'ErrorLog /dev/null',
          'Include conf.d/*.conf'));
        const folder = vscode.workspace.workspaceFolders![0].uri;
        const root = await openExisting(vscode.Uri.joinPath(folder, 'httpd-check', 'httpd.conf'));
        await diagnosticsWhere(root.uri, () => true, 'the root file\'s diagnostics');
        const found = diagnosticsWhere(site, (d) => d.some((x) => x.source === 'httpd'), 'an httpd diagnostic on the included file');
        const result = await vscode.commands.executeCommand<{ ok: boolean; rootFrom: string }>('apacheconf.checkWithHttpd');
        assert.strictEqual(result.ok, false);
        assert.strictEqual(result.rootFrom, 'this file');
        const diag = (await found).find((x) => x.source === 'httpd')!;
        assert.strictEqual(diag.range.start.line, 2, 'on the Require not line');
        assert.strictEqual(diag.severity, vscode.DiagnosticSeverity.Error);
      },
      'apacheconf.restartServer': async () => {
        const doc = await openConfig(LEGACY);
        await diagnosticsWhere(doc.uri, hasLegacy, 'a legacy-access finding');
        await vscode.commands.executeCommand('apacheconf.restartServer');
        // The restarted server analyzes the open file again; an edit proves it answers.
        const edit = new vscode.WorkspaceEdit();
        edit.insert(doc.uri, new vscode.Position(doc.lineCount - 1, 0), 'Satisfy any\n');
        assert.ok(await vscode.workspace.applyEdit(edit));
        await diagnosticsWhere(doc.uri, (d) => d.some((x) => codeOf(x) === 'legacy-access' && doc.lineAt(x.range.start.line).text.startsWith('Satisfy')), 'a finding on the new Satisfy line');
      },
      'apacheconf.showOutput': async () => {
        await vscode.commands.executeCommand('apacheconf.showOutput');
      },
    };

    const contributed = (): string[] => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      const cmds = (ext.packageJSON?.contributes?.commands ?? []) as Array<{ command: string }>;
      return cmds.map((c) => c.command);
    };

    it('every contributed command is registered and has a check in this suite', async () => {
      const ids = contributed();
      assert.ok(ids.length > 0, 'the manifest contributes commands');
      const registered = new Set(await vscode.commands.getCommands(true));
      for (const id of ids) {
        assert.ok(registered.has(id), `${id} is registered`);
        assert.ok(checks[id], `${id} has a check in test/vscode/suite/extension.test.ts`);
      }
    });

    // The manifest is readable when mocha loads this file: one test per contributed command.
    for (const id of contributed()) {
      const check = checks[id];
      if (check) it(id, check);
    }
  });
});
