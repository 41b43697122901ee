import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Range } from 'vscode-languageserver-types';
import { parse, type ConfigDocument } from '../../server/src/syntax';
import { format, formatOnType, type FormatOptions } from '../../server/src/features/format';
import { corpusFiles } from '../support/corpus';

const SPACES2: FormatOptions = { tabSize: 2, insertSpaces: true };
const SPACES4: FormatOptions = { tabSize: 4, insertSpaces: true };
const TABS: FormatOptions = { tabSize: 4, insertSpaces: false };

function run(text: string, options: FormatOptions, range?: Range): string {
  const doc = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
  return TextDocument.applyEdits(doc, format(parse(text), options, range));
}

/** What httpd reads from each line: its kind and words (or comment text). */
function words(doc: ConfigDocument): string[] {
  return doc.lines.map((n) => {
    switch (n.type) {
      case 'directive':
        return `D ${JSON.stringify([n.name.value, ...n.args.map((a) => a.value)])}`;
      case 'open':
        return `O ${JSON.stringify([n.section.name.value, ...n.section.args.map((a) => a.value)])}`;
      case 'close':
        return `C ${n.name.value}`;
      case 'comment':
        return `# ${n.text}`;
      default:
        return 'B';
    }
  });
}

const L = (...lines: string[]) => lines.join('\n');

