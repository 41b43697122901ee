/**
 * Every rule over every file of the shared corpus (real files from 51
 * projects): nothing throws, nothing is reported as an internal error, and
 * there are no false alarms: no syntax errors, no legacy-access warning inside
 * a branch only httpd 2.2 reads, no removed-directive on a directive that
 * still exists, and no "did you mean" warning on a directive that is right.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createService } from '../../server/src/service';
import { decode } from '../../server/src/syntax';
import { defaultContextFor } from '../../server/src/model/context';
import { in22Branch } from '../../server/src/rules/scope';
import { corpusFiles, corpusRelative, needCorpus } from '../support/corpus';

/** Corpus file names keep the original path with "/" as "__": the context comes from the last part. */
function contextOf(file: string): ReturnType<typeof defaultContextFor> {
  const original = path.basename(file).split('__').pop()!;
  return defaultContextFor(original);
}

describe('rules over the shared corpus', function () {
  before(function () {
    needCorpus(this);
  });

  it('raises no false alarms', () => {
    const service = createService();
    const counts: Record<string, number> = {};
    const problems: string[] = [];
    const files = corpusFiles();
    for (const file of files) {
      const rel = corpusRelative(file);
      const { text } = decode(fs.readFileSync(file));
      const a = service.analyze({ text, uri: 'file:///corpus/' + rel, context: contextOf(file) });
      const byLine = new Map(a.doc.directives.map((d) => [d.start, d]));
      for (const f of a.findings) {
        counts[`${f.rule}/${f.severity}`] = (counts[`${f.rule}/${f.severity}`] ?? 0) + 1;
        const where = `${rel}:${a.doc.lineStarts.findIndex((s, i) => s <= f.start && (a.doc.lineStarts[i + 1] ?? Infinity) > f.start) + 1}`;
        if (/Internal error/.test(f.message)) problems.push(`${where}: ${f.message}`);
        if (f.rule === 'syntax') problems.push(`${where}: syntax: ${f.message}`);
        if (f.rule === 'legacy-access' && f.severity !== 'hint') {
          const d = byLine.get(f.start);
          if (d && in22Branch(d)) problems.push(`${where}: legacy-access ${f.severity} inside a 2.2-only branch`);
        }
        if (f.rule === 'unknown-directive' && f.severity === 'warning') problems.push(`${where}: ${f.message}`);
      }
    }
    console.log(`    ${files.length} files; findings by rule/severity: ${JSON.stringify(counts)}`);
    assert.ok(files.length > 100, 'the corpus has its files');
    assert.deepEqual(problems, []);
  });
});
