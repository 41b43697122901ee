/**
 * language-configuration.json: the comment token, brackets and auto-closing
 * pairs, folding markers, indentation and on-enter rules, and the word
 * pattern, each checked the way VS Code applies it (JavaScript RegExp).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { root } from './textmate';

interface Pair {
  open: string;
  close: string;
  notIn?: string[];
}

interface LanguageConfiguration {
  comments: { lineComment: string; blockComment?: [string, string] };
  brackets: Array<[string, string]>;
  autoClosingPairs: Pair[];
  surroundingPairs: Array<[string, string]>;
  folding: { markers: { start: string; end: string } };
  indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
  onEnterRules: Array<{ beforeText: string; afterText?: string; action: { indent: string } }>;
  wordPattern: string;
}

const config = JSON.parse(
  fs.readFileSync(path.join(root, 'language-configuration.json'), 'utf8'),
) as LanguageConfiguration;

/** The word the pattern finds around column `col`, as VS Code picks the word at the cursor. */
function wordAt(line: string, col: number): string | null {
  const re = new RegExp(config.wordPattern, 'g');
  for (const m of line.matchAll(re)) {
    const start = m.index ?? 0;
    if (start <= col && col <= start + m[0].length) return m[0];
  }
  return null;
}

describe('language configuration', () => {
  it('uses # for line comments and has no block comments', () => {
    assert.equal(config.comments.lineComment, '#');
    assert.equal(config.comments.blockComment, undefined);
  });

  it('auto-closes quotes (not inside strings or comments) and ${ / %{ variables', () => {
    const byOpen = new Map(config.autoClosingPairs.map((p) => [p.open, p]));
    for (const [open, close] of [
      ['"', '"'],
      ["'", "'"],
      ['${', '}'],
      ['%{', '}'],
      ['{', '}'],
      ['[', ']'],
      ['(', ')'],
    ]) {
      assert.equal(byOpen.get(open)?.close, close, `auto-closing pair ${open}`);
    }
    for (const q of ['"', "'"]) assert.deepEqual(byOpen.get(q)?.notIn?.sort(), ['comment', 'string']);
  });

  it('brackets do not include < > (they are operators in <IfVersion >= 2.4> and expressions)', () => {
    assert.deepEqual(
      config.brackets.map((b) => b.join('')),
      ['{}', '[]', '()'],
    );
  });

  const tagLines: Array<{ line: string; start: boolean; end: boolean; indent: boolean; outdent: boolean }> = [
    { line: '<Directory "/var/www">', start: true, end: false, indent: true, outdent: false },
    { line: '    <IfModule mod_rewrite.c>', start: true, end: false, indent: true, outdent: false },
    { line: '<Else>', start: true, end: false, indent: true, outdent: false },
    { line: '<VirtualHost *:80 \\', start: true, end: false, indent: true, outdent: false },
    { line: '<ifmodule !mod_ssl.c>', start: true, end: false, indent: true, outdent: false },
    { line: '</Directory>', start: false, end: true, indent: false, outdent: true },
    { line: '  </IfModule>', start: false, end: true, indent: false, outdent: true },
    { line: '# <Directory /x>', start: false, end: false, indent: false, outdent: false },
    { line: '#</Directory>', start: false, end: false, indent: false, outdent: false },
    { line: '<Files x></Files>', start: true, end: false, indent: false, outdent: false },
    { line: 'Listen 80', start: false, end: false, indent: false, outdent: false },
    { line: 'Header set X "<b>"', start: false, end: false, indent: false, outdent: false },
  ];

  for (const t of tagLines) {
    it(`folding and indentation: ${JSON.stringify(t.line)}`, () => {
      assert.equal(new RegExp(config.folding.markers.start).test(t.line), t.start, 'folding start');
      assert.equal(new RegExp(config.folding.markers.end).test(t.line), t.end, 'folding end');
      assert.equal(new RegExp(config.indentationRules.increaseIndentPattern).test(t.line), t.indent, 'increase indent');
      assert.equal(new RegExp(config.indentationRules.decreaseIndentPattern).test(t.line), t.outdent, 'decrease indent');
    });
  }

  const enter: Array<{ before: string; after: string; rule: boolean }> = [
    { before: '<Directory /x>', after: '</Directory>', rule: true },
    { before: '  <Files "a b">', after: '</Files>', rule: true },
    { before: '<Directory /x>', after: '', rule: false },
    { before: 'Listen 80', after: '</Directory>', rule: false },
    { before: '# <Directory /x>', after: '</Directory>', rule: false },
  ];

  for (const e of enter) {
    it(`Enter between ${JSON.stringify(e.before)} and ${JSON.stringify(e.after)} ${e.rule ? 'indents and outdents' : 'does nothing special'}`, () => {
      const hit = config.onEnterRules.find(
        (r) => new RegExp(r.beforeText).test(e.before) && (!r.afterText || new RegExp(r.afterText).test(e.after)),
      );
      assert.equal(hit?.action.indent, e.rule ? 'indentOutdent' : undefined);
    });
  }

  it('no on-enter rule continues comments', () => {
    for (const r of config.onEnterRules) {
      assert.equal(new RegExp(r.beforeText).test('# a comment'), false, r.beforeText);
      assert.equal((r.action as { appendText?: string }).appendText, undefined);
    }
  });

  const words: Array<{ line: string; at: string; word: string | null }> = [
    { line: 'RewriteEngine On', at: 'Engine', word: 'RewriteEngine' },
    { line: 'ServerName www.example.com', at: 'example', word: 'www.example.com' },
    { line: 'DocumentRoot "/var/www/html"', at: 'www', word: '/var/www/html' },
    { line: 'ErrorLog ${APACHE_LOG_DIR}/error.log', at: 'LOG', word: 'APACHE_LOG_DIR' },
    { line: 'RewriteCond %{HTTP_HOST} ^x', at: 'HOST', word: 'HTTP_HOST' },
    { line: 'RewriteCond %{ENV:REDIRECT_STATUS} ^x', at: 'REDIRECT', word: 'REDIRECT_STATUS' },
    { line: 'Options -Indexes +FollowSymLinks', at: 'Indexes', word: 'Indexes' },
    { line: 'Options -Indexes +FollowSymLinks', at: 'Follow', word: 'FollowSymLinks' },
    { line: 'Require valid-user', at: 'user', word: 'valid-user' },
    { line: '<IfModule mod_rewrite.c>', at: 'IfModule', word: 'IfModule' },
    { line: '<IfModule mod_rewrite.c>', at: 'rewrite', word: 'mod_rewrite.c' },
    { line: '<IfModule !mod_ssl.c>', at: 'ssl', word: 'mod_ssl.c' },
    { line: 'Header set X-Frame-Options DENY', at: 'Frame', word: 'X-Frame-Options' },
    { line: 'Allow from env=let_me_in', at: 'let', word: 'let_me_in' },
    { line: 'Include conf.d/*.conf', at: 'conf.d', word: 'conf.d/*.conf' },
  ];

  for (const w of words) {
    it(`word at ${JSON.stringify(w.at)} in ${JSON.stringify(w.line)} is ${JSON.stringify(w.word)}`, () => {
      const col = w.line.indexOf(w.at);
      assert.ok(col >= 0);
      assert.equal(wordAt(w.line, col + 1), w.word);
    });
  }
});
