/**
 * The parser over every file of the shared corpus (real configuration files
 * from other projects): each one round-trips byte for byte through
 * decode → parse → print → encode, and parses without syntax errors unless it
 * is listed below as really broken (checked by hand against how httpd reads it).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decode, encode, parse, positionAt, print } from '../../server/src/syntax';
import { corpusDir, corpusFiles, corpusRelative } from '../support/corpus';

/**
 * Corpus files that httpd itself would reject, with the syntax error codes we
 * expect. Empty today: every file in the corpus parses cleanly.
 */
const KNOWN_BROKEN: Record<string, string[]> = {};

describe('parser: corpus', () => {
  const files = corpusFiles();
  if (!files.length) {
    it('corpus is present', function () {
      if (process.env.CI === 'true') assert.fail(`corpus not found at ${corpusDir}`);
      console.log('    (skipped: ../shared/corpus is absent)');
      this.skip();
    });
    return;
  }

  it(`has files (${files.length})`, () => assert.ok(files.length > 50));

  for (const file of files) {
    const rel = corpusRelative(file).split(path.sep).join('/');
    it(rel, () => {
      const bytes = fs.readFileSync(file);
      const decoded = decode(bytes);
      const doc = parse(decoded.text);
      assert.equal(print(doc), decoded.text, 'print(parse(text)) === text');
      assert.ok(encode(print(doc), decoded.encoding).equals(bytes), 'bytes survive decode → parse → print → encode');
      const codes = doc.errors.map((e) => e.code);
      const expected = KNOWN_BROKEN[rel] ?? [];
      assert.deepEqual(
        codes,
        expected,
        doc.errors.map((e) => `${e.code} at line ${positionAt(doc, e.start).line + 1}: ${e.message}`).join('\n'),
      );
      // Every logical line is accounted for, end to end.
      let at = 0;
      for (const l of doc.lines) {
        assert.equal(l.lineStart, at);
        at = l.lineEnd;
      }
      assert.equal(at, decoded.text.length);
    });
  }

  it('every listed broken file still exists', () => {
    for (const rel of Object.keys(KNOWN_BROKEN)) assert.ok(fs.existsSync(path.join(corpusDir, rel)), rel);
  });
});
