/**
 * `apacheconf fix --write --root` itself on a server config and the `.htaccess` files below it,
 * written to disk, against the real httpd.
 *
 * The classic 2.2 layout of a private site with a public folder: a server `<Directory>` that lets
 * one client in (`Order deny,allow`, `Deny from all`, `Allow from …`) and a `.htaccess` below with
 * `Allow from all`. With mod_access_compat the folder's host rules replace the server's. Neither
 * side could be rewritten while the other kept its host rules (the server's `Require ip` would
 * still refuse everyone else in the folder; the `.htaccess` rewrite would have had to change the
 * server config), so the run left both, each telling the user to migrate the other first. A
 * `.htaccess` of the run that every host reading it lets use `Require` (AllowOverride AuthConfig)
 * is now planned with the server config, and each file makes its part of the rewrite of the two;
 * the `.htaccess` file makes its part only where the server's files made theirs.
 *
 * The random cases are htaccess-joint.test.ts's, run through the command line on real files.
 * APACHECONF_JOINT_RUNS=<n> (default 40) and APACHECONF_SEED=<n> change the random run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { httpdOrSkip } from './migration-cases.test';
import { compareJoint, jointArb, type JointCase, type JointResult } from './htaccess-joint.test';
import { runCli } from '../../server/src/cli/cli';

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/** The case as files on disk: a root file whose one virtual host includes the case's body, and the .htaccess files under its document root. */
export async function fixWithCli(c: JointCase, base: string): Promise<JointResult & { out: string }> {
  const dir = path.join(base, c.id);
  const docroot = path.join(dir, 'docroot');
  const toDisk = (t: string) => t.split('@DOCROOT@').join(docroot).split('@USERS@').join(path.join(dir, 'users')).split('@GROUPS@').join(path.join(dir, 'groups'));
  const fromDisk = (t: string) => t.split(docroot).join('@DOCROOT@').split(path.join(dir, 'users')).join('@USERS@').split(path.join(dir, 'groups')).join('@GROUPS@');
  fs.mkdirSync(path.join(docroot, 'sub', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'root.conf'), `Listen 80\n<VirtualHost *:80>\nDocumentRoot "${docroot}"\nInclude body.conf\n</VirtualHost>\n`);
  const body = toDisk(c.server.endsWith('\n') ? c.server : c.server + '\n');
  fs.writeFileSync(path.join(dir, 'body.conf'), body);
  for (const [rel, text] of Object.entries(c.htaccess)) fs.writeFileSync(path.join(docroot, rel), toDisk(text));
  let out = '';
  const sink = { write: (s: string | Uint8Array) => ((out += String(s)), true) } as unknown as NodeJS.WritableStream;
  await runCli(['fix', '--write', '--root', 'root.conf', 'root.conf', 'body.conf', 'docroot'], { stdout: sink, stderr: sink, cwd: dir } as never);
  const server = fs.readFileSync(path.join(dir, 'body.conf'), 'utf8');
  const htaccess: Record<string, string> = {};
  for (const rel of Object.keys(c.htaccess)) htaccess[rel] = fromDisk(fs.readFileSync(path.join(docroot, rel), 'utf8'));
  const compat = COMPAT.test(server) || Object.values(htaccess).some((t) => COMPAT.test(t));
  return { server: fromDisk(server), htaccess, compat, serverRewritten: server !== body, reasons: [], out };
}

