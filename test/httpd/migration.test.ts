// The proof of an exact 2.2 → 2.4 migration (issue #3): for every case of the table, httpd 2.4
// running the engine's rewrite WITHOUT mod_access_compat answers every request with the same
// status class as httpd running the original WITH it (200 and 404 count as the same). Cases the
// engine must refuse are checked for a reason instead.

import assert from 'node:assert/strict';
import { CASES, httpdOrSkip, migrateCase, runPair, type Migrated } from './migration-cases.test';

describe('migration: original with compat vs rewrite without (real httpd)', function () {
  this.timeout(600_000);
  let migrated: Migrated[] = [];

  before(function () {
    migrated = CASES.map(migrateCase);
  });

  it('offers an exact rewrite for every case expected to have one', () => {
    const missing = migrated.filter((m) => (m.c.exact ?? true) && m.rewritten === null).map((m) => `${m.c.id}: ${m.reasons.join(' | ')}`);
    assert.deepEqual(missing, []);
  });

  it('refuses, with a reason, the cases that have no exact rewrite', () => {
    for (const m of migrated.filter((x) => x.c.exact === false)) {
      assert.equal(m.rewritten, null, m.c.id);
      assert.ok(m.reasons.every((r) => r.length > 10), m.c.id);
    }
  });

  it('gives the same status for every request, and httpd starts both configs', async function () {
    if (!httpdOrSkip(this)) return;
    const r = await runPair(migrated.filter((m) => m.rewritten !== null));
    console.log(`    ${migrated.length} cases, ${migrated.filter((m) => m.rewritten !== null).length} rewritten, ${r.requests} requests compared, ${r.differences.length} differences`);
    assert.deepEqual(r.differences.slice(0, 40), []);
  });
});
