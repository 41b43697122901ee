// Files included by a server config, rewritten in that configuration, on the real httpd.
//
// A file of conf-enabled/ or sites-enabled/ inherits what its root file says. On a stock Debian
// or Red Hat 2.4 install `<Directory />` holds `Require all denied`, and that `Require` still
// applies to a `<Directory>` of the included file that has only host rules: with
// mod_access_compat, `Order allow,deny` + `Allow from all` there answers 403. Planned on the file
// alone, that block was rewritten to `Require all granted`, which answers 200: it opened a
// directory httpd kept closed. Planned on the configuration (`fix --root`, the root file's
// includes inlined), the rewrite is `AuthMerging And` + `Require all granted`, which keeps it closed.
//
// Each case is a root part and an included part; both are rewritten in the configuration, as
// `apacheconf fix --root` does, and the result is run on httpd without mod_access_compat against
// the original with it. The first row also runs the file-alone rewrite, to show httpd refusing it.
// APACHECONF_CONFIG_RUNS=<n> (default 40) and APACHECONF_SEED=<n> change the random run.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { BASIC, GROUPFILE, SUB, assertExactOnHttpd, dir, files, forEngine, fromEngine, httpdOrSkip, loc, runPair, type MigrationCase, type Migrated } from './migration-cases.test';
import { createService } from '../../server/src/service';
import { parse } from '../../server/src/syntax';
import { migrateText, type ConfigurationView } from '../../server/src/access';

const PATHS = ['/index.html', '/sub/a.html', '/sub/', '/sub/deep/b.html', '/other/a.html'];
const FILES = { 'sub/deep/b.html': 'b\n', 'other/a.html': 'o\n' };
const HEADERS: Array<Record<string, string>> = [{}, { 'X-Flag': 'yes' }];

export interface Split {
  id: string;
  root: string;
  included: string;
}

/** Lines of `text` as origins of `path`. */
function originsOf(text: string, path: string): Array<{ path: string; line: number }> {
  return text.split('\n').slice(0, -1).map((_, line) => ({ path, line }));
}

/** Both parts rewritten in the configuration they make together (what `fix --root` does to each file). */
export function migrateInConfiguration(s: Split): Migrated & { standalone: string | null } {
  const root = forEngine(s.root.endsWith('\n') ? s.root : s.root + '\n');
  const included = forEngine(s.included.endsWith('\n') ? s.included : s.included + '\n');
  const doc = parse(root + included);
  const origins = [...originsOf(root, 'root.conf'), ...originsOf(included, 'included.conf')];
  const service = createService();
  const view = (path: string): ConfigurationView => ({ doc, origins, path, root: 'root.conf', context: 'vhost', together: new Set(['root.conf', 'included.conf']) });
  const reasons: string[] = [];
  const fix = (text: string, path: string | null) => {
    const r = service.fixText({ text, uri: `file:///etc/httpd/${path ?? 'alone.conf'}`, context: 'server', ...(path ? { configuration: view(path) } : {}) });
    const left = r.analysis.findings.filter((f) => f.rule === 'legacy-access' && f.severity !== 'hint');
    for (const f of left) reasons.push(f.message);
    return left.length ? null : r.text;
  };
  const r = fix(root, 'root.conf');
  const i = fix(included, 'included.conf');
  // The included file planned as a whole configuration (as a file with a Listen line of its own
  // would be; one without is planned as a file another includes): what the first row shows httpd refusing.
  const alone = migrateText(included, 'server');
  const standalone = alone.plan.sections.some((sp) => !sp.exact) || r === null ? null : fromEngine(r + alone.text);
  const c: MigrationCase = { id: s.id, why: 'in configuration', config: s.root + '\n' + s.included, paths: PATHS, files: FILES, headers: HEADERS };
  return { c, rewritten: r !== null && i !== null ? fromEngine(r + i) : null, reasons, standalone };
}

