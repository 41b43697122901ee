/**
 * A `.htaccess` rewrite checked in its configuration (`fix --root`, features/htaccess-context.ts)
 * where the main server answers too, against the real httpd.
 *
 * httpd hands a connection to the main server when no `<VirtualHost>` takes its address and port
 * (here a second `Listen` port). The main server reads the server config's sections alone, without
 * any virtual host's, so a rewrite that is exact in every virtual host can still change what the
 * main server answers. Each row is a server config (the document root's `<Directory>` at server
 * level), a virtual host's body and a `.htaccess`:
 * - with the second port in the configuration, whatever rewrite is offered answers as the original
 *   on both ports (httpd with mod_access_compat for the original, without it for the rewrite);
 * - rows marked `mainDiffers`: without the second port the engine offers a rewrite that is exact in
 *   the virtual host, and httpd shows that this rewrite answers otherwise on the main server's port
 *   (the check is needed), while with it no rewrite is offered and the reason names the Listen line.
 * Then random ones: random 2.4 rules at server level and in the virtual host, and a random
 * `.htaccess`; every rewrite offered must answer as the original on both ports. Each pair needs an
 * httpd of its own (there is one main server), so the default run is small:
 * APACHECONF_MAIN_RUNS (default 4) and APACHECONF_SEED choose more.
 * Skips without httpd, except under CI=true.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock } from './blocks';
import { flagRequests, htaccessArb } from './htaccess-forms.test';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { BASIC, GROUPS, USERS, httpdOrSkip, FAKE_ROOT, forEngine } from './migration-cases.test';
import { parse } from '../../server/src/syntax';
import { migrateHtaccessInContext } from '../../server/src/features/htaccess-context';

/** The oracle's document roots hold no .htaccess above the one checked. */
const NO_PARENTS = { readFile: (): string | undefined => undefined, listDir: (): string[] | undefined => undefined };

interface Row {
  id: string;
  /** The body of the document root's <Directory> at server level (AllowOverride All is added). */
  server: string;
  /** The virtual host's body (its DocumentRoot is the same directory). */
  vhost: string;
  htaccess: string;
  /** Without the main server's port a rewrite is offered that httpd answers otherwise there. */
  mainDiffers?: boolean;
}

const ROWS: Row[] = [
  {
    id: 'satisfy-any-granted-in-vhost',
    server: '',
    vhost: '<Directory "@DOCROOT@">\nRequire all granted\n</Directory>',
    htaccess: 'Order allow,deny\nAllow from 127.0.0.2\nSatisfy Any\n',
    // Satisfy Any lets everyone in on both: under the vhost's Require all granted, and on the main
    // server, which has no Require. `Require all granted` says so in both (the AuthMerging form the
    // planner wrote before differed on the main server).
    mainDiffers: false,
  },
  {
    id: 'allow-one-granted-in-vhost',
    server: '',
    vhost: '<Directory "@DOCROOT@">\nRequire all granted\n</Directory>',
    htaccess: 'Order allow,deny\nAllow from 127.0.0.2\n',
  },
  {
    id: 'deny-one-auth-in-vhost',
    server: '',
    vhost: `<Directory "@DOCROOT@">\n${BASIC}\nRequire valid-user\n</Directory>`,
    htaccess: 'Order allow,deny\nAllow from all\nDeny from 127.0.0.3\nSatisfy Any\n',
    mainDiffers: true,
  },
  {
    id: 'same-rules-everywhere',
    server: 'Require all granted',
    vhost: '',
    htaccess: 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n',
  },
];

const PATHS = ['/sub/a.html', '/sub/b.html'];

/** The configuration as the engine sees it; `mainPort` adds the port no virtual host takes. */
function engineConfig(row: Row, mainPort: boolean): string {
  return forEngine(
    [
      'Listen 127.0.0.1:80',
      ...(mainPort ? ['Listen 127.0.0.1:81'] : []),
      'DocumentRoot "@DOCROOT@"',
      'SetEnvIf X-Flag ^yes FLAG',
      '<Directory "@DOCROOT@">',
      'AllowOverride All',
      row.server,
      '</Directory>',
      '<VirtualHost *:80>',
      'DocumentRoot "@DOCROOT@"',
      row.vhost,
      '</VirtualHost>',
      '',
    ].join('\n'),
  );
}

function oracleCase(row: Row, htaccess: string): OracleCase {
  return {
    id: row.id,
    config: row.vhost,
    serverConfig: `DocumentRoot "@DOCROOT@"\nSetEnvIf X-Flag ^yes FLAG\n<Directory "@DOCROOT@">\nAllowOverride All\n${row.server}\n</Directory>`,
    files: { 'sub/a.html': 'a\n', 'sub/b.html': 'b\n', 'sub/.htaccess': htaccess },
  };
}

function requests(row: Row, main: boolean): OracleRequestFor[] {
  return flagRequests(row.id, PATHS, main);
}

