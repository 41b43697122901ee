/**
 * SpanCache (syntax/strings.ts): values by a stretch of a text, looked up in place. A pair of slots
 * per hash: two texts that share a pair are both kept, a third replaces the one stored longer ago,
 * and a stretch is found by its characters wherever it sits in whatever text.
 */
import assert from 'node:assert/strict';
import { SpanCache } from '../../server/src/syntax';

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
