// Random configurations from the building blocks of the migration table (seeded with fast-check):
// Directory, DirectoryMatch, Location, LocationMatch, Files (also inside a Directory), FilesMatch and
// <If> sections with host rules (Order/Allow/Deny/Satisfy, in and out of <Limit>/<LimitExcept>),
// Require lines and containers (RequireAll/Any/None), AuthMerging and Basic auth. Some lines are
// wrapped as files written for several servers wrap them (<IfModule [!]mod_authz_core.c>,
// <IfVersion >= 2.4>, <IfModule [!]mod_access_compat.c>), and some whole sections sit under
// <IfDefine [!]NEVER> (the oracle runs httpd without -DNEVER). Each one the engine rewrites is run
// on httpd with compat (original) and without (rewrite): 0 differences. The evaluator's
// predictions for the originals are checked too.
//
// APACHECONF_SEED=<n> replays a run; APACHECONF_RANDOM_RUNS=<n> changes the count (default 300).

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { BASIC, GROUPFILE, SUB, dir, files, filesMatch, forEngine, httpdOrSkip, ifs, loc, locMatch, migrateCase, checkVariantDifference, runPair, type MigrationCase } from './migration-cases.test';
import { migrateText } from '../../server/src/access';

/**
 * How a section's lines are wrapped, as files written for several servers do: the 2.4 half of a
 * file for 2.2 and 2.4 alike (its 2.2 half beside it), an <IfVersion>, or a test of
 * mod_access_compat itself (which the original's server and the rewrite's read differently).
 */
const WRAPS = [null, null, null, null, 'dual', 'ifversion', 'no-compat', 'compat-only'] as const;

const sectionBody = fc
  .record({
    compat: fc.option(compatBlock, { nil: null, freq: 2 }),
    authz: fc.option(authzBlock, { nil: null, freq: 2 }),
    wrap: fc.constantFrom(...WRAPS),
  })
  .filter((b) => b.compat !== null || b.authz !== null)
  .map((b) => {
    let { compat, authz } = b;
    if (b.wrap === 'dual' && authz) authz = `<IfModule mod_authz_core.c>\n${authz}\n</IfModule>\n<IfModule !mod_authz_core.c>\nOrder deny,allow\nDeny from all\n</IfModule>`;
    if (b.wrap === 'ifversion' && authz) authz = `<IfVersion >= 2.4>\n${authz}\n</IfVersion>`;
    if (b.wrap === 'no-compat' && authz) authz = `<IfModule !mod_access_compat.c>\n${authz}\n</IfModule>`;
    if (b.wrap === 'compat-only' && compat) compat = `<IfModule mod_access_compat.c>\n${compat}\n</IfModule>`;
    return [compat, authz].filter((x): x is string => !!x).join('\n');
  });

/** Whole sections under `<IfDefine>`: the rewrite must hold whether the name is defined or not. */
const OUTER = [null, null, null, null, null, null, 'NEVER', '!NEVER'] as const;

const WHERE = [
  'dir-root', 'dir-docroot', 'dir-sub', 'loc-sub', 'loc-root', 'files-a', 'filesmatch-a', 'if-flag',
  'files-a-in-sub', 'dirmatch-sub', 'locmatch-sub',
] as const;

const configArb = fc
  .record({
    sections: fc.uniqueArray(fc.record({ where: fc.constantFrom(...WHERE), body: sectionBody, outer: fc.constantFrom(...OUTER) }), {
      minLength: 1,
      maxLength: 4,
      selector: (s) => s.where,
    }),
    auth: fc.boolean(),
  })
  .map((c) => {
    const parts: string[] = ['DocumentRoot "@DOCROOT@"', 'SetEnvIf X-Flag ^yes FLAG'];
    const usesAuth = c.auth || c.sections.some((s) => /valid-user|user|group/.test(s.body));
    if (usesAuth) parts.push(dir(`${BASIC}\n${GROUPFILE}`, '/'));
    for (const s of c.sections) {
      const at = parts.length;
      switch (s.where) {
        case 'dir-root':
          parts.push(dir(s.body, '/'));
          break;
        case 'dir-docroot':
          parts.push(dir(s.body));
          break;
        case 'dir-sub':
          parts.push(dir(s.body, SUB));
          break;
        case 'loc-sub':
          parts.push(loc('/sub', s.body));
          break;
        case 'loc-root':
          parts.push(loc('/', s.body));
          break;
        case 'files-a':
          parts.push(files('a.html', s.body));
          break;
        case 'filesmatch-a':
          parts.push(filesMatch('^a\\.html$', s.body));
          break;
        case 'if-flag':
          parts.push(ifs('-n %{HTTP:X-Flag}', s.body));
          break;
        case 'files-a-in-sub':
          parts.push(dir(files('a.html', s.body), SUB));
          break;
        case 'dirmatch-sub':
          parts.push(`<DirectoryMatch "/sub$">\n${s.body}\n</DirectoryMatch>`);
          break;
        case 'locmatch-sub':
          parts.push(locMatch('^/sub/', s.body));
          break;
      }
      // A whole section under a test the engine cannot settle (the oracle runs httpd without -DNEVER).
      if (s.outer) parts[at] = `<IfDefine ${s.outer}>\n${parts[at]}\n</IfDefine>`;
    }
    return parts.join('\n');
  })
  .filter((cfg) => /\b(Order|Allow|Deny|Satisfy)\b/.test(cfg));

