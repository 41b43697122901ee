import assert from 'node:assert/strict';
import { SelectionRange } from 'vscode-languageserver-types';
import { offsetAt, parse } from '../../server/src/syntax';
import { selectionRanges, MAX_SECTION_LEVELS } from '../../server/src/features/selection';

/** Split `text` at the cursor marker `|`. */
function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  assert.ok(offset >= 0, 'test input needs a | marker');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

/** The texts selected by each step, innermost first. */
function steps(marked: string): string[] {
  const { text, offset } = cursor(marked);
  const doc = parse(text);
  const [r] = selectionRanges(doc, [offset]);
  const out: string[] = [];
  for (let s: SelectionRange | undefined = r; s; s = s.parent) {
    out.push(text.slice(offsetAt(doc, s.range.start), offsetAt(doc, s.range.end)));
  }
  return out;
}

const DOC = [
  '<VirtualHost *:80>',
  '  ServerName example.com',
  '  <Directory "/srv/www">',
  '    Options -Indexes',
  '    Require all granted',
  '  </Directory>',
  '</VirtualHost>',
  '',
].join('\n');

const cases: Array<{ name: string; marked: string; expected: string[] }> = [
  {
    name: 'argument → line → section body → section → outer body → outer section → document',
    marked: DOC.replace('Require all', 'Require a|ll'),
    expected: [
      'all',
      'Require all granted',
      'Options -Indexes\n    Require all granted',
      '<Directory "/srv/www">\n    Options -Indexes\n    Require all granted\n  </Directory>',
      'ServerName example.com\n  <Directory "/srv/www">\n    Options -Indexes\n    Require all granted\n  </Directory>',
      DOC.trimEnd(),
      DOC,
    ],
  },
  {
    name: 'inside a quoted word: the contents first, then the word with its quotes',
    marked: '<Directory "/srv/|www">\n</Directory>\n',
    expected: ['/srv/www', '"/srv/www"', '<Directory "/srv/www">', '<Directory "/srv/www">\n</Directory>', '<Directory "/srv/www">\n</Directory>\n'],
  },
  {
    name: 'on the section name: tag line, then section (no body step for its own tags)',
    marked: '<Fil|es x>\n  Require all denied\n</Files>',
    expected: ['Files', '<Files x>', '<Files x>\n  Require all denied\n</Files>'],
  },
  {
    name: 'on the closing tag',
    marked: '<Files x>\n  Require all denied\n</Fi|les>',
    expected: ['Files', '</Files>', '<Files x>\n  Require all denied\n</Files>'],
  },
  {
    name: 'directive name at top level',
    marked: 'List|en 80\nListen 443\n',
    expected: ['Listen', 'Listen 80', 'Listen 80\nListen 443\n'],
  },
  {
    name: 'cursor at the end of a word',
    marked: 'Listen 80|\n',
    expected: ['80', 'Listen 80', 'Listen 80\n'],
  },
  // Every range must contain the cursor (found by a black-box LSP fuzz run: the line and the
  // body were offered although the cursor sat before them).
  {
    name: 'in the indentation of a line: the enclosing section',
    marked: '<Files x>\n | Require all denied\n</Files>',
    expected: ['<Files x>\n  Require all denied\n</Files>'],
  },
  {
    name: 'in the indentation of the first body line of a nested section: the sections around it',
    marked: '<Files x>\n  <If true>\n | Require all denied\n  </If>\n</Files>\n',
    expected: [
      '<If true>\n  Require all denied\n  </If>',
      '<Files x>\n  <If true>\n  Require all denied\n  </If>\n</Files>',
      '<Files x>\n  <If true>\n  Require all denied\n  </If>\n</Files>\n',
    ],
  },
  {
    name: 'in the indentation of a section tag: the enclosing body, not the section',
    marked: '<Files x>\n  Options None\n | <If true>\n  </If>\n</Files>',
    expected: ['Options None\n  <If true>\n  </If>', '<Files x>\n  Options None\n  <If true>\n  </If>\n</Files>'],
  },
  {
    name: 'after the end of a line (trailing blanks)',
    marked: 'Listen 80  |\nListen 443',
    expected: ['Listen 80  \nListen 443'],
  },
  {
    name: 'on a blank line',
    marked: 'Listen 80\n|\nListen 443',
    expected: ['Listen 80\n\nListen 443'],
  },
  {
    name: 'on a blank line before the first line of a body',
    marked: '<Files x>\n|\n  Require all denied\n</Files>',
    expected: ['<Files x>\n\n  Require all denied\n</Files>'],
  },
  {
    name: 'in a comment',
    marked: '# hello |world\nListen 80',
    expected: ['# hello world', '# hello world\nListen 80'],
  },
  {
    name: 'argument on a continuation line',
    marked: 'RewriteRule ^a$ \\\n   /|b [L]\n',
    expected: ['/b', 'RewriteRule ^a$ \\\n   /b [L]', 'RewriteRule ^a$ \\\n   /b [L]\n'],
  },
  {
    name: 'unclosed section',
    marked: '<Directory /x>\n  Opt|ions None\n\n',
    expected: ['Options', 'Options None', '<Directory /x>\n  Options None', '<Directory /x>\n  Options None\n\n'],
  },
];

describe('feature: selection ranges', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(steps(c.marked), c.expected));
  }

  it('one result per position, each chain strictly growing', () => {
    const doc = parse(DOC);
    const offsets = [0, 5, 30, 60, DOC.length];
    const results = selectionRanges(doc, offsets);
    assert.equal(results.length, offsets.length);
    for (const r of results) {
      let prev: [number, number] | undefined;
      for (let s: SelectionRange | undefined = r; s; s = s.parent) {
        const span: [number, number] = [offsetAt(doc, s.range.start), offsetAt(doc, s.range.end)];
        if (prev) assert.ok(span[0] <= prev[0] && span[1] >= prev[1] && (span[0] < prev[0] || span[1] > prev[1]));
        prev = span;
      }
    }
  });

  it('at every offset, every range contains the cursor and each parent its child', () => {
    const texts = [DOC, '  <Files x>\n\n    Require all denied  \n\n  </Files>\n\n', '<Directory /x>\n   \n  Options None\n'];
    for (const text of texts) {
      const doc = parse(text);
      for (let offset = 0; offset <= text.length; offset++) {
        const [r] = selectionRanges(doc, [offset]);
        let prev: [number, number] = [offset, offset];
        for (let s: SelectionRange | undefined = r; s; s = s.parent) {
          const span: [number, number] = [offsetAt(doc, s.range.start), offsetAt(doc, s.range.end)];
          assert.ok(span[0] <= prev[0] && span[1] >= prev[1], `offset ${offset} of ${JSON.stringify(text)}: ${span} does not contain ${prev}`);
          prev = span;
        }
      }
    }
  });

  it('10,000 nested sections: bounded chain, serializable', () => {
    const n = 10000;
    const text = '<IfModule a>\n'.repeat(n) + 'Listen 80\n' + '</IfModule>\n'.repeat(n);
    const doc = parse(text);
    const [r] = selectionRanges(doc, [text.indexOf('Listen') + 2]);
    let count = 0;
    for (let s: SelectionRange | undefined = r; s; s = s.parent) count++;
    assert.ok(count <= 2 * MAX_SECTION_LEVELS + 4, `chain of ${count}`);
    assert.doesNotThrow(() => JSON.stringify(r));
  });
});
