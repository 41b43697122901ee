/**
 * Every editor feature over every file of the shared corpus: nothing throws,
 * and the results keep their structural promises (ranges inside the text,
 * children inside parents, chains that grow).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DocumentSymbol, Range, SelectionRange } from 'vscode-languageserver-types';
import { offsetAt, parse, type ConfigDocument } from '../../server/src/syntax';
import { documentSymbols } from '../../server/src/features/symbols';
import { foldingRanges } from '../../server/src/features/folding';
import { selectionRanges } from '../../server/src/features/selection';
import { documentLinks } from '../../server/src/features/links';
import { defaultContextFor } from '../../server/src/model/context';
import { corpusFiles } from '../support/corpus';

function span(doc: ConfigDocument, r: Range): [number, number] {
  return [offsetAt(doc, r.start), offsetAt(doc, r.end)];
}

function checkSymbols(doc: ConfigDocument, list: DocumentSymbol[], parent?: [number, number]): number {
  let n = 0;
  for (const s of list) {
    const r = span(doc, s.range);
    const sel = span(doc, s.selectionRange);
    assert.ok(r[0] <= sel[0] && sel[1] <= r[1], `${s.name}: selection outside range`);
    if (parent) assert.ok(parent[0] <= r[0] && r[1] <= parent[1], `${s.name}: outside its parent`);
    assert.ok(s.name.length > 0);
    n += 1 + checkSymbols(doc, s.children ?? [], r);
  }
  return n;
}

describe('feature: every feature over the corpus', () => {
  const files = corpusFiles();
  if (!files.length) {
    it('corpus is present', function () {
      if (process.env.CI === 'true') assert.fail('corpus not found at ../shared/corpus');
      console.log('    (skipped: ../shared/corpus is absent)');
      this.skip();
    });
    return;
  }

  it(`symbols, folding, selection ranges and links on ${files.length} files`, () => {
    let symbols = 0;
    let folds = 0;
    let links = 0;
    for (const f of files) {
      const name = path.basename(f);
      const text = fs.readFileSync(f, 'latin1');
      const doc = parse(text);
      symbols += checkSymbols(doc, documentSymbols(doc));

      const lastLine = doc.lineStarts.length - 1;
      for (const r of foldingRanges(doc)) {
        assert.ok(r.startLine < r.endLine && r.endLine <= lastLine, `${name}: fold ${r.startLine}-${r.endLine}`);
        folds++;
      }

      // Selection ranges at every line start and every word start.
      const offsets: number[] = [];
      for (const n of doc.lines) offsets.push(n.lineStart, n.start);
      for (const d of doc.directives) for (const a of d.args) offsets.push(a.start, a.end);
      const chains = selectionRanges(doc, offsets);
      assert.equal(chains.length, offsets.length);
      for (const c of chains) {
        let prev: [number, number] | undefined;
        for (let s: SelectionRange | undefined = c; s; s = s.parent) {
          const sp = span(doc, s.range);
          if (prev) assert.ok(sp[0] <= prev[0] && prev[1] <= sp[1], `${name}: selection chain shrinks`);
          prev = sp;
        }
        assert.deepEqual(prev, [0, text.length], `${name}: chain ends at the document`);
      }

      for (const l of documentLinks(doc, { baseDir: '/etc/httpd/conf', serverRoot: defaultContextFor(f) === 'server' ? '/etc/httpd' : undefined })) {
        const [s, e] = span(doc, l.range);
        assert.ok(s < e, `${name}: empty link`);
        assert.match(l.target!, /^file:\/\//);
        links++;
      }
    }
    assert.ok(symbols > 0 && folds > 0 && links > 0, `symbols ${symbols}, folds ${folds}, links ${links}`);
  });
});
