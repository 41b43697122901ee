/**
 * `fix --root` on configurations where two virtual hosts include the same file, against the real
 * httpd.
 *
 * A rewrite may edit several files, and a file two hosts include holds one text for both. A black-box
 * run of random trees found rewrites applied in part (a host's own file rewritten while the shared
 * file, refused for the other host, kept its host rules) and copies of a shared file that the plan
 * wanted different. Each random case here: two hosts' bodies (`a.conf`, `b.conf`), each with
 * sections of host rules or Require lines, and `shared.conf` included inside a section of each.
 * The three files are fixed as `fix --root` fixes them (each in the configuration, rewritten
 * together); what comes out is served by httpd, without mod_access_compat when no host rule is
 * left in any file and with it when some are, against the original with it.
 * APACHECONF_SHARED_RUNS=<n> (default 60) and APACHECONF_SEED=<n> change the random run.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, GROUPFILE, GROUPS, METHODS, USERS, httpdOrSkip } from './migration-cases.test';
import { parse } from '../../server/src/syntax';
import { createService } from '../../server/src/service';
import type { ConfigurationView } from '../../server/src/access';

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;
const PATHS = ['/a.html', '/sub/a.html', '/sub/deeper/b.html', '/priv/a.html'];
const FILES = { 'a.html': 'a\n', 'sub/a.html': 'a\n', 'sub/deeper/b.html': 'b\n', 'priv/a.html': 'p\n' };
const INCLUDE = 'Include shared.conf';

/** Each host's document root as the engine sees it (the oracle gives each case its own). */
const roots = { a: '/oracle-docroot-a', b: '/oracle-docroot-b' } as const;
const toEngine = (text: string, host: 'a' | 'b') => text.split('@DOCROOT@').join(roots[host]).split('@USERS@').join('/oracle-users').split('@GROUPS@').join('/oracle-groups');
const fromEngine = (text: string) => text.split(roots.a).join('@DOCROOT@').split(roots.b).join('@DOCROOT@').split('/oracle-users').join('@USERS@').split('/oracle-groups').join('@GROUPS@');

export interface SharedCase {
  id: string;
  /** The hosts' bodies; the line `Include shared.conf` is where shared.conf is read. */
  a: string;
  b: string;
  shared: string;
}

const WHERE = ['docroot', 'sub', 'sub-deeper', 'loc-sub', 'loc-priv', 'files-a'] as const;
const section = (w: (typeof WHERE)[number], body: string): string => {
  const open =
    w === 'docroot' ? '<Directory "@DOCROOT@">' : w === 'sub' ? '<Directory "@DOCROOT@/sub">' : w === 'sub-deeper' ? '<Directory "@DOCROOT@/sub/deeper">' : w === 'loc-sub' ? '<Location "/sub">' : w === 'loc-priv' ? '<Location "/priv">' : '<Files "a.html">';
  const close = open.startsWith('<Directory') ? '</Directory>' : open.startsWith('<Location') ? '</Location>' : '</Files>';
  return `${open}\n${body}\n${close}`;
};
const bodyArb = fc.oneof({ arbitrary: compatBlock, weight: 3 }, { arbitrary: authzBlock, weight: 2 });
const hostArb = fc.record({
  auth: fc.boolean(),
  own: fc.array(fc.record({ where: fc.constantFrom(...WHERE), body: bodyArb }), { maxLength: 2 }),
  at: fc.constantFrom(...WHERE),
  with: fc.option(bodyArb, { nil: null, freq: 3 }),
});
const hostText = (h: { auth: boolean; own: Array<{ where: (typeof WHERE)[number]; body: string }>; at: (typeof WHERE)[number]; with: string | null }): string =>
  [
    ...(h.auth ? [section('docroot', `${BASIC}\n${GROUPFILE}`)] : []),
    ...h.own.map((o) => section(o.where, o.body)),
    section(h.at, [...(h.with ? [h.with] : []), INCLUDE].join('\n')),
  ].join('\n');
export const sharedArb = fc.record({ a: hostArb, b: hostArb, shared: fc.oneof({ arbitrary: compatBlock, weight: 3 }, { arbitrary: authzBlock, weight: 1 }) }).map((r) => ({ a: hostText(r.a), b: hostText(r.b), shared: r.shared }));

