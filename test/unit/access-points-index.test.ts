// The index that finds the scopes a request point may select (access/points.ts ScopesByPath): it
// must never leave out a scope whose own test holds at a place, whatever the paths look like.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from '../../server/src/syntax';
import { buildModel } from '../../server/src/access/model';
import { pointsFor, ScopesByPath, selectedScopes } from '../../server/src/access/points';
import { accessScopes, dirApplies, filesApplies, locationApplies, scopesThatApply } from '../../server/src/access/evaluate';
import { normPath } from '../../server/src/access/region';
import type { Scope } from '../../server/src/access/model';

const SEGMENTS = ['', 'a', 'b', 'srv', 'www', 'a.html', 'x', '..', '.', 'p1'];
const path = fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 }).map((parts) => '/' + parts.join('/'));
const pathWithSlashes = fc.tuple(path, fc.boolean(), fc.boolean()).map(([p, trail, dbl]) => (dbl ? p.replace('/', '//') : p) + (trail ? '/' : ''));
const name = fc.constantFrom('a.html', 'x', 'index.php', '.htaccess', 'zz-other.html');

/** A scope's own test at a place, as pointsFor asks it of a plain section. */
function ownTest(s: Scope, file: string, uri: string): boolean {
  if (s.kind === 'directory') return dirApplies(s, file);
  if (s.kind === 'location') return locationApplies(s, uri);
  if (s.kind === 'files') return filesApplies(s, file);
  return false;
}

function check(conf: string, file: string, uri: string): void {
  const model = buildModel(parse(conf), 'server');
  const scopes = accessScopes(model);
  const index = new ScopesByPath(scopes, 0);
  const got = index.candidates(normPath(file), uri, file.slice(file.lastIndexOf('/') + 1));
  for (let i = 1; i < got.length; i++) assert.ok(got[i - 1].index < got[i].index, 'candidates in document order, each once');
  for (const s of scopes) {
    if (ownTest(s, file, uri)) assert.ok(got.includes(s), `${s.kind} ${JSON.stringify(s.pattern)} applies at ${file} (${uri}) but is not a candidate`);
  }
}

const ROWS: Array<[string, string, string, string]> = [
  // [name, config, file, uri]
  ['a folder and its parents', '<Directory /srv>\nRequire all denied\n</Directory>\n<Directory /srv/a>\nRequire all denied\n</Directory>\n<Directory /srv/ab>\nRequire all denied\n</Directory>\n', '/srv/a/x.html', '/x.html'],
  ['the root folder', '<Directory />\nRequire all denied\n</Directory>\n', '/srv/x', '/x'],
  ['a folder written with a trailing slash and `..`', '<Directory "/srv/www/../a/">\nRequire all denied\n</Directory>\n', '/srv/a/b/c', '/c'],
  ['a location with and without its slash', '<Location /a>\nRequire all denied\n</Location>\n<Location /a/>\nRequire all denied\n</Location>\n<Location /ab>\nRequire all denied\n</Location>\n', '/www/a/x', '/a/x'],
  ['a location at a URL with `//`', '<Location /a/>\nRequire all denied\n</Location>\n<Location /a>\nRequire all denied\n</Location>\n', '/www/a/x', '/a//x'],
  ['a file name', '<Files x.html>\nRequire all denied\n</Files>\n<Files y.html>\nRequire all denied\n</Files>\n', '/www/a/x.html', '/a/x.html'],
  ['a named file as a folder', '<Directory /www/a.html>\nRequire all denied\n</Directory>\n', '/www/a.html', '/a.html/extra'],
];

