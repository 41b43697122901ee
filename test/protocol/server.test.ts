// Protocol tests: the bundled dist/server.js over stdio, spoken to in JSON-RPC.
// They catch what unit tests of the features cannot: bundling mistakes,
// capabilities, versions on diagnostics, edits that the client must apply.
import assert from 'node:assert/strict';
import * as fs from 'fs';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  CodeAction,
  CompletionItem,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Location,
  SelectionRange,
  SignatureHelp,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { createService, getRule } from '../../server/src/service';
import { SERVER_COMMAND_IDS } from '../../server/src/lsp/commands';
import { TestClient, applyTo, cursor, ensureServerBuilt } from './lsp-client';

const UNCLOSED = '<Directory "/srv/www">\n    Require all granted\n';
const LEGACY = '<Directory "/srv/private">\n    Order deny,allow\n    Deny from all\n</Directory>\n';
const LEGACY_FIXED = '<Directory "/srv/private">\n    Require all denied\n</Directory>\n';

const code = (d: Diagnostic) => String(d.code);
const codes = (ds: Diagnostic[]) => ds.map(code);
let nextId = 0;
const uniqueUri = (name = 'httpd.conf') => `file:///protocol-test/${++nextId}/${name}`;

function needsRule(ctx: Mocha.Context, id: string): void {
  if (!getRule(id)) {
    console.log(`      (skipped: rule ${id} is not registered yet)`);
    ctx.skip();
  }
}