const cases: Array<{ name: string; before: string; after: string; options?: FormatOptions; range?: Range }> = [
  {
    name: 're-indents nested sections with spaces',
    before: L('<VirtualHost *:80>', 'ServerName x', '      <Directory /srv>', 'Require all granted', '</Directory>', '   </VirtualHost>', ''),
    after: L('<VirtualHost *:80>', '  ServerName x', '  <Directory /srv>', '    Require all granted', '  </Directory>', '</VirtualHost>', ''),
  },
  {
    name: 'tabs',
    before: L('<IfModule x>', '  <IfModule y>', '  Listen 80', '  </IfModule>', '</IfModule>'),
    after: L('<IfModule x>', '\t<IfModule y>', '\t\tListen 80', '\t</IfModule>', '</IfModule>'),
    options: TABS,
  },
  {
    name: 'comments are indented, their text untouched',
    before: L('<Files x>', '#   keep   this   spacing  ', '</Files>'),
    after: L('<Files x>', '  #   keep   this   spacing  ', '</Files>'),
  },
  {
    name: 'blank lines stay, their spaces go',
    before: L('<Files x>', '   ', '', '\t', 'Require all denied', '</Files>'),
    after: L('<Files x>', '', '', '', '  Require all denied', '</Files>'),
  },
  {
    name: 'CRLF preserved',
    before: '<Files x>\r\nRequire all denied\r\n  \r\n</Files>\r\n',
    after: '<Files x>\r\n  Require all denied\r\n\r\n</Files>\r\n',
  },
  {
    name: 'continuation lines move with their first line',
    before: L('<Files x>', 'RewriteRule ^a$ \\', '    /b [L]', '</Files>'),
    after: L('<Files x>', '  RewriteRule ^a$ \\', '      /b [L]', '</Files>'),
  },
  {
    name: 'continuation lines move left too, keeping at least one space',
    before: L('        RewriteRule ^a$ \\', '  /b \\', '            [L]'),
    after: L('RewriteRule ^a$ \\', ' /b \\', '    [L]'),
  },
  {
    name: 'continuation inside quotes is left alone',
    before: L('<Files x>', 'Header set X "a \\', '   b"', '</Files>'),
    after: L('<Files x>', '  Header set X "a \\', '   b"', '</Files>'),
  },
  {
    name: 'continuation with no leading white space (glued word) is left alone',
    before: L('<Files x>', 'Header set X abc\\', 'def', '</Files>'),
    after: L('<Files x>', '  Header set X abc\\', 'def', '</Files>'),
  },
  {
    name: 'continued comment: only its first line moves',
    before: L('<Files x>', '# a \\', '   b', '</Files>'),
    after: L('<Files x>', '  # a \\', '   b', '</Files>'),
  },
  {
    name: 'continued section tag',
    before: L('<IfModule a>', '<VirtualHost *:80 \\', '  *:8080>', '</VirtualHost>', '</IfModule>'),
    after: L('<IfModule a>', '  <VirtualHost *:80 \\', '    *:8080>', '  </VirtualHost>', '</IfModule>'),
  },
  {
    name: 'continuation lines mixed with tabs become the chosen style',
    before: L('<Files x>', 'A b \\', '\t c', '</Files>'),
    after: L('<Files x>', '\tA b \\', '\t\t c', '</Files>'),
    options: TABS,
  },
  {
    name: 'unclosed and stray tags',
    before: L('</Stray>', '<Directory /x>', 'Options None', '</Other>', 'Listen 80'),
    after: L('</Stray>', '<Directory /x>', '  Options None', '  </Other>', '  Listen 80'),
  },
  {
    name: 'a line that starts with a continued blank is left alone',
    before: L('<Files x>', '   \\', 'Listen 80', '</Files>'),
    after: L('<Files x>', '   \\', 'Listen 80', '</Files>'),
  },
  {
    name: 'already formatted: no change',
    before: L('<Files x>', '    Require all denied', '</Files>', ''),
    after: L('<Files x>', '    Require all denied', '</Files>', ''),
    options: SPACES4,
  },
  {
    name: 'range: only lines the range touches',
    before: L('<Files x>', 'A', 'B', 'C', '</Files>'),
    after: L('<Files x>', 'A', '  B', '  C', '</Files>'),
    range: { start: { line: 2, character: 0 }, end: { line: 4, character: 0 } },
  },
  {
    name: 'trimTrailingWhitespace, but not before a continuation backslash',
    before: L('<Files x>', 'A b  \\', '  c   ', 'D   ', '</Files>  '),
    after: L('<Files x>', '  A b  \\', '    c', '  D', '</Files>'),
    options: { ...SPACES2, trimTrailingWhitespace: true },
  },
  {
    name: 'insertFinalNewline uses the file line ending',
    before: 'A\r\nB',
    after: 'A\r\nB\r\n',
    options: { ...SPACES2, insertFinalNewline: true },
  },
  {
    name: 'insertFinalNewline does not turn a final backslash into a continuation',
    before: 'A b\\',
    after: 'A b\\',
    options: { ...SPACES2, insertFinalNewline: true },
  },
  {
    name: 'trimFinalNewlines',
    before: 'A\n\n  \n\n',
    after: 'A\n',
    options: { ...SPACES2, trimFinalNewlines: true, insertFinalNewline: true },
  },
  // Old Mac line breaks (a lone CR): the client counts them as line breaks, httpd reads them as
  // white space inside one line (found by a black-box LSP fuzz run).
  {
    name: 'lone CR: a final line break is a CR, not an added LF',
    before: 'A\rB',
    after: 'A\rB\r',
    options: { ...SPACES2, insertFinalNewline: true },
  },
  {
    name: 'lone CR: a file that ends in one needs no final line break',
    before: 'A\rB\r',
    after: 'A\rB\r',
    options: { ...SPACES2, insertFinalNewline: true },
  },
  {
    name: 'lone CR: trailing white space before each break goes',
    before: 'A b  \rC d\t\rE  ',
    after: 'A b\rC d\rE',
    options: { ...SPACES2, trimTrailingWhitespace: true },
  },
  {
    name: 'lone CR: white space inside a quoted word stays',
    before: 'Header set X "a  \r b"\r',
    after: 'Header set X "a  \r b"\r',
    options: { ...SPACES2, trimTrailingWhitespace: true },
  },
  {
    name: 'lone CR: blank lines at the end go',
    before: 'A\r\r  \r\r',
    after: 'A\r',
    options: { ...SPACES2, trimFinalNewlines: true, insertFinalNewline: true },
  },
  {
    name: 'lone CR: lines of spaces are emptied',
    before: 'A\n  \r \r\nB',
    after: 'A\n\r\r\nB',
  },
  {
    name: 'lone CR inside a line: the line after it moves with the first',
    before: L('<Files x>', 'Require all \r   denied', '</Files>'),
    after: L('<Files x>', '  Require all\r     denied', '</Files>'),
    options: { ...SPACES2, trimTrailingWhitespace: true },
  },
  {
    name: 'mixed breaks: range on a line after lone CRs',
    before: 'A\rB\r\n<Files x>\nC\nD\n</Files>\n',
    after: 'A\rB\r\n<Files x>\nC\n  D\n</Files>\n',
    range: { start: { line: 4, character: 0 }, end: { line: 4, character: 1 } },
  },
  {
    name: 'mixed breaks: range on the last line, after a lone CR',
    before: '<Files x>\nA \r  B  \n</Files>  ',
    after: '<Files x>\nA \r  B  \n</Files>',
    range: { start: { line: 3, character: 0 }, end: { line: 3, character: 2 } },
    options: { ...SPACES2, trimTrailingWhitespace: true },
  },
];