/** Statuses of the original (with mod_access_compat) and of `rewrite` (without), on the vhost and the main server. */
async function answers(row: Row, rewrite: string): Promise<{ vhost: number; main: number; total: number }> {
  // One main server per httpd: each row runs alone.
  const before = await startOracle([oracleCase(row, row.htaccess)], { compat: true, users: USERS, groups: GROUPS, mainServer: true });
  const after = await startOracle([oracleCase(row, rewrite)], { compat: false, users: USERS, groups: GROUPS, mainServer: true });
  try {
    const count = async (main: boolean): Promise<number> => {
      const list = requests(row, main);
      return mismatches(list, await before.requestAll(list), await after.requestAll(list)).length;
    };
    const vhost = await count(false);
    const main = await count(true);
    return { vhost, main, total: requests(row, false).length };
  } finally {
    await before.stop();
    await after.stop();
  }
}

describe('.htaccess rewrites on the real httpd: the main server reads them too', function () {
  this.timeout(300_000);
  for (const row of ROWS) {
    it(row.id, async function () {
      if (!httpdOrSkip(this)) return;
      const dir = `${FAKE_ROOT}/sub`;
      const withMain = migrateHtaccessInContext(parse(engineConfig(row, true)), dir, row.htaccess, undefined, NO_PARENTS, null);
      const vhostOnly = migrateHtaccessInContext(parse(engineConfig(row, false)), dir, row.htaccess, undefined, NO_PARENTS, null);
      if (row.mainDiffers) {
        assert.equal(withMain.text, null, 'no rewrite where the main server answers');
        assert.match(withMain.why ?? '', /the main server, which answers what no virtual host takes \(`Listen 127\.0\.0\.1:81`, line 2\)/);
        assert.ok(vhostOnly.text !== null, `a rewrite where no port reaches the main server (${vhostOnly.why})`);
        const r = await answers(row, vhostOnly.text);
        assert.equal(r.vhost, 0, `in the virtual host the rewrite answers as the original (${r.vhost} of ${r.total} differ)`);
        assert.ok(r.main > 0, 'on the main server the rewrite exact in the virtual host answers otherwise');
        console.log(`      ${row.id}: the virtual host's rewrite differs on the main server for ${r.main} of ${r.total} requests`);
      } else {
        assert.ok(withMain.text !== null, `a rewrite is offered (${withMain.why})`);
        const r = await answers(row, withMain.text);
        assert.deepEqual({ vhost: r.vhost, main: r.main }, { vhost: 0, main: 0 }, `of ${r.total} requests on each port`);
      }
    });
  }
});

const randomRow = fc
  .record({
    auth: fc.boolean(),
    server: fc.option(authzBlock, { nil: null, freq: 2 }),
    vhost: fc.option(authzBlock, { nil: null, freq: 1 }),
    location: fc.option(authzBlock, { nil: null, freq: 3 }),
  })
  .map((r) => ({
    server: [...(r.auth ? [BASIC, 'AuthGroupFile "@GROUPS@"'] : []), ...(r.server ? [r.server] : [])].join('\n'),
    vhost: [
      ...(r.vhost ? [`<Directory "@DOCROOT@">\n${r.vhost}\n</Directory>`] : []),
      ...(r.location ? [`<Location "/sub">\n${r.location}\n</Location>`] : []),
    ].join('\n'),
  }));

describe('.htaccess rewrites on the real httpd: the main server reads them too, random', function () {
  this.timeout(600_000);
  it('every rewrite offered answers as the original in the virtual host and on the main server', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 20261126);
    const runs = Number(process.env.APACHECONF_MAIN_RUNS ?? 4);
    // Draw until `runs` pairs get a rewrite (at most 40 draws a pair).
    const rows = fc.sample(randomRow, { seed, numRuns: runs * 40 });
    const hts = fc.sample(htaccessArb, { seed: seed + 1, numRuns: runs * 40 });
    let tried = 0;
    let done = 0;
    let requests = 0;
    for (let i = 0; i < rows.length && done < runs; i++) {
      const row: Row = { id: `m${i}`, ...rows[i], htaccess: hts[i] };
      tried++;
      const r = migrateHtaccessInContext(parse(engineConfig(row, true)), `${FAKE_ROOT}/sub`, row.htaccess, undefined, NO_PARENTS, null);
      if (r.text === null) continue;
      const a = await answers(row, r.text);
      requests += 2 * a.total;
      assert.deepEqual(
        { vhost: a.vhost, main: a.main },
        { vhost: 0, main: 0 },
        `seed ${seed}, pair ${i}, of ${a.total} requests on each port\n--- server\n${row.server}\n--- vhost\n${row.vhost}\n--- .htaccess\n${row.htaccess}--- rewrite\n${r.text}`,
      );
      done++;
    }
    console.log(`      seed ${seed}: ${tried} pairs drawn, ${done} rewritten and served, ${requests} requests, 0 differences`);
    assert.equal(done, runs, 'enough pairs get a rewrite');
  });
});
