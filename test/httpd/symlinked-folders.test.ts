/**
 * `.htaccess` files in folders that symbolic links reach, with `fix --write --root` on real files
 * and the real httpd.
 *
 * httpd maps a URL to a file name and follows links without resolving them: the `<Directory>`
 * sections it applies, and the parent `.htaccess` files it reads, are those of the path as mapped.
 * The tool planned a `.htaccess` file at the path it was given (or found by its walk), so a folder
 * that a link in the document root reaches while an `Alias` (or the document root itself) reaches
 * it too was rewritten for one path only. Here the path with a password: `Satisfy Any` becomes
 * `AuthMerging Or` + `Require ip`, and the path through the link, where nothing asked for a
 * password and `Satisfy Any` let everyone in, answered 403 to everyone else (shown below on
 * httpd). Such a file is now left as it is, with the reason. A folder that only a link reaches is
 * planned at the link's path, which httpd uses; it was refused before as served by no host.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mismatches, startOracle, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, USERS, httpdOrSkip } from './migration-cases.test';
import { runCli } from '../../server/src/cli/cli';

interface Row {
  id: string;
  /** The virtual host's body (placeholders: @DOCROOT@, @USERS@). */
  body: string;
  /** Files under the document root (`docroot/…`) and beside it (`out/…`, at @DOCROOT@-out). */
  files: Record<string, string>;
  /** Links: where (`docroot/l`) → target (`out`, `docroot/real`). */
  links: Record<string, string>;
  /** The .htaccess file (a key of `files`) the rows look at. */
  htaccess: string;
  /** Whether it is rewritten (else left as it is, for the reason given). */
  rewritten: boolean;
  /** What the command is given after `--root root.conf` (default the whole folder). */
  args?: string[];
  paths: string[];
}

const SATISFY_ANY = 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n';
const OPEN = '<Directory "@DOCROOT@">\n  AllowOverride All\n</Directory>';

const ROWS: Row[] = [
  {
    id: 'only-a-link-reaches-it',
    body: OPEN,
    files: { 'docroot/index.html': 'i\n', 'out/index.html': 'o\n', 'out/.htaccess': 'Order deny,allow\nDeny from 127.0.0.3\n' },
    links: { 'docroot/l': 'out' },
    htaccess: 'out/.htaccess',
    rewritten: true,
    // By its own path, where no host serves it (the walk of the whole folder meets the link first).
    args: ['root.conf', 'docroot-out/.htaccess'],
    paths: ['/', '/l/', '/l/index.html', '/l/.htaccess'],
  },
  {
    id: 'a-link-and-an-alias',
    body: `${OPEN}\nAlias /p "@DOCROOT@-out"\n<Directory "@DOCROOT@-out">\n  AllowOverride All\n${BASIC.replace(/^/gm, '  ')}\n  Require valid-user\n</Directory>`,
    files: { 'docroot/index.html': 'i\n', 'out/index.html': 'o\n', 'out/.htaccess': SATISFY_ANY },
    links: { 'docroot/l': 'out' },
    htaccess: 'out/.htaccess',
    rewritten: false,
    paths: ['/l/', '/l/index.html', '/p/', '/p/index.html'],
  },
  {
    id: 'a-link-inside-the-document-root',
    body: `${OPEN}\n<Directory "@DOCROOT@/real">\n${BASIC.replace(/^/gm, '  ')}\n  Require valid-user\n</Directory>`,
    files: { 'docroot/index.html': 'i\n', 'docroot/real/index.html': 'r\n', 'docroot/real/.htaccess': SATISFY_ANY },
    links: { 'docroot/l': 'docroot/real' },
    htaccess: 'docroot/real/.htaccess',
    rewritten: false,
    paths: ['/l/', '/l/index.html', '/real/', '/real/index.html'],
  },
];

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/** The row's files and links under `base` (`docroot/…` at `docroot`, `out/…` beside it), its placeholders filled in. */
function layOut(r: Row, docroot: string, files: Record<string, string>, withLinks = true): void {
  const at = (rel: string) => (rel.startsWith('docroot/') ? path.join(docroot, rel.slice('docroot/'.length)) : rel === 'out' ? `${docroot}-out` : path.join(`${docroot}-out`, rel.slice('out/'.length)));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(at(rel)), { recursive: true, mode: 0o755 });
    fs.writeFileSync(at(rel), text, { mode: 0o644 });
  }
  fs.mkdirSync(`${docroot}-out`, { recursive: true, mode: 0o755 });
  if (withLinks) for (const [from, to] of Object.entries(r.links)) fs.symlinkSync(at(to), at(from));
}