describe('language server over stdio (dist/server.js)', function () {
  let client: TestClient;

  before(async function () {
    ensureServerBuilt();
    client = await TestClient.start({ settings: {} });
  });

  after(async function () {
    if (client) await client.dispose();
  });

  describe('initialize', () => {
    const expected: Array<[string, unknown]> = [
      ['textDocumentSync', { openClose: true, change: 2, save: { includeText: false } }],
      ['hoverProvider', true],
      ['completionProvider', { triggerCharacters: ['<', ' ', '/', '$'], resolveProvider: true }],
      ['documentSymbolProvider', { label: 'Apache Config' }],
      ['foldingRangeProvider', true],
      ['selectionRangeProvider', true],
      ['documentFormattingProvider', true],
      ['documentRangeFormattingProvider', true],
      ['documentOnTypeFormattingProvider', { firstTriggerCharacter: '>' }],
      ['documentLinkProvider', { resolveProvider: false }],
      ['definitionProvider', true],
      ['referencesProvider', true],
      ['codeActionProvider', { codeActionKinds: ['quickfix', 'source.fixAll.apacheconf'], resolveProvider: false }],
      ['executeCommandProvider', { commands: [...SERVER_COMMAND_IDS] }],
    ];
    for (const [key, value] of expected) {
      it(`announces ${key}`, () => {
        assert.deepEqual((client.initializeResult.capabilities as Record<string, unknown>)[key], value);
      });
    }
    it('announces signature help on space', () => {
      assert.deepEqual(client.initializeResult.capabilities.signatureHelpProvider?.triggerCharacters, [' ']);
    });
    it('names itself', () => {
      assert.equal(client.initializeResult.serverInfo?.name, 'apacheconf');
    });
    it('asks the client for the apacheconf settings', async () => {
      // The first validation waits for the settings, so by the first diagnostics the request was made.
      const uri = uniqueUri();
      await client.open(uri, 'ServerName a\n');
      await client.diagnosticsFor(uri, 1);
      assert.ok(client.configurationRequests.length >= 1);
      assert.deepEqual(client.configurationRequests[0], { items: [{ section: 'apacheconf' }] });
    });
  });

  describe('diagnostics', () => {
    it('publishes diagnostics on open, with the version, the same as the service computes', async () => {
      const uri = uniqueUri();
      await client.open(uri, UNCLOSED);
      const p = await client.waitForDiagnostics(uri, () => true);
      assert.equal(p.version, 1);
      const service = createService();
      assert.deepEqual(p.diagnostics, service.diagnostics(service.analyze({ text: UNCLOSED, uri })));
      assert.ok(codes(p.diagnostics).includes('syntax'));
      const d = p.diagnostics.find((x) => code(x) === 'syntax')!;
      assert.equal(d.source, 'apacheconf');
      assert.equal(d.severity, 1);
      assert.match(d.codeDescription?.href ?? '', /#rule-syntax$/);
    });

    it('publishes new diagnostics for the new version after an incremental change', async () => {
      const uri = uniqueUri();
      await client.open(uri, UNCLOSED);
      assert.ok(codes(await client.diagnosticsFor(uri, 1)).includes('syntax'));
      const end = client.doc(uri).positionAt(UNCLOSED.length);
      const v = await client.change(uri, [{ range: { start: end, end }, text: '</Directory>\n' }]);
      assert.equal(v, 2);
      assert.deepEqual(codes(await client.diagnosticsFor(uri, 2)), []);
    });

    it('after several quick changes, the last version gets its diagnostics', async () => {
      const uri = uniqueUri();
      await client.open(uri, 'ServerName a\n');
      await client.diagnosticsFor(uri, 1);
      await client.setText(uri, '<Location /a>\n');
      await client.setText(uri, '<Location /a>\n</Location>\n<Files x>\n');
      const v = await client.setText(uri, '<Location /a>\n</Location>\n');
      assert.deepEqual(await client.diagnosticsFor(uri, v), []);
      // Nothing is published for a version older than one already published.
      const versions = client.publishedFor(uri).map((p) => p.version!);
      assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
    });

    it('clears the diagnostics of a closed document', async () => {
      const uri = uniqueUri();
      await client.open(uri, UNCLOSED);
      await client.diagnosticsFor(uri, 1);
      const before = client.publishedFor(uri).length;
      await client.close(uri);
      const p = await client.waitForDiagnostics(uri, () => true, before);
      assert.deepEqual(p.diagnostics, []);
    });
  });

  describe('code actions', () => {
    it('offers a quick fix for a legacy-access diagnostic; applying it gives the 2.4 text', async function () {
      needsRule(this, 'legacy-access');
      const uri = uniqueUri();
      await client.open(uri, LEGACY);
      const diags = (await client.diagnosticsFor(uri, 1)).filter((d) => code(d) === 'legacy-access');
      assert.ok(diags.length > 0, 'legacy-access diagnostics are published');
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: diags[0].range,
        context: { diagnostics: [diags[0]], only: ['quickfix'] },
      });
      const preferred = actions.filter((a) => a.isPreferred);
      assert.equal(preferred.length, 1, 'one preferred fix: ' + actions.map((a) => a.title).join(' | '));
      assert.equal(preferred[0].kind, 'quickfix');
      assert.ok(preferred[0].diagnostics?.some((d) => code(d) === 'legacy-access'));
      assert.equal(applyTo(client.doc(uri), preferred[0].edit!), LEGACY_FIXED);
    });

    it('offers source.fixAll.apacheconf that fixes the whole file', async function () {
      needsRule(this, 'legacy-access');
      const uri = uniqueUri();
      // (A whole configuration: a file with no Listen line is planned as one another includes.)
      const text = 'Listen 80\n' + LEGACY + '<Location "/status">\n    Order allow,deny\n    Allow from all\n</Location>\n';
      await client.open(uri, text);
      await client.diagnosticsFor(uri, 1);
      const doc = client.doc(uri);
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: doc.positionAt(0), end: doc.positionAt(0) },
        context: { diagnostics: [], only: ['source.fixAll'] },
      });
      assert.deepEqual(actions.map((a) => a.kind), ['source.fixAll.apacheconf']);
      assert.equal(applyTo(doc, actions[0].edit!), 'Listen 80\n' + LEGACY_FIXED + '<Location "/status">\n    Require all granted\n</Location>\n');
    });

    it('answers with no action where there is nothing to fix', async () => {
      const uri = uniqueUri();
      await client.open(uri, 'ServerName example.org\n');
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
        context: { diagnostics: [] },
      });
      assert.deepEqual(actions, []);
    });
  });

  describe('language features', () => {
    const NESTED = '<VirtualHost *:80>\nServerName a\n<Directory /x>\nRequire all granted\n</Directory>\n</VirtualHost>\n';

    it('hover answers what the service answers, and no more', async () => {
      const { text, offset } = cursor('<Directory "/srv">\n    Requ|ire all granted\n</Directory>\n');
      const uri = uniqueUri();
      const doc = await client.open(uri, text);
      const position = doc.positionAt(offset);
      const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position });
      const service = createService();
      const expected = service.hover(service.analyze({ text, uri }), position);
      assert.deepEqual(hover, expected);
      assert.ok(hover, 'a hover on a directive name');
      const value = typeof hover.contents === 'object' && 'value' in hover.contents ? hover.contents.value : JSON.stringify(hover.contents);
      assert.match(value, /mod_authz_core/);
    });

    it('gives the outline as a tree of sections', async () => {
      const uri = uniqueUri();
      await client.open(uri, NESTED);
      const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
      assert.equal(symbols.length, 1);
      assert.equal(symbols[0].name, '<VirtualHost *:80>');
      assert.deepEqual(symbols[0].children?.map((s) => s.name), ['ServerName a', '<Directory /x>']);
    });

    it('folds sections', async () => {
      const uri = uniqueUri();
      await client.open(uri, NESTED);
      const ranges = await client.request<FoldingRange[]>('textDocument/foldingRange', { textDocument: { uri } });
      assert.deepEqual(
        ranges.map((r) => [r.startLine, r.endLine]),
        [
          [0, 4],
          [2, 3],
        ],
      );
    });

    const formatting: Array<{ name: string; options: { tabSize: number; insertSpaces: boolean }; after: string }> = [
      { name: 'four spaces', options: { tabSize: 4, insertSpaces: true }, after: '<VirtualHost *:80>\n    ServerName a\n    <Directory /x>\n        Require all granted\n    </Directory>\n</VirtualHost>\n' },
      { name: 'tabs', options: { tabSize: 8, insertSpaces: false }, after: '<VirtualHost *:80>\n\tServerName a\n\t<Directory /x>\n\t\tRequire all granted\n\t</Directory>\n</VirtualHost>\n' },
    ];
    for (const c of formatting) {
      it(`formats the document (${c.name})`, async () => {
        const uri = uniqueUri();
        const doc = await client.open(uri, NESTED);
        const edits = await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: c.options });
        assert.equal(TextDocument.applyEdits(doc, edits), c.after);
      });
    }

    it('formats a range: only the lines it touches', async () => {
      const uri = uniqueUri();
      const doc = await client.open(uri, NESTED);
      const edits = await client.request<TextEdit[]>('textDocument/rangeFormatting', {
        textDocument: { uri },
        range: { start: { line: 3, character: 0 }, end: { line: 3, character: 3 } },
        options: { tabSize: 2, insertSpaces: true },
      });
      assert.equal(TextDocument.applyEdits(doc, edits), NESTED.replace('\nRequire', '\n    Require'));
    });

    it('completes Require providers', async () => {
      const { text, offset } = cursor('<Directory /x>\n    Require a|\n</Directory>\n');
      const uri = uniqueUri();
      const doc = await client.open(uri, text);
      const result = await client.request<CompletionItem[] | CompletionList>('textDocument/completion', {
        textDocument: { uri },
        position: doc.positionAt(offset),
        context: { triggerKind: 1 },
      });
      const items = Array.isArray(result) ? result : result.items;
      const labels = items.map((i) => i.label);
      for (const want of ['all', 'ip', 'host', 'not']) assert.ok(labels.includes(want), `${want} in ${labels.join(', ')}`);
      const all = items.find((i) => i.label === 'all')!;
      const edit = all.textEdit as TextEdit;
      assert.equal(TextDocument.applyEdits(doc, [edit]), '<Directory /x>\n    Require all\n</Directory>\n');
      // resolve hands the item back (with more documentation when the catalog has it)
      const resolved = await client.request<CompletionItem>('completionItem/resolve', all);
      assert.equal(resolved.label, 'all');
    });

    it('gives signature help for Require providers, from the catalog', async () => {
      const { text, offset } = cursor('Require ip |\n');
      const uri = uniqueUri();
      const doc = await client.open(uri, text);
      const help = await client.request<SignatureHelp | null>('textDocument/signatureHelp', { textDocument: { uri }, position: doc.positionAt(offset) });
      assert.ok(help, 'signature help is given');
      assert.match(help.signatures[0].label, /^Require ip/);
      assert.equal(help.activeSignature, 0);
    });

    const directiveCompletion: Array<{ name: string; input: string; label: string; after: string }> = [
      { name: 'a directive name', input: 'ServerNa|\n', label: 'ServerName', after: 'ServerName\n' },
      { name: 'a directive valid in <Directory>', input: '<Directory /x>\n    AllowOverr|\n</Directory>\n', label: 'AllowOverride', after: '<Directory /x>\n    AllowOverride\n</Directory>\n' },
    ];
    for (const c of directiveCompletion) {
      it(`completes ${c.name} from the catalog, with docs on resolve`, async () => {
        const { text, offset } = cursor(c.input);
        const uri = uniqueUri();
        const doc = await client.open(uri, text);
        const result = await client.request<CompletionItem[] | CompletionList>('textDocument/completion', { textDocument: { uri }, position: doc.positionAt(offset) });
        const items = Array.isArray(result) ? result : result.items;
        const item = items.find((i) => i.label === c.label);
        assert.ok(item, `${c.label} among ${items.length} items`);
        assert.equal(TextDocument.applyEdits(doc, [item.textEdit as TextEdit]), c.after);
        const resolved = await client.request<CompletionItem>('completionItem/resolve', item);
        const docs = resolved.documentation;
        assert.ok(docs && typeof docs === 'object' && docs.value.includes(c.label), 'resolve gives the directive docs');
      });
    }

    it('gives selection ranges that grow from the word to the document', async () => {
      const uri = uniqueUri();
      await client.open(uri, NESTED);
      const [chain] = await client.request<SelectionRange[]>('textDocument/selectionRange', { textDocument: { uri }, positions: [{ line: 3, character: 2 }] });
      const ranges: SelectionRange['range'][] = [];
      for (let r: SelectionRange | undefined = chain; r; r = r.parent) ranges.push(r.range);
      assert.ok(ranges.length >= 3, JSON.stringify(ranges));
      assert.deepEqual(ranges[0], { start: { line: 3, character: 0 }, end: { line: 3, character: 7 } });
      assert.equal(ranges[ranges.length - 1].start.line, 0);
    });

    it('links an Include to its file', async () => {
      const uri = uniqueUri();
      await client.open(uri, 'Include /etc/apache2/ports.conf\n');
      const links = await client.request<Array<{ target?: string }>>('textDocument/documentLink', { textDocument: { uri } });
      // The server checks the disk (a trusted workspace): a link only when the file is there.
      const expected = fs.existsSync('/etc/apache2/ports.conf') ? ['file:///etc/apache2/ports.conf'] : [];
      assert.deepEqual(links.map((l) => l.target), expected);
    });

    it('goes to the Define of a variable, in this file and in another open one', async () => {
      const defs = uniqueUri('defs.conf');
      await client.open(defs, 'Define DOCROOT /srv/www\n');
      const { text, offset } = cursor('Define LOGS /var/log\nDocumentRoot ${DOCROOT}/site\nErrorLog ${LO|GS}/error.log\n');
      const uri = uniqueUri();
      const doc = await client.open(uri, text);
      const here = await client.request<Location[]>('textDocument/definition', { textDocument: { uri }, position: doc.positionAt(offset) });
      assert.deepEqual(here, [{ uri, range: { start: { line: 0, character: 7 }, end: { line: 0, character: 11 } } }]);
      const there = await client.request<Location[]>('textDocument/definition', { textDocument: { uri }, position: { line: 1, character: 17 } });
      assert.deepEqual(there.map((l) => [l.uri, l.range.start.line]), [[defs, 0]]);
      const refs = await client.request<Location[]>('textDocument/references', {
        textDocument: { uri },
        position: doc.positionAt(offset),
        context: { includeDeclaration: false },
      });
      assert.deepEqual(refs.map((l) => [l.uri, l.range.start.line]), [[uri, 2]]);
    });

    it('re-indents a section tag completed by `>` (on-type formatting)', async () => {
      const uri = uniqueUri();
      const text = '<Directory /x>\nRequire all granted\n      </Directory>\n';
      const doc = await client.open(uri, text);
      const edits = await client.request<TextEdit[]>('textDocument/onTypeFormatting', {
        textDocument: { uri },
        position: { line: 2, character: 18 },
        ch: '>',
        options: { tabSize: 4, insertSpaces: true },
      });
      assert.equal(TextDocument.applyEdits(doc, edits), '<Directory /x>\nRequire all granted\n</Directory>\n');
    });
  });

  describe('workspace/executeCommand apacheconf.migrateFile', () => {
    it('sends the whole-file migration as workspace/applyEdit for the current version', async function () {
      needsRule(this, 'legacy-access');
      const uri = uniqueUri();
      await client.open(uri, 'ServerName a\n' + LEGACY);
      await client.diagnosticsFor(uri, 1);
      const before = client.applied.length;
      const result = await client.request<{ fixes: number; applied: boolean }>('workspace/executeCommand', { command: 'apacheconf.migrateFile', arguments: [uri] });
      assert.equal(result.applied, true);
      assert.ok(result.fixes >= 1);
      assert.equal(client.applied.length, before + 1);
      const edit: WorkspaceEdit = client.applied[before].edit;
      const change = edit.documentChanges?.[0] as { textDocument: { uri: string; version: number } };
      assert.deepEqual(change.textDocument, { uri, version: 1 });
      assert.equal(client.text(uri), 'ServerName a\n' + LEGACY_FIXED);
      // The client applied it and sent didChange: the server re-validates the new version.
      const after = await client.diagnosticsFor(uri, 2);
      assert.ok(!codes(after).includes('legacy-access'));
    });

    it('does nothing (and sends no edit) when there is nothing to migrate', async () => {
      const uri = uniqueUri();
      await client.open(uri, 'ServerName a\n');
      const before = client.applied.length;
      const result = await client.request('workspace/executeCommand', { command: 'apacheconf.migrateFile', arguments: [{ uri }] });
      assert.deepEqual(result, { uri, fixes: 0, applied: false });
      assert.equal(client.applied.length, before);
    });

    const bad: Array<{ name: string; command: string; args: unknown[] }> = [
      { name: 'an unknown document', command: 'apacheconf.migrateFile', args: ['file:///nowhere/httpd.conf'] },
      { name: 'no argument', command: 'apacheconf.migrateFile', args: [] },
      { name: 'an unknown command', command: 'apacheconf.noSuchCommand', args: [] },
    ];
    for (const c of bad) {
      it(`answers ${c.name} with an error, and keeps serving`, async () => {
        await assert.rejects(client.request('workspace/executeCommand', { command: c.command, arguments: c.args }));
        const uri = uniqueUri();
        await client.open(uri, UNCLOSED);
        assert.ok(codes(await client.diagnosticsFor(uri, 1)).includes('syntax'));
      });
    }
  });

  // A black-box LSP fuzz run: an explain request with a malformed field answered -32603 (internal
  // error) and sent a stack trace to the client's log.
  describe('workspace/executeCommand apacheconf.explainAccess with bad parameters', () => {
    const bad: Array<{ name: string; args: Record<string, unknown> }> = [
      { name: 'no path', args: {} },
      { name: 'a path that is not a string', args: { path: 5 } },
      { name: 'an ip that is not an address', args: { path: '/', ip: 'not-an-ip' } },
      { name: 'an ip with a mask', args: { path: '/', ip: '10.0.0.0/8' } },
      { name: 'an ip that is not a string', args: { path: '/', ip: 7 } },
      { name: 'unknown credentials', args: { path: '/', credentials: 'maybe' } },
      { name: 'groups that are not a list', args: { path: '/', credentials: 'valid', groups: 'admins' } },
      { name: 'groups with a number', args: { path: '/', credentials: 'valid', groups: ['admins', 3] } },
      { name: 'defines that are not a list', args: { path: '/', defines: 'SSL' } },
    ];
    for (const c of bad) {
      it(`answers ${c.name} with invalid params (-32602), a plain message and no stack trace in the log`, async () => {
        const uri = uniqueUri();
        await client.open(uri, 'Require all granted\n');
        await client.diagnosticsFor(uri, 1);
        const logged = client.logs.length;
        await assert.rejects(
          client.request('workspace/executeCommand', { command: 'apacheconf.explainAccess', arguments: [{ uri, ...c.args }] }),
          (e: { code?: number; message?: string }) => {
            assert.equal(e.code, -32602, String(e.message));
            assert.doesNotMatch(String(e.message), /\n\s+at /);
            return true;
          },
        );
        const after = client.logs.slice(logged);
        assert.ok(!after.some((m) => /\n\s+at /.test(m)), `a stack trace in the log: ${after.join(' | ')}`);
        // Well-formed, the same request is answered.
        const ok = await client.request<{ status: number }>('workspace/executeCommand', { command: 'apacheconf.explainAccess', arguments: [{ uri, path: '/' }] });
        assert.equal(ok.status, 200);
      });
    }
  });

  // A black-box LSP fuzz run: about 3,500 nested sections overflowed the stack (-32603).
  it('explains access in a document with 3,500 nested sections', async () => {
    const uri = uniqueUri();
    const n = 3500;
    await client.open(uri, '<IfModule a>\n'.repeat(n) + '<VirtualHost *:80>\nServerName a\n</VirtualHost>\n' + '</IfModule>\n'.repeat(n));
    await client.diagnosticsFor(uri, 1);
    const r = await client.request<{ status: number; note?: string }>('workspace/executeCommand', { command: 'apacheconf.explainAccess', arguments: [{ uri, path: '/' }] });
    assert.equal(r.status, 200);
    assert.match(String(r.note), /nested more than \d+ levels deep/);
  });

  describe('requests for documents that are not open', () => {
    const requests: Array<[string, Record<string, unknown>, unknown]> = [
      ['textDocument/hover', { position: { line: 0, character: 0 } }, null],
      ['textDocument/completion', { position: { line: 0, character: 0 } }, []],
      ['textDocument/documentSymbol', {}, []],
      ['textDocument/foldingRange', {}, []],
      ['textDocument/formatting', { options: { tabSize: 4, insertSpaces: true } }, []],
      ['textDocument/codeAction', { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] } }, []],
      ['textDocument/documentLink', {}, []],
      ['textDocument/signatureHelp', { position: { line: 0, character: 0 } }, null],
    ];
    for (const [method, params, empty] of requests) {
      it(`${method} gives an empty answer`, async () => {
        const r = await client.request(method, { textDocument: { uri: 'file:///never/opened.conf' }, ...params });
        assert.deepEqual(r, empty);
      });
    }

    it('answers for a document after it was closed with an empty answer too', async () => {
      const uri = uniqueUri();
      await client.open(uri, 'ServerName a\n');
      await client.close(uri);
      assert.equal(await client.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 2 } }), null);
    });
  });

  describe('configuration', () => {
    it('a rule set to ignore disappears from every open document', async () => {
      const uri = uniqueUri();
      await client.open(uri, UNCLOSED);
      assert.ok(codes(await client.diagnosticsFor(uri, 1)).includes('syntax'));
      const before = client.publishedFor(uri).length;
      client.settings = { rules: { syntax: 'ignore' } };
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      const p = await client.waitForDiagnostics(uri, () => true, before);
      assert.deepEqual(codes(p.diagnostics), []);
      assert.equal(p.version, 1);
      // and back
      const again = client.publishedFor(uri).length;
      client.settings = { rules: { syntax: 'warning' } };
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      const q = await client.waitForDiagnostics(uri, () => true, again);
      assert.deepEqual(q.diagnostics.map((d) => [code(d), d.severity]), [['syntax', 2]]);
      client.settings = {};
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      await client.waitForDiagnostics(uri, (x) => x.diagnostics.some((d) => d.severity === 1), again + 1);
    });
  });
});

describe('language server without workspace/configuration', () => {
  it('takes settings from initializationOptions and from didChangeConfiguration', async () => {
    const client = await TestClient.start({ initializationOptions: { settings: { rules: { syntax: 'hint' } } } });
    try {
      const uri = uniqueUri();
      await client.open(uri, UNCLOSED);
      const first = await client.diagnosticsFor(uri, 1);
      assert.deepEqual(first.map((d) => [code(d), d.severity]), [['syntax', 4]]);
      assert.equal(client.configurationRequests.length, 0);
      const before = client.publishedFor(uri).length;
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { apacheconf: { rules: { syntax: 'ignore' } } } });
      const p = await client.waitForDiagnostics(uri, () => true, before);
      assert.deepEqual(p.diagnostics, []);
    } finally {
      await client.dispose();
    }
  });

  it('shuts down and exits with code 0', async () => {
    const client = await TestClient.start();
    assert.equal(await client.stop(), 0);
  });
});
