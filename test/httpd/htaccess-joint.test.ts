/**
 * A server config and the `.htaccess` files below it, both with host rules, migrated in one
 * `fix --root` run, against the real httpd.
 *
 * The most common 2.2 layout is a document root with `Order allow,deny` + `Allow from all` and
 * `AllowOverride All`, and a `.htaccess` with `Deny from …` in a folder under it. Each side used to
 * wait for the other: the server's rewrite was not exact because a `.htaccess` below sets access,
 * and the `.htaccess` rewrite would have had to edit the server's host rules. Now the server config
 * is planned with the `.htaccess` files spliced in, kept as they are (spliceHtaccessFiles,
 * PlanOptions.keepLines), so its rewrite is checked with them still read by mod_access_compat;
 * then each `.htaccess` file is planned under the server config as the run left it.
 *
 * Each random case: a virtual host's body (the server config: sections for the document root and
 * `sub/`, host rules or Require) and `sub/.htaccess` (and sometimes `sub/deep/.htaccess`) with host
 * rules. The steps run as `fix --root` runs them. What comes out is served by httpd: without
 * mod_access_compat when no host rule is left, with it when some are (a part left alone must not
 * change an answer either), against the original with it; every request must be answered alike.
 * APACHECONF_JOINT_RUNS=<n> (default 60) and APACHECONF_SEED=<n> change the random run.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, GROUPFILE, GROUPS, METHODS, USERS, FAKE_ROOT, forEngine, fromEngine, httpdOrSkip } from './migration-cases.test';
import { parse } from '../../server/src/syntax';
import { createService } from '../../server/src/service';
import { openDirectories, type ConfigurationView } from '../../server/src/access';
import { migrateHtaccessInContext, spliceHtaccessFiles, type HtaccessReader } from '../../server/src/features/htaccess-context';

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;
const PATHS = ['/a.html', '/sub/a.html', '/sub/deep/b.html'];
const FILES = { 'a.html': 'a\n', 'sub/a.html': 'a\n', 'sub/deep/b.html': 'b\n' };

/** Every request of a case: each client, credentials, method and file, without and with X-Flag. */
function flagRequests(caseId: string, paths: readonly string[]): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) for (const path of paths) for (const flag of [false, true]) out.push({ caseId, path, from, method, ...(auth ? { auth } : {}), ...(flag ? { headers: { 'X-Flag': 'yes' } } : {}) });
  return out;
}

export interface JointCase {
  id: string;
  /** The virtual host's body, with placeholders. */
  server: string;
  /** Docroot-relative .htaccess files and their text. */
  htaccess: Record<string, string>;
}

/** A table reader over the case's .htaccess files at the engine's stand-in paths. */
function readerOf(c: JointCase): HtaccessReader {
  const files = new Map(Object.entries(c.htaccess).map(([rel, text]) => [`${FAKE_ROOT}/${rel}`, text]));
  const dirs = new Set([FAKE_ROOT, `${FAKE_ROOT}/sub`, `${FAKE_ROOT}/sub/deep`]);
  return {
    readFile: (p) => files.get(p),
    listDir: (p) => {
      if (!dirs.has(p)) return undefined;
      return [...dirs].filter((d) => d.startsWith(p + '/') && !d.slice(p.length + 1).includes('/')).map((d) => d.slice(p.length + 1) + '/');
    },
  };
}

export interface JointResult {
  server: string;
  htaccess: Record<string, string>;
  /** Host rules left somewhere: served with mod_access_compat. */
  compat: boolean;
  serverRewritten: boolean;
  /** Why the server config's host rules that are left were not rewritten. */
  reasons: string[];
}

/** The case as `fix --root` migrates it: the server config in its configuration with the .htaccess files spliced in, then each .htaccess under the result. */
export function migrateJoint(c: JointCase): JointResult {
  const reader = readerOf(c);
  const text = forEngine(c.server.endsWith('\n') ? c.server : c.server + '\n');
  const doc = parse(text);
  const origins = text
    .split('\n')
    .slice(0, -1)
    .map((_, line) => ({ path: 'root.conf', line }));
  const w = spliceHtaccessFiles(doc, origins, openDirectories(doc), reader);
  const view: ConfigurationView = { doc: w.doc, origins: w.origins, path: 'root.conf', root: 'root.conf', context: 'vhost', htaccessKnown: w.known, directories: w.directories, kept: w.files };
  const fixed = createService().fixText({ text, uri: 'file:///etc/httpd/root.conf', context: 'server', configuration: view });
  const server = fixed.text;
  const out: Record<string, string> = {};
  // Shallower files first, each read under the ones above it as the run leaves them.
  const done = new Map<string, string>();
  const after: HtaccessReader = { readFile: (p) => done.get(p) ?? reader.readFile(p), listDir: reader.listDir };
  for (const rel of Object.keys(c.htaccess).sort((a, b) => a.split('/').length - b.split('/').length)) {
    const dir = `${FAKE_ROOT}/${rel.slice(0, rel.lastIndexOf('/'))}`;
    const r = migrateHtaccessInContext(parse(server), dir, c.htaccess[rel], undefined, after, null);
    out[rel] = r.text ?? c.htaccess[rel];
    done.set(`${FAKE_ROOT}/${rel}`, out[rel]);
  }
  const compat = COMPAT.test(server) || Object.values(out).some((t) => COMPAT.test(t));
  const reasons = fixed.analysis.findings.filter((f) => f.rule === 'legacy-access' && f.severity !== 'hint').map((f) => f.message.replace(/^.*?No exact rewrite is offered[^:]*: /, ''));
  return { server: fromEngine(server), htaccess: out, compat, serverRewritten: server !== text, reasons };
}