describe('feature: formatting', () => {
  for (const c of cases) {
    it(c.name, () => {
      const options = c.options ?? SPACES2;
      const once = run(c.before, options, c.range);
      assert.equal(once, c.after);
      assert.equal(run(once, options, c.range), once, 'idempotent');
      // Same words; trimFinalNewlines may drop trailing blank lines.
      const trimBlanks = (w: string[]) => (options.trimFinalNewlines ? w.join('\n').replace(/(\nB)+$/, '').split('\n') : w);
      assert.deepEqual(trimBlanks(words(parse(once))), trimBlanks(words(parse(c.before))), 'same words');
    });
  }

  describe('on type', () => {
    const onType = (marked: string, ch: string): string => {
      const offset = marked.indexOf('|');
      const text = marked.slice(0, offset) + marked.slice(offset + 1);
      const doc = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
      return TextDocument.applyEdits(doc, formatOnType(parse(text), offset, ch, SPACES2));
    };
    const table: Array<[string, string, string, string]> = [
      ['closing tag steps out', '<Files x>\n  A\n  </Files>|\n', '>', '<Files x>\n  A\n</Files>\n'],
      ['opening tag inside a section', '<Files x>\n<If "true">|\n', '>', '<Files x>\n  <If "true">\n'],
      ['other lines are left alone', '<Files x>\nA\n   \n  </Files>|', '>', '<Files x>\nA\n   \n</Files>'],
      ['a > inside a directive does nothing', '<Files x>\nHeader set X a>|\n</Files>', '>', '<Files x>\nHeader set X a>\n</Files>'],
      ['after lone CRs, only the tag moves', 'A\r\r\rB\n<Files x>\nC\n  D\n  </Files>|\n', '>', 'A\r\r\rB\n<Files x>\nC\n  D\n</Files>\n'],
      ['after a lone CR in a line, the right line', 'A\rB\n<Files x>\nC\n  </Files>|\n', '>', 'A\rB\n<Files x>\nC\n</Files>\n'],
      ['other characters do nothing', '<Files x>\n  </Files>|', '\n', '<Files x>\n  </Files>'],
    ];
    for (const [name, marked, ch, expected] of table) it(name, () => assert.equal(onType(marked, ch), expected));
  });

  it('edits only lines whose indentation changes', () => {
    const text = L('<Files x>', '  A', 'B', '  C', '</Files>');
    const edits = format(parse(text), SPACES2);
    assert.equal(edits.length, 1);
    assert.deepEqual(edits[0].range, { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } });
    assert.equal(edits[0].newText, '  ');
  });

  it('10,000 nested sections: indentation is capped', () => {
    const n = 10000;
    const text = '<IfModule a>\n'.repeat(n) + 'Listen 80\n' + '</IfModule>\n'.repeat(n);
    const out = run(text, SPACES2);
    assert.ok(out.length < text.length + n * 2 * 2 * 100 + 1000);
    assert.equal(run(out, SPACES2), out);
  });

  describe('over the shared corpus', () => {
    const files = corpusFiles();
    if (!files.length) {
      it('corpus is present', function () {
        if (process.env.CI === 'true') assert.fail(`corpus not found at ../shared/corpus`);
        console.log('    (skipped: ../shared/corpus is absent)');
        this.skip();
      });
      return;
    }
    for (const options of [SPACES2, TABS]) {
      it(`format is idempotent and keeps every word (${options.insertSpaces ? 'spaces' : 'tabs'}, ${files.length} files)`, () => {
        for (const f of files) {
          const text = fs.readFileSync(f, 'latin1');
          const once = run(text, options);
          assert.equal(run(once, options), once, `${path.basename(f)}: not idempotent`);
          assert.deepEqual(words(parse(once)), words(parse(text)), `${path.basename(f)}: words changed`);
          // Only indentation may change: the text without leading white space is the same.
          const strip = (s: string) => s.split('\n').map((l) => l.replace(/^[ \t]+/, '').replace(/^[ \t]+$/, '')).join('\n');
          assert.equal(strip(once), strip(text), `${path.basename(f)}: more than indentation changed`);
        }
      });
    }
  });
});

// A black-box LSP fuzz run: trimming the space after a backslash made the line a continuation, so
// `Allow from 10.0.0.1 \ ` swallowed the `Deny from all` below it (explain: 403 became 200).
describe('format: trailing white space after a backslash', () => {
  it('is kept, so the line does not start continuing onto the next', () => {
    const text = '<Directory /srv>\n    Order deny,allow\n    Allow from 10.0.0.1 \\ \n    Deny from all\n</Directory>\n';
    const doc = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
    const out = TextDocument.applyEdits(doc, format(parse(text), { tabSize: 4, insertSpaces: true, trimTrailingWhitespace: true }));
    assert.ok(out.includes('Allow from 10.0.0.1 \\ \n'), JSON.stringify(out));
  });
});