export interface SharedResult {
  a: string;
  b: string;
  shared: string;
  /** Host rules left in some file: served with mod_access_compat. */
  compat: boolean;
  changed: boolean;
}

/** The three files fixed as `fix --root` fixes them, and each host's body with the shared file's new text in its place. */
export function fixShared(c: SharedCase): SharedResult {
  const files: Record<'a.conf' | 'b.conf' | 'shared.conf', string> = { 'a.conf': c.a + '\n', 'b.conf': c.b + '\n', 'shared.conf': c.shared + '\n' };
  // The configuration: each host's body inside its <VirtualHost>, shared.conf in place of the include line.
  const lines: string[] = [];
  const origins: Array<{ path: string; line: number }> = [];
  const add = (text: string, path: string, line: number) => {
    lines.push(text);
    origins.push({ path, line });
  };
  for (const host of ['a', 'b'] as const) {
    add('<VirtualHost *:80>', 'root.conf', 0);
    add(`ServerName ${host}.test`, 'root.conf', 1);
    add(`DocumentRoot "${roots[host]}"`, 'root.conf', 2);
    toEngine(files[`${host}.conf`], host)
      .split('\n')
      .slice(0, -1)
      .forEach((l, i) => {
        if (l === INCLUDE) toEngine(files['shared.conf'], host).split('\n').slice(0, -1).forEach((s, j) => add(s, 'shared.conf', j));
        else add(l, `${host}.conf`, i);
      });
    add('</VirtualHost>', 'root.conf', 3);
  }
  const doc = parse(lines.join('\n') + '\n');
  const together = new Set(['a.conf', 'b.conf', 'shared.conf']);
  const service = createService();
  const fixed = {} as Record<keyof typeof files, string>;
  for (const path of Object.keys(files) as Array<keyof typeof files>) {
    const view: ConfigurationView = { doc, origins, path, root: 'root.conf', together };
    // A host's file is read with its own document root; the shared file is the same text in both.
    const host = path === 'b.conf' ? 'b' : 'a';
    const text = toEngine(files[path], host);
    fixed[path] = fromEngine(service.fixText({ text, uri: `file:///etc/httpd/${path}`, context: 'server', configuration: view }).text);
  }
  const body = (host: 'a' | 'b') => fixed[`${host}.conf`].replace(/^Include shared\.conf$/m, fixed['shared.conf'].replace(/\n$/, ''));
  const compat = Object.values(fixed).some((t) => COMPAT.test(t));
  const changed = (Object.keys(files) as Array<keyof typeof files>).some((p) => fixed[p] !== files[p]);
  return { a: body('a'), b: body('b'), shared: fixed['shared.conf'], compat, changed };
}

function requests(caseId: string): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) for (const path of PATHS) for (const flag of [false, true]) out.push({ caseId, path, from, method, ...(auth ? { auth } : {}), ...(flag ? { headers: { 'X-Flag': 'yes' } } : {}) });
  return out;
}

const FLAG = 'SetEnvIf X-Flag ^yes FLAG';
const original = (c: SharedCase, host: 'a' | 'b'): string => `${FLAG}\n${c[host].replace(/^Include shared\.conf$/m, c.shared)}`;

