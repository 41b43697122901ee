/**
 * Property tests with fast-check (fixed seeds, so a failure reproduces):
 * slices of real configuration files, mutated the ways files really break
 * (flipped characters, stray `<` `>` `\` `"` `#`, line breaks, CR and NUL,
 * deleted spans, duplicated and truncated lines), then parsed and analysed.
 *
 * For every input: parse never throws, print(parse(x)) === x, every node's
 * range lies inside the text, and service.analyze never throws; text with a
 * NUL always gets a `binary` finding. Plus the extremes: 5,000 nested
 * sections and a 1 MB line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parse, print, type ConfigDocument, type Token } from '../../server/src/syntax';
import { createService } from '../../server/src/service';
import { FILE_CONTEXTS } from '../../server/src/model/context';
import { evalCondition } from '../../server/src/access/evaluate';
import { corpusDir, corpusFiles, filesUnder } from '../support/corpus';

const repo = path.resolve(__dirname, '../..');

/** Seed texts: the corpus, or the bundled examples when the corpus is absent. */
function seeds(): { texts: string[]; fromCorpus: boolean } {
  const files = corpusFiles();
  if (files.length) return { texts: files.map((f) => fs.readFileSync(f, 'latin1')), fromCorpus: true };
  return { texts: filesUnder(path.join(repo, 'examples')).map((f) => fs.readFileSync(f, 'latin1')), fromCorpus: false };
}

/** Every range the tree hands out must lie inside the text and be ordered. */
function checkRanges(doc: ConfigDocument, n: number): void {
  const inText = (s: number, e: number, what: string): void => {
    if (!(Number.isInteger(s) && Number.isInteger(e) && 0 <= s && s <= e && e <= n)) {
      assert.fail(`${what}: range [${s}, ${e}) outside [0, ${n}]`);
    }
  };
  const token = (t: Token, what: string): void => inText(t.start, t.end, `${what} ${JSON.stringify(t.raw.slice(0, 40))}`);
  for (const l of doc.lines) {
    inText(l.lineStart, l.lineEnd, 'line');
    inText(l.start, l.end, 'line content');
    if (l.start < l.lineStart || l.end > l.lineEnd) assert.fail(`line ${l.line}: content outside its line`);
  }
  for (const d of doc.directives) {
    token(d.name, 'directive name');
    for (const a of d.args) token(a, 'argument');
  }
  for (const s of doc.sections) {
    token(s.name, 'section name');
    for (const a of s.args) token(a, 'section argument');
    inText(s.open.start, s.open.end, 'open tag');
    if (s.close) {
      inText(s.close.start, s.close.end, 'close tag');
      if (s.close.start < s.open.end) assert.fail('a section closes before it opens');
    }
  }
  for (const e of doc.errors) inText(e.start, e.end, `error ${e.code}`);
  for (let i = 1; i < doc.lineStarts.length; i++) {
    if (!(doc.lineStarts[i] > doc.lineStarts[i - 1] && doc.lineStarts[i] <= n)) assert.fail('line starts not increasing');
  }
}

const service = createService();

/** The whole property for one text. */
function checkText(text: string, context: (typeof FILE_CONTEXTS)[number]): void {
  const doc = parse(text);
  if (print(doc) !== text) assert.fail('print(parse(x)) !== x');
  let at = 0;
  for (const l of doc.lines) {
    if (l.lineStart !== at) assert.fail(`gap or overlap at offset ${at}`);
    at = l.lineEnd;
  }
  if (at !== text.length) assert.fail('lines do not cover the text');
  checkRanges(doc, text.length);
  const a = service.analyze({ text, uri: 'file:///fuzz/site.conf', context }, doc);
  for (const f of a.findings) {
    if (!(0 <= f.start && f.start <= f.end && f.end <= text.length)) assert.fail(`finding ${f.rule} outside the text`);
    if (/^Internal error in rule/.test(f.message)) assert.fail(`${f.rule} threw: ${f.message}`);
  }
  if (text.includes('\u0000') && !a.findings.some((f) => f.rule === 'syntax' && f.data?.kind === 'binary')) {
    assert.fail('a text with NUL has no binary finding');
  }
}

// ---- mutations

const SPECIAL = ['<', '>', '\\', '"', "'", '#', '\n', '\r', '\r\n', '\u0000', '\\\n', '\\\r\n', ' ', '\t', '</Directory>', '<Directory /x>', '<IfModule !mod_authz_core.c>', '</IfModule>', 'Order deny,allow\n', 'Allow from all\n', 'Require all granted\n', 'é', '😀', '\uFEFF'];

