// The projection a group's rewrite is checked on (server/src/access/projection.ts): what it keeps,
// how edits move onto it, and that plans checked on projections are the plans checked on whole
// files (over the shared corpus, the migration table and generated files).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from '../../server/src/syntax';
import { buildModel, migrateText, type Scope } from '../../server/src/access';
import { projectEdits, projectForGroup, projectOffset } from '../../server/src/access/projection';
import { defaultContextFor } from '../../server/src/model/context';
import { CASES, forEngine } from '../httpd/migration-cases.test';
import { corpusFiles, needCorpus } from '../support/corpus';

/** A server config, each line with whether the projection for the group below keeps it. */
const LINES: Array<[boolean, string]> = [
  [false, '# Main server'],
  [true, 'DocumentRoot /srv/www'],
  [true, '<Directory />'],
  [true, '    Order deny,allow'],
  [true, '    Deny from all'],
  [true, '</Directory>'],
  [false, ''],
  [false, '<Directory /srv/www/pub>'],
  [false, '    Options None'],
  [false, '</Directory>'],
  // Kept: it sets what a request to the group may need.
  [true, '<Directory /srv/www/auth>'],
  [true, '    AuthName "private"'],
  [true, '    AuthUserFile /etc/users'],
  [true, '</Directory>'],
  [true, '<IfModule mod_alias.c>'],
  [true, '    Alias /docs /srv/docs'],
  [false, '    <Location /other>'],
  [false, '        Order allow,deny'],
  [false, '        Allow from all'],
  [false, '    </Location>'],
  [true, '</IfModule>'],
  // Kept: a <Proxy> section anywhere makes the URL mapping unknown.
  [true, '<Proxy "http://backend/">'],
  [true, '    Require all granted'],
  [true, '</Proxy>'],
  [true, '<VirtualHost *:80>'],
  [true, '    ServerName a.example'],
  [true, '    DocumentRoot /srv/a'],
  [true, '    <Directory /srv/a>'],
  [true, '        Order allow,deny'],
  [true, '        Allow from 10.0.0.0/8'],
  [true, '    </Directory>'],
  [true, '</VirtualHost>'],
  [false, '<VirtualHost *:80>'],
  [false, '    ServerName b.example'],
  [false, '    <Location /b>'],
  [false, '        Order deny,allow'],
  [false, '        Deny from all'],
  [false, '    </Location>'],
  [false, '</VirtualHost>'],
];
const SAMPLE = LINES.map(([, l]) => l + '\n').join('');

function scopeAt(model: ReturnType<typeof buildModel>, line: string): Scope {
  const at = model.doc.text.indexOf(line);
  const s = model.scopes.find((x) => x.section && x.section.open.start === at);
  assert.ok(s, line);
  return s!;
}

describe('access projection: what a group is checked on', () => {
  const model = buildModel(parse(SAMPLE), 'server');
  const group = [scopeAt(model, '<Directory />'), scopeAt(model, '<Directory /srv/a>')];
  const p = projectForGroup(model, group)!;

  it('keeps the group whole, the sections around it, the top level, and what other sections read', () => {
    assert.equal(p.text, LINES.filter(([kept]) => kept).map(([, l]) => l + '\n').join(''));
  });

  it('maps offsets of kept lines, and refuses edits in parts left out', () => {
    const at = SAMPLE.indexOf('Allow from 10.0.0.0/8');
    assert.equal(p.text.slice(projectOffset(p, at), projectOffset(p, at) + 10), 'Allow from');
    assert.equal(projectOffset(p, SAMPLE.indexOf('Options None')), -1);
    const moved = projectEdits(p, [{ start: at, end: at + 'Allow from 10.0.0.0/8'.length, newText: 'Require ip 10.0.0.0/8' }])!;
    assert.equal(moved.length, 1);
    assert.match(p.text.slice(0, moved[0].start) + moved[0].newText + p.text.slice(moved[0].end), /<Directory \/srv\/a>\n\s+Order allow,deny\n\s+Require ip 10\.0\.0\.0\/8\n/);
    assert.equal(projectEdits(p, [{ start: SAMPLE.indexOf('Options None'), end: SAMPLE.indexOf('Options None') + 4, newText: '' }]), null);
  });

  it('is not made for a file with syntax errors', () => {
    const broken = buildModel(parse('<Directory /a>\n  Order deny,allow\n  Deny from all\n'), 'server');
    assert.equal(projectForGroup(broken, broken.scopes.filter((s) => s.compat)), null);
  });
});

/** The plans with and without projections, as comparable text. */
function bothWays(text: string, ctx: ReturnType<typeof defaultContextFor>): [string, string] {
  const sig = (r: ReturnType<typeof migrateText>) =>
    JSON.stringify([r.text, r.plan.sections.map((s) => [s.exact?.title ?? null, s.naive?.title ?? null, s.reason ? 'refused' : null])]);
  return [sig(migrateText(text, ctx)), sig(migrateText(text, ctx, { wholeFile: true }))];
}

describe('access projection: plans checked on projections are the plans checked on whole files', function () {
  this.timeout(300_000);

  it('the migration table', () => {
    for (const c of CASES) {
      const [a, b] = bothWays(forEngine(c.config), 'vhost');
      assert.equal(a, b, c.id);
    }
  });

  it('virtual hosts with their own sections, and a top-level section over all of them', () => {
    const hosts = (n: number, top: string) =>
      top +
      Array.from({ length: n }, (_, i) => `<VirtualHost *:80>\n  ServerName h${i}\n  DocumentRoot /srv/h${i}\n  <Directory /srv/h${i}>\n    Order allow,deny\n    Allow from 10.${i}.0.0/16\n  </Directory>\n  <Location /adm>\n    Require ip 10.${i}.1.0/24\n  </Location>\n</VirtualHost>\n`).join('');
    for (const top of ['', '<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n', '<Files ~ "\\.bak$">\n  Order allow,deny\n  Deny from all\n</Files>\n']) {
      const [a, b] = bothWays(hosts(25, top), 'server');
      assert.equal(a, b, top);
    }
  });

  it('every file of the shared corpus', function () {
    if (!needCorpus(this)) return;
    let n = 0;
    for (const file of corpusFiles()) {
      const f = path.basename(file);
      const text = fs.readFileSync(file, 'latin1');
      const [a, b] = bothWays(text, defaultContextFor(f.split('__').pop()!));
      assert.equal(a, b, f);
      n++;
    }
    assert.ok(n > 100);
  });
});
