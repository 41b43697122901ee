/**
 * Messages that quote the file's own text stay short whatever the file holds: a directive name,
 * section tag or argument of a million characters (a binary or generated file) is cut around `…`,
 * in the editor and the CLI alike, and normal messages are left as the rules wrote them.
 */
import assert from 'node:assert/strict';
import { createService, shortMessage } from '../../server/src/service';

const HUGE = 1_000_000;

describe('service: messages quoting long text', () => {
  const s = createService();
  const cases: Array<{ name: string; text: string; rule: string }> = [
    { name: 'a directive name of a million characters', text: 'D'.repeat(HUGE) + '\n', rule: 'unknown-directive' },
    { name: 'a section tag of a million characters', text: '<'.repeat(HUGE) + '\n', rule: 'syntax' },
    { name: 'a Require provider of a million characters', text: 'Require ' + 'a"'.repeat(HUGE / 2) + '\n', rule: 'invalid-require' },
    { name: 'a section name of a million characters', text: '<' + 'x'.repeat(HUGE) + '>\n</' + 'x'.repeat(HUGE) + '>\n', rule: 'unknown-directive' },
  ];
  for (const c of cases) {
    it(`${c.name}: every message under 2,000 characters, the rule's still reported`, () => {
      for (const depth of ['quick', 'full'] as const) {
        const a = s.analyze({ text: c.text, uri: 'file:///x/long.conf', depth });
        assert.ok(a.findings.some((f) => f.rule === c.rule), `${depth}: no ${c.rule} finding: ${a.findings.map((f) => f.rule).join(', ')}`);
        for (const f of a.findings) assert.ok(f.message.length <= 2000, `${depth} ${f.rule}: ${f.message.length} characters`);
        for (const d of s.diagnostics(a)) assert.ok(typeof d.message === 'string' && d.message.length <= 2000);
      }
    });
  }

  it('a long run is cut to its head and tail; the words around it are kept', () => {
    const m = shortMessage('`' + 'a'.repeat(500) + 'z` is not an httpd 2.4 directive. ' + 'More words follow here. '.repeat(20));
    assert.equal(m, '`' + 'a'.repeat(119) + '…' + 'a'.repeat(38) + 'z` is not an httpd 2.4 directive. ' + 'More words follow here. '.repeat(20));
  });

  it('a cut never splits a surrogate pair', () => {
    const run = '😀'.repeat(300);
    const m = shortMessage(run + ' tail words. '.repeat(40));
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(m), 'a lone surrogate');
    assert.ok(m.includes('…'));
  });

  it('messages without long runs are unchanged, however long', () => {
    const m = 'word '.repeat(300);
    assert.equal(shortMessage(m), m);
    const long = 'word '.repeat(1000);
    assert.equal(shortMessage(long).length, 2000);
  });
});
