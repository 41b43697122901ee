/**
 * The editor's "Migrate the whole configuration" (apacheconf.migrateWorkspace, through
 * dist/server.js over stdio) on a server config and the `.htaccess` files below it, against the
 * real httpd and against `apacheconf fix --write --root` on the same files.
 *
 * The command rewrote the server config's files, then each `.htaccess` file under what they
 * became. A private site with a public folder (a server `<Directory>` letting one client in, a
 * `.htaccess` below with `Allow from all`) has no exact rewrite of either side alone, so the editor
 * left both where the command line rewrote them together. A trusted workspace now plans the
 * `.htaccess` files httpd reads with the server config, as fix --root does with the files it is
 * given (features/joint-htaccess.ts): here every one of them is part of the one edit.
 *
 * APACHECONF_JOINT_RUNS=<n> (default 24) and APACHECONF_SEED=<n> change the random run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { httpdOrSkip } from './migration-cases.test';
import { compareJoint, jointArb, type JointCase, type JointResult } from './htaccess-joint.test';
import { fixWithCli, OPEN_BELOW } from './htaccess-joint-cli.test';
import { TestClient } from '../protocol/lsp-client';
import type { MigrateWorkspaceResult } from '../../server/src/lsp/commands';

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/** The case as a workspace folder (httpd.conf, its one virtual host including the body), migrated by the editor's command. */
async function migrateWithEditor(c: JointCase, base: string): Promise<JointResult & { files: number }> {
  const dir = path.join(base, c.id);
  const docroot = path.join(dir, 'docroot');
  const toDisk = (t: string) => t.split('@DOCROOT@').join(docroot).split('@USERS@').join(path.join(dir, 'users')).split('@GROUPS@').join(path.join(dir, 'groups'));
  const fromDisk = (t: string) => t.split(docroot).join('@DOCROOT@').split(path.join(dir, 'users')).join('@USERS@').split(path.join(dir, 'groups')).join('@GROUPS@');
  fs.mkdirSync(path.join(docroot, 'sub', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'httpd.conf'), `Listen 80\n<VirtualHost *:80>\nDocumentRoot "${docroot}"\nInclude body.conf\n</VirtualHost>\n`);
  const body = toDisk(c.server.endsWith('\n') ? c.server : c.server + '\n');
  fs.writeFileSync(path.join(dir, 'body.conf'), body);
  for (const [rel, text] of Object.entries(c.htaccess)) fs.writeFileSync(path.join(docroot, rel), toDisk(text));
  const client = await TestClient.start({ settings: { validate: { debounceMs: 0 } }, workspaceFolder: dir });
  let r: MigrateWorkspaceResult;
  try {
    r = await client.request<MigrateWorkspaceResult>('workspace/executeCommand', { command: 'apacheconf.migrateWorkspace', arguments: [{ confirm: false }] });
  } finally {
    await client.stop();
  }
  const server = fs.readFileSync(path.join(dir, 'body.conf'), 'utf8');
  const htaccess: Record<string, string> = {};
  for (const rel of Object.keys(c.htaccess)) htaccess[rel] = fromDisk(fs.readFileSync(path.join(docroot, rel), 'utf8'));
  const compat = COMPAT.test(server) || Object.values(htaccess).some((t) => COMPAT.test(t));
  return { server: fromDisk(server), htaccess, compat, serverRewritten: server !== body, reasons: [], files: r.files.length };
}

if (typeof describe === 'function') describe('the editor migrates a server config and the .htaccess files below it (real httpd)', function () {
  this.timeout(1_800_000);
  let base = '';
  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-joint-editor-')));
  });
  after(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it('a .htaccess that opens a folder the server config closes: both rewritten in one edit, and answered alike', async function () {
    if (!httpdOrSkip(this)) return;
    const results = [];
    for (const c of OPEN_BELOW) {
      const r = await migrateWithEditor(c, base);
      assert.equal(r.compat, false, `${c.id}: both rewritten:\n${r.server}\n${JSON.stringify(r.htaccess)}`);
      results.push(r);
    }
    const { requests, differences } = await compareJoint(OPEN_BELOW, results);
    console.log(`    ${OPEN_BELOW.length} layouts: ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
  });

  it('random server configs and .htaccess files: the editor rewrites as fix --root does, and whatever is rewritten answers alike', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 23);
    const runs = Number(process.env.APACHECONF_JOINT_RUNS ?? 24);
    const cases: JointCase[] = fc.sample(jointArb, { seed, numRuns: runs }).map((s, i) => ({ id: `e${i}`, ...s }));
    const results = [];
    const disagree: string[] = [];
    for (const c of cases) {
      const r = await migrateWithEditor(c, base);
      results.push(r);
      const cli = await fixWithCli({ ...c, id: `${c.id}-cli` }, base);
      if (cli.server !== r.server || JSON.stringify(cli.htaccess) !== JSON.stringify(r.htaccess)) {
        disagree.push(`${c.id}:\n--- editor:\n${r.server}\n${JSON.stringify(r.htaccess)}\n--- fix --root:\n${cli.server}\n${JSON.stringify(cli.htaccess)}`);
      }
    }
    const whole = results.filter((r) => !r.compat).length;
    const { requests, differences } = await compareJoint(cases, results);
    console.log(`    seed ${seed}: ${cases.length} cases, ${whole} with nothing left for mod_access_compat, ${cases.length - disagree.length} as fix --root; ${requests} requests, ${differences.length} differences`);
    assert.deepEqual(differences.slice(0, 3), []);
    assert.deepEqual(disagree.slice(0, 3), []);
  });
});
