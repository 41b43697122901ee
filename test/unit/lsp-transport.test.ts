/**
 * The `--stdio` encoder (server/src/lsp/transport.ts) writes the bytes JSON.stringify would give,
 * message after message, into one kept buffer.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ReusedBufferEncoder, diagnosticJson } from '../../server/src/lsp/transport';
import { createService } from '../../server/src/service';

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

const HREF = Object.freeze({ href: 'https://example.invalid/#rule-legacy-access' });
const TAGS = Object.freeze([2]);
/** A diagnostic shaped as the service makes it (the template's case). */
const made = (i: number, extra: Record<string, unknown> = {}) => ({
  range: { start: { line: i, character: 4 }, end: { line: i + 1, character: 0 } },
  severity: 1 + (i % 4),
  code: i % 2 ? 'legacy-access' : 'mixed-access',
  codeDescription: HREF,
  source: 'apacheconf',
  message: `line ${i % 7}: \`Allow from 10.0.0.${i % 5}\` — “é” \\ "quoted"\t\u0001 🎉`,
  ...(i % 3 ? { tags: TAGS } : {}),
  ...extra,
});

/** Diagnostics the template must hand to JSON.stringify, or write the same way. */
const DIAGNOSTIC_ROWS: Array<{ name: string; list: () => unknown[] }> = [
  { name: 'made as the service makes them (frozen link and tags), with and without tags', list: () => Array.from({ length: 300 }, (_, i) => made(i)) },
  { name: 'with related information or data (left to JSON.stringify)', list: () => Array.from({ length: 40 }, (_, i) => made(i, i % 2 ? { relatedInformation: [{ message: 'm', location: { uri: 'file:///x', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } } }] } : { data: { kind: 'x' } })) },
  { name: 'keys in another order', list: () => Array.from({ length: 40 }, (_, i) => { const { message, range, ...rest } = made(i); return { message, range, ...rest }; }) },
  { name: 'a position that is not an integer, a numeric code, an undefined key', list: () => Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? { ...made(i), range: { start: { line: 0.5, character: 1 }, end: { line: 1, character: 1e21 } } } : i % 3 === 1 ? { ...made(i), code: 42 } : { ...made(i), tags: undefined })) },
  { name: 'a link object that is not frozen, or frozen around a mutable value', list: () => Array.from({ length: 40 }, (_, i) => made(i, { codeDescription: i % 2 ? { href: 'https://a.invalid/' + i } : Object.freeze({ href: 'h', more: { n: i } }) })) },
  { name: 'a position with an extra key, a range with an extra key', list: () => Array.from({ length: 40 }, (_, i) => ({ ...made(i), range: i % 2 ? { start: { line: 1, character: 2, x: 1 }, end: { line: 1, character: 3 } } : { start: { line: 1, character: 2 }, end: { line: 1, character: 3 }, x: 0 } })) },
];

describe('lsp transport: diagnostics written from the template', () => {
  for (const row of DIAGNOSTIC_ROWS) {
    it(row.name, () => {
      const enc = new ReusedBufferEncoder();
      const msg = { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///a.conf', diagnostics: row.list() } };
      assert.equal(enc.bytesOf(msg).toString('utf8'), JSON.stringify(msg));
    });
  }

  it('a link object changed between two messages is written as it is now', () => {
    const enc = new ReusedBufferEncoder();
    const link = { href: 'https://a.invalid/one' };
    const list = Array.from({ length: 20 }, (_, i) => made(i, { codeDescription: link }));
    enc.bytesOf({ list });
    link.href = 'https://a.invalid/two';
    assert.equal(enc.bytesOf({ list }).toString('utf8'), JSON.stringify({ list }));
  });

  it('any diagnostic-shaped value is written as JSON.stringify writes it (property)', () => {
    const enc = new ReusedBufferEncoder();
    const pos = fc.record({ line: fc.oneof(fc.integer(), fc.double()), character: fc.integer({ min: -1, max: 1e9 }) });
    const diag = fc.record(
      {
        range: fc.record({ start: pos, end: pos }),
        severity: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.double()),
        code: fc.oneof(fc.string(), fc.integer()),
        codeDescription: fc.oneof(fc.constant(HREF), fc.record({ href: fc.string() })),
        source: fc.string(),
        message: fc.string({ unit: 'binary' }),
        tags: fc.oneof(fc.constant(TAGS), fc.array(fc.integer({ min: 1, max: 2 }))),
      },
      { requiredKeys: ['range', 'severity', 'code', 'codeDescription', 'source', 'message'] },
    );
    fc.assert(
      fc.property(fc.array(diag, { minLength: 16, maxLength: 200 }), (diagnostics) => {
        const msg = { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: 'file:///p', diagnostics } };
        assert.equal(enc.bytesOf(msg).toString('utf8'), JSON.stringify(msg));
      }),
      { numRuns: 200 },
    );
  });
});

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

describe('lsp transport: the template is used', () => {
  it('a diagnostic as the service makes it gets the template, anything else none', () => {
    assert.equal(diagnosticJson(made(3)), JSON.stringify(made(3)));
    assert.equal(diagnosticJson({ ...made(3), data: 1 }), undefined);
    assert.equal(diagnosticJson([1, 2]), undefined);
    assert.equal(diagnosticJson(null), undefined);
  });

  it("the service's own diagnostics of a 2.2 file all get it", () => {
    const s = createService();
    const text = ['<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Allow from 10.0.0.0/8', '  AuthzLDAPAuthoritative on', '</Directory>', 'Frobnicate x', ''].join('\n');
    const ds = s.diagnostics(s.analyze({ text, uri: 'file:///t/x.conf', depth: 'quick' })).filter((d) => !d.relatedInformation && d.data === undefined);
    assert.ok(ds.length >= 3, `${ds.length} diagnostics`);
    for (const d of ds) assert.equal(diagnosticJson(d), JSON.stringify(d), JSON.stringify(d));
  });
});
