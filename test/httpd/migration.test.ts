// The proof of an exact 2.2 → 2.4 migration (issue #3): for every case of the table, httpd 2.4
// running the engine's rewrite WITHOUT mod_access_compat answers every request with the same
// status class as httpd running the original WITH it (200 and 404 count as the same). Cases the
// engine must refuse are checked for a reason instead.

import assert from 'node:assert/strict';
import { BASIC, CASES, USERS, httpdOrSkip, migrateCase, checkVariantDifference, runPair, type Migrated } from './migration-cases.test';
import { startOracle } from './harness';

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

  it('gives the same plan with client classes per point and with whole-file checks', () => {
    assert.deepEqual(CASES.map(checkVariantDifference).filter((x) => x !== null), []);
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

// §8.4 gives, for "<Files x> Require A (Off), a later <FilesMatch x> with compat only, and a
// Directory Require P", the Off form <RequireAll> T(C); A </RequireAll> as exact. That holds when
// the FilesMatch covers the same files as the Files section. When its regex also matches other
// files (here ^a matches ab.html too), P is in effect for those instead of A, and the Off form
// changes them: the engine refuses (case i18), and httpd shows why.
describe('migration: the §8.4 Off form needs the same region for Files and FilesMatch (real httpd)', function () {
  this.timeout(120_000);
  it('the Off form differs from the original for a file only the FilesMatch matches', async function () {
    if (!httpdOrSkip(this)) return;
    const base = `DocumentRoot "@DOCROOT@"\n<Directory "@DOCROOT@">\n  ${BASIC.split('\n').join('\n  ')}\n  Require valid-user\n</Directory>\n<Files "a.html">\n  Require ip 127.0.0.2 127.0.0.3\n</Files>\n`;
    const original = `${base}<FilesMatch "^a">\n  Order deny,allow\n  Deny from 127.0.0.3\n</FilesMatch>`;
    const offForm = `${base}<FilesMatch "^a">\n  <RequireAll>\n    <RequireAll>\n      Require all granted\n      Require not ip 127.0.0.3\n    </RequireAll>\n    Require ip 127.0.0.2 127.0.0.3\n  </RequireAll>\n</FilesMatch>`;
    const files = { 'a.html': 'a\n', 'ab.html': 'ab\n' };
    const before = await startOracle([{ id: 'off', config: original, files }], { compat: true, users: USERS });
    const after = await startOracle([{ id: 'off', config: offForm, files }], { compat: false, users: USERS });
    try {
      const reqs = [
        { caseId: 'off', path: '/a.html', from: '127.0.0.2' },
        { caseId: 'off', path: '/ab.html', from: '127.0.1.5', auth: { user: 'alice', password: 'alice-pw' } },
      ];
      const a = await before.requestAll(reqs);
      const b = await after.requestAll(reqs);
      assert.deepEqual(a, [200, 200]);
      assert.deepEqual(b, [200, 403]);
      assert.equal(migrateCase({ id: 'x', why: '', config: original }).rewritten, null);
    } finally {
      await before.stop();
      await after.stop();
    }
  });
});
