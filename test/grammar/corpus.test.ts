/**
 * The grammar agrees with the parser (which follows httpd's own reader) on
 * every file of the shared corpus: comments are exactly the logical lines the
 * parser calls comments, a directive name is scoped only where a logical line
 * starts, section tags are tags, and quoted words start strings.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parse, type ConfigDocument, type LineNode } from '../../server/src/syntax';
import { corpusFiles, corpusRelative } from '../support/corpus';
import { loadGrammar, tokenizeLines, type LineToken } from './textmate';

const COMMENT = 'comment.line.number-sign.apacheconf';
const NAME = /^keyword\.other\.directive\.(?:deprecated\.)?apacheconf$/;
const TAG = 'entity.name.tag.apacheconf';

/** Scopes by text offset: physical lines split at LF with a CR kept, as the parser sees them. */
class Scoped {
  private readonly tokens: LineToken[][];
  constructor(
    private readonly doc: ConfigDocument,
    g: Awaited<ReturnType<typeof loadGrammar>>,
  ) {
    this.tokens = tokenizeLines(g, doc.text.split('\n'));
  }

  at(offset: number): string[] {
    const starts = this.doc.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const col = offset - starts[lo];
    const t = this.tokens[lo].find((x) => x.startIndex <= col && col < x.endIndex);
    return t ? t.scopes : [];
  }

  /** Offsets in [from, to) that are not blank, a continuation backslash or a line break. */
  *visible(from: number, to: number): Generator<number> {
    const text = this.doc.text;
    for (let i = from; i < to; i++) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
      if (c === '\\' && /^\r?\n/.test(text.slice(i + 1, i + 3))) continue;
      yield i;
    }
  }
}

function where(doc: ConfigDocument, offset: number): string {
  const line = doc.lineStarts.filter((s) => s <= offset).length;
  return `line ${line}`;
}

function check(doc: ConfigDocument, s: Scoped, node: LineNode, problems: string[]): void {
  const say = (offset: number, msg: string): void => {
    problems.push(`${where(doc, offset)}: ${msg}: ${s.at(offset).join(' ')}`);
  };
  switch (node.type) {
    case 'comment':
      for (const i of s.visible(node.start, node.end)) {
        if (!s.at(i).includes(COMMENT)) return say(i, 'part of a comment line is not a comment');
      }
      return;
    case 'directive': {
      for (const i of s.visible(node.start, node.end)) {
        if (s.at(i).includes(COMMENT)) return say(i, 'a comment scope inside a directive');
        const isName = s.at(i).some((x) => NAME.test(x));
        const inName = i >= node.name.start && i < node.name.end;
        // The grammar names only words that look like names; the parser takes any first word.
        if (inName && /^[A-Za-z_][\w.:-]*$/.test(node.name.raw) && !isName) return say(i, 'directive name not scoped');
        if (!inName && isName) return say(i, 'a directive name scope outside the name');
      }
      for (const a of node.args) {
        if (!a.quote) continue;
        const open = s.at(a.start);
        if (!open.some((x) => x.startsWith('string.quoted.'))) return say(a.start, `quoted word ${a.raw} is not a string`);
        if (!a.unterminated && !s.at(a.end - 1).includes('punctuation.definition.string.end.apacheconf')) {
          return say(a.end - 1, `quoted word ${a.raw} does not end where httpd ends it`);
        }
      }
      return;
    }
    case 'open':
    case 'close': {
      for (const i of s.visible(node.start, node.end)) {
        if (s.at(i).includes(COMMENT)) return say(i, 'a comment scope inside a section tag');
      }
      const name = node.type === 'open' ? node.section.name : node.name;
      if (/^[A-Za-z_][\w.:-]*$/.test(name.raw) && !s.at(name.start).includes(TAG)) {
        return say(name.start, 'section name not scoped as a tag');
      }
      return;
    }
    default:
      return;
  }
}

describe('grammar: agrees with the parser on the corpus', () => {
  const files = corpusFiles();
  if (!files.length) {
    it('corpus is present', function () {
      if (process.env.CI === 'true') assert.fail('corpus not found at ../shared/corpus');
      console.log('    (skipped: ../shared/corpus is absent)');
      this.skip();
    });
    return;
  }

  let g: Awaited<ReturnType<typeof loadGrammar>>;
  before(async () => {
    g = await loadGrammar();
  });

  it(`comments, directive names, section tags and strings on ${files.length} files`, () => {
    const problems: string[] = [];
    let lines = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'latin1');
      // A lone CR breaks a line for an editor but not for httpd; such files cannot be compared line by line.
      if (/\r(?!\n)/.test(text)) continue;
      const doc = parse(text);
      const scoped = new Scoped(doc, g);
      const mine: string[] = [];
      for (const node of doc.lines) check(doc, scoped, node, mine);
      lines += doc.lines.length;
      problems.push(...mine.slice(0, 5).map((p) => `${corpusRelative(file)} ${p}`));
    }
    assert.ok(lines > 1000, `only ${lines} logical lines read`);
    assert.deepEqual(problems, []);
  });
});
