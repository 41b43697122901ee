// A validation that throws (a bug in a rule's support code, a file system surprise) is logged;
// the server goes on answering and validating the other documents. Before this was handled, the
// rejected promise went unobserved, which ends a Node process.
import assert from 'node:assert/strict';
import { createConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import { ApacheConfServer } from '../../server/src/lsp/server';
import { createService, type AnalyzeInput } from '../../server/src/service';
import type { ConfigDocument } from '../../server/src/syntax';
import { TestClient } from './lsp-client';

describe('server resilience (in process)', () => {
  it('a validation that throws is logged, and the server keeps answering', async () => {
    const service = createService();
    const analyze = service.analyze.bind(service);
    service.analyze = (input: AnalyzeInput, doc?: ConfigDocument) => {
      if (input.text.includes('# boom')) throw new Error('boom from a test');
      return analyze(input, doc);
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const client = await TestClient.connect((input, output) => {
      const connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
      new ApacheConfServer(connection, { service }).listen();
    }, { settings: { validate: { debounceMs: 0 } } });
    try {
      const logged: string[] = [];
      client.connection.onNotification('window/logMessage', (p: { message: string }) => {
        logged.push(p.message);
      });
      await client.open('file:///resilience/bad.conf', '# boom\nServerName a\n');
      await client.open('file:///resilience/good.conf', '<Directory /srv>\n    Order allow,deny\n    Allow from all\n</Directory>\n');
      const good = await client.diagnosticsFor('file:///resilience/good.conf', 1);
      assert.ok(good.some((d) => d.code === 'legacy-access'), 'the other document is validated');
      const hover = await client.connection.sendRequest('textDocument/hover', { textDocument: { uri: 'file:///resilience/good.conf' }, position: { line: 1, character: 6 } });
      assert.ok(hover, 'requests are still answered');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
      assert.ok(logged.some((m) => m.includes('[validate]') && m.includes('boom from a test')), `the failure is logged: ${logged.join(' | ')}`);
      // The client shows its log to users: what failed, never a stack trace.
      assert.ok(!logged.some((m) => /\n\s+at /.test(m)), `no stack trace in the log: ${logged.join(' | ')}`);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await client.dispose();
    }
  });
});
