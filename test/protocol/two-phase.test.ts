// The server publishes twice for a small file: first the quick pass (no access-engine request
// checks), at once, then the full pass for the same version when it says more. A change made
// before the full pass runs makes that pass stale: it must not publish for the old version.
import assert from 'node:assert/strict';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { TestClient, applyTo, ensureServerBuilt } from './lsp-client';
import { generateConfig } from '../../bench/run';

// Order allow,deny with Deny from all: the Allow can never match (access-intent), which only the
// access engine's request-point check finds.
const NEVER_MATCHES = '<Directory "/srv/app">\n    Order allow,deny\n    Allow from 10.1.2.3\n    Deny from all\n</Directory>\n';
/** `count` lines of virtual hosts whose 2.2 blocks all have exact fixes (nothing overlaps them). */
function fixableHosts(count: number): string {
  // A whole configuration (without a Listen line httpd runs no file: it would be one another includes).
  const lines: string[] = ['Listen 80'];
  for (let i = 0; lines.length < count; i++) {
    lines.push(`<VirtualHost *:80>`, `    ServerName site${i}.example.com`, `    <Directory /srv/site${i}>`, '        Order allow,deny', '        Allow from all', '    </Directory>');
    lines.push(`    <Directory /srv/site${i}/admin>`, '        Order deny,allow', '        Deny from all', '        Allow from 127.0.0.1', '    </Directory>', '</VirtualHost>', '');
  }
  return lines.join('\n');
}
const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code));
let nextId = 0;
const uniqueUri = () => `file:///protocol-test/two-phase/${++nextId}/httpd.conf`;

describe('two-phase diagnostics (dist/server.js over stdio)', function () {
  let client: TestClient;
  before(async function () {
    ensureServerBuilt();
    client = await TestClient.start({ settings: { validate: { debounceMs: 0 } } });
  });
  after(async () => {
    if (client) await client.dispose();
  });

  it('publishes the quick pass first, then the full pass for the same version', async () => {
    const uri = uniqueUri();
    await client.open(uri, NEVER_MATCHES);
    const first = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    assert.ok(codes(first.diagnostics).includes('legacy-access'), 'the quick pass has the legacy-access findings');
    assert.ok(!codes(first.diagnostics).includes('access-intent'), 'the quick pass leaves out the request-point check');
    const full = await client.waitForDiagnostics(uri, (p) => p.version === 1 && codes(p.diagnostics).includes('access-intent'));
    const list = client.publishedFor(uri);
    assert.ok(list.indexOf(full) > list.indexOf(first), 'the full pass comes after the quick one');
    const intent = full.diagnostics.find((d) => d.code === 'access-intent')!;
    assert.equal(intent.range.start.line, 2, 'access-intent sits on the Allow that can never match');
  });

  it('does not publish a stale full pass after the document changed', async () => {
    const uri = uniqueUri();
    await client.open(uri, NEVER_MATCHES);
    // Change at once: the full pass for version 1 must give way to version 2.
    const v2 = await client.change(uri, [{ text: '<Directory "/srv/app">\n    Require all denied\n</Directory>\n' }]);
    const last = await client.waitForDiagnostics(uri, (p) => p.version === v2);
    assert.deepEqual(codes(last.diagnostics), []);
    // Let any pending timer fire, then check nothing for version 1 came after version 2.
    await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 5 } });
    const list = client.publishedFor(uri);
    const at = list.indexOf(last);
    assert.ok(list.slice(at + 1).every((p) => p.version === v2), `no publication for an older version after version ${v2}`);
  });

  it('answers requests while the full pass of a large file runs (it runs in a worker thread)', async () => {
    // 2,500 generated lines: hundreds of 2.2 access blocks, whose full pass takes far longer than a hover.
    const uri = uniqueUri();
    await client.open(uri, generateConfig(2500, 7));
    const quick = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    const order: string[] = [];
    // The full pass publishes again.
    const full = client
      .waitForDiagnostics(uri, (p) => p.version === 1 && p !== quick)
      .then((p) => {
        order.push('full pass');
        return p;
      });
    await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 5 } });
    order.push('hover');
    const published = await full;
    assert.deepEqual(order, ['hover', 'full pass'], 'the hover is answered before the full pass publishes');
    // It publishes only when it says more than the quick pass: here the access engine's verdicts.
    const quickMessages = new Set(quick.diagnostics.map((d) => d.message));
    assert.ok(published.diagnostics.some((d) => d.code === 'legacy-access' && !quickMessages.has(d.message)), 'the full pass adds the engine\'s verdicts to the messages');
  });

  it('answers a hover sent after a code action first, while the code action waits for the full pass in the worker', async () => {
    // 2,500 lines of virtual hosts whose 2.2 blocks all have exact fixes; the full pass that
    // finds them takes far longer than a hover.
    const text = fixableHosts(2500);
    const expected = text
      .replace(/ {8}Order allow,deny\n {8}Allow from all\n/g, '        Require all granted\n')
      .replace(/ {8}Order deny,allow\n {8}Deny from all\n {8}Allow from 127\.0\.0\.1\n/g, '        Require ip 127.0.0.1\n');
    const uri = uniqueUri();
    await client.open(uri, text);
    await client.waitForDiagnostics(uri, (p) => p.version === 1);
    const order: string[] = [];
    // Fix-all applies the exact fixes, which only the full pass has: computed on the main thread,
    // the code action would hold the hover behind it.
    const action = client.connection
      .sendRequest<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [], only: ['source.fixAll'] },
      })
      .then((actions) => {
        order.push('codeAction');
        return actions;
      });
    await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 5 } });
    order.push('hover');
    const actions = await action;
    assert.deepEqual(order, ['hover', 'codeAction'], 'the hover is answered before the code action');
    assert.deepEqual(actions.map((a) => a.kind), ['source.fixAll.apacheconf']);
    assert.ok(expected !== text);
    assert.equal(applyTo(client.doc(uri), actions[0].edit!), expected, 'the fix-all has every exact fix');
  });

  it('answers a code action whose document changed while the full pass ran with no edits (they would land in the wrong place)', async () => {
    const uri = uniqueUri();
    await client.open(uri, fixableHosts(2500));
    await client.waitForDiagnostics(uri, (p) => p.version === 1);
    const action = client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    });
    // One more line at the top shifts every edit the code action would have made for version 1.
    await client.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# moved\n' }]);
    assert.deepEqual(await action, []);
  });

  it('keeps the fixes of a code action when the settings change while it waits (the same version is analysed again)', async () => {
    const uri = uniqueUri();
    const text = fixableHosts(2500);
    await client.open(uri, text);
    await client.waitForDiagnostics(uri, (p) => p.version === 1);
    const action = client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    });
    // New settings: every open document is analysed again, its text unchanged.
    client.settings = { ...(client.settings ?? {}), validate: { debounceMs: 0 } };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await client.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 5 } });
    const actions = await action;
    assert.deepEqual(actions.map((a) => a.kind), ['source.fixAll.apacheconf']);
    assert.notEqual(applyTo(client.doc(uri), actions[0].edit!), text);
  });
});