/** The cases fixed as `fix --root` fixes them, and served by httpd: the differences (at most five per compat setting) and how many requests were compared. */
async function serveAndCompare(cases: SharedCase[], results: SharedResult[]): Promise<{ differences: string[]; compared: number }> {
  const originals: OracleCase[] = cases.flatMap((c) => (['a', 'b'] as const).map((h) => ({ id: `${c.id}${h}`, config: original(c, h), files: FILES })));
  const rewritten = (compat: boolean): OracleCase[] =>
    cases.flatMap((c, i) => (results[i].changed && results[i].compat === compat ? (['a', 'b'] as const).map((h) => ({ id: `${c.id}${h}`, config: `${FLAG}\n${results[i][h]}`, files: FILES })) : []));
  const before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
  const differences: string[] = [];
  let compared = 0;
  try {
    for (const compat of [false, true]) {
      const list = rewritten(compat);
      if (!list.length) continue;
      const after = await startOracle(list, { compat, users: USERS, groups: GROUPS });
      try {
        const reqs = list.flatMap((c) => requests(c.id));
        compared += reqs.length;
        const a = await before.requestAll(reqs);
        const b = await after.requestAll(reqs);
        for (const d of mismatches(reqs, a, b).slice(0, 5)) {
          const c = cases.find((x) => d.request.caseId.startsWith(x.id) && d.request.caseId.length === x.id.length + 1)!;
          const r = results[cases.indexOf(c)];
          differences.push(`${d.request.caseId}: ${d.request.method} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}` : ''}: original ${d.a}, result ${d.b}\n--- a.conf:\n${c.a}\n--- b.conf:\n${c.b}\n--- shared.conf:\n${c.shared}\n--- result a:\n${r.a}\n--- result b:\n${r.b}`);
        }
      } finally {
        await after.stop();
      }
    }
  } finally {
    await before.stop();
  }
  return { differences, compared };
}

/**
 * Shared files whose copies the plan first wanted different (each host's exact rewrite edited its
 * copy its own way: deleted in one, rewritten in the other), so nothing was rewritten; one copy's
 * edits hold in every copy, with the hosts' own files rewritten around them.
 */
const UNIFIED: SharedCase[] = [
  {
    id: 'u-satisfy',
    a: `<Directory "@DOCROOT@">\n${BASIC}\nRequire valid-user\n</Directory>\n<Directory "@DOCROOT@/sub/deeper">\nSatisfy any\n${INCLUDE}\n</Directory>`,
    b: `<Directory "@DOCROOT@">\n${BASIC}\nRequire valid-user\n</Directory>\n<Location "/sub">\nAllow from 127.0.1\n</Location>\n<Directory "@DOCROOT@/sub">\n${INCLUDE}\n</Directory>`,
    shared: 'Require all denied\nSatisfy any',
  },
  {
    id: 'u-mutual',
    a: `<Directory "@DOCROOT@">\nOrder mutual-failure\nAllow from 127.0.1 127.0.0.1 127.0.0.0/24\n</Directory>\n<Directory "@DOCROOT@/priv">\n${INCLUDE}\n</Directory>`,
    b: `<LocationMatch "^/sub/deeper">\nOrder allow,deny\nDeny from 127.1\n</LocationMatch>\n<Directory "@DOCROOT@/sub">\nOrder deny,allow\nAllow from all\n</Directory>\n<Directory "@DOCROOT@/sub">\n${INCLUDE}\n</Directory>`,
    shared: 'Order mutual-failure\nAllow from 127.1 env=!FLAG',
  },
  {
    // Host a inherits `Require all denied`, host b nothing: a's form (AuthMerging And) holds in b.
    id: 'u-inherited',
    a: `<Directory "@DOCROOT@">\nRequire all denied\n</Directory>\n<Directory "@DOCROOT@/sub">\n${INCLUDE}\n</Directory>`,
    b: `<Directory "@DOCROOT@/sub">\n${INCLUDE}\n</Directory>`,
    shared: 'Order allow,deny\nAllow from all',
  },
];

if (typeof describe === 'function') describe('a file two virtual hosts include, fixed with --root (real httpd)', function () {
  this.timeout(1_200_000);

  it('random hosts and shared files: whatever is rewritten answers alike, and no rewrite is made in part', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 29);
    const runs = Number(process.env.APACHECONF_SHARED_RUNS ?? 60);
    const cases: SharedCase[] = fc.sample(sharedArb, { seed, numRuns: runs }).map((s, i) => ({ id: `s${i}`, ...s }));
    const results = cases.map(fixShared);
    const { differences, compared } = await serveAndCompare(cases, results);
    const changed = results.filter((r) => r.changed).length;
    const whole = results.filter((r) => r.changed && !r.compat).length;
    console.log(`    seed ${seed}: ${cases.length} configurations, ${changed} rewritten (${whole} with nothing left for mod_access_compat); ${compared} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
    assert.ok(whole >= cases.length / 10, `only ${whole} of ${cases.length} fully rewritten`);
  });

  it('copies the plan wanted different: one copy\'s edits in every copy, rewritten whole and answered alike', async function () {
    if (!httpdOrSkip(this)) return;
    const results = UNIFIED.map(fixShared);
    UNIFIED.forEach((c, i) => assert.ok(results[i].changed && !results[i].compat, `${c.id}: not rewritten whole:\n${results[i].a}\n---\n${results[i].b}`));
    const { differences, compared } = await serveAndCompare(UNIFIED, results);
    console.log(`    ${UNIFIED.length} configurations; ${compared} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
  });
});