describe('access: the scopes a point may select (ScopesByPath)', () => {
  for (const [label, conf, file, uri] of ROWS) {
    it(label, () => check(conf, file, uri));
  }

  it('the rows select what they should (the check can fail)', () => {
    const model = buildModel(parse(ROWS[0][1]), 'server');
    const got = new ScopesByPath(accessScopes(model), 0).candidates('/srv/a/x.html', '/x.html', 'x.html');
    assert.deepEqual(
      got.map((s) => s.pattern),
      ['', '/srv', '/srv/a'],
    );
  });

  it('a small model is not indexed: every scope is a candidate', () => {
    const model = buildModel(parse(ROWS[0][1]), 'server');
    assert.equal(new ScopesByPath(accessScopes(model)).candidates('/elsewhere/x', '/x', 'x').length, accessScopes(model).length);
  });

  it('never leaves out a section that applies (random paths)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('Directory', 'Location', 'Files'), fc.oneof(pathWithSlashes, name)), { minLength: 1, maxLength: 8 }),
        pathWithSlashes,
        name,
        pathWithSlashes,
        (sections, dir, file, uri) => {
          const conf = sections.map(([k, p]) => `<${k} "${p}">\nRequire all denied\n</${k}>\n`).join('');
          check(conf, `${dir}/${file}`.replace(/\/+/g, '/'), uri);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** Configurations whose points select sections of every kind: patterns, <If>, hosts, nesting. */
const LAYOUTS: Array<[string, string]> = [
  [
    'directories, locations, files and a pattern',
    'DocumentRoot /www\n<Directory />\nRequire all denied\n</Directory>\n<Directory /www>\nOrder allow,deny\nAllow from all\n</Directory>\n<Directory /www/a>\nDeny from 10.0.0.1\n</Directory>\n<DirectoryMatch "^/www/b">\nRequire ip 10.1.0.0/16\n</DirectoryMatch>\n<Location /a/x>\nOrder deny,allow\nDeny from all\n</Location>\n<Files "x.html">\nRequire all denied\n</Files>\n',
  ],
  [
    'virtual hosts, <If> and nested files',
    'Listen 80\nDocumentRoot /www\n<VirtualHost *:80>\nDocumentRoot /v\n<Directory /v>\nOrder deny,allow\nDeny from all\nAllow from 10.0.0.0/8\n<Files a.php>\nRequire all denied\n</Files>\n</Directory>\n</VirtualHost>\n<Directory /www>\nOrder allow,deny\nAllow from all\n</Directory>\n<If "%{REMOTE_ADDR} == \'10.0.0.1\'">\nRequire all denied\n</If>\n<Location />\nSatisfy any\n</Location>\n',
  ],
];

describe('access: the scopes a point selects (selectedScopes)', () => {
  for (const [label, conf] of LAYOUTS) {
    it(`${label}: the same as testing every section`, () => {
      const model = buildModel(parse(conf), 'server');
      const { points, truncated } = pointsFor(model, model.scopes.filter((s) => s.kind !== 'top'));
      assert.ok(!truncated && points.length > 3, `${points.length} points`);
      for (const pt of points) {
        const want = scopesThatApply(model, pt.test, true).map((s) => s.index);
        assert.deepEqual(selectedScopes(model, pt)?.map((s) => s.index), want, pt.label);
      }
    });
  }

  it('nothing from a point made on another model', () => {
    const a = buildModel(parse(LAYOUTS[0][1]), 'server');
    const b = buildModel(parse(LAYOUTS[0][1]), 'server');
    const { points } = pointsFor(a, a.scopes.filter((s) => s.kind !== 'top'));
    assert.equal(selectedScopes(b, points[0]), undefined);
  });
});

describe('access: a <Files> pattern where the file name is known', () => {
  const conf =
    'DocumentRoot /www\n<Directory /www>\nOrder allow,deny\nAllow from all\n</Directory>\n<Files ~ "^\\.ht">\nOrder allow,deny\nDeny from all\n</Files>\n<Files "admin.php">\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</Files>\n';
  const model = buildModel(parse(conf), 'server');
  const ht = model.scopes.find((s) => s.pattern === '^\\.ht')!;
  const admin = model.scopes.find((s) => s.pattern === 'admin.php')!;
  const { points } = pointsFor(model, model.scopes.filter((s) => s.kind !== 'top'));

  it('no point takes a request for admin.php as one that `^\\.ht` matches', () => {
    const both = points.filter((pt) => pt.test(admin) && pt.test(ht));
    assert.deepEqual(both.map((pt) => pt.label), []);
  });

  it('the requests that `^\\.ht` matches are still tried, under other names', () => {
    assert.ok(points.some((pt) => pt.test(ht) && !pt.test(admin)));
    assert.ok(points.some((pt) => pt.test(admin) && !pt.test(ht)));
  });

  it('a label names the pattern only where it matches the place, or says the request is another one there', () => {
    for (const pt of points) {
      if (!pt.test(ht)) continue;
      const m = /file (\S+?),/.exec(pt.label);
      const name = m ? m[1].slice(m[1].lastIndexOf('/') + 1) : '';
      if (/^\.ht/.test(name)) assert.match(pt.label, /where <Files ~ "\^\\\.ht"> \(line \d+\) applies/);
      else assert.match(pt.label, /for a request there that <Files ~ "\^\\\.ht"> \(line \d+\) also matches/);
    }
  });
});
