// `apacheconf explain` end to end against the real httpd: the whole generated configuration is
// read as a user would pass it (Host picks the <VirtualHost>), .htaccess files under --docroot are
// read where AllowOverride lets them in, --auth takes users from the password file and groups from
// the group file the configuration names. Every prediction must match httpd's status (200 and 404
// count as one); "unknown" counts as a miss. The editor's "Explain access" (the service over the
// include graph, reading from disk, with no document root given: the answering host's
// DocumentRoot) must match httpd on the same requests.
import assert from 'node:assert/strict';
import { runCli } from '../../server/src/cli/cli';
import { createService } from '../../server/src/service';
import { loadConfigGraph } from '../../server/src/model/workspace';
import { diskHost, diskReader } from '../../server/src/lsp/workspace';
import { outcomeOf, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { httpdOrSkip } from './migration-cases.test';

const USERS = { alice: 'secret-a', bob: 'secret-b' };
const GROUPS = { admins: ['alice'] };
const BASIC = 'AuthType Basic\nAuthName "t"\nAuthUserFile "@USERS@"\n';
const allow = (classes: string) => `<Directory "@DOCROOT@">\n  AllowOverride ${classes}\n</Directory>\n`;

const CASES: OracleCase[] = [
  {
    id: 'ht-require-ip',
    config: allow('AuthConfig'),
    files: { 'sub/.htaccess': 'Require ip 127.0.0.2\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-limit-not-allowed',
    config: allow('AuthConfig'),
    files: { 'sub/.htaccess': 'Order deny,allow\nDeny from all\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-none',
    config: '<Directory "@DOCROOT@/sub">\n  Require ip 127.0.0.9\n</Directory>\n',
    files: { 'sub/.htaccess': 'Require all denied\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-explicit-none',
    config: allow('None'),
    files: { 'sub/.htaccess': 'Require all denied\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-list',
    config: allow('None') + '<Directory "@DOCROOT@/sub">\n  AllowOverrideList Require <RequireAll\n</Directory>\n',
    files: { 'sub/.htaccess': '<RequireAll>\n  Require ip 127.0.0.0/8\n  Require not ip 127.0.0.2\n</RequireAll>\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-list-unlisted',
    config: '<Directory "@DOCROOT@/sub">\n  AllowOverride None\n  AllowOverrideList Require RequireAll\n</Directory>\n',
    files: { 'sub/.htaccess': '<RequireAll>\n  Require ip 127.0.0.0/8\n</RequireAll>\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-nonfatal',
    config: allow('AuthConfig Nonfatal=Override'),
    files: { 'sub/.htaccess': 'Order deny,allow\nDeny from all\nRequire ip 127.0.0.2\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-basic',
    config: allow('AuthConfig'),
    files: { 'sub/.htaccess': BASIC + 'Require valid-user\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-compat',
    config: allow('Limit'),
    files: { 'sub/.htaccess': 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-nested',
    config: allow('AuthConfig'),
    files: { 'sub/.htaccess': 'Require all denied\n', 'sub/deeper/.htaccess': 'Require ip 127.0.0.9\n', 'sub/deeper/b.html': 'b\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-after-directory',
    config: allow('AuthConfig') + '<Directory "@DOCROOT@/sub">\n  Require all denied\n</Directory>\n',
    files: { 'sub/.htaccess': 'Require ip 127.0.0.2\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'ht-not-in-htaccess',
    config: allow('All'),
    files: { 'sub/.htaccess': 'AllowOverride None\n', 'sub/a.html': 'a\n' },
  },
  {
    id: 'group-file',
    config: `<Location "/sub">\n  ${BASIC.replace(/\n/g, '\n  ')}AuthGroupFile "@GROUPS@"\n  Require group admins\n</Location>\n`,
    files: { 'sub/a.html': 'a\n' },
  },
  {
    id: 'setenvif-header',
    config: 'SetEnvIf X-Pass ^yes$ let_in\n<Location "/sub">\n  Require env let_in\n</Location>\n',
    files: { 'sub/a.html': 'a\n' },
  },
  {
    id: 'host-localhost',
    config: '<Location "/sub">\n  Require host localhost\n</Location>\n',
    files: { 'sub/a.html': 'a\n' },
  },
];

const FROM = ['127.0.0.1', '127.0.0.2', '127.0.0.9'];
const AUTH: Array<{ user: string; password: string } | undefined> = [undefined, { user: 'alice', password: 'secret-a' }, { user: 'bob', password: 'secret-b' }, { user: 'alice', password: 'nope' }];
const PATHS = ['/', '/sub/', '/sub/a.html', '/sub/deeper/b.html'];
const HEADERS: Array<Record<string, string> | undefined> = [undefined, { 'X-Pass': 'yes' }];

async function explainCli(args: string[]): Promise<{ status: number | null; decision: string; htaccess: string[] }> {
  let out = '';
  let err = '';
  const io = { stdout: { write: (c: string | Uint8Array) => (out += String(c)) }, stderr: { write: (c: string | Uint8Array) => (err += String(c)) } };
  const code = await runCli(['explain', ...args, '--format', 'json'], io);
  assert.equal(code, 0, err);
  return JSON.parse(out);
}

describe('apacheconf explain (CLI) vs real httpd: vhosts, .htaccess, password and group files', function () {
  this.timeout(300_000);

  it('predicts every status, from the CLI and from the editor\'s service', async function () {
    if (!httpdOrSkip(this)) return;
    const oracle = await startOracle(CASES, { compat: true, users: USERS, groups: GROUPS });
    try {
      const requests: OracleRequestFor[] = [];
      for (const c of CASES) {
        for (const path of PATHS) for (const from of FROM) for (const auth of AUTH) for (const headers of HEADERS) {
          if (headers && c.id !== 'setenvif-header') continue;
          requests.push({ caseId: c.id, path, from, auth, headers });
        }
      }
      const statuses = await oracle.requestAll(requests);
      const misses: string[] = [];
      const editorMisses: string[] = [];
      let htaccessRead = 0;
      let editorHtaccessRead = 0;
      // As the editor reads a configuration: the include graph from the root file, from disk.
      const service = createService();
      const graph = loadConfigGraph(diskHost, oracle.confPath);
      for (let i = 0; i < requests.length; i++) {
        const r = requests[i];
        const args = [oracle.confPath, '--url', r.path, '--from', r.from!, '--header', `Host:${oracle.hostOf(r.caseId)}`, '--docroot', oracle.docrootOf(r.caseId)];
        if (r.auth) {
          const ok = (USERS as Record<string, string>)[r.auth.user] === r.auth.password;
          args.push('--auth', ok ? r.auth.user : 'wrong');
        }
        for (const [k, v] of Object.entries(r.headers ?? {})) args.push('--header', `${k}:${v}`);
        if (r.from === '127.0.0.1') args.push('--client-host', 'localhost');
        const got = await explainCli(args);
        htaccessRead += got.htaccess?.length ?? 0;
        const real = statuses[i];
        const what = `${r.caseId} ${r.path} from ${r.from} auth=${r.auth ? `${r.auth.user}:${r.auth.password}` : '-'}${r.headers ? ' ' + JSON.stringify(r.headers) : ''}`;
        if (got.status === null || outcomeOf(got.status) !== outcomeOf(real)) misses.push(`${what}: httpd ${real}, explain ${got.status} ${got.decision}`);
        const ok = r.auth ? (USERS as Record<string, string>)[r.auth.user] === r.auth.password : false;
        const user = r.auth && ok ? r.auth.user : undefined;
        const editor = service.explain(
          {
            path: r.path,
            ip: r.from,
            serverName: oracle.hostOf(r.caseId),
            credentials: r.auth ? (ok ? 'valid' : 'wrong') : 'none',
            ...(user ? { user, groups: Object.entries(GROUPS).filter(([, members]) => members.includes(user)).map(([g]) => g) } : {}),
            ...(r.headers ? { headers: r.headers } : {}),
            ...(r.from === '127.0.0.1' ? { hostName: 'localhost' } : {}),
          },
          { graph },
          diskReader,
        );
        editorHtaccessRead += editor.htaccess.length;
        if (editor.status === null || outcomeOf(editor.status) !== outcomeOf(real)) editorMisses.push(`${what}: httpd ${real}, editor ${editor.status} ${editor.decision}`);
      }
      console.log(`    ${CASES.length} cases, ${requests.length} requests, ${requests.length - misses.length} predictions agree; ${htaccessRead} .htaccess reads`);
      if (misses.length) { const by = new Map<string, number>(); for (const m of misses) by.set(m.split(" ")[0], (by.get(m.split(" ")[0]) ?? 0) + 1); console.log(by); console.log(oracle.errorLog().split("\n").filter((l) => /ht-none|AH00/.test(l)).slice(0, 8).join("\n")); }
      console.log(`    the editor's service: ${requests.length - editorMisses.length} of ${requests.length} agree; ${editorHtaccessRead} .htaccess reads`);
      assert.deepEqual(misses.slice(0, 30), []);
      assert.deepEqual(editorMisses.slice(0, 30), []);
      assert.equal(editorHtaccessRead, htaccessRead, 'the editor reads the same .htaccess files as explain --docroot');
    } finally {
      await oracle.stop();
    }
  });
});
