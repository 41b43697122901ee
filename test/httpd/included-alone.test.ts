// Files that another file includes, rewritten without that main file, on the real httpd.
//
// `apacheconf fix conf-enabled/stats.conf` without `--root` (or an editor whose workspace does not
// hold the main file) cannot see what the main file's sections say before this one. A file in a
// folder that only an Include reads (conf-enabled/, sites-available/, conf.d/…) therefore gets a
// rewrite only when the engine finds it exact whatever the main file's `<Directory />` holds:
// nothing, `Require all denied` (Debian's and Red Hat's stock files), or a password; and only
// where the main file sets access in sections read before the included file's (the directories
// that enclose its paths). A later section of the main file (a deeper <Directory>, <Location>,
// <Files>) can overrule a rewritten `Require` where it could not overrule the host rules; the
// finding says so. So the random main files here set access at `/` and the document root only.
//
// Each case is a main file (2.4 lines only: it is not rewritten) and an included file. The
// included file is rewritten on its own, as `apacheconf fix` does for a file in conf-enabled/,
// and the main file with the rewrite runs on httpd without mod_access_compat against the original
// with it. A file with no Listen line and no Include is such a file too, whatever its folder (httpd
// runs no file without one); the file-alone rewrite, which a file with a Listen line gets, the
// first row shows httpd answering otherwise under the closed main file.
// APACHECONF_CONFIG_RUNS=<n> (default 40) and APACHECONF_SEED=<n> change the random run.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assertExactOnHttpd, forEngine, fromEngine, httpdOrSkip, runPair, type MigrationCase, type Migrated } from './migration-cases.test';
import { HEAD, TABLE, place, type Split } from './in-configuration.test';
import { authzBlock, compatBlock } from './blocks';
import { BASIC, GROUPFILE, SUB, dir, loc, locMatch } from './migration-cases.test';
import { createService } from '../../server/src/service';
import { migrateText } from '../../server/src/access';

const PATHS = ['/index.html', '/sub/a.html', '/sub/', '/sub/deep/b.html', '/other/a.html'];
const FILES = { 'sub/deep/b.html': 'b\n', 'other/a.html': 'o\n' };
const HEADERS: Array<Record<string, string>> = [{}, { 'X-Flag': 'yes' }];
const COMPAT_LINE = /^\s*(order|allow|deny|satisfy)\s/im;

/** The included part rewritten on its own under `path`; the case runs it after its main file. */
export function migrateAlone(s: Split, path = '/etc/apache2/conf-enabled/included.conf'): Migrated {
  const included = forEngine(s.included.endsWith('\n') ? s.included : s.included + '\n');
  const r = createService().fixText({ text: included, uri: `file://${path}`, context: 'server' });
  const left = r.analysis.findings.filter((f) => f.rule === 'legacy-access' && f.severity !== 'hint');
  const c: MigrationCase = { id: s.id, why: 'included, main file unknown', config: s.root + '\n' + s.included, paths: PATHS, files: FILES, headers: HEADERS };
  return { c, rewritten: left.length ? null : s.root + '\n' + fromEngine(r.text), reasons: left.map((f) => f.message), forExplain: settleTests };
}