/** Private sites with a public folder: the .htaccess opens what the server config closes. */
export const OPEN_BELOW: JointCase[] = [
  {
    id: 'open-below',
    server: 'SetEnvIf X-Flag ^yes FLAG\n<Directory "@DOCROOT@">\nAllowOverride All\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</Directory>',
    htaccess: { 'sub/.htaccess': 'Allow from all\n' },
  },
  {
    id: 'open-below-to-one-more',
    server: 'SetEnvIf X-Flag ^yes FLAG\n<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from 127.0.0.2\n</Directory>',
    htaccess: { 'sub/.htaccess': 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n' },
  },
  {
    id: 'open-below-deep-closes',
    server: 'SetEnvIf X-Flag ^yes FLAG\n<Directory "@DOCROOT@">\nAllowOverride All\nOrder deny,allow\nDeny from all\n</Directory>',
    htaccess: { 'sub/.htaccess': 'Order allow,deny\nAllow from all\n', 'sub/deep/.htaccess': 'Order deny,allow\nDeny from all\nAllow from env=FLAG\n' },
  },
];

/**
 * Packages (cacti, dokuwiki, horde, zabbix) ship `.htaccess` files with both forms: `Require`
 * under `<IfModule mod_authz_core.c>` and `Order`/`Deny` under `<IfModule !mod_authz_core.c>`,
 * which 2.4 never reads. No rewrite of such a file's own lines exists, so a rewrite of the server
 * config that added `AuthMerging And` to it could not be made, and the run refused the server
 * config (and with it every other `.htaccess`). The server config is now planned with such files
 * as they are; the first layout is cacti's as Debian ships it.
 */
const DUAL: JointCase[] = [
  {
    id: 'dual-denies-below-allow-all',
    server: '<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from all\n</Directory>\n<Files ~ "^\\.ht">\nOrder allow,deny\nDeny from all\nSatisfy all\n</Files>',
    htaccess: {
      'sub/.htaccess': '<IfModule mod_authz_core.c>\n    Require all denied\n</IfModule>\n<IfModule !mod_authz_core.c>\n    Order Allow,Deny\n    Deny from all\n</IfModule>\n',
      'sub/deep/.htaccess': 'Order Allow,Deny\nDeny from all\n',
    },
  },
  {
    id: 'dual-opens-below-one-client',
    server: '<Directory "@DOCROOT@">\nAllowOverride All\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</Directory>',
    htaccess: { 'sub/.htaccess': '<IfModule mod_authz_core.c>\n    Require all granted\n</IfModule>\n<IfModule !mod_authz_core.c>\n    Order allow,deny\n    Allow from all\n</IfModule>\n' },
  },
  {
    id: 'dual-password-below-one-client',
    server: '<Directory "@DOCROOT@">\nAllowOverride All\nOrder deny,allow\nDeny from 127.0.0.3\n</Directory>',
    htaccess: {
      'sub/.htaccess': `<IfModule mod_authz_core.c>\nAuthType Basic\nAuthName "x"\nAuthUserFile "@USERS@"\nRequire valid-user\n</IfModule>\n<IfModule !mod_authz_core.c>\nOrder deny,allow\nDeny from all\n</IfModule>\n`,
    },
  },
];

/** Host-rule lines that 2.4 reads: those outside a branch only 2.2 takes. */
const COMPAT_READ = (t: string): boolean => COMPAT.test(t.replace(/<IfModule !mod_authz_core\.c>[\s\S]*?<\/IfModule>/g, ''));

if (typeof describe === 'function') describe('fix --root on files: a server config and the .htaccess files below it (real httpd)', function () {
  this.timeout(1_200_000);
  let base = '';
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-joint-cli-'));
  });
  after(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it('a .htaccess that opens a folder the server config closes: both rewritten, and answered alike', async function () {
    if (!httpdOrSkip(this)) return;
    const results = [];
    for (const c of OPEN_BELOW) {
      const r = await fixWithCli(c, base);
      assert.equal(r.compat, false, `${c.id}: both rewritten:\n${r.out}\n${r.server}\n${JSON.stringify(r.htaccess)}`);
      results.push(r);
    }
    const { requests, differences } = await compareJoint(OPEN_BELOW, results);
    console.log(`    ${OPEN_BELOW.length} layouts: ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
  });

  it('dual-version .htaccess files (a 2.4 branch beside a 2.2 one) are left as they are, and the server config is rewritten around them', async function () {
    const results = [];
    for (const c of DUAL) {
      const r = await fixWithCli(c, base);
      for (const [rel, text] of Object.entries(c.htaccess)) if (text.includes('mod_authz_core')) assert.equal(r.htaccess[rel], text, `${c.id}: ${rel} kept`);
      // What is left for mod_access_compat: only the branches 2.4 never reads.
      r.compat = COMPAT_READ(r.server) || Object.values(r.htaccess).some(COMPAT_READ);
      results.push(r);
    }
    // Debian's cacti: the server config and the plain .htaccess get their rewrites (they were refused before).
    assert.equal(results[0].compat, false, `${DUAL[0].id}:\n${results[0].out}`);
    if (!httpdOrSkip(this)) return;
    const { requests, differences } = await compareJoint(DUAL, results);
    console.log(`    ${DUAL.length} layouts, ${results.filter((r) => !r.compat).length} with nothing left for mod_access_compat: ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
  });

  it('random server configs and .htaccess files, through the command line: whatever is rewritten answers alike', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 23);
    const runs = Number(process.env.APACHECONF_JOINT_RUNS ?? 40);
    const cases: JointCase[] = fc.sample(jointArb, { seed, numRuns: runs }).map((s, i) => ({ id: `c${i}`, ...s }));
    const results = [];
    for (const c of cases) results.push(await fixWithCli(c, base));
    const whole = results.filter((r) => !r.compat).length;
    const servers = results.filter((r) => r.serverRewritten).length;
    const { requests, differences } = await compareJoint(cases, results);
    console.log(`    seed ${seed}: ${cases.length} cases, ${servers} server configs rewritten, ${whole} with nothing left for mod_access_compat; ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
  });
});
