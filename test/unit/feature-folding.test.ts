import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { foldingRanges } from '../../server/src/features/folding';

/** Ranges as "start-end" (0-based lines), with ":comment" for comment folds. */
function show(text: string): string[] {
  return foldingRanges(parse(text)).map((r) => `${r.startLine}-${r.endLine}${r.kind ? ':' + r.kind : ''}`);
}

const cases: Array<{ name: string; lines: string[]; eol?: string; expected: string[] }> = [
  {
    name: 'section body folds, closing tag stays visible',
    lines: ['<Directory /x>', '  Options None', '  Require all granted', '</Directory>'],
    expected: ['0-2'],
  },
  { name: 'section with no line between tags does not fold', lines: ['<Directory /x>', '</Directory>'], expected: [] },
  {
    name: 'section with one line between tags folds',
    lines: ['<Files x>', '  Require all denied', '</Files>'],
    expected: ['0-1'],
  },
  {
    name: 'nested sections',
    lines: ['<VirtualHost *:80>', '  <Location />', '    Require all granted', '  </Location>', '</VirtualHost>'],
    expected: ['0-3', '1-2'],
  },
  {
    name: 'runs of two or more comment lines; single comments do not fold',
    lines: ['# one', '', '# a', '# b', '  # c', 'Listen 80', '# alone'],
    expected: ['2-4:comment'],
  },
  {
    name: 'a blank line breaks a comment run',
    lines: ['# a', '# b', '', '# c', '# d'],
    expected: ['0-1:comment', '3-4:comment'],
  },
  {
    name: 'continued directive lines fold',
    lines: ['RewriteCond %{HTTP_HOST} \\', '   ^www\\. \\', '   [NC]', 'Listen 80'],
    expected: ['0-2'],
  },
  {
    name: 'a continued comment line folds as a comment',
    lines: ['# a \\', 'still the comment', 'Listen 80'],
    expected: ['0-1:comment'],
  },
  {
    name: 'section whose open tag is continued: the section range wins for that start line',
    lines: ['<VirtualHost *:80 \\', '   *:8080>', '  ServerName x', '</VirtualHost>'],
    expected: ['0-2'],
  },
  {
    name: 'section whose open tag is continued, nothing between tags: the continuation folds',
    lines: ['<VirtualHost *:80 \\', '   *:8080>', '</VirtualHost>'],
    expected: ['0-1'],
  },
  {
    name: 'unclosed section folds to its last non-blank line',
    lines: ['<Directory /x>', '  Options None', '  Require all granted', '', ''],
    expected: ['0-2'],
  },
  {
    name: 'CRLF line endings',
    lines: ['<Directory /x>', '  Options None', '</Directory>', '# a', '# b', ''],
    eol: '\r\n',
    expected: ['0-1', '3-4:comment'],
  },
  { name: 'empty text', lines: [''], expected: [] },
];

describe('feature: folding ranges', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(show(c.lines.join(c.eol ?? '\n')), c.expected));
  }

  it('no trailing newline at the end', () => {
    assert.deepEqual(show('<Directory /x>\nA\nB\n</Directory>'), ['0-2']);
  });

  it('200,000 nested sections never closed: each folds to the last line (each used to walk down to it again: quadratic)', () => {
    const n = 200000;
    const ranges = foldingRanges(parse('<Directory /x>\n'.repeat(n) + 'Require all denied\n'));
    assert.equal(ranges.length, n);
    assert.ok(ranges.every((r) => r.endLine === n));
  });

  it('10,000 nested sections', () => {
    const n = 10000;
    const ranges = foldingRanges(parse('<IfModule a>\n'.repeat(n) + 'X\n' + '</IfModule>\n'.repeat(n)));
    assert.equal(ranges.length, n);
  });
});
