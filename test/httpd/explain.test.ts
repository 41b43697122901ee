// The evaluator's predictions (explain) against the real statuses: every request of every case of
// the migration table, on the original with mod_access_compat and on the rewrite without it.
// Agreement must be 100 %: a prediction of "unknown" counts as a miss.

import assert from 'node:assert/strict';
import { CASES, httpdOrSkip, migrateCase, runPair } from './migration-cases.test';

describe('explain: evaluator predictions vs real httpd', function () {
  this.timeout(600_000);

  it('predicts every status of the migration table (original and rewrite)', async function () {
    if (!httpdOrSkip(this)) return;
    const migrated = CASES.map(migrateCase);
    const r = await runPair(migrated, { explain: true });
    const agree = r.explainChecked - r.explainMisses.length;
    console.log(`    ${r.explainChecked} predictions, ${agree} agree (${((100 * agree) / Math.max(1, r.explainChecked)).toFixed(2)} %)`);
    assert.deepEqual(r.explainMisses.slice(0, 40), []);
  });
});