/** The configurations of a run (exported for debugging scripts). */
export function randomConfigs(seed: number, runs: number): string[] {
  return fc.sample(configArb, { seed, numRuns: runs });
}

if (typeof describe === 'function') describe('random configurations: original with compat vs rewrite without (real httpd)', function () {
  this.timeout(1_200_000);

  it('gives the same plans with client classes per point and with whole-file checks', () => {
    const seed = Number(process.env.APACHECONF_SEED ?? 20240611);
    const runs = Number(process.env.APACHECONF_RANDOM_RUNS ?? 300);
    const diffs = randomConfigs(seed, runs)
      .map((config, i) => checkVariantDifference({ id: `rnd${i}`, why: '', config }))
      .filter((x) => x !== null);
    assert.deepEqual(diffs.slice(0, 10), []);
  });

  it('rewrites exactly every configuration it offers to rewrite', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 20240611);
    const runs = Number(process.env.APACHECONF_RANDOM_RUNS ?? 300);
    const configs = randomConfigs(seed, runs);
    const cases: MigrationCase[] = configs.map((config, i) => ({
      id: `rnd${i}`,
      why: `random #${i} (seed ${seed})`,
      config,
      headers: [{}, { 'X-Flag': 'yes' }] as Array<Record<string, string>>,
    }));
    const t0 = Date.now();
    const times: number[] = [];
    let nothing = 0;
    const migrated = cases.map((c) => {
      const t = Date.now();
      const m = migrateCase(c);
      times.push(Date.now() - t);
      // With every host rule in a branch 2.4 skips there is nothing to migrate and no rewrite to
      // compare (lines under <IfModule !mod_access_compat.c> may well answer otherwise once the
      // module goes: that is what their authors wrote them for).
      if (migrateText(forEngine(c.config), 'vhost').plan.sections.length === 0) {
        nothing++;
        return { ...m, rewritten: null };
      }
      return m;
    });
    const planMs = Date.now() - t0;
    const slowest = Math.max(...times);
    const rewritten = migrated.filter((m) => m.rewritten !== null).length;
    const refused = cases.length - rewritten - nothing;
    const r = await runPair(migrated, { explain: true });
    const agree = r.explainChecked - r.explainMisses.length;
    console.log(
      `    seed ${seed}: ${cases.length} configurations, ${rewritten} rewritten, ${refused} refused, ` +
        `${nothing} with nothing to migrate; ${r.requests} requests compared, ${r.differences.length} differences; explain ${agree}/${r.explainChecked} agree; ` +
        `planning ${planMs} ms in all, slowest ${slowest} ms`,
    );
    const show = (id: string) => {
      const m = migrated.find((x) => x.c.id === id)!;
      return `--- ${id} original:\n${m.c.config}\n--- rewrite:\n${m.rewritten}`;
    };
    const firstBad = r.differences[0]?.split(':')[0];
    assert.deepEqual(r.differences.slice(0, 20), [], firstBad ? show(firstBad) : '');
    const firstMiss = r.explainMisses[0]?.split(' ')[1]?.replace(/:$/, '');
    assert.deepEqual(r.explainMisses.slice(0, 20), [], firstMiss ? show(firstMiss) : '');
    assert.ok(cases.length >= 300 || process.env.APACHECONF_RANDOM_RUNS !== undefined);
  });
});
