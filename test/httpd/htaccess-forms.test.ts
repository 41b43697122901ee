/**
 * The rewrite offered for a `.htaccess` file, against the real httpd.
 *
 * A .htaccess file does not show what its directory inherits, so its rewrite is never offered as
 * exact: the engine offers an `AuthMerging And`/`Or` form and says what the form needs from the
 * inherited rules (SectionPlan.dirLevel):
 * - `nothing`: exact whatever is inherited;
 * - `require`: exact when a 2.4 `Require` is inherited;
 * - `require-or-no-authtype`: exact when a 2.4 `Require` is inherited, or no `AuthType` either.
 *
 * Each row is a .htaccess body. Each is served under every parent `<Directory>` below, by httpd
 * with mod_access_compat (the original) and without it (the rewrite); the statuses must be the
 * same under every parent the stated need allows. Under the parents it does not allow, the rows
 * marked `differs` must show a difference: the stated need is not stricter than httpd. Two parents
 * fall outside every need, as the message says: a later `<Files>` with `Require` in the server config,
 * and a directory that allows only `Limit` overrides (the rewrite answers 500).
 * Skips without httpd, except under CI=true.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, GROUPS, METHODS, USERS, httpdOrSkip } from './migration-cases.test';
import { planMigration, type DirLevelNeeds } from '../../server/src/access';
import { applyEdits, parse } from '../../server/src/syntax';
import { createService, INHERITED_DECLARATIONS } from '../../server/src/service';
import { migrateHtaccessInContext } from '../../server/src/features/htaccess-context';
import { FAKE_ROOT, forEngine } from './migration-cases.test';

/** The oracle's document roots hold no .htaccess above the one checked. */
const NO_PARENTS = { readFile: (): string | undefined => undefined, listDir: (): string[] | undefined => undefined };

/** What the parent directory holds, and which needs it satisfies. */
interface Parent {
  id: string;
  body: string;
  /** A 2.4 Require is inherited. */
  require: boolean;
  /** An AuthType is in effect. */
  authType: boolean;
  /** Server config after the directory (a later section), which no need allows. */
  after?: string;
  /** AllowOverride of the directory (default All). */
  override?: string;
}

const PARENTS: Parent[] = [
  { id: 'none', body: '', require: false, authType: false },
  { id: 'valid', body: `${BASIC}\nRequire valid-user`, require: true, authType: true },
  { id: 'ip', body: 'Require ip 127.0.0.2', require: true, authType: false },
  { id: 'granted', body: 'Require all granted', require: true, authType: false },
  { id: 'anyof', body: `${BASIC}\n<RequireAny>\nRequire valid-user\nRequire ip 127.0.0.3\n</RequireAny>`, require: true, authType: true },
  { id: 'authtype', body: BASIC, require: false, authType: true },
  // Outside every need: a later section with Require, and a directory that allows only Limit.
  { id: 'later-files', body: '', require: false, authType: false, after: '<Files "a.html">\nRequire all granted\n</Files>' },
  { id: 'override-limit', body: 'Require all granted', require: true, authType: false, override: 'Limit' },
];

function allows(needs: DirLevelNeeds, p: Parent): boolean {
  if (p.after || p.override) return false;
  if (needs === 'nothing') return true;
  if (needs === 'require') return p.require;
  return p.require || !p.authType;
}

interface Row {
  id: string;
  htaccess: string;
  needs: DirLevelNeeds;
  /** Parents (outside what `needs` allows) under which httpd must answer the rewrite differently. */
  differs?: string[];
}

