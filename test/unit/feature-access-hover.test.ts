// "Who gets in": the access summary on section tags (features/access-hover.ts) and its place in the hover.
import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { accessHoverMarkdown, accessSummary } from '../../server/src/features/access-hover';
import { hoverAt } from '../../server/src/features/hover';
import type { FileContext } from '../../server/src/model/context';

const CONFIG = [
  '<Directory />', // 0
  '    Require all denied',
  '</Directory>',
  '<Directory /var/www>', // 3
  '    Require ip 10.0.0.0/8 192.168.1.5',
  '</Directory>',
  '<Location /admin>', // 6
  '    AuthType Basic',
  '    AuthName admin',
  '    AuthUserFile /etc/apache2/users',
  '    Require user alice',
  '</Location>',
  '<Directory /srv>', // 12
  '    Order deny,allow',
  '    Deny from all',
  '    Allow from .example.org 10.1.0.0/16',
  '</Directory>',
  '<Files "secret.txt">', // 17
  '    Require local',
  '</Files>',
  '<Location /team>', // 20
  '    AuthType Basic',
  '    AuthName team',
  '    AuthUserFile /etc/apache2/users',
  '    AuthGroupFile /etc/apache2/groups',
  '    Require group staff',
  '</Location>',
  '<Location /open>', // 27
  '    Require expr "%{HTTP:X-Token} == \'a\'"',
  '</Location>',
  '',
].join('\n');

/** The section whose open tag is on `line`. */
function sectionAt(text: string, line: number) {
  const doc = parse(text);
  const s = doc.sections.find((x) => x.open.line === line);
  assert.ok(s, `a section opens on line ${line}`);
  return { doc, s };
}

describe('features/access-hover: who gets in', () => {
  const cases: Array<{ name: string; line: number; columns: string[]; rows: Record<string, Array<number | null>>; text?: string; context?: FileContext }> = [
    { name: '<Directory /> denies everyone', line: 0, columns: ['no credentials'], rows: { anyone: [403] } },
    {
      name: '<Directory /var/www> lets the named networks in',
      line: 3,
      columns: ['no credentials'],
      rows: { anyone: [403], '10.0.0.0/8 (10.0.0.1)': [200], '192.168.1.5': [200] },
    },
    {
      name: '<Location /admin> asks for a login, lets alice in',
      line: 6,
      columns: ['no credentials', 'valid user', 'user alice'],
      rows: { anyone: [401, 401, 200] },
    },
    {
      name: '2.2 rules under mod_access_compat: host and network',
      text: CONFIG.split('\n').slice(12, 17).join('\n') + '\n',
      line: 0,
      columns: ['no credentials'],
      rows: { anyone: [403], 'host www.example.org': [200], '10.1.0.0/16 (10.1.0.1)': [200] },
    },
    {
      name: 'Allow from under an inherited Require all denied: both must pass (2.4 merges them)',
      line: 12,
      columns: ['no credentials'],
      rows: { anyone: [403], 'host www.example.org': [403], '10.1.0.0/16 (10.1.0.1)': [403] },
    },
    { name: '<Files> with Require local', line: 17, columns: ['no credentials'], rows: { anyone: [403], 'this machine (127.0.0.1)': [200] } },
    {
      name: 'Require group: a member gets in',
      line: 20,
      columns: ['no credentials', 'valid user', 'member of staff'],
      rows: { anyone: [401, 401, 200] },
    },
    { name: 'an expression the editor cannot evaluate', line: 27, columns: ['no credentials'], rows: { anyone: [null] } },
    {
      name: 'a section inside <VirtualHost> merges with the server-wide <Directory />',
      text: '<Directory />\n    Require all denied\n</Directory>\n<VirtualHost *:80>\n    <Location /pub>\n        Require all granted\n    </Location>\n</VirtualHost>\n',
      line: 4,
      columns: ['no credentials'],
      rows: { anyone: [200] },
    },
    {
      name: 'nested narrower sections are left out',
      text: '<Directory /x>\n    Require all granted\n    <Files private.txt>\n        Require all denied\n    </Files>\n</Directory>\n',
      line: 0,
      columns: ['no credentials'],
      rows: { anyone: [200] },
    },
    {
      name: 'the narrower section itself',
      text: '<Directory /x>\n    Require all granted\n    <Files private.txt>\n        Require all denied\n    </Files>\n</Directory>\n',
      line: 2,
      columns: ['no credentials'],
      rows: { anyone: [403] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { doc, s } = sectionAt(c.text ?? CONFIG, c.line);
      const summary = accessSummary(doc, s, c.context ?? 'server');
      assert.ok(summary, 'a summary');
      assert.deepEqual(summary.columns.map((x) => x.label), c.columns);
      assert.deepEqual(Object.fromEntries(summary.rows.map((r) => [r.client.label, r.statuses])), c.rows);
    });
  }

  const none: Array<[string, string, number]> = [
    ['a file without access rules', '<Directory /x>\n    Options None\n</Directory>\n', 0],
    ['a section that is not an access scope', '<IfModule mod_ssl.c>\n    Require all denied\n</IfModule>\n', 0],
  ];
  for (const [name, text, line] of none) {
    it(`no summary: ${name}`, () => {
      const { doc, s } = sectionAt(text, line);
      assert.equal(accessSummary(doc, s, 'server'), null);
      assert.equal(accessHoverMarkdown(doc, s, 'server'), null);
    });
  }

  it('the hover on the tag name keeps the directive docs and adds the table', () => {
    const doc = parse(CONFIG);
    const offset = doc.lineStarts[3] + 2; // <Di|rectory /var/www>
    const h = hoverAt(doc, offset, 'server');
    assert.ok(h);
    const value = (h.contents as { value: string }).value;
    assert.match(value, /Directory/);
    assert.match(value, /\*\*Who gets in\*\*/);
    assert.match(value, /\| 192\.168\.1\.5 \| 200 in \|/);
    assert.ok(value.indexOf('Who gets in') > value.indexOf('---'), 'the table comes after the docs');
  });

  it('the hover on the tag argument is the table alone', () => {
    const doc = parse(CONFIG);
    const offset = doc.lineStarts[6] + 12; // <Location /ad|min>
    const h = hoverAt(doc, offset, 'server');
    assert.ok(h);
    const value = (h.contents as { value: string }).value;
    assert.match(value, /^\*\*Who gets in\*\* — GET \/admin/);
  });

  it('the hover on a directive name is unchanged', () => {
    const doc = parse(CONFIG);
    const h = hoverAt(doc, doc.lineStarts[1] + 6, 'server');
    assert.ok(h);
    assert.doesNotMatch((h.contents as { value: string }).value, /Who gets in/);
  });
});