export const HEAD = 'SetEnvIf X-Flag ^yes FLAG';
export const TABLE: Split[] = [
  // Debian's and Red Hat's root: <Directory /> closed, nothing granted below it here.
  { id: 'closed-root', root: [HEAD, dir('Require all denied', '/')].join('\n'), included: dir('Order allow,deny\nAllow from all', SUB) },
  { id: 'closed-root-granted-docroot', root: [HEAD, dir('Require all denied', '/'), dir('Require all granted')].join('\n'), included: dir('Order allow,deny\nAllow from all', SUB) },
  { id: 'closed-root-host-list', root: [HEAD, dir('Require all denied', '/'), dir('Require all granted')].join('\n'), included: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2 env=FLAG', SUB) },
  { id: 'password-root-satisfy-any', root: [HEAD, dir(`${BASIC}\n${GROUPFILE}\nRequire valid-user`, '/')].join('\n'), included: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any', SUB) },
  { id: 'granted-root-location', root: [HEAD, dir('Require all granted', '/')].join('\n'), included: loc('/sub', 'Order deny,allow\nDeny from 127.0.0.3') },
  { id: 'root-22-too', root: [HEAD, dir('Order deny,allow\nDeny from all', '/'), dir('Order allow,deny\nAllow from all')].join('\n'), included: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', SUB) },
  { id: 'included-files-section', root: [HEAD, dir('Require all denied', '/'), dir('Require ip 127.0.0.0/30')].join('\n'), included: files('a.html', 'Order allow,deny\nAllow from all') },
];

const WHERE = ['root', 'docroot', 'sub', 'sub-deep', 'loc-sub', 'files-a', 'other'] as const;
export const place = (w: (typeof WHERE)[number], body: string): string =>
  w === 'root' ? dir(body, '/') : w === 'docroot' ? dir(body) : w === 'sub' ? dir(body, SUB) : w === 'sub-deep' ? dir(body, `${SUB}/deep`) : w === 'loc-sub' ? loc('/sub', body) : w === 'files-a' ? files('a.html', body) : dir(body, '@DOCROOT@/other');
export const splitArb = fc
  .record({
    rootWhere: fc.uniqueArray(fc.constantFrom(...WHERE), { minLength: 1, maxLength: 2 }),
    rootBodies: fc.array(fc.oneof({ arbitrary: authzBlock, weight: 3 }, { arbitrary: compatBlock, weight: 1 }), { minLength: 2, maxLength: 2 }),
    auth: fc.boolean(),
    where: fc.uniqueArray(fc.constantFrom(...WHERE), { minLength: 1, maxLength: 2 }),
    bodies: fc.array(compatBlock, { minLength: 2, maxLength: 2 }),
  })
  .map((c) => ({
    root: [HEAD, ...(c.auth ? [dir(`${BASIC}\n${GROUPFILE}`, '/')] : []), ...c.rootWhere.map((w, i) => place(w, c.rootBodies[i]))].join('\n'),
    included: c.where.map((w, i) => place(w, c.bodies[i])).join('\n'),
  }));

if (typeof describe === "function") describe('files included by a server config, rewritten in that configuration (real httpd)', function () {
  this.timeout(1_200_000);

  it('planned alone, the included file of a closed root was opened: httpd says so', async function () {
    if (!httpdOrSkip(this)) return;
    const m = migrateInConfiguration(TABLE[0]);
    assert.ok(m.standalone, 'the file alone gets a rewrite');
    const alone = await runPair([{ c: m.c, rewritten: m.standalone, reasons: [] }]);
    console.log(`    planned alone: ${alone.requests} requests, ${alone.differences.length} differences (${alone.differences[0] ?? ''})`);
    assert.ok(alone.differences.length > 0, 'httpd answers the file-alone rewrite differently');
    assert.match(m.rewritten ?? '', /AuthMerging And/);
  });

  it('table: every rewrite planned in the configuration is exact', async function () {
    if (!httpdOrSkip(this)) return;
    const migrated = TABLE.map(migrateInConfiguration);
    const rewritten = await assertExactOnHttpd(migrated, 'table');
    assert.ok(rewritten >= 5, `${rewritten} of ${TABLE.length} rewritten: ${migrated.filter((m) => !m.rewritten).map((m) => `${m.c.id}: ${m.reasons[0]}`).join('; ')}`);
  });

  it('random roots and included files: every rewrite planned in the configuration is exact', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 17);
    const runs = Number(process.env.APACHECONF_CONFIG_RUNS ?? 40);
    const migrated = fc.sample(splitArb, { seed, numRuns: runs }).map((s, i) => migrateInConfiguration({ id: `ic${i}`, ...s }));
    await assertExactOnHttpd(migrated, `seed ${seed}`);
  });
});