const ROWS: Row[] = [
  { id: 'deny-all', htaccess: 'Order deny,allow\nDeny from all\n', needs: 'nothing', differs: ['later-files', 'override-limit'] },
  { id: 'allow-all', htaccess: 'Order allow,deny\nAllow from all\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'allow-one', htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'deny-one', htaccess: 'Order allow,deny\nAllow from all\nDeny from 127.0.0.2\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'host', htaccess: 'Order deny,allow\nDeny from all\nAllow from localhost\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'mutual', htaccess: 'Order mutual-failure\nAllow from 127.0.0.0/30\nDeny from 127.0.0.3\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'allow-only', htaccess: 'Allow from 127.0.0.2\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  { id: 'limit', htaccess: '<Limit POST>\nOrder deny,allow\nDeny from all\n</Limit>\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  {
    id: 'limit-except',
    htaccess: '<LimitExcept GET>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.3\n</LimitExcept>\n',
    needs: 'require-or-no-authtype',
    differs: ['authtype'],
  },
  { id: 'any', htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy Any\n', needs: 'require', differs: ['none', 'authtype'] },
  { id: 'any-deny-all', htaccess: 'Order deny,allow\nDeny from all\nSatisfy Any\n', needs: 'require', differs: ['none', 'authtype'] },
  { id: 'satisfy-only', htaccess: 'Satisfy Any\n', needs: 'nothing' },
  { id: 'own-require', htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nRequire valid-user\n', needs: 'nothing' },
  { id: 'any-own-require', htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy Any\nRequire valid-user\n', needs: 'nothing' },
  { id: 'own-limited', htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n<Limit POST>\nRequire valid-user\n</Limit>\n', needs: 'nothing' },
  {
    id: 'any-own-limited',
    htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n<Limit POST>\nRequire valid-user\n</Limit>\n',
    needs: 'nothing',
  },
  { id: 'own-or', htaccess: 'Order allow,deny\nAllow from 127.0.0.3\nSatisfy Any\nAuthMerging Or\nRequire valid-user\n', needs: 'nothing' },
  // Sections of the .htaccess file: a <Files> alone, or after a top level holding only Require.
  { id: 'files-deny', htaccess: '<Files "a.html">\nOrder allow,deny\nDeny from all\n</Files>\n', needs: 'nothing' },
  { id: 'filesmatch-allow-one', htaccess: '<FilesMatch "\\.html$">\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</FilesMatch>\n', needs: 'require-or-no-authtype', differs: ['authtype'] },
  {
    id: 'files-after-require',
    htaccess: '<IfModule mod_authz_core.c>\nRequire all granted\n</IfModule>\n<IfModule !mod_authz_core.c>\nOrder allow,deny\nAllow from all\n</IfModule>\n<Files "a.html">\nOrder allow,deny\nDeny from all\n</Files>\n',
    needs: 'nothing',
  },
  // Several sections, each of a form that decides alone.
  {
    id: 'files-two',
    htaccess: '<Files "a.html">\nOrder allow,deny\nDeny from all\n</Files>\n<FilesMatch "\\.html$">\nOrder allow,deny\nAllow from all\nSatisfy any\n</FilesMatch>\n',
    needs: 'nothing',
  },
  {
    id: 'top-allow-files-deny',
    htaccess: 'Order allow,deny\nAllow from all\n<Files "a.html">\nOrder allow,deny\nDeny from all\n</Files>\n',
    needs: 'require-or-no-authtype',
    differs: ['authtype'],
  },
  { id: 'top-and-files', htaccess: 'Order deny,allow\nDeny from all\n<Files "a.html">\nOrder allow,deny\nAllow from all\nSatisfy any\n</Files>\n', needs: 'nothing' },
  {
    id: 'top-and-files-own',
    htaccess: 'Order deny,allow\nDeny from all\n<Files "a.html">\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\nRequire valid-user\n</Files>\n',
    needs: 'nothing',
  },
  { id: 'own-and', htaccess: 'Order allow,deny\nAllow from 127.0.0.0/30\nAuthMerging And\nRequire user alice\n', needs: 'nothing' },
];

const STRENGTH: DirLevelNeeds[] = ['nothing', 'require-or-no-authtype', 'require'];

/**
 * The offered rewrite of a .htaccess text (every section's form applied) and what it needs (the
 * most any form needs), or null unless every section with host rules gets a form.
 */
function offered(text: string): { text: string; needs: DirLevelNeeds } | null {
  const plan = planMigration(parse(text), 'htaccess');
  if (!plan.sections.length || plan.sections.some((s) => s.exact || !s.dirLevel || !s.naive)) return null;
  const edits = plan.sections.flatMap((s) => s.naive!.edits);
  const needs = plan.sections.map((s) => s.dirLevel!).sort((a, b) => STRENGTH.indexOf(b) - STRENGTH.indexOf(a))[0];
  return { text: applyEdits(text, edits), needs };
}

/** a.html is matched by the rows' <Files> sections, b.html by none. */
const PATHS = ['/sub/a.html', '/sub/b.html'];

const caseId = (row: Row, p: Parent) => `ht-${row.id}-${p.id}`;

function oracleCase(id: string, parent: Parent, htaccess: string): OracleCase {
  return {
    id,
    config: `DocumentRoot "@DOCROOT@"\nSetEnvIf X-Flag ^yes FLAG\n<Directory "@DOCROOT@">\nAllowOverride ${parent.override ?? 'All'}\n${parent.body}\n</Directory>${parent.after ? `\n${parent.after}` : ''}`,
    files: { 'sub/a.html': 'a\n', 'sub/b.html': 'b\n', 'sub/.htaccess': htaccess },
  };
}

/** Serves the originals with mod_access_compat and the rewrites without, and each request's two statuses, by case. */
async function serveBoth(originals: OracleCase[], rewrites: OracleCase[], requests: OracleRequestFor[]): Promise<Map<string, Array<{ r: OracleRequestFor; a: number; b: number }>>> {
  const before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
  const after = await startOracle(rewrites, { compat: false, users: USERS, groups: GROUPS });
  try {
    const a = await before.requestAll(requests);
    const b = await after.requestAll(requests);
    const out = new Map<string, Array<{ r: OracleRequestFor; a: number; b: number }>>();
    requests.forEach((r, i) => {
      const list = out.get(r.caseId) ?? [];
      list.push({ r, a: a[i], b: b[i] });
      out.set(r.caseId, list);
    });
    return out;
  } finally {
    await before.stop();
    await after.stop();
  }
}

describe('.htaccess rewrites on the real httpd: each form is exact under the inherited rules it names', function () {
  this.timeout(300_000);
  let statuses: Map<string, Array<{ r: OracleRequestFor; a: number; b: number }>> | null = null;

  before(async function () {
    if (!httpdOrSkip(this)) return;
    const originals: OracleCase[] = [];
    const rewrites: OracleCase[] = [];
    const requests: OracleRequestFor[] = [];
    for (const row of ROWS) {
      const o = offered(row.htaccess);
      if (!o) continue;
      for (const p of PARENTS) {
        const id = caseId(row, p);
        originals.push(oracleCase(id, p, row.htaccess));
        rewrites.push(oracleCase(id, p, o.text));
        for (const from of FROMS) {
          for (const auth of AUTHS) {
            for (const method of METHODS) for (const path of PATHS) requests.push({ caseId: id, path, from, method, ...(auth ? { auth } : {}) });
          }
        }
      }
    }
    statuses = await serveBoth(originals, rewrites, requests);
  });

  for (const row of ROWS) {
    it(`${row.id}: offered with need "${row.needs}"; same status under ${row.needs === 'nothing' ? 'every parent but the two outside every need' : 'the parents it allows'}`, () => {
      const o = offered(row.htaccess);
      assert.ok(o, 'a rewrite is offered');
      assert.equal(o.needs, row.needs);
      if (!statuses) return;
      const summary: string[] = [];
      for (const p of PARENTS) {
        const list = statuses.get(caseId(row, p))!;
        const diff = mismatches(
          list.map((x) => x.r),
          list.map((x) => x.a),
          list.map((x) => x.b),
        );
        if (allows(o.needs, p)) {
          assert.deepEqual(diff.slice(0, 3), [], `parent ${p.id}: the rewrite\n${o.text}must answer as the original`);
        } else if (row.differs?.includes(p.id)) {
          assert.ok(diff.length > 0, `parent ${p.id}: httpd answers alike, so the need "${o.needs}" is stricter than it must be`);
        }
        summary.push(`${p.id}: ${list.length} requests, ${diff.length} differ`);
      }
      assert.ok(summary.length === PARENTS.length);
      // What `--inherited require|none` declares: the form is applied exactly when every parent
      // that fits the declaration is one its need allows (so one checked above).
      for (const decl of INHERITED_DECLARATIONS) {
        const fits = PARENTS.filter((p) => !p.after && !p.override && (decl === 'require' ? p.require : !p.require && !p.authType));
        const fixed = createService({ inherited: decl }).fixText({ text: row.htaccess, uri: 'file:///site/d/.htaccess' }).text;
        const applies: boolean = fits.every((p) => allows(o.needs, p));
        assert.equal(fixed, applies ? o.text : row.htaccess, `--inherited ${decl}`);
      }
    });
  }

  it('no form where a section of the file changes what another one needs', () => {
    assert.equal(offered('Order deny,allow\nDeny from all\n<Files a.html>\nOrder allow,deny\nAllow from all\n</Files>\n'), null);
  });
});

// Random .htaccess files from the blocks of the random configurations: host rules and Require lines
// at the top level and in up to two <Files>/<FilesMatch> sections. Each one the engine offers a form
// for is served under every parent its need allows, with and without X-Flag (FLAG): 0 differences.
// APACHECONF_SEED=<n> replays a run; APACHECONF_HTACCESS_RUNS=<n> changes the count (default 150).

/**
 * Every request of a case: each client, credentials, method and file (`paths`), without and with
 * X-Flag (FLAG); `main` sends them to the main server's port (htaccess-main-server.test.ts).
 */
export function flagRequests(caseId: string, paths: readonly string[] = PATHS, main = false): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  for (const from of FROMS) {
    for (const auth of AUTHS) {
      for (const method of METHODS) {
        for (const path of paths) {
          for (const headers of [{}, { 'X-Flag': 'yes' }] as Array<Record<string, string>>) {
            out.push({ caseId, path, from, method, ...(main ? { main } : {}), ...(auth ? { auth } : {}), ...(Object.keys(headers).length ? { headers } : {}) });
          }
        }
      }
    }
  }
  return out;
}

/** Serves the originals with mod_access_compat and the rewrites without: every request answered alike. */
async function expectSame(originals: OracleCase[], rewrites: OracleCase[], requests: OracleRequestFor[], seed: number, caseText: (caseId: string) => string): Promise<void> {
  const before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
  const after = await startOracle(rewrites, { compat: false, users: USERS, groups: GROUPS });
  try {
    const a = await before.requestAll(requests);
    const b = await after.requestAll(requests);
    const diff = mismatches(requests, a, b);
    const show = diff.slice(0, 3).map((d) => `${JSON.stringify(d)}\n${caseText(d.request.caseId)}`);
    assert.equal(diff.length, 0, `seed ${seed}: ${diff.length} of ${requests.length} requests differ:\n${show.join('\n')}`);
  } finally {
    await before.stop();
    await after.stop();
  }
}

/** The sections of a random file: names, a regex, and wildcards (a negated class among them: see globs.test.ts). */
const SECTION_OPENS = ['<Files "a.html">', '<FilesMatch "\\.html$">', '<Files "b.html">', '<Files "[!b]*">', '<Files "*.html">', '<Files "?.ht[a-m]l">'];

export const htaccessArb = fc
  .record({
    compat: fc.option(compatBlock, { nil: null, freq: 3 }),
    authz: fc.option(authzBlock, { nil: null, freq: 1 }),
    sections: fc.array(
      fc.record({
        open: fc.constantFrom(...SECTION_OPENS),
        compat: fc.option(compatBlock, { nil: null, freq: 3 }),
        authz: fc.option(authzBlock, { nil: null, freq: 1 }),
      }),
      { maxLength: 2 },
    ),
  })
  .map((r) => {
    const out: string[] = [];
    if (r.compat) out.push(r.compat);
    if (r.authz) out.push(r.authz);
    for (const sec of r.sections) {
      if (!sec.compat && !sec.authz) continue;
      const close = sec.open.startsWith('<FilesMatch') ? '</FilesMatch>' : '</Files>';
      out.push(sec.open, ...(sec.compat ? [sec.compat] : []), ...(sec.authz ? [sec.authz] : []), close);
    }
    return out.join('\n') + '\n';
  })
  .filter((t) => /^\s*(Order|Allow|Deny|Satisfy)\b/im.test(t));

describe('.htaccess rewrites on the real httpd: random files', function () {
  this.timeout(600_000);
  it('every offered form answers as the original under each parent its need allows', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 20261126);
    const runs = Number(process.env.APACHECONF_HTACCESS_RUNS ?? 150);
    const texts = [...new Set(fc.sample(htaccessArb, { seed, numRuns: runs }))];
    const originals: OracleCase[] = [];
    const rewrites: OracleCase[] = [];
    const requests: OracleRequestFor[] = [];
    const byNeeds: Record<string, number> = {};
    texts.forEach((text, i) => {
      const o = offered(text);
      if (!o) return;
      byNeeds[o.needs] = (byNeeds[o.needs] ?? 0) + 1;
      for (const p of PARENTS) {
        if (!allows(o.needs, p)) continue;
        const id = `hr${i}-${p.id}`;
        originals.push(oracleCase(id, p, text));
        rewrites.push(oracleCase(id, p, o.text));
        requests.push(...flagRequests(id));
      }
    });
    const offeredCount = Object.values(byNeeds).reduce((a, b) => a + b, 0);
    console.log(`      seed ${seed}: ${texts.length} files, a form for ${offeredCount} (${JSON.stringify(byNeeds)}), ${originals.length} cases, ${requests.length} requests`);
    assert.ok(offeredCount >= texts.length / 4, 'forms are offered for a fair share of the files');
    await expectSame(originals, rewrites, requests, seed, (caseId) => {
      const i = Number(/^hr(\d+)-/.exec(caseId)![1]);
      return `--- .htaccess\n${texts[i]}--- offered\n${offered(texts[i])!.text}`;
    });
  });
});

// The same random .htaccess files read in a random 2.4 server configuration (Require lines and
// AuthMerging in the document root's <Directory>, the sub-directory's, a <DirectoryMatch>, a
// <Location>, <Files> and <FilesMatch>; Basic auth or not): `fix --root` checks each rewrite in that
// configuration (features/htaccess-context.ts). Every one it offers must answer as the original.
// 80 pairs by default (httpd answers these configurations more slowly: about a minute a run).

const SERVER_SECTIONS = [
  (b: string) => `<Directory "@DOCROOT@/sub">\n${b}\n</Directory>`,
  (b: string) => `<DirectoryMatch "/sub$">\n${b}\n</DirectoryMatch>`,
  (b: string) => `<Location "/sub">\n${b}\n</Location>`,
  (b: string) => `<Files "a.html">\n${b}\n</Files>`,
  (b: string) => `<FilesMatch "^b\\.">\n${b}\n</FilesMatch>`,
];

const serverArb = fc
  .record({
    auth: fc.boolean(),
    root: fc.option(authzBlock, { nil: null, freq: 2 }),
    override: fc.constantFrom('All', 'All', 'AuthConfig Limit', 'Limit'),
    sections: fc.array(fc.record({ at: fc.nat(SERVER_SECTIONS.length - 1), body: authzBlock }), { maxLength: 2 }),
  })
  .map((r) => {
    const root = [`AllowOverride ${r.override}`, ...(r.auth ? [BASIC, 'AuthGroupFile "@GROUPS@"'] : []), ...(r.root ? [r.root] : [])];
    return [`<Directory "@DOCROOT@">`, ...root, '</Directory>', ...r.sections.map((x) => SERVER_SECTIONS[x.at](x.body))].join('\n');
  });

describe('.htaccess rewrites on the real httpd: in their server configuration (fix --root)', function () {
  this.timeout(600_000);
  it('every rewrite found exact in the configuration answers as the original', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 20261126);
    const runs = Number(process.env.APACHECONF_HTACCESS_RUNS ?? 80);
    const servers = fc.sample(serverArb, { seed, numRuns: runs });
    const texts = fc.sample(htaccessArb, { seed: seed + 1, numRuns: runs });
    const originals: OracleCase[] = [];
    const rewrites: OracleCase[] = [];
    const requests: OracleRequestFor[] = [];
    const pairs: Array<{ server: string; ht: string; out: string }> = [];
    const why: Record<string, number> = {};
    const t0 = Date.now();
    for (let i = 0; i < runs; i++) {
      const server = servers[i];
      const ht = texts[i];
      const config = `DocumentRoot "@DOCROOT@"\nSetEnvIf X-Flag ^yes FLAG\n${server}`;
      const whole = parse(`<VirtualHost *:80>\n${forEngine(config)}\n</VirtualHost>\n`);
      const r = migrateHtaccessInContext(whole, `${FAKE_ROOT}/sub`, ht, undefined, NO_PARENTS, null);
      if (r.text === null) {
        const k = (r.why ?? '').replace(/GET .*|POST .*/, '…').slice(0, 70);
        why[k] = (why[k] ?? 0) + 1;
        continue;
      }
      const id = `hc${i}`;
      pairs.push({ server, ht, out: r.text });
      const files = { 'sub/a.html': 'a\n', 'sub/b.html': 'b\n' };
      originals.push({ id, config, files: { ...files, 'sub/.htaccess': ht } });
      rewrites.push({ id, config, files: { ...files, 'sub/.htaccess': r.text } });
      requests.push(...flagRequests(id));
    }
    const engineMs = Date.now() - t0;
    console.log(`      seed ${seed}: ${runs} pairs, ${pairs.length} rewritten in context (engine ${engineMs} ms), ${requests.length} requests; not rewritten: ${JSON.stringify(why)}`);
    assert.ok(pairs.length >= runs / 5, 'rewrites are found for a fair share of the pairs');
    await expectSame(originals, rewrites, requests, seed, (caseId) => {
      const p = pairs[originals.findIndex((c) => c.id === caseId)];
      return `--- server\n${p.server}\n--- .htaccess\n${p.ht}--- rewritten\n${p.out}`;
    });
  });
});

