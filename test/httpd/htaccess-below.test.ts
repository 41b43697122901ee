/**
 * A server-config rewrite where `AllowOverride` lets `.htaccess` files below set access, against
 * the real httpd.
 *
 * httpd reads a `.htaccess` file's `Require` lines (AuthConfig) and host rules (Limit) on the way
 * to a file. With mod_access_compat the server's host rules are read apart from such a `Require`;
 * after the rewrite the two `Require`s replace each other (the deeper one, or the `<Location>`
 * merged after it, wins). So the plan marks such rewrites (SectionPlan.htaccessBelow) and
 * `legacy-access` prefers them only when the `.htaccess` files there were looked at and none sets
 * access (`fix --root`). Each row is a server config with `AllowOverride All` and host rules, and
 * a `.htaccess` below that sets access:
 * - the plan finds the rewrite exact as far as the configuration shows and names the directory;
 * - with the `.htaccess`, httpd answers the rewrite otherwise (the condition is needed);
 * - without it (or with one that says nothing of access), httpd answers it alike.
 * Skips without httpd, except under CI=true.
 */
import assert from 'node:assert/strict';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, GROUPS, METHODS, USERS, httpdOrSkip, forEngine, fromEngine } from './migration-cases.test';
import { migrateText } from '../../server/src/access';
import { parse } from '../../server/src/syntax';
import { createService } from '../../server/src/service';

interface Row {
  id: string;
  /** The virtual host's body: AllowOverride All for the document root, and host rules somewhere. */
  config: string;
  /** admin/.htaccess, which sets access. */
  htaccess: string;
}

const AO = '<Directory "@DOCROOT@">\nAllowOverride All\n</Directory>';

const ROWS: Row[] = [
  {
    id: 'location-over-password',
    config: `${AO}\n<Location "/admin">\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</Location>`,
    htaccess: `${BASIC}\nRequire valid-user`,
  },
  {
    id: 'directory-under-granted',
    config: `<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from all\nDeny from 127.0.0.3\n</Directory>`,
    htaccess: 'Require all granted',
  },
  {
    id: 'files-over-ip',
    config: `${AO}\n<Files "a.html">\nOrder allow,deny\nAllow from 127.0.0.0/30\n</Files>`,
    htaccess: 'Require ip 127.0.0.2',
  },
];

const PATHS = ['/admin/a.html', '/a.html'];

function oracleCase(id: string, config: string, htaccess: string | null): OracleCase {
  return {
    id,
    config,
    files: { 'a.html': 'top\n', 'admin/a.html': 'admin\n', ...(htaccess !== null ? { 'admin/.htaccess': htaccess + '\n' } : { 'admin/.htaccess': 'RewriteEngine On\n' }) },
  };
}

function requests(id: string): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) for (const path of PATHS) out.push({ caseId: id, path, from, method, ...(auth ? { auth } : {}) });
  return out;
}

describe('server rewrites on the real httpd: .htaccess files below that set access', function () {
  this.timeout(300_000);
  it('the plan names the directory; httpd shows the condition is needed, and enough where no .htaccess sets access', async function () {
    if (!httpdOrSkip(this)) return;
    const originals: OracleCase[] = [];
    const rewrites: OracleCase[] = [];
    const list: OracleRequestFor[] = [];
    for (const row of ROWS) {
      const { text, plan } = migrateText(forEngine(row.config), 'vhost');
      const secs = plan.sections.filter((s) => s.compatDirectives.length);
      assert.ok(secs.length && secs.every((s) => s.exact && s.htaccessBelow?.length), `${row.id}: exact as far as the file shows, with the directory named`);
      // The rule offers it, not preferred, and says why.
      const service = createService();
      const a = service.analyze({ text: forEngine(row.config), uri: 'file:///x.conf', context: 'vhost' });
      const f = a.findings.find((x) => x.rule === 'legacy-access');
      assert.ok(f?.fixes?.length && f.fixes.every((x) => !x.preferred), `${row.id}: no preferred fix`);
      assert.match(f!.message, /`AllowOverride` lets \.htaccess files under `.*` set access/);
      // With a look at the disk that finds nothing, it is preferred.
      const seen = createService({ htaccessUnder: () => ({ kind: 'none' }) }).analyze({ text: forEngine(row.config), uri: 'file:///x.conf', context: 'vhost' });
      assert.ok(seen.findings.find((x) => x.rule === 'legacy-access')?.fixes?.some((x) => x.preferred), `${row.id}: preferred once nothing below sets access`);
      const rewritten = fromEngine(text);
      for (const [suffix, ht] of [['with', row.htaccess], ['without', null]] as const) {
        const id = `${row.id}-${suffix}`;
        originals.push(oracleCase(id, row.config, ht));
        rewrites.push(oracleCase(id, rewritten, ht));
        list.push(...requests(id));
      }
      assert.equal(parse(rewritten).errors.length, 0);
    }
    const before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
    const after = await startOracle(rewrites, { compat: false, users: USERS, groups: GROUPS });
    try {
      const diff = mismatches(list, await before.requestAll(list), await after.requestAll(list));
      const count = (id: string) => diff.filter((d) => d.request.caseId === id).length;
      const total = requests('x').length;
      for (const row of ROWS) {
        assert.ok(count(`${row.id}-with`) > 0, `${row.id}: with the .htaccess, the rewrite answers otherwise`);
        assert.equal(count(`${row.id}-without`), 0, `${row.id}: without one that sets access, it answers alike`);
      }
      console.log(`      with the .htaccess below: ${ROWS.map((r) => `${r.id} ${count(`${r.id}-with`)} of ${total}`).join(', ')} requests differ; without: 0`);
    } finally {
      await before.stop();
      await after.stop();
    }
  });
});
