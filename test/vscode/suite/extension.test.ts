// The thin editor suite: the same file runs under @vscode/test-electron and inside code-server.
// Waits are on editor events, never on fixed sleeps.
import * as assert from 'assert';
import * as vscode from 'vscode';

const EXTENSION_ID = 'apacheconf.apacheconf';

function waitForDiagnostics(uri: vscode.Uri, pred: (d: readonly vscode.Diagnostic[]) => boolean, ms = 20000): Promise<readonly vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const now = vscode.languages.getDiagnostics(uri);
    if (pred(now)) return resolve(now);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error('timed out waiting for diagnostics: ' + JSON.stringify(vscode.languages.getDiagnostics(uri))));
    }, ms);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => u.toString() === uri.toString())) return;
      const d = vscode.languages.getDiagnostics(uri);
      if (pred(d)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(d);
      }
    });
  });
}

async function openConfig(text: string, name: string): Promise<vscode.TextDocument> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  assert.ok(folder, 'the test needs a workspace folder');
  const uri = vscode.Uri.joinPath(folder, name);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);
  return doc;
}

const code = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

describe('apacheconf in a real VS Code', () => {
  it('activates for an httpd.conf and reports the language id', async () => {
    const doc = await openConfig('ServerName example.org\n', 'httpd.conf');
    assert.strictEqual(doc.languageId, 'apacheconf');
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'extension is installed');
    await ext.activate();
    assert.ok(ext.isActive);
  });

  it('shows legacy-access diagnostics, and the quick fix rewrites and clears them', async () => {
    const text = '<Directory "/srv/private">\n    Order deny,allow\n    Deny from all\n</Directory>\n';
    const doc = await openConfig(text, 'apache2.conf');
    const diags = await waitForDiagnostics(doc.uri, (d) => d.some((x) => code(x) === 'legacy-access'));
    const target = diags.find((x) => code(x) === 'legacy-access')!;
    assert.ok(target.tags?.includes(vscode.DiagnosticTag.Deprecated));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, target.range);
    const fix = actions.find((a) => a.isPreferred && a.edit);
    assert.ok(fix, 'a preferred quick fix is offered: ' + actions.map((a) => a.title).join(' | '));
    assert.ok(await vscode.workspace.applyEdit(fix.edit!));
    assert.strictEqual(doc.getText(), '<Directory "/srv/private">\n    Require all denied\n</Directory>\n');
    await waitForDiagnostics(doc.uri, (d) => !d.some((x) => code(x) === 'legacy-access'));
  });

  it('hovers a directive with its documentation', async () => {
    const doc = await openConfig('<Directory "/srv">\n    Require all granted\n</Directory>\n', 'hover.htaccess');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(1, 6));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /mod_authz_core/);
  });

  it('migrates a whole file with the "Apache: Migrate access control" command', async () => {
    const doc = await openConfig('<Location "/status">\n  Order allow,deny\n  Allow from all\n</Location>\n<Directory /x>\n  AuthzUserAuthoritative Off\n</Directory>\n', 'migrate.conf');
    await vscode.languages.setTextDocumentLanguage(doc, 'apacheconf');
    await waitForDiagnostics(doc.uri, (d) => d.some((x) => code(x) === 'legacy-access'));
    await vscode.commands.executeCommand('apacheconf.migrateFile');
    await waitForDiagnostics(doc.uri, (d) => !d.some((x) => code(x) === 'legacy-access' || code(x) === 'removed-directive'));
    assert.strictEqual(doc.getText(), '<Location "/status">\n  Require all granted\n</Location>\n<Directory /x>\n</Directory>\n');
  });
});
