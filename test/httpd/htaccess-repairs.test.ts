/**
 * Lines httpd refuses in a `.htaccess` file, against the real httpd: while one is there, every
 * request under the folder answers 500 (httpd reads the file per request and gives up on it). A
 * repair (deleting a byte order mark, `Order allow,deny` written as one word, a provider in lower
 * case) is what httpd needs, but it changes those answers to 200 or 403: it is offered as a quick
 * fix, not applied by a migration (`fix`, "Migrate…"), whose rewrites keep every answer. In the
 * server config httpd does not start with such a line, so there the repair stays preferred.
 *
 * A black-box run found `fix` applying these repairs to .htaccess files, turning 500 into 200.
 */
import assert from 'node:assert/strict';
import { startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { httpdOrSkip } from './migration-cases.test';
import { createService } from '../../server/src/service';

const CASES: Array<{ id: string; htaccess: string; repaired: string }> = [
  { id: 'bom', htaccess: '\uFEFFOrder allow,deny\nAllow from all\n', repaired: 'Order allow,deny\nAllow from all\n' },
  { id: 'order-space', htaccess: 'Order allow, deny\nAllow from all\n', repaired: 'Order allow,deny\nAllow from all\n' },
  { id: 'provider-case', htaccess: 'Require All granted\n', repaired: 'Require all granted\n' },
];

const FROMS = ['127.0.0.1', '127.0.0.9'];
const PATHS = ['/sub/', '/sub/x.html', '/sub/missing.html'];

function oracleCases(text: (c: (typeof CASES)[number]) => string): OracleCase[] {
  return CASES.map((c) => ({
    id: c.id,
    config: '<Directory "@DOCROOT@">\n    AllowOverride All\n</Directory>',
    // (A BOM goes to disk as the three bytes UTF-8 gives it.)
    files: { 'sub/index.html': 'i\n', 'sub/x.html': 'x\n', 'sub/.htaccess': text(c) },
  }));
}

if (typeof describe === 'function') describe('.htaccess lines httpd refuses (real httpd)', function () {
  this.timeout(300_000);

  it('answer 500 under the folder as written; the repair changes that, so fix does not apply it', async function () {
    if (!httpdOrSkip(this)) return;
    const requests: OracleRequestFor[] = CASES.flatMap((c) => PATHS.flatMap((p) => FROMS.map((from) => ({ caseId: c.id, path: p, from }))));
    const broken = await startOracle(oracleCases((c) => c.htaccess), { compat: true });
    let before: number[];
    try {
      before = await broken.requestAll(requests);
    } finally {
      await broken.stop();
    }
    const repaired = await startOracle(oracleCases((c) => c.repaired), { compat: true });
    let after: number[];
    try {
      after = await repaired.requestAll(requests);
    } finally {
      await repaired.stop();
    }
    assert.deepEqual([...new Set(before)], [500], 'every request under a refused .htaccess answers 500');
    assert.ok(after.every((s) => s !== 500), `the repaired files answer: ${after.join(' ')}`);
    console.log(`    ${requests.length} requests: 500 as written, ${[...new Set(after)].sort().join('/')} repaired`);
    const service = createService();
    for (const c of CASES) {
      // The repair is the file's own text with the line fixed, and it is offered...
      const a = service.analyze({ text: c.htaccess, uri: 'file:///srv/www/sub/.htaccess', context: 'htaccess' });
      const offered = a.findings.flatMap((f) => f.fixes ?? []).filter((x) => /httpd answers 500 under this folder/.test(x.title));
      assert.equal(offered.length, 1, `${c.id}: one repair offered`);
      assert.ok(!offered[0].preferred, `${c.id}: not preferred`);
      // ...but a migration leaves the file (and its 500s) as it is.
      assert.equal(service.fixText({ text: c.htaccess, uri: 'file:///srv/www/sub/.htaccess', context: 'htaccess' }).text, c.htaccess, c.id);
    }
  });
});