const where = fc.constantFrom('@DOCROOT@', '@DOCROOT@/sub');
export const jointArb = fc
  .record({
    auth: fc.boolean(),
    root: fc.oneof({ arbitrary: compatBlock, weight: 3 }, { arbitrary: authzBlock, weight: 1 }),
    sub: fc.option(fc.record({ where, body: fc.oneof({ arbitrary: compatBlock, weight: 2 }, { arbitrary: authzBlock, weight: 1 }) }), { nil: null, freq: 2 }),
    ht: compatBlock,
    deep: fc.option(fc.oneof(compatBlock, authzBlock), { nil: null, freq: 3 }),
  })
  .map((r) => ({
    server: [
      'SetEnvIf X-Flag ^yes FLAG',
      `<Directory "@DOCROOT@">\nAllowOverride All\n${r.auth ? `${BASIC}\n${GROUPFILE}\n` : ''}${r.root}\n</Directory>`,
      ...(r.sub ? [`<Directory "${r.sub.where}/sub">\n${r.sub.body}\n</Directory>`] : []),
    ].join('\n'),
    htaccess: { 'sub/.htaccess': r.ht + '\n', ...(r.deep ? { 'sub/deep/.htaccess': r.deep + '\n' } : {}) },
  }));

function oracleCase(id: string, server: string, htaccess: Record<string, string>): OracleCase {
  return { id, config: server, files: { ...FILES, ...htaccess } };
}

/** Serves the originals with mod_access_compat and the results (with it where host rules are left): the differences. */
export async function compareJoint(cases: JointCase[], results: JointResult[]): Promise<{ requests: number; differences: string[] }> {
  const originals = cases.map((c) => oracleCase(c.id, c.server, c.htaccess));
  const plain = cases.flatMap((c, i) => (results[i].compat ? [] : [oracleCase(c.id, results[i].server, results[i].htaccess)]));
  const mixed = cases.flatMap((c, i) => (results[i].compat ? [oracleCase(c.id, results[i].server, results[i].htaccess)] : []));
  const requests = (list: OracleCase[]): OracleRequestFor[] => list.flatMap((c) => flagRequests(c.id, PATHS));
  const differences: string[] = [];
  let total = 0;
  const before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
  try {
    for (const [list, compat] of [[plain, false], [mixed, true]] as const) {
      if (!list.length) continue;
      const after = await startOracle(list, { compat, users: USERS, groups: GROUPS });
      try {
        const reqs = requests(list);
        const a = await before.requestAll(reqs);
        const b = await after.requestAll(reqs);
        for (const d of mismatches(reqs, a, b)) {
          const i = cases.findIndex((c) => c.id === d.request.caseId);
          differences.push(
            `${d.request.caseId}: ${d.request.method} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}:${d.request.auth.password}` : ''}${d.request.headers ? ' flag' : ''}: original ${d.a}, result ${d.b}\n` +
              `--- server:\n${cases[i].server}\n--- .htaccess:\n${JSON.stringify(cases[i].htaccess)}\n--- result (${results[i].compat ? 'with' : 'without'} compat):\n${results[i].server}\n${JSON.stringify(results[i].htaccess)}`,
          );
        }
        differences.length = Math.min(differences.length, 50);
        total += reqs.length;
      } finally {
        await after.stop();
      }
    }
  } finally {
    await before.stop();
  }
  return { requests: total, differences };
}

if (typeof describe === 'function') describe('a server config and its .htaccess files, migrated together (real httpd)', function () {
  this.timeout(1_200_000);

  it('the common layout: Allow from all with AllowOverride All, and a .htaccess that denies one client', async function () {
    if (!httpdOrSkip(this)) return;
    const c: JointCase = {
      id: 'allow-all-deny-one',
      server: '<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from all\n</Directory>',
      htaccess: { 'sub/.htaccess': 'Order deny,allow\nDeny from 127.0.0.3\n' },
    };
    const r = migrateJoint(c);
    assert.equal(r.compat, false, `both rewritten:\n${r.server}\n${JSON.stringify(r.htaccess)}`);
    assert.match(r.server, /Require all granted/);
    const { differences } = await compareJoint([c], [r]);
    assert.deepEqual(differences, []);
  });

  it('random server configs and .htaccess files: whatever is rewritten answers alike', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 23);
    const runs = Number(process.env.APACHECONF_JOINT_RUNS ?? 60);
    const cases: JointCase[] = fc.sample(jointArb, { seed, numRuns: runs }).map((s, i) => ({ id: `j${i}`, ...s }));
    const results = cases.map(migrateJoint);
    const servers = results.filter((r) => r.serverRewritten).length;
    const whole = results.filter((r) => !r.compat).length;
    const { requests, differences } = await compareJoint(cases, results);
    console.log(`    seed ${seed}: ${cases.length} cases, ${servers} server configs rewritten, ${whole} with nothing left for mod_access_compat; ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
    assert.ok(whole >= cases.length / 10, `only ${whole} of ${cases.length} fully rewritten`);
  });
});
