/**
 * UserDir layouts with `fix --write --root` on real files and the real httpd.
 *
 * Debian's 2.2 userdir.conf opens every user's folder with a wildcard `<Directory /home/*\/www>`
 * and `AllowOverride All`, and users close parts of their folders with `.htaccess` files. Neither
 * side could be rewritten while the other kept its host rules (the server's `Require all granted`
 * and the user's `Require ip` replace each other under 2.4), and the joint plan of the two was
 * never tried: the `.htaccess` files under a wildcard `<Directory>` were not read with the
 * configuration, and any UserDir line counted as a path the model cannot follow. A UserDir that
 * names absolute paths maps to folders like any other: the files under each folder the wildcard
 * names on the disk are now read with the configuration, and rewritten with it.
 *
 * A relative UserDir (`public_html`, looked up in each user's home folder, which the configuration
 * does not show) keeps the joint plan off (features/joint-htaccess.ts reachedOtherwise); the files
 * under the wildcard are still read with the configuration, so each side's rewrite is checked with
 * the other as it is, and the last row is rewritten in one run all the same.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mismatches, startOracle, type OracleRequestFor } from './harness';
import { AUTHS, FROMS, USERS, httpdOrSkip } from './migration-cases.test';
import { runCli } from '../../server/src/cli/cli';

interface Row {
  id: string;
  /** The virtual host's body (placeholder: @DOCROOT@). */
  body: string;
  /** Docroot-relative files (their folders made), .htaccess files among them. */
  files: Record<string, string>;
  paths: string[];
}

const USERDIR = [
  'UserDir "@DOCROOT@/home/*/www"',
  '<Directory "@DOCROOT@/home/*/www">',
  '  AllowOverride All',
  '  Order allow,deny',
  '  Allow from all',
  '</Directory>',
].join('\n');

const HOMES: Record<string, string> = {
  'home/carol/www/index.html': 'carol\n',
  'home/carol/www/priv/index.html': 'carol private\n',
  'home/dave/www/index.html': 'dave\n',
  'home/dave/www/team/index.html': 'dave team\n',
};

const ROWS: Row[] = [
  {
    id: 'userdir-wildcard',
    body: USERDIR,
    files: {
      ...HOMES,
      'home/carol/www/priv/.htaccess': 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n',
      'home/dave/www/team/.htaccess': 'Order allow,deny\nAllow from all\nDeny from 127.0.0.3\n',
    },
    paths: ['/~carol/index.html', '/~carol/priv/index.html', '/~dave/index.html', '/~dave/team/index.html', '/~nobody/index.html'],
  },
  {
    // The server closes the folders to all but one client; a user opens a part of theirs.
    id: 'userdir-closed-opened-below',
    body: USERDIR.replace('  Order allow,deny\n  Allow from all', '  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2'),
    files: { ...HOMES, 'home/dave/www/team/.htaccess': 'Allow from all\n' },
    paths: ['/~carol/index.html', '/~carol/priv/index.html', '/~dave/index.html', '/~dave/team/index.html'],
  },
  {
    id: 'userdir-relative',
    body: 'UserDir www\n<Directory "@DOCROOT@/home/*/www">\n  AllowOverride All\n  Order allow,deny\n  Allow from all\n</Directory>',
    files: { ...HOMES, 'home/carol/www/priv/.htaccess': 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n' },
    // (The homes are no users of this machine: /~carol/ answers 404 both times; the folders are
    // reached through the DocumentRoot.)
    paths: ['/~carol/index.html', '/home/carol/www/index.html', '/home/carol/www/priv/index.html', '/home/dave/www/team/index.html'],
  },
];

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/** `fix --write --root` on the row laid out under `base`: the body and the files after it, placeholders put back. */
async function fixOnDisk(r: Row, base: string): Promise<{ body: string; files: Record<string, string>; out: string }> {
  const dir = path.join(base, r.id);
  const docroot = path.join(dir, 'docroot');
  const toDisk = (t: string) => t.split('@DOCROOT@').join(docroot);
  const fromDisk = (t: string) => t.split(docroot).join('@DOCROOT@');
  for (const [rel, text] of Object.entries(r.files)) {
    fs.mkdirSync(path.dirname(path.join(docroot, rel)), { recursive: true });
    fs.writeFileSync(path.join(docroot, rel), toDisk(text));
  }
  fs.writeFileSync(path.join(dir, 'root.conf'), `Listen 80\n<VirtualHost *:80>\nDocumentRoot "${docroot}"\n${toDisk(r.body)}\n</VirtualHost>\n`);
  let out = '';
  const sink = { write: (s: string | Uint8Array) => ((out += String(s)), true) } as unknown as NodeJS.WritableStream;
  await runCli(['fix', '--write', '--root', 'root.conf', 'root.conf', 'docroot'], { stdout: sink, stderr: sink, cwd: dir } as never);
  const after = fs.readFileSync(path.join(dir, 'root.conf'), 'utf8');
  const body = fromDisk(after.slice(after.indexOf('\n', after.indexOf('DocumentRoot')) + 1, after.lastIndexOf('</VirtualHost>')).replace(/\n$/, ''));
  const files = Object.fromEntries(Object.keys(r.files).map((rel) => [rel, fromDisk(fs.readFileSync(path.join(docroot, rel), 'utf8'))]));
  return { body, files, out };
}

/** The row's statuses on httpd with `body` and `files`. */
async function statuses(r: Row, body: string, files: Record<string, string>, compat: boolean): Promise<{ reqs: OracleRequestFor[]; got: number[] }> {
  const oracle = await startOracle([{ id: r.id, config: body, files }], { compat, users: USERS, extraModules: ['userdir'] });
  try {
    const reqs: OracleRequestFor[] = r.paths.flatMap((p) => FROMS.flatMap((from) => AUTHS.slice(0, 2).map((auth) => ({ caseId: r.id, path: p, from, ...(auth ? { auth } : {}) }))));
    return { reqs, got: await oracle.requestAll(reqs) };
  } finally {
    await oracle.stop();
  }
}

describe('UserDir layouts: fix --root on files (real httpd)', function () {
  this.timeout(600_000);
  let base = '';
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-userdir-'));
  });
  after(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  for (const r of ROWS) {
    it(`${r.id}: the server config and the .htaccess files rewritten in one run, and answered alike`, async function () {
      const fixed = await fixOnDisk(r, base);
      const htaccess = Object.entries(fixed.files).filter(([rel]) => rel.endsWith('.htaccess'));
      assert.doesNotMatch(fixed.body, COMPAT, `${fixed.out}\n${fixed.body}`);
      for (const [rel, t] of htaccess) assert.doesNotMatch(t, COMPAT, `${rel}: ${fixed.out}\n${t}`);
      if (!httpdOrSkip(this)) return;
      const a = await statuses(r, r.body, r.files, true);
      const b = await statuses(r, fixed.body, fixed.files, false);
      assert.ok(new Set(a.got).size >= 2, `${r.id}: the original answers in several ways (${[...new Set(a.got)]})`);
      assert.deepEqual(mismatches(a.reqs, a.got, b.got), [], `${r.id}:\n${fixed.body}\n${JSON.stringify(fixed.files, null, 1)}`);
      console.log(`    ${r.id}: ${a.reqs.length} requests, 0 differences`);
    });
  }
});
