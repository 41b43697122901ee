/**
 * The TextMate grammar: its JSON is sound (every include resolves, every
 * regular expression compiles, no dead rules), the case files under
 * test/grammar/cases pass vscode-tmgrammar-test, and CR line ends (a
 * tokenizer fed lines that keep their CR) still continue lines.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { grammarPath, loadGrammar, oniguruma, root, scopesAt, tokenizeLines, toolDir } from './textmate';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Rule = { [k: string]: Json };

const casesDir = path.join(root, 'test', 'grammar', 'cases');

function readGrammar(): Rule {
  return JSON.parse(fs.readFileSync(grammarPath, 'utf8')) as Rule;
}

/** Every object in the grammar with a path to it, for messages. */
function walk(node: Json, at: string, visit: (obj: Rule, at: string) => void): void {
  if (Array.isArray(node)) node.forEach((x, i) => walk(x, `${at}[${i}]`, visit));
  else if (node && typeof node === 'object') {
    visit(node, at);
    for (const [k, v] of Object.entries(node)) walk(v, `${at}.${k}`, visit);
  }
}

describe('grammar: syntaxes/apacheconf.tmLanguage.json', () => {
  it('is JSON with the scope name source.apacheconf, top-level patterns and a repository', () => {
    const g = readGrammar();
    assert.equal(g.scopeName, 'source.apacheconf');
    assert.ok(Array.isArray(g.patterns) && g.patterns.length > 0, 'top-level patterns');
    assert.ok(g.repository && typeof g.repository === 'object' && !Array.isArray(g.repository), 'repository');
  });

  it('every include resolves to a repository entry or to the grammar itself', () => {
    const g = readGrammar();
    const repo = g.repository as Rule;
    const bad: string[] = [];
    walk(g, '$', (obj, at) => {
      const inc = obj.include;
      if (inc === undefined) return;
      if (typeof inc !== 'string') bad.push(`${at}: include is not a string`);
      else if (inc === '$self' || inc === '$base' || inc === 'source.apacheconf') return;
      else if (inc.startsWith('#')) {
        if (!Object.prototype.hasOwnProperty.call(repo, inc.slice(1))) bad.push(`${at}: ${inc} is not in the repository`);
      } else bad.push(`${at}: ${inc} points outside this grammar`);
    });
    assert.deepEqual(bad, []);
  });

  it('every repository entry is used', () => {
    const g = readGrammar();
    const used = new Set<string>();
    walk(g, '$', (obj) => {
      if (typeof obj.include === 'string' && obj.include.startsWith('#')) used.add(obj.include.slice(1));
    });
    const unused = Object.keys(g.repository as Rule).filter((k) => !used.has(k));
    assert.deepEqual(unused, []);
  });

  it('every rule is one of match, begin/end, include or a pattern list, with numeric capture keys', () => {
    const g = readGrammar();
    const bad: string[] = [];
    const check = (obj: Rule, at: string): void => {
      const kinds = ['match', 'begin', 'include'].filter((k) => k in obj);
      if (kinds.length > 1) bad.push(`${at}: mixes ${kinds.join(' and ')}`);
      if ('begin' in obj && !('end' in obj) && !('while' in obj)) bad.push(`${at}: begin without end`);
      if ('end' in obj && !('begin' in obj)) bad.push(`${at}: end without begin`);
      if (kinds.length === 0 && !Array.isArray(obj.patterns)) bad.push(`${at}: neither a rule nor a pattern list`);
      for (const key of ['captures', 'beginCaptures', 'endCaptures']) {
        const caps = obj[key];
        if (caps === undefined) continue;
        for (const [n, cap] of Object.entries(caps as Rule)) {
          if (!/^\d+$/.test(n)) bad.push(`${at}.${key}: key ${n} is not a group number`);
          if (!cap || typeof cap !== 'object' || typeof (cap as Rule).name !== 'string') {
            bad.push(`${at}.${key}.${n}: no scope name`);
          }
        }
      }
      for (const p of (obj.patterns as Json[] | undefined) ?? []) {
        if (!p || typeof p !== 'object' || Array.isArray(p)) bad.push(`${at}.patterns: not an object`);
      }
    };
    const repo = g.repository as Rule;
    for (const [name, rule] of Object.entries(repo)) {
      walk(rule, `#${name}`, (obj, at) => {
        // Capture entries are not rules; check only objects that sit where rules sit.
        if (/\.(?:beginCaptures|endCaptures|captures)\.\d+$/.test(at)) return;
        if (/\.(?:beginCaptures|endCaptures|captures)$/.test(at)) return;
        check(obj, at);
      });
    }
  });

  it('every regular expression compiles in Oniguruma', async () => {
    const lib = await oniguruma();
    const g = readGrammar();
    const bad: string[] = [];
    let count = 0;
    walk(g, '$', (obj, at) => {
      for (const key of ['match', 'begin', 'end', 'while']) {
        const re = obj[key];
        if (typeof re !== 'string') continue;
        count++;
        // vscode-oniguruma does not throw on a bad pattern: the scanner it builds then finds nothing at all,
        // not even the empty match of \A that is listed beside it.
        let found: unknown = null;
        try {
          found = new lib.OnigScanner([re, '\\A']).findNextMatchSync('probe', 0);
        } catch (e) {
          bad.push(`${at}.${key}: ${(e as Error).message}`);
          continue;
        }
        if (found === null) bad.push(`${at}.${key}: does not compile: ${re}`);
      }
    });
    assert.deepEqual(bad, []);
    assert.ok(count > 20, `only ${count} expressions found`);
  });
});