type Mutation =
  | { kind: 'flip'; at: number; code: number }
  | { kind: 'insert'; at: number; s: string }
  | { kind: 'delete'; at: number; len: number }
  | { kind: 'dupLine'; at: number; times: number }
  | { kind: 'cutLine'; at: number }
  | { kind: 'truncate'; at: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), code: fc.oneof(fc.integer({ min: 0, max: 127 }), fc.integer({ min: 0, max: 0xffff })) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), s: fc.constantFrom(...SPECIAL) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('dupLine' as const), at: fc.nat(), times: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('cutLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function lineAround(text: string, at: number): [number, number] {
  const s = text.lastIndexOf('\n', at - 1) + 1;
  const nl = text.indexOf('\n', at);
  return [s, nl < 0 ? text.length : nl + 1];
}

function mutate(text: string, m: Mutation): string {
  const at = text.length ? m.at % (text.length + 1) : 0;
  switch (m.kind) {
    case 'flip':
      return at < text.length ? text.slice(0, at) + String.fromCharCode(m.code) + text.slice(at + 1) : text + String.fromCharCode(m.code);
    case 'insert':
      return text.slice(0, at) + m.s + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.len);
    case 'dupLine': {
      const [s, e] = lineAround(text, at);
      return text.slice(0, e) + text.slice(s, e).repeat(m.times) + text.slice(e);
    }
    case 'cutLine': {
      // Keep the line up to `at`, drop the rest of it but keep its line break.
      const [, e] = lineAround(text, at);
      const brk = text.endsWith('\n', e) && e > at ? '\n' : '';
      return text.slice(0, at) + brk + text.slice(e);
    }
    case 'truncate':
      return text.slice(0, at);
  }
}

/** A slice of a seed text starting at a line start, at most `max` characters. */
function slice(text: string, start: number, len: number): string {
  const from = start % (text.length + 1);
  const s = from === 0 ? 0 : text.lastIndexOf('\n', from - 1) + 1;
  return text.slice(s, s + len);
}