/** Main files that set access at `/` and the document root (sections read before the included file's), 2.4 lines only. */
const mainArb = fc
  .record({
    rootWhere: fc.uniqueArray(fc.constantFrom('root' as const, 'docroot' as const), { minLength: 1, maxLength: 2 }),
    rootBodies: fc.array(authzBlock, { minLength: 2, maxLength: 2 }),
    auth: fc.boolean(),
    where: fc.uniqueArray(fc.constantFrom('sub' as const, 'sub-deep' as const, 'loc-sub' as const, 'files-a' as const, 'other' as const), { minLength: 1, maxLength: 2 }),
    bodies: fc.array(compatBlock, { minLength: 2, maxLength: 2 }),
    // Tests around the included sections, as packages' files have them (`<IfModule mod_status.c>`
    // around their <Location>): one httpd passes (mod_mime is loaded), ones it fails.
    wraps: fc.array(fc.constantFrom(null, null, null, 'IfModule mod_mime.c', 'IfModule mod_status.c', 'IfDefine !NOPE', 'IfDefine NOPE'), { minLength: 3, maxLength: 3 }),
    // Sections with no access line around them, each in a test of its own (a package's
    // `<IfModule mod_lbmethod_*.c>` around a `<Location>` of `ProxyPass` lines).
    fillers: fc.array(
      fc.record({
        where: fc.constantFrom('root' as const, 'docroot' as const, 'sub' as const, 'sub-deep' as const, 'loc-sub' as const, 'files-a' as const, 'other' as const),
        test: fc.constantFrom('IfModule mod_dir.c', 'IfModule !mod_dir.c', 'IfModule mod_status.c', 'IfModule !mod_status.c', 'IfDefine NOPE', 'IfDefine !NOPE', 'IfDefine NOPE2', 'IfModule mod_setenvif.c'),
        after: fc.boolean(),
      }),
      { maxLength: 6 },
    ),
  })
  .map((c) => ({
    root: [HEAD, ...(c.auth ? [dir(`${BASIC}\n${GROUPFILE}`, '/')] : []), ...c.rootWhere.map((w, i) => place(w, c.rootBodies[i]))].join('\n'),
    // Each section in a test of its own, then the whole file in one.
    included: wrapIn(
      c.wraps[2],
      [
        ...c.fillers.filter((f) => !f.after).map((f) => wrapIn(f.test, place(f.where, 'AddDefaultCharset utf-8'))),
        ...c.where.map((w, i) => wrapIn(c.wraps[i], place(w, c.bodies[i]))),
        ...c.fillers.filter((f) => f.after).map((f) => wrapIn(f.test, place(f.where, 'AddDefaultCharset utf-8'))),
      ].join('\n'),
    ),
  }));

/** Modules the oracle's server loads that the wrappers here test (see harness.ts), by short name. */
const LOADED = new Set(['mime', 'dir', 'setenvif', 'authz_core', 'access_compat']);

/**
 * `config` as httpd reads it on the oracle's server: the wrappers' lines gone, and what sits in
 * a test it fails (`<IfModule mod_status.c>`, `<IfDefine NOPE>`) too.
 */
export function settleTests(config: string): string {
  const stack: boolean[] = [];
  const out: string[] = [];
  for (const line of config.split('\n')) {
    const open = /^\s*<(IfModule|IfDefine)\s+(!?)([^>\s]+)>\s*$/i.exec(line);
    if (open) {
      const holds = open[1].toLowerCase() === 'ifmodule' ? LOADED.has(open[3].toLowerCase().replace(/^mod_/, '').replace(/\.c$/, '').replace(/_module$/, '')) : false;
      stack.push(holds !== (open[2] === '!'));
      continue;
    }
    if (/^\s*<\/(IfModule|IfDefine)>\s*$/i.test(line)) {
      stack.pop();
      continue;
    }
    if (stack.every(Boolean)) out.push(line);
  }
  return out.join('\n');
}

/** `body` inside `<TAG>` (nothing around it for null). */
function wrapIn(tag: string | null, body: string): string {
  return tag ? `<${tag}>\n${body}\n</${tag.split(' ')[0]}>` : body;
}

const TABLE_24 = TABLE.filter((s) => !COMPAT_LINE.test(s.root));

