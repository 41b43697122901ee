/**
 * `<Directory>` paths that are folders on the disk, with `fix --write --root` on real files and the
 * real httpd.
 *
 * A `<Directory>` path may name a file; a request below it then reaches that file with the rest as
 * path_info, and httpd does not apply the section that names it. The planner tries each such path
 * both ways unless it knows the path is a folder. With the disk at hand (`--root`) it now does: a
 * `<Location>` below a `<Directory>` whose `Satisfy Any` lets one address in without a password
 * gets its exact rewrite (its host rules start over with `Satisfy All`, so the password is asked
 * there), where the file case, which the disk rules out, refused the whole group. Without the
 * folder on the disk, the file case stays possible and the group is refused, as before. The last
 * row also needs the form that copies the directory's address into the `<Location>` with
 * `AuthMerging And` (yAcrossClosed in access/plan.ts).
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
  /** Folders under the document root, each with an index.html. */
  folders: string[];
  paths: string[];
}

const ROWS: Row[] = [
  {
    id: 'location-below-satisfy-any',
    body: [
      '<Directory "@DOCROOT@/p">',
      '  Order deny,allow',
      '  Deny from all',
      '  Allow from 127.0.0.2',
      BASIC,
      '  Require valid-user',
      '  Satisfy any',
      '</Directory>',
      '<Location /p/x>',
      '  Order deny,allow',
      '  Deny from 127.0.0.3',
      '</Location>',
    ].join('\n'),
    folders: ['p', 'p/x'],
    paths: ['/', '/p/', '/p/index.html', '/p/x/', '/p/x/index.html', '/p/y'],
  },
  {
    id: 'two-locations-below-satisfy-any',
    body: [
      '<Directory "@DOCROOT@/q">',
      '  Order allow,deny',
      '  Allow from 127.0.0.2 127.0.0.3',
      BASIC,
      '  Require user alice',
      '  Satisfy any',
      '</Directory>',
      '<Location /q/a>',
      '  Order allow,deny',
      '  Allow from all',
      '  Deny from 127.0.1.5',
      '</Location>',
      '<Location /q/b>',
      '  Satisfy all',
      '</Location>',
    ].join('\n'),
    folders: ['q', 'q/a', 'q/b'],
    paths: ['/q/', '/q/a/', '/q/a/index.html', '/q/b/', '/q/b/index.html'],
  },
  {
    // Debian's and Red Hat's `<Files ~ "^\.ht">` refuses everyone before the `<Location>`: the
    // `<Location>` takes the directory's address with `AuthMerging And`, so the files that
    // section refuses stay refused (helper-40's location-satisfy layout).
    id: 'location-below-satisfy-any-and-ht-files',
    body: [
      '<Files ~ "^\\.ht">',
      '  Order allow,deny',
      '  Deny from all',
      '  Satisfy all',
      '</Files>',
      '<Directory "@DOCROOT@/app">',
      '  Order deny,allow',
      '  Deny from all',
      '  Allow from 127.0.0.2',
      '  Satisfy any',
      BASIC,
      '</Directory>',
      '<Location /app>',
      '  Require valid-user',
      '</Location>',
      '<Location /app/admin>',
      '  Require user bob',
      '  Satisfy all',
      '</Location>',
    ].join('\n'),
    folders: ['app', 'app/admin'],
    paths: ['/app/', '/app/index.html', '/app/.htaccess', '/app/.hidden', '/app/admin/', '/app/admin/index.html'],
  },
];

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/** `fix --write --root` on the row laid out under `base`, with or without its folders: the body after it, placeholders put back. */
async function fixOnDisk(r: Row, base: string, withFolders: boolean): Promise<{ body: string; out: string }> {
  const dir = path.join(base, r.id + (withFolders ? '' : '-bare'));
  const docroot = path.join(dir, 'docroot');
  const users = path.join(dir, 'users');
  fs.mkdirSync(docroot, { recursive: true });
  if (withFolders) for (const f of r.folders) fs.mkdirSync(path.join(docroot, f), { recursive: true });
  const toDisk = (t: string) => t.split('@DOCROOT@').join(docroot).split('@USERS@').join(users);
  const fromDisk = (t: string) => t.split(docroot).join('@DOCROOT@').split(users).join('@USERS@');
  fs.writeFileSync(path.join(dir, 'root.conf'), `Listen 80\n<VirtualHost *:80>\nDocumentRoot "${docroot}"\n${toDisk(r.body)}\n</VirtualHost>\n`);
  let out = '';
  const sink = { write: (s: string | Uint8Array) => ((out += String(s)), true) } as unknown as NodeJS.WritableStream;
  await runCli(['fix', '--write', '--root', 'root.conf', 'root.conf'], { stdout: sink, stderr: sink, cwd: dir } as never);
  const after = fs.readFileSync(path.join(dir, 'root.conf'), 'utf8');
  const body = fromDisk(after.slice(after.indexOf('\n', after.indexOf('DocumentRoot')) + 1, after.lastIndexOf('</VirtualHost>')).replace(/\n$/, ''));
  return { body, out };
}

/** The row's statuses on httpd with `body`, its folders made. */
async function statuses(r: Row, body: string, compat: boolean): Promise<{ reqs: OracleRequestFor[]; got: number[] }> {
  const files = Object.fromEntries(r.folders.map((f) => [`${f}/index.html`, `${f}\n`]));
  const oracle = await startOracle([{ id: r.id, config: body, files }], { compat, users: USERS });
  try {
    const reqs: OracleRequestFor[] = r.paths.flatMap((p) => FROMS.flatMap((from) => AUTHS.map((auth) => ({ caseId: r.id, path: p, from, ...(auth ? { auth } : {}) }))));
    return { reqs, got: await oracle.requestAll(reqs) };
  } finally {
    await oracle.stop();
  }
}

describe('<Directory> paths that are folders on the disk: fix --root on files (real httpd)', function () {
  this.timeout(600_000);
  let base = '';
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-folders-'));
  });
  after(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  for (const r of ROWS) {
    it(`${r.id}: rewritten where the folders are on the disk, and answered alike`, async function () {
      const fixed = await fixOnDisk(r, base, true);
      assert.doesNotMatch(fixed.body, COMPAT, `${fixed.out}\n${fixed.body}`);
      // Where the disk does not show the folders, a path may still be a file: refused as before.
      const bare = await fixOnDisk(r, base, false);
      assert.match(bare.body, COMPAT, bare.out);
      if (!httpdOrSkip(this)) return;
      const a = await statuses(r, r.body, true);
      const b = await statuses(r, fixed.body, false);
      assert.ok(new Set(a.got).size >= 3, `${r.id}: the original answers in several ways (${[...new Set(a.got)]})`);
      assert.deepEqual(mismatches(a.reqs, a.got, b.got), [], `${r.id}:\n${fixed.body}`);
      console.log(`    ${r.id}: ${a.reqs.length} requests, 0 differences`);
    });
  }
});