describe('fuzz: parser and analysis on mutated real files', () => {
  const { texts, fromCorpus } = seeds();

  it('has seed texts', function () {
    if (!fromCorpus) {
      if (process.env.CI === 'true') assert.fail(`corpus not found at ${corpusDir}`);
      console.log('    (../shared/corpus is absent: mutating the bundled examples instead)');
    }
    assert.ok(texts.length > 0);
  });

  it('10,000 mutated slices: parse, print, ranges, analyze', () => {
    const input = fc
      .tuple(
        fc.nat({ max: texts.length - 1 }),
        fc.nat(),
        fc.integer({ min: 0, max: 1600 }),
        fc.array(mutationArb, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...FILE_CONTEXTS),
      )
      .map(([i, start, len, muts, ctx]) => ({ text: muts.reduce(mutate, slice(texts[i], start, len)), ctx }));
    fc.assert(
      fc.property(input, ({ text, ctx }) => checkText(text, ctx)),
      { seed: 0x5eed_c0f, numRuns: 10_000, endOnFailure: true },
    );
  });

  it('arbitrary strings over a config-ish alphabet', () => {
    const alphabet = fc.constantFrom('<', '>', '/', '\\', '"', "'", '#', '\n', '\r', ' ', '\t', '\u0000', 'a', 'D', 'Order', 'Allow', 'Require', 'Directory', 'IfModule', 'é', '😀', '\uD800');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 200 }).map((a) => a.join('')), (text) => checkText(text, 'server')),
      { seed: 20_240_229, numRuns: 2_000, endOnFailure: true },
    );
  });

  it('fix never throws and is stable: fixing the fixed text changes nothing', () => {
    const input = fc
      .tuple(fc.nat({ max: texts.length - 1 }), fc.nat(), fc.integer({ min: 0, max: 1200 }), fc.array(mutationArb, { maxLength: 3 }))
      .map(([i, start, len, muts]) => muts.reduce(mutate, slice(texts[i], start, len)));
    fc.assert(
      fc.property(input, (text) => {
        const once = service.fixText({ text, uri: 'file:///fuzz/site.conf' });
        checkText(once.text, 'server');
        const twice = service.fixText({ text: once.text, uri: 'file:///fuzz/site.conf' });
        assert.equal(twice.text, once.text, 'a second fix pass changes the text');
      }),
      { seed: 777, numRuns: 300, endOnFailure: true },
    );
  });

  describe('extremes', () => {
    const deep = (n: number, body: string, closeCount = n): string =>
      '<IfModule mod_a.c>\n<Directory /x>\n'.repeat(n / 2) + body + '</Directory>\n</IfModule>\n'.repeat(closeCount / 2);
    const MB = 1 << 20;
    const cases: Array<[string, () => string]> = [
      ['5,000 nested sections', () => deep(5000, 'Order deny,allow\nDeny from all\n')],
      ['5,000 nested sections, 100 left unclosed', () => deep(5000, 'Require all granted\n', 4900)],
      ['5,000 nested sections with mismatched closes', () => '<Files a>\n<Location /b>\n'.repeat(2500) + '</Files>\n'.repeat(2500)],
      ['5,000 stray closing tags', () => '</Directory>\n'.repeat(5000)],
      // Walks over the parents of a line, and over the whole tree, once recursed as deep as the nest.
      ['a 2.2 block inside 50,000 nested <IfModule>', () => '<IfModule a>\n'.repeat(50000) + '<Directory /r>\nOrder allow,deny\nAllow from all\n</Directory>\n' + '</IfModule>\n'.repeat(50000)],
      ['a 2.2 block beside 50,000 nested <IfModule>', () => '<Directory /r>\nOrder allow,deny\nAllow from all\n</Directory>\n' + '<IfModule a>\n'.repeat(50000) + 'Listen 80\n' + '</IfModule>\n'.repeat(50000)],
      ['a 2.2 block beside 50,000 nested <If>', () => '<Directory /r>\nOrder allow,deny\nAllow from all\n</Directory>\n' + '<If "true">\n'.repeat(50000) + 'Require all denied\n' + '</If>\n'.repeat(50000)],
      ['a 1 MB directive line', () => 'Allow from ' + '10.0.0.1 '.repeat(Math.ceil(MB / 9)) + '\n'],
      ['a 1 MB comment line', () => '# ' + 'x'.repeat(MB) + '\n'],
      ['a 1 MB unterminated quote', () => 'Header set X "' + 'y'.repeat(MB)],
      ['a 1 MB open tag without >', () => '<Directory ' + 'z'.repeat(MB) + '\nOrder allow,deny\n'],
      // One logical line of 170,000 physical lines (1 MB): offsets inside it are mapped by binary search.
      ['170,000 physical lines joined by continuations (1 MB)', () => 'Foo \\\n'.repeat(170_000)],
      ['1 MB of CR', () => 'Listen 80' + '\r'.repeat(MB)],
      ['1 MB of NUL', () => '\u0000'.repeat(MB)],
      // Patterns such as /\/+$/ and /\[!?([^\]])[^\]]*\]/g took time quadratic in these runs
      // (39 s and 109 s for 200 KB in the full pass); they are loops now.
      ['200 KB of slashes in <Directory> paths', () => `<Directory /${'/'.repeat(200_000)}x>\nOrder allow,deny\nAllow from all\nRequire all granted\n</Directory>\n<Directory /${'/'.repeat(200_000)}x>\nRequire all denied\n</Directory>\n`],
      ['200 KB of [ in a <Directory> glob', () => `<Directory /srv/${'['.repeat(200_000)}>\nOrder deny,allow\nDeny from all\n</Directory>\n`],
      ['200 KB of [ in a <Files> glob beside a <Directory>', () => `<Directory /srv>\nOrder allow,deny\nAllow from all\n</Directory>\n<Files "${'['.repeat(200_000)}*">\nOrder deny,allow\nDeny from all\n</Files>\n`],
    ];
    for (const [name, make] of cases) {
      it(name, () => checkText(make(), 'server'));
    }
    it('links and definitions in a word of 200 KB of ${ without }', () => {
      const text = `Define X /srv\nInclude ${'${'.repeat(100_000)}\nServerName ${'${'.repeat(100_000)}\n`;
      const a = service.analyze({ text, uri: 'file:///fuzz/site.conf', context: 'server' });
      service.documentLinks(a);
      for (const line of [1, 2]) for (const character of [8, 12, 100]) service.definition(a, { line, character });
    });
    it('an <If> condition of 200 KB of blanks', () => {
      const ctx = { headers: new Map<string, string>(), uri: '/', method: 'GET', addr: '127.0.0.1' };
      assert.equal(evalCondition(`a${' '.repeat(200_000)}b`, ctx), undefined);
      assert.equal(evalCondition(`%{REQUEST_METHOD} == 'GET'`, ctx), true);
    });
  });
});