/** `fix --write --root` on the row laid out under `base`: the body and the .htaccess file after it, placeholders put back. */
async function fixOnDisk(r: Row, base: string, withLinks = true): Promise<{ body: string; htaccess: string; out: string }> {
  const dir = path.join(base, r.id + (withLinks ? '' : '-unlinked'));
  const docroot = path.join(dir, 'docroot');
  const users = path.join(dir, 'users');
  const toDisk = (t: string) => t.split('@DOCROOT@').join(docroot).split('@USERS@').join(users);
  const fromDisk = (t: string) => t.split(docroot).join('@DOCROOT@').split(users).join('@USERS@');
  fs.mkdirSync(docroot, { recursive: true });
  layOut(r, docroot, r.files, withLinks);
  const root = `Listen 80\n<VirtualHost *:80>\nDocumentRoot "${docroot}"\n${toDisk(r.body)}\n</VirtualHost>\n`;
  fs.writeFileSync(path.join(dir, 'root.conf'), root);
  let out = '';
  const sink = { write: (s: string | Uint8Array) => ((out += String(s)), true) } as unknown as NodeJS.WritableStream;
  await runCli(['fix', '--write', '--root', 'root.conf', ...(r.args ?? ['.'])], { stdout: sink, stderr: sink, cwd: dir } as never);
  const after = fs.readFileSync(path.join(dir, 'root.conf'), 'utf8');
  const body = fromDisk(after.slice(after.indexOf('\n', after.indexOf('DocumentRoot')) + 1, after.lastIndexOf('</VirtualHost>')).replace(/\n$/, ''));
  const h = r.htaccess.startsWith('docroot/') ? path.join(docroot, r.htaccess.slice(8)) : path.join(`${docroot}-out`, r.htaccess.slice(4));
  return { body, htaccess: fs.readFileSync(h, 'utf8'), out };
}

/** The row's statuses on httpd: with the body and .htaccess given, compat or not. */
async function statuses(r: Row, body: string, htaccess: string, compat: boolean): Promise<{ reqs: OracleRequestFor[]; got: number[] }> {
  const oracle = await startOracle([{ id: r.id, config: `DocumentRoot "@DOCROOT@"\n${body}` }], { compat, users: USERS });
  try {
    const docroot = oracle.docrootOf(r.id);
    const files = Object.fromEntries(Object.entries(r.files).map(([k, v]) => [k, k === r.htaccess ? htaccess : v]));
    layOut(r, docroot, files);
    const reqs: OracleRequestFor[] = r.paths.flatMap((p) => FROMS.flatMap((from) => AUTHS.map((auth) => ({ caseId: r.id, path: p, from, ...(auth ? { auth } : {}) }))));
    return { reqs, got: await oracle.requestAll(reqs) };
  } finally {
    await oracle.stop();
  }
}

describe('.htaccess files in folders symbolic links reach: fix --root on files (real httpd)', function () {
  this.timeout(600_000);
  let base = '';
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-links-'));
  });
  after(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  for (const r of ROWS) {
    it(`${r.id}: ${r.rewritten ? 'planned at the path httpd reaches it by, and answered alike' : 'left as it is: a rewrite for one path is wrong on the other'}`, async function () {
      const fixed = await fixOnDisk(r, base);
      if (r.rewritten) {
        assert.doesNotMatch(fixed.htaccess, COMPAT, fixed.out);
        assert.doesNotMatch(fixed.body, COMPAT, fixed.out);
        if (!httpdOrSkip(this)) return;
        const a = await statuses(r, r.body, r.files[r.htaccess], true);
        const b = await statuses(r, fixed.body, fixed.htaccess, false);
        assert.ok(a.got.includes(403) && a.got.includes(200), `${r.id}: the original lets some in and refuses others (${[...new Set(a.got)]})`);
        assert.deepEqual(mismatches(a.reqs, a.got, b.got), [], `${r.id}:\n${fixed.htaccess}`);
        console.log(`    ${r.id}: ${a.reqs.length} requests, 0 differences`);
        return;
      }
      assert.equal(fixed.htaccess, r.files[r.htaccess], fixed.out);
      assert.match(fixed.out, /reaches its folder by more than one path through symbolic links/);
      // Why: without the link, the one path left gets a rewrite; with the link, httpd answers it otherwise.
      const alone = await fixOnDisk(r, base, false);
      assert.notEqual(alone.htaccess, r.files[r.htaccess], `${r.id}: without the link it is rewritten\n${alone.out}`);
      if (!httpdOrSkip(this)) return;
      const a = await statuses(r, r.body, r.files[r.htaccess], true);
      const b = await statuses(r, alone.body, alone.htaccess, false);
      const wrong = mismatches(a.reqs, a.got, b.got);
      assert.ok(wrong.length > 0, `${r.id}: the one-path rewrite differs on httpd through the link`);
      assert.ok(wrong.every((m) => m.request.path.startsWith('/l/')), JSON.stringify(wrong[0]));
      console.log(`    ${r.id}: the rewrite for one path answers ${wrong.length} of ${a.reqs.length} requests otherwise through the link (${wrong[0].request.path} from ${wrong[0].request.from}: ${wrong[0].a} -> ${wrong[0].b})`);
    });
  }
});
