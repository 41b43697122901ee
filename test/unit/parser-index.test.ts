/**
 * The tree's index: a parsed file keeps its lines in columns and makes a line's node when it is
 * first asked for (ConfigDocument.lineAt, lines, directives, children, directivesWithKey). Whatever
 * is asked first, the same tree must come out: every line in exactly one list of children, in
 * order, each child's parent the section that holds it, one node per line, and the lookups by
 * key and by offset answering as a scan of every line would.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fc from 'fast-check';
import {
  directiveAt,
  directiveStartingAt,
  directivesNamed,
  directivesWhere,
  parse,
  sectionOpenedAt,
  type ChildNode,
  type ConfigDocument,
  type DirectiveNode,
  type LineNode,
  type SectionNode,
} from '../../server/src/syntax';
import { generateConfig } from '../../bench/run';
import { corpusFiles, needCorpus } from '../support/corpus';

/** The tree as plain data, reached through `children` from the top (open tags through their sections). */
function shapeByChildren(doc: ConfigDocument): unknown[] {
  const one = (ch: ChildNode): unknown =>
    ch.type === 'section'
      ? { section: ch.key, args: ch.args.map((a) => a.raw), line: ch.open.line, close: ch.close?.line ?? null, depth: ch.depth, kids: ch.children.map(one) }
      : { type: ch.type, start: ch.start, end: ch.end, parent: ch.parent?.open.line ?? null, ...(ch.type === 'directive' ? { key: ch.key, args: ch.args.map((a) => a.value) } : {}) };
  return doc.children.map(one);
}

/** Every check on one text; `order` says which entry point is used first. */
function check(text: string, order: 'lines' | 'children' | 'keys'): void {
  const doc = parse(text);
  if (order === 'children') shapeByChildren(doc);
  if (order === 'keys') for (const k of doc.directiveKeys) doc.directivesWithKey(k);
  const lines = doc.lines;
  assert.equal(lines.length, doc.lineCount);
  for (let i = 0; i < lines.length; i++) {
    assert.equal(doc.lineAt(i), lines[i], `line ${i}: one node per line`);
    assert.equal(doc.lineType(i), lines[i].type);
    assert.equal(lines[i].lineIndex, i);
    if (i > 0) assert.equal(lines[i].lineStart, lines[i - 1].lineEnd, 'lines cover the text end to end');
  }
  // Every line sits in exactly one list of children: its parent's (an open tag as its section).
  const seen = new Set<LineNode>();
  const visit = (list: readonly ChildNode[], owner: SectionNode | null): void => {
    let last = -1;
    for (const ch of list) {
      const node: LineNode = ch.type === 'section' ? ch.open : ch;
      assert.ok(node.lineIndex > last, 'children in document order');
      last = node.lineIndex;
      assert.equal(ch.parent, owner, 'a child names the section that holds it');
      assert.ok(!seen.has(node), 'a line in one list only');
      seen.add(node);
      if (ch.type === 'section') {
        assert.equal(ch.open.section, ch);
        assert.equal(ch.lineIndex, ch.open.lineIndex);
        if (ch.close) {
          assert.equal(ch.close.section, ch);
          assert.equal(ch.close.parent, ch);
          assert.equal(ch.children[ch.children.length - 1], ch.close, 'a closing tag ends its section');
        }
        visit(ch.children, ch);
      }
    }
  };
  visit(doc.children, null);
  assert.equal(seen.size, lines.length, 'every line is reached from the top');
  // Sections in document order, each once.
  assert.deepEqual(doc.sections.map((s) => s.lineIndex), lines.filter((l) => l.type === 'open').map((l) => l.lineIndex));
  // Directives and their index by key.
  const directives = lines.filter((l) => l.type === 'directive');
  assert.deepEqual(doc.directives, directives);
  assert.deepEqual([...doc.directiveKeys].sort(), [...new Set(directives.map((d) => d.key))].sort());
  for (const k of doc.directiveKeys) {
    assert.deepEqual(doc.directivesWithKey(k), directives.filter((d) => d.key === k));
    assert.deepEqual([...doc.linesWithKeys([k])], directives.filter((d) => d.key === k).map((d) => d.lineIndex));
  }
  for (const i of doc.linesWithKeys(doc.directiveKeys)) {
    assert.equal(doc.keyOf(i), (lines[i] as DirectiveNode).key);
    assert.equal(doc.startOf(i), lines[i].start);
    assert.equal(doc.endOf(i), lines[i].end);
    assert.equal(doc.parentOf(i), lines[i].parent);
  }
  assert.deepEqual([...doc.linesWithKeys(['no-such-directive'])], []);
  assert.deepEqual(doc.directivesWithKey('no-such-directive'), []);
  const two = doc.directiveKeys.slice(0, 2);
  assert.deepEqual(directivesNamed(doc, ...two), directives.filter((d) => two.includes(d.key)));
  assert.deepEqual([...doc.linesWithKeys(two)], directives.filter((d) => two.includes(d.key)).map((d) => d.lineIndex));
  // Several keys merged in document order, whatever their order, a key named twice or one the file lacks.
  assert.deepEqual([...doc.linesWithKeys(doc.directiveKeys)], directives.map((d) => d.lineIndex));
  const some = [...doc.directiveKeys.slice(0, 4)].reverse();
  const asked = [...some, 'no-such-directive', ...some.slice(0, 1)];
  assert.deepEqual([...doc.linesWithKeys(asked)], directives.filter((d) => some.includes(d.key)).map((d) => d.lineIndex));
  assert.deepEqual(directivesWhere(doc, (k) => k.startsWith('a')), directives.filter((d) => d.key.startsWith('a')));
  // Lookups by offset.
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    for (const at of new Set([l.lineStart, l.start, Math.max(l.lineStart, l.end - 1), Math.max(l.lineStart, l.lineEnd - 1)])) {
      if (at >= l.lineEnd) continue;
      assert.equal(doc.lineIndexAt(at), i, `offset ${at} lies in line ${i}`);
      const d = directives.find((x) => x.start <= at && at < Math.max(x.end, x.start + 1));
      assert.equal(directiveAt(doc, at), d);
      assert.equal(directiveStartingAt(doc, at), directives.find((x) => x.start === at));
      assert.equal(sectionOpenedAt(doc, at), doc.sections.find((s) => s.open.start === at));
    }
  }
  // The same tree whichever way it was reached first.
  assert.deepEqual(shapeByChildren(doc), shapeByChildren(parse(text)));
}

