// Alias on the real httpd, and host rules spelled every way httpd accepts them.
//
// A directory an Alias points into is usually reachable two ways: through the Alias and through the
// DocumentRoot. The engine used to place it only behind the Alias, so host rules that only the
// DocumentRoot's way reaches looked overruled everywhere and were dropped: `<Directory "/srv/sub">`
// with `Deny from 127.0.0.0/31`, under `Alias /al "/srv/sub"` and a `<Location /al>` that denies
// too, was rewritten to nothing, and GET /sub/a.html got 500 (an AuthType without any Require)
// instead of 403. And aliases are tried in the order written, the first match winning (the engine
// tried the last one first).
//
// Table rows, then random configurations (fast-check) with an Alias, sections on both of its sides
// and host rules in mixed case, dotted masks, partial addresses, `env=`: every rewrite is run on
// httpd without mod_access_compat against the original with it, and explain's predictions against
// httpd. APACHECONF_ALIAS_RUNS=<n> (default 40) and APACHECONF_SEED=<n> change the random run.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock } from './blocks';
import { BASIC, GROUPFILE, SUB, assertExactOnHttpd, dir, files, httpdOrSkip, loc, migrateCase, type MigrationCase } from './migration-cases.test';

const PATHS = ['/index.html', '/sub/a.html', '/al/a.html', '/al/', '/sub/', '/al/deep/b.html', '/sub/deep/b.html'];
const FILES = { 'sub/deep/b.html': 'b\n', 'other/a.html': 'o\n', 'other/deep/b.html': 'o\n' };
const HEAD = ['DocumentRoot "@DOCROOT@"', 'SetEnvIf X-Flag ^yes FLAG'];

function row(id: string, lines: string[]): MigrationCase {
  return { id, why: 'alias', config: [...HEAD, ...lines].join('\n'), paths: PATHS, files: FILES };
}

const AUTH = dir(`${BASIC}\n${GROUPFILE}`, '/');
const TABLE: MigrationCase[] = [
  row('both ways, the Location denies too', ['Alias /al "@DOCROOT@/sub"', AUTH, dir('Order deny,allow\nDeny from 127.0.0.0/31', SUB), loc('/al', 'Order allow,deny\nAllow from 127.0.0.0/30\nDeny from all')]),
  row('both ways, the Location grants', ['Alias /al "@DOCROOT@/sub"', dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', SUB), loc('/al', 'Order allow,deny\nAllow from all')]),
  row('a deeper directory, reached both ways', ['Alias /al "@DOCROOT@/sub"', dir('Order allow,deny\nAllow from all'), dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.3', `${SUB}/deep`), loc('/al/deep', 'Order deny,allow\nDeny from 127.0.0.2')]),
  // The first Alias that matches wins: /al/deep goes to other/deep, /al to sub.
  row('two aliases, the more specific first', ['Alias /al/deep "@DOCROOT@/other/deep"', 'Alias /al "@DOCROOT@/sub"', dir('Order allow,deny\nAllow from all'), dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', '@DOCROOT@/other'), dir('Order deny,allow\nDeny from 127.0.0.3', SUB)]),
  row('two aliases, the wider first', ['Alias /al "@DOCROOT@/sub"', 'Alias /al/deep "@DOCROOT@/other/deep"', dir('Order allow,deny\nAllow from all'), dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', '@DOCROOT@/other'), dir('Order deny,allow\nDeny from 127.0.0.3', SUB)]),
];

/** Host-rule words in the spellings httpd accepts: case, dotted masks, partial and padded addresses. */
const TOKENS = ['ALL', 'All', '127.0.0.0/255.255.255.252', '127.0.0.2/32', '127', '127.0', '127.0.0.0/31', '127.0.0.2/255.255.255.255', '::1', '127.0.0.3/30', 'env=flag', 'env=FLAG', 'localhost', '127.0.0.02', '10.0.0.0/8', '127.0.1.0/24', '127.0.0.1/8'];
const tokenList = fc.uniqueArray(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 3 });
const compat = fc
  .record({
    order: fc.constantFrom<string | null>(null, 'Allow,Deny', 'deny,allow', 'DENY,ALLOW', 'mutual-failure'),
    allow: fc.option(tokenList, { nil: null }),
    deny: fc.option(tokenList, { nil: null }),
    from: fc.constantFrom('from', 'From', 'FROM'),
    satisfy: fc.constantFrom<string | null>(null, null, 'Any', 'ALL'),
  })
  .map((r) => {
    const l: string[] = [];
    if (r.order) l.push(`Order ${r.order}`);
    if (r.allow) l.push(`Allow ${r.from} ${r.allow.join(' ')}`);
    if (r.deny) l.push(`Deny ${r.from} ${r.deny.join(' ')}`);
    if (r.satisfy) l.push(`Satisfy ${r.satisfy}`);
    return l.length ? l.join('\n') : 'Order deny,allow';
  });
const body = fc.record({ c: compat, a: fc.option(authzBlock, { nil: null, freq: 3 }) }).map((b) => [b.c, b.a].filter(Boolean).join('\n'));
const WHERE = ['root', 'docroot', 'sub', 'sub-deep', 'loc-sub', 'loc-al', 'loc-al-deep', 'files-a', 'loc-root'] as const;
const configArb = fc
  .record({
    aliases: fc.constantFrom(['Alias /al "@DOCROOT@/sub"'], ['Alias /al/deep "@DOCROOT@/other/deep"', 'Alias /al "@DOCROOT@/sub"'], ['Alias /al "@DOCROOT@/sub"', 'Alias /al/deep "@DOCROOT@/other/deep"']),
    where: fc.uniqueArray(fc.constantFrom(...WHERE), { minLength: 1, maxLength: 3 }),
    bodies: fc.array(body, { minLength: 3, maxLength: 3 }),
  })
  .map((c) => {
    const parts = [...HEAD, ...c.aliases, AUTH];
    c.where.forEach((w, i) => {
      const b = c.bodies[i];
      if (w === 'root') parts.push(dir(b, '/'));
      else if (w === 'docroot') parts.push(dir(b));
      else if (w === 'sub') parts.push(dir(b, SUB));
      else if (w === 'sub-deep') parts.push(dir(b, `${SUB}/deep`));
      else if (w === 'loc-sub') parts.push(loc('/sub', b));
      else if (w === 'loc-al') parts.push(loc('/al', b));
      else if (w === 'loc-al-deep') parts.push(loc('/al/deep', b));
      else if (w === 'files-a') parts.push(files('a.html', b));
      else parts.push(loc('/', b));
    });
    return parts.join('\n');
  });

describe('Alias, and host rules in every spelling (real httpd)', function () {
  this.timeout(1_200_000);

  it('table: directories reached through an Alias and the DocumentRoot, aliases in order', async function () {
    if (!httpdOrSkip(this)) return;
    const rewritten = await assertExactOnHttpd(TABLE.map(migrateCase), 'table');
    assert.ok(rewritten >= 3, `${rewritten} of ${TABLE.length} rewritten`);
  });

  it('random configurations: every rewrite offered is exact, and explain agrees with httpd', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 3);
    const runs = Number(process.env.APACHECONF_ALIAS_RUNS ?? 40);
    const configs = fc.sample(configArb, { seed, numRuns: runs });
    const migrated = configs.map((config, i) => migrateCase({ id: `al${i}`, why: `random #${i} (seed ${seed})`, config, paths: PATHS, files: FILES, headers: [{}, { 'X-Flag': 'yes' }] }));
    await assertExactOnHttpd(migrated, `seed ${seed}`);
  });
});
