/**
 * SpanCache (syntax/strings.ts): values by a stretch of a text, looked up in place. A pair of slots
 * per hash: two texts that share a pair are both kept, a third replaces the one stored longer ago,
 * and a stretch is found by its characters wherever it sits in whatever text.
 */
import assert from 'node:assert/strict';
import { IdCache, lineTextIds, parse, SpanCache, TextIds } from '../../server/src/syntax';

describe('SpanCache', () => {
  it('finds a stretch by its characters, in any text and at any offset', () => {
    const c = new SpanCache<number>(64);
    c.set('xx Allow from all yy', 3, 17, 1);
    assert.equal(c.get('Allow from all', 0, 14), 1);
    assert.equal(c.get('## Allow from all', 3, 17), 1);
    assert.equal(c.get('Allow from alL', 0, 14), undefined);
    assert.equal(c.get('Allow from al', 0, 13), undefined);
    assert.equal(c.get('', 0, 0), undefined);
  });

  // With one pair of slots every text shares it: what is kept shows the replacement order.
  const rows: Array<{ name: string; sets: string[]; kept: string[]; gone: string[] }> = [
    { name: 'two texts of one pair are both kept', sets: ['a', 'b'], kept: ['a', 'b'], gone: [] },
    { name: 'a third replaces the older', sets: ['a', 'b', 'c'], kept: ['b', 'c'], gone: ['a'] },
    { name: 'and then the next older', sets: ['a', 'b', 'c', 'd'], kept: ['c', 'd'], gone: ['a', 'b'] },
    { name: 'storing a kept text again keeps the other', sets: ['a', 'b', 'a', 'c'], kept: ['a', 'c'], gone: ['b'] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const c = new SpanCache<string>(2);
      for (const s of r.sets) c.set(s, 0, s.length, s.toUpperCase());
      for (const s of r.kept) assert.equal(c.get(s, 0, s.length), s.toUpperCase(), `${s} kept`);
      for (const s of r.gone) assert.equal(c.get(s, 0, s.length), undefined, `${s} gone`);
    });
  }

  it('keeps nearly all of thousands of texts in a cache of 16,384 slots (a file of many distinct host rules)', () => {
    const c = new SpanCache<number>(16384);
    const texts = Array.from({ length: 2500 }, (_, i) => `Allow from 10.${i >> 8}.${i & 255}.0/24`);
    texts.forEach((t, i) => c.set(t, 0, t.length, i));
    const found = texts.filter((t, i) => c.get(t, 0, t.length) === i).length;
    assert.ok(found >= 2450, `${found} of 2500 found`);
  });
});

describe('TextIds, lineTextIds and IdCache', () => {
  it('one number per text while the table holds it, and a new one after it was pushed out', () => {
    const t = new TextIds(2);
    const a = t.idOf('x a', 2, 3);
    assert.equal(t.idOf('a', 0, 1), a);
    const b = t.idOf('b', 0, 1);
    assert.notEqual(b, a);
    assert.equal(t.idOf('', 0, 0), 0);
    // One pair of slots: a third text pushes `a` out; met again, it gets a number no text had.
    const c = t.idOf('c', 0, 1);
    const a2 = t.idOf('a', 0, 1);
    assert.ok(![a, b, c].includes(a2), `${a2} was given before`);
  });

  it('lines with the same text get the same number, in any document', () => {
    const one = parse('Order allow,deny\n  Allow from all\n<Directory /x>\n    Allow from all\n  Deny from all\n</Directory>\n');
    const ids = lineTextIds(one, one.linesWithKeys(['order', 'allow', 'deny']));
    assert.equal(ids.length, 4);
    assert.equal(ids[1], ids[2]);
    assert.equal(new Set(ids).size, 3);
    const two = parse('Allow from all\r\nallow from all\n');
    const ids2 = lineTextIds(two, two.linesWithKeys(['allow']));
    assert.equal(ids2[0], ids[1]);
    assert.notEqual(ids2[1], ids[1], 'the text differs in case');
  });

  it('an IdCache starts again empty when full', () => {
    const c = new IdCache<string>(2);
    c.set(1, 'a');
    c.set(2, 'b');
    assert.equal(c.get(1), 'a');
    c.set(3, 'c');
    assert.equal(c.get(1), undefined);
    assert.equal(c.get(3), 'c');
  });
});