const TEXTS: Array<{ name: string; text: string }> = [
  { name: 'empty', text: '' },
  { name: 'blank lines only', text: '\n\n  \n' },
  { name: 'nested scopes and transparent sections', text: 'Order allow,deny\n<IfModule !mod_authz_core.c>\n  Allow from all\n  <Directory /a>\n    <Limit GET>\n      Deny from 10.1\n    </Limit>\n    Require ip 10.2\n  </Directory>\n</IfModule>\nRequire local\n' },
  { name: 'unclosed and mismatched sections', text: '<Directory /a>\n  <IfModule x>\n    Allow from all\n  </Directory>\n<Location /b>\n  Deny from all\n  <IfVersion >= 2.4>\n    Require all denied' },
  { name: 'stray closing tags', text: '</Directory>\nAllow from all\n<Files x>\n</Location>\nDeny from all\n</Files>\n</Files>\n' },
  { name: 'continuations, quotes, CRLF and a BOM', text: '\ufeffServerName a\r\n<Directory "/srv/a b">\r\n  Require \\\r\n    ip 10.1\r\n  "Quoted\\"Name" x\r\n</Directory>\r\n# a comment \\\r\n continued\r\n' },
  { name: 'a nest 300 deep', text: '<IfModule a>\n'.repeat(300) + 'Deny from all\n' + '</IfModule>\n'.repeat(300) },
  { name: 'a generated file', text: generateConfig(800, 5) },
];

describe('parser: the tree made on demand', () => {
  for (const t of TEXTS) {
    for (const order of ['lines', 'children', 'keys'] as const) {
      it(`${t.name}, asked for ${order} first`, () => check(t.text, order));
    }
  }

  it('random files of tags, directives, comments and continuations', () => {
    const line = fc.constantFrom(
      '<Directory /a>', '<Location "/b c">', '<IfModule x.c>', '<RequireAll>', '</Directory>', '</Location>', '</IfModule>', '</RequireAll>', '</Files>',
      'Allow from all', 'deny from 10.1', 'Require all granted', 'ServerName x', '"Odd\\"Name" y', '# comment', '   ', '', 'Order \\', '  deny,allow', '<', '<Files', '</>',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('lines', 'children', 'keys'), (ls, eol, order) => {
        check(ls.join(eol), order as 'lines' | 'children' | 'keys');
      }),
      { numRuns: 400 },
    );
  });

  it('every corpus file', function () {
    needCorpus(this);
    let n = 0;
    for (const file of corpusFiles()) check(fs.readFileSync(file, 'latin1'), (['lines', 'children', 'keys'] as const)[n++ % 3]);
    assert.ok(n > 100, `${n} corpus files`);
  });
});