describe('grammar: test/grammar/cases with vscode-tmgrammar-test', () => {
  it('every case file passes', function () {
    const cases = fs.readdirSync(casesDir).filter((f) => f.endsWith('.apacheconf'));
    assert.ok(cases.length > 0, 'no case files');
    const bin = path.join(toolDir, 'dist', 'unit.js');
    const r = spawnSync(
      process.execPath,
      [
        bin,
        '--compact',
        // An empty configuration: test exactly the grammar given with -g, not what package.json lists.
        '--config',
        path.join('test', 'grammar', 'tmgrammar-test.json'),
        '-g',
        path.join('syntaxes', 'apacheconf.tmLanguage.json'),
        'test/grammar/cases/*.apacheconf',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`;
    assert.equal(r.status, 0, `vscode-tmgrammar-test failed:\n${output}`);
    for (const c of cases) assert.ok(output.includes(c), `${c} was not run:\n${output}`);
  });
});

describe('grammar: line ends (lines that keep their CR)', () => {
  const directive = 'keyword.other.directive.apacheconf';
  const comment = 'comment.line.number-sign.apacheconf';
  const continuation = 'constant.character.escape.line-continuation.apacheconf';
  // Each case: physical lines (each ending in CR, as a tokenizer that splits on LF alone sees a CRLF file),
  // then [line, column, scope, expected presence].
  const cases: Array<{ name: string; lines: string[]; expect: Array<[number, number, string, boolean]> }> = [
    {
      name: 'a backslash before CR continues the directive',
      lines: ['Header set X a \\\r', '  Options b\r', 'Options c\r'],
      expect: [
        [0, 15, continuation, true],
        [1, 2, directive, false],
        [1, 2, 'meta.directive.apacheconf', true],
        [2, 0, directive, true],
      ],
    },
    {
      name: 'a backslash before CR continues a comment',
      lines: ['# note \\\r', 'Listen 80\r', 'Listen 81\r'],
      expect: [
        [0, 7, continuation, true],
        [1, 0, comment, true],
        [1, 0, directive, false],
        [2, 0, directive, true],
        [2, 0, comment, false],
      ],
    },
    {
      name: 'a backslash before CR continues a section tag',
      lines: ['<VirtualHost *:80 \\\r', '  *:81>\r', 'Listen 80\r'],
      expect: [
        [1, 6, 'punctuation.definition.tag.end.apacheconf', true],
        [2, 0, directive, true],
      ],
    },
    {
      name: 'a line that ends in CR without a backslash ends the directive',
      lines: ['Listen 80\r', 'Listen 81\r'],
      expect: [[1, 0, directive, true]],
    },
    {
      name: 'a backslash followed by a blank is no continuation',
      lines: ['ServerAdmin admin@example.com \\ \r', 'Listen 80\r'],
      expect: [
        [0, 30, continuation, false],
        [1, 0, directive, true],
      ],
    },
    {
      name: 'a # after CR-continued lines is still an argument',
      lines: ['Allow from \\\r', '  10.0.0.1 # office\r'],
      expect: [
        [1, 11, comment, false],
        [1, 2, 'constant.numeric.ip-address.v4.apacheconf', true],
      ],
    },
  ];

  let g: Awaited<ReturnType<typeof loadGrammar>>;
  before(async () => {
    g = await loadGrammar();
  });

  for (const c of cases) {
    it(c.name, () => {
      const tokens = tokenizeLines(g, c.lines);
      for (const [line, col, scope, present] of c.expect) {
        const scopes = scopesAt(tokens[line], col);
        assert.equal(
          scopes.includes(scope),
          present,
          `line ${line} column ${col} (${JSON.stringify(c.lines[line].slice(col, col + 8))}): ` +
            `expected ${present ? '' : 'no '}${scope}, got ${scopes.join(' ')}`,
        );
      }
    });
  }
});
