/**
 * The `--stdio` transport of dist/server.js: its own encoder (server/src/lsp/transport.ts) sends
 * large publications intact, and nothing the code prints reaches the protocol's stdout.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateConfig } from '../../bench/run';
import { createService } from '../../server/src/service';
import { TestClient, SERVER_JS, ensureServerBuilt } from './lsp-client';

describe('protocol: the --stdio transport', function () {
  this.timeout(60000);

  it('sends a publication of thousands of diagnostics exactly as the service makes them, change after change', async () => {
    const client = await TestClient.start();
    try {
      const uri = 'file:///protocol-test/stdio/large.conf';
      const text = generateConfig(3000, 11);
      await client.open(uri, text);
      const first = await client.waitForDiagnostics(uri, (p) => p.version === 1);
      const want = createService().diagnostics(createService().analyze({ text, uri, depth: 'quick' }));
      assert.ok(want.length > 500, `${want.length} diagnostics`);
      // The first publication is the quick pass's (the full pass may publish again after it).
      assert.deepEqual(JSON.parse(JSON.stringify(first.diagnostics)), JSON.parse(JSON.stringify(want)));
      // A smaller publication after a larger one, then a larger one again: each arrives whole.
      const small = '<Directory /x>\n  Deny from all\n</Directory>\n';
      await client.setText(uri, small);
      const second = await client.waitForDiagnostics(uri, (p) => p.version === 2);
      assert.deepEqual(second.diagnostics.map((d) => d.code), ['legacy-access']);
      await client.setText(uri, text);
      const third = await client.waitForDiagnostics(uri, (p) => p.version === 3);
      assert.equal(third.diagnostics.length, want.length);
    } finally {
      await client.dispose();
    }
  });

  it('keeps console output off stdout: console.log goes to the client log, console.table to stderr', async () => {
    ensureServerBuilt();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-stdio-'));
    const script = path.join(dir, 'start.js');
    fs.writeFileSync(
      script,
      [
        "process.argv.push('--stdio');",
        `require(${JSON.stringify(SERVER_JS)}).startServer();`,
        "setTimeout(() => { console.table([{ a: 1 }]); console.dir({ x: 1 }); console.log('hello from console.log'); }, 200);",
      ].join('\n'),
    );
    const proc = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += String(d)));
    proc.stderr.on('data', (d) => (err += String(d)));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    proc.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await new Promise((r) => setTimeout(r, 1500));
    proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    // stdout is nothing but framed messages.
    const messages: Array<{ method?: string; params?: { message?: string } }> = [];
    let rest = out;
    while (rest.length) {
      const m = /^Content-Length: (\d+)\r\n\r\n/.exec(rest);
      assert.ok(m, `stdout holds something else than a message: ${JSON.stringify(rest.slice(0, 80))}`);
      const start = m[0].length;
      const len = Number(m[1]);
      messages.push(JSON.parse(Buffer.from(rest.slice(start)).subarray(0, len).toString('utf8')));
      rest = Buffer.from(rest.slice(start)).subarray(len).toString('utf8');
    }
    assert.ok(messages.some((x) => x.method === 'window/logMessage' && x.params?.message === 'hello from console.log'), 'console.log reaches the client log');
    assert.match(err, /┌/, 'console.table writes to stderr');
  });
});