// `--inherited none` for files no form of a single section rewrites (a top level that denies
// everyone, `<Files>` sections that let some files through: each section's rewrite depends on the
// others'): the service plans the whole file as httpd reads it under a server config that is just
// what was declared (service.ts, withDeclaredNone). Each row's declared rewrite is served under the
// parent `none` (nothing inherited) by httpd without mod_access_compat, the original with it: the
// same statuses. Under `valid` (a password inherited, outside the declaration) the rows marked
// `differs` answer differently: the rewrite is exact on the declared terms only.
describe('.htaccess rewrites on the real httpd: --inherited none, files planned whole', function () {
  this.timeout(300_000);
  const DECLARED: Array<{ id: string; htaccess: string; expected: string; differs?: boolean }> = [
    {
      id: 'deny-then-files-allow',
      htaccess: 'Order deny,allow\nDeny from all\n<Files "a.html">\nAllow from all\n</Files>\n',
      expected: 'Require all denied\n<Files "a.html">\nRequire all granted\n</Files>\n',
      differs: true,
    },
    {
      id: 'deny-without-order-filesmatch',
      htaccess: 'Deny from All\n<FilesMatch "^a\\.">\nAllow from All\n</FilesMatch>\n',
      expected: 'Require all denied\n<FilesMatch "^a\\.">\nRequire all granted\n</FilesMatch>\n',
      differs: true,
    },
    // The <Files> section's host rules replace the file's (mod_access_compat has no merger): no
    // `Order` there is deny,allow, and with no `Deny` line everyone passes, 127.0.0.2 or not.
    {
      id: 'deny-then-files-one-client',
      htaccess: 'Order deny,allow\nDeny from all\n<Files "a.html">\nAllow from 127.0.0.2\n</Files>\n',
      expected: 'Require all denied\n<Files "a.html">\nRequire all granted\n</Files>\n',
      differs: true,
    },
    {
      id: 'filesmatch-any-then-files',
      htaccess: 'Order deny,allow\n<FilesMatch ".">\n    Order Allow,Deny\n    Deny from all\n</FilesMatch>\n<Files "a.html">\n    Order Allow,Deny\n    Allow from all\n</Files>\n',
      expected: 'Require all granted\n<FilesMatch ".">\n    Require all denied\n</FilesMatch>\n<Files "a.html">\n    Require all granted\n</Files>\n',
    },
  ];
  const declared = createService({ inherited: 'none' });
  const decParents = PARENTS.filter((p) => p.id === 'none' || p.id === 'valid');
  let statuses: Map<string, Array<{ r: OracleRequestFor; a: number; b: number }>> | null = null;

  before(async function () {
    if (!httpdOrSkip(this)) return;
    const originals: OracleCase[] = [];
    const rewrites: OracleCase[] = [];
    const requests: OracleRequestFor[] = [];
    for (const row of DECLARED) {
      const fixed = declared.fixText({ text: row.htaccess, uri: 'file:///site/d/.htaccess' }).text;
      for (const p of decParents) {
        const id = `decl-${row.id}-${p.id}`;
        originals.push(oracleCase(id, p, row.htaccess));
        rewrites.push(oracleCase(id, p, fixed));
        for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) for (const path of PATHS) requests.push({ caseId: id, path, from, method, ...(auth ? { auth } : {}) });
      }
    }
    statuses = await serveBoth(originals, rewrites, requests);
  });

  for (const row of DECLARED) {
    it(`${row.id}: no fix without the declaration; with it, the whole file rewritten and exact under a directory that inherits nothing`, () => {
      assert.equal(createService().fixText({ text: row.htaccess, uri: 'file:///site/d/.htaccess' }).text, row.htaccess);
      assert.equal(createService({ inherited: 'require' }).fixText({ text: row.htaccess, uri: 'file:///site/d/.htaccess' }).text, row.htaccess);
      assert.equal(declared.fixText({ text: row.htaccess, uri: 'file:///site/d/.htaccess' }).text, row.expected);
      if (!statuses) return;
      const diff = (p: string) => {
        const list = statuses!.get(`decl-${row.id}-${p}`)!;
        return { n: list.length, diff: mismatches(list.map((x) => x.r), list.map((x) => x.a), list.map((x) => x.b)) };
      };
      const none = diff('none');
      assert.deepEqual(none.diff.slice(0, 3), [], `parent none: the rewrite\n${row.expected}must answer as the original`);
      const valid = diff('valid');
      const differ = valid.diff.length;
      console.log(`      none: ${none.n} requests, 0 differ; valid: ${valid.n} requests, ${differ} differ`);
      if (row.differs) assert.ok(differ > 0, 'under an inherited password httpd answers alike: the declaration would not be needed');
    });
  }
});
