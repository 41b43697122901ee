/**
 * The `--stdio` encoder (server/src/lsp/transport.ts) writes the bytes JSON.stringify would give,
 * message after message, into one kept buffer.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ReusedBufferEncoder } from '../../server/src/lsp/transport';

const diagnostic = (i: number) => ({
  range: { start: { line: i, character: 4 }, end: { line: i, character: 17 } },
  severity: 2,
  code: 'legacy-access',
  codeDescription: { href: 'https://example.invalid/#rule-legacy-access' },
  source: 'apacheconf',
  message: `\`Deny from all\` line ${i} — “quoted” \\ back\nslash 🎉`,
  tags: [2],
  data: undefined,
});

class WithToJson {
  toJSON() {
    return { made: 'by toJSON' };
  }
}

const TABLE: Array<{ name: string; value: unknown }> = [
  { name: 'a publishDiagnostics with 3,000 diagnostics', value: { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///a b.conf', version: 7, diagnostics: Array.from({ length: 3000 }, (_, i) => diagnostic(i)) } } },
  { name: 'an empty list', value: { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///x', diagnostics: [] } } },
  { name: 'a response with a null result', value: { jsonrpc: '2.0', id: 3, result: null } },
  { name: 'undefined, functions and symbols left out of objects, null in arrays', value: { jsonrpc: '2.0', id: 1, result: { a: undefined, b: () => 1, c: Symbol('s'), d: Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? undefined : i % 3 === 1 ? () => i : i)) } } },
  { name: 'toJSON is honoured at every depth', value: { jsonrpc: '2.0', id: 2, result: { when: new Date(0), own: new WithToJson(), list: Array.from({ length: 20 }, () => new WithToJson()) } } },
  { name: 'a list nested in a list item', value: { jsonrpc: '2.0', id: 4, result: { items: Array.from({ length: 40 }, (_, i) => ({ label: `item ${i}`, tags: Array.from({ length: 30 }, (_, j) => j) })) } } },
  { name: 'a first key left out', value: { jsonrpc: '2.0', id: 5, result: { gone: undefined, kept: 1 } } },
  { name: 'a top-level array', value: Array.from({ length: 50 }, (_, i) => ({ i })) },
  { name: 'a bare string and a bare undefined', value: 'text' },
  { name: 'undefined at the top', value: undefined },
];

describe('lsp transport: the reused-buffer encoder', () => {
  for (const row of TABLE) {
    it(row.name, () => {
      const enc = new ReusedBufferEncoder();
      const want = Buffer.from(JSON.stringify(row.value) ?? 'null', 'utf8');
      assert.equal(enc.bytesOf(row.value).toString('utf8'), want.toString('utf8'));
      // A second, smaller message after a large one is not followed by the large one's tail.
      assert.equal(enc.bytesOf({ small: true }).toString('utf8'), '{"small":true}');
      assert.deepEqual(enc.bytesOf(row.value), want);
    });
  }

  it('encode() answers the message writer with the same bytes', async () => {
    const enc = new ReusedBufferEncoder();
    const msg = { jsonrpc: '2.0' as const, id: 9, result: { items: Array.from({ length: 100 }, (_, i) => ({ label: 'é'.repeat(i) })) } };
    const got = await enc.encode(msg, { charset: 'utf-8' });
    assert.equal(Buffer.from(got).toString('utf8'), JSON.stringify(msg));
  });

  it('any JSON value comes out as JSON.stringify writes it (property)', () => {
    const enc = new ReusedBufferEncoder();
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined)), { minLength: 16, maxLength: 300 }), (v, list) => {
        const msg = { jsonrpc: '2.0', id: 1, result: { v, list } };
        assert.equal(enc.bytesOf(msg).toString('utf8'), JSON.stringify(msg));
      }),
      { numRuns: 300 },
    );
  });
});