if (typeof describe === 'function') describe('included files rewritten without their main file (real httpd)', function () {
  this.timeout(1_200_000);

  it('under a closed main file, the file-alone rewrite opens what httpd keeps closed; the included-file rewrite, which a file with no Listen line gets in any folder, does not', async function () {
    if (!httpdOrSkip(this)) return;
    const closed = TABLE_24[0];
    // The rewrite of the file taken as a whole configuration (what a file with a Listen line of its own gets).
    const alone = fromEngine(migrateText(forEngine(closed.included.endsWith('\n') ? closed.included : closed.included + '\n'), 'server').text);
    assert.doesNotMatch(alone, COMPAT_LINE);
    const plain = { ...migrateAlone(closed), rewritten: closed.root + '\n' + alone, reasons: [] };
    const r = await runPair([plain]);
    console.log(`    file-alone rewrite: ${r.requests} requests, ${r.differences.length} differences (${r.differences[0] ?? ''})`);
    assert.ok(r.differences.length > 0, 'httpd answers the file-alone rewrite differently under the closed main file');
    // In conf-enabled/, and where Debian puts a package's file (/etc/PACKAGE/apache.conf, linked
    // from conf-enabled/; a black-box run, helper-40): httpd runs no file without a Listen line.
    for (const where of ['/etc/apache2/conf-enabled/included.conf', '/etc/phpldapadmin/apache.conf']) {
      const included = migrateAlone(closed, where);
      assert.ok(included.rewritten, `${where}: ${included.reasons.join('; ')}`);
      assert.match(included.rewritten, /AuthMerging And/);
      await assertExactOnHttpd([included], where);
    }
  });

  it('sections inside tests httpd may fail (a package\'s <IfModule mod_status.c> around its <Location>) get their rewrite, exact under each main file', async function () {
    if (!httpdOrSkip(this)) return;
    const mains = [
      [HEAD, dir('Require all denied', '/')].join('\n'),
      [HEAD, dir('Require all denied', '/'), dir('Require all granted')].join('\n'),
      [HEAD, dir(`${BASIC}\n${GROUPFILE}\nRequire valid-user`, '/')].join('\n'),
      HEAD,
    ];
    const bodies = [
      wrapIn('IfModule mod_mime.c', loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3')),
      wrapIn('IfModule mod_status.c', loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2')),
      wrapIn('IfDefine !NOPE', dir('Order allow,deny\nAllow from all', SUB) + '\n' + dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', `${SUB}/deep`)),
      // Four tests, as OpenMandriva's fileprotector.conf has (16 readings under each main file).
      [
        wrapIn('IfModule mod_dir.c', place('files-a', 'Order allow,deny\nDeny from all')),
        wrapIn('IfModule !mod_status.c', wrapIn('IfModule mod_dir.c', dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', `${SUB}/deep`))),
        wrapIn('IfDefine NOPE', wrapIn('IfModule mod_mime.c', place('other', 'Order deny,allow\nDeny from all'))),
      ].join('\n'),
      // Sections with no access line, each in a test of its own, beside the host rules inside one
      // enclosing section (the test suite's proxy.conf.in: <Location>s of ProxyPass lines, each
      // in its <IfModule mod_lbmethod_*.c>, in the virtual host of the balancer manager): only the
      // tests around access lines are worked out both ways (six tests here, four at most).
      wrapIn(
        'IfModule mod_setenvif.c',
        [
          wrapIn('IfModule mod_dir.c', loc('/', 'AddDefaultCharset utf-8')),
          wrapIn('IfModule !mod_status.c', loc('/sub', 'AddDefaultCharset utf-8')),
          wrapIn('IfDefine NOPE', loc('/sub/deep', 'AddDefaultCharset utf-8')),
          wrapIn('IfDefine !NOPE', dir('AddDefaultCharset utf-8', SUB)),
          wrapIn('IfDefine NOPE2', place('files-a', 'AddDefaultCharset utf-8')),
          wrapIn('IfModule mod_mime.c', loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2')),
        ].join('\n'),
      ),
      // Fourteen regex sections of no access line beside the host rules (Evergreen's
      // eg_vhost.conf): each may match a request or not, and none changes an answer.
      wrapIn(
        'IfModule mod_setenvif.c',
        [
          ...Array.from({ length: 14 }, (_, i) => locMatch(i % 2 ? `^/sub/(x${i}|a)\\.html$` : `^/(sub|other)/.*${i}`, 'AddDefaultCharset utf-8')),
          loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2'),
        ].join('\n'),
      ),
    ];
    const migrated = mains.flatMap((root, i) => bodies.map((included, j) => migrateAlone({ id: `wrapped-${i}-${j}`, root, included })));
    for (const m of migrated) assert.ok(m.rewritten, `${m.c.id}: ${m.reasons[0]}`);
    assert.equal(await assertExactOnHttpd(migrated, 'wrapped'), migrated.length);
  });

  it('table: every rewrite of an included file is exact under its main file', async function () {
    if (!httpdOrSkip(this)) return;
    const migrated = TABLE_24.map((s) => migrateAlone(s));
    const rewritten = await assertExactOnHttpd(migrated, 'table');
    assert.ok(rewritten >= 3, `${rewritten} of ${migrated.length} rewritten: ${migrated.filter((m) => !m.rewritten).map((m) => `${m.c.id}: ${m.reasons[0]}`).join('; ')}`);
  });

  it('random main and included files: every rewrite of an included file is exact under its main file', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 23);
    const runs = Number(process.env.APACHECONF_CONFIG_RUNS ?? 40);
    const splits = fc
      .sample(mainArb, { seed, numRuns: runs * 3 })
      .filter((s) => !COMPAT_LINE.test(s.root))
      .slice(0, runs);
    const migrated = splits.map((s, i) => migrateAlone({ id: `ia${i}`, ...s }));
    await assertExactOnHttpd(migrated, `seed ${seed}`);
  });
});
