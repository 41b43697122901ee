// A main server that no request reaches. When a virtual host takes every address and port the
// server listens on (`Listen 80` and `<VirtualHost *:80>`), httpd answers every request from one
// of the hosts, never from the main server. Debian's 2.2 layout is such a server: its main server
// has no DocumentRoot, so the engine took its requests for ones that may reach any directory, and
// a `<Location>` with host rules met, in those requests only, a `<Directory>` with `Require
// valid-user` under `Satisfy All`: the rewrite had to both replace and add to what the directory
// says, and none was offered. The engine now leaves the main server out where the Listen lines
// show that no request reaches it (points.ts, mainServerUnreachable), and mod_userdir's `/~user`
// URLs are the only ones UserDir makes reach any directory (the rest keep their mapping).
//
// Each row is a server config the engine reads whole (with its Listen line and its one virtual
// host); httpd runs the same server config around the oracle's own virtual host, which takes every
// port it listens on. The original with mod_access_compat and the rewrite without it must answer
// every request alike (200 and 404 count as one). The last rows show what stays refused: a port no
// host takes, or no Listen line at all (a fragment), leaves the main server's requests open.
import assert from 'node:assert/strict';
import { migrateText } from '../../server/src/access';
import { mismatches, startOracle, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, USERS, forEngine, fromEngine, httpdOrSkip } from './migration-cases.test';

const SERVER = [
  '<Directory "@DOCROOT@/priv">',
  BASIC,
  '  Require valid-user',
  '  Order allow,deny',
  '  Allow from all',
  '</Directory>',
  '<Files ~ "^\\.ht">',
  '  Order allow,deny',
  '  Deny from all',
  '</Files>',
  '<Location /status>',
  '  Order deny,allow',
  '  Deny from all',
  '  Allow from 127.0.0.2',
  '</Location>',
].join('\n');

const VHOST = 'DocumentRoot "@DOCROOT@"';
const MARK = '<VirtualHost *:80>';

interface Row {
  id: string;
  /** Lines before the server config (Listen, UserDir). */
  before: string;
  /** Lines of those httpd runs too (the oracle listens by itself). */
  server: string;
  modules?: string[];
  /** Sections after the shared ones (both read them). */
  extra?: string;
  exact: boolean;
}

const ROWS: Row[] = [
  { id: 'listen-taken', before: 'Listen 80', server: '', exact: true },
  { id: 'listen-taken-userdir', before: 'Listen 80\nUserDir public_html', server: 'UserDir public_html', modules: ['userdir'], exact: true },
  // UserDir into a folder of the document root: /~ab/a.html reaches @DOCROOT@/users/ab/a.html,
  // under a <Directory> with host rules of its own.
  {
    id: 'userdir-into-a-directory',
    before: 'Listen 80\nUserDir "@DOCROOT@/users/*"',
    server: 'UserDir "@DOCROOT@/users/*"',
    extra: '<Directory "@DOCROOT@/users">\n  Order deny,allow\n  Deny from 127.0.0.3\n</Directory>',
    modules: ['userdir'],
    exact: true,
  },
  { id: 'port-no-host-takes', before: 'Listen 80\nListen 8080', server: '', exact: false },
  { id: 'no-listen', before: '', server: '', exact: false },
];

const PATHS = ['/status', '/status/.htaccess', '/status/x.html', '/priv/a.html', '/priv/.htaccess', '/.htaccess', '/index.html', '/~nobody/x.html', '/~ab/a.html', '/~ab/.htaccess', '/users/ab/a.html'];

describe('a main server no request reaches (real httpd)', function () {
  this.timeout(300_000);
  for (const r of ROWS) {
    it(`${r.id}: ${r.exact ? 'rewritten, and answered alike' : 'no rewrite offered'}`, async function () {
      const own = r.extra ? `${SERVER}\n${r.extra}` : SERVER;
      const text = forEngine(`${r.before ? r.before + '\n' : ''}${own}\n${MARK}\n${VHOST}\n</VirtualHost>\n`);
      const { text: out, plan } = migrateText(text, 'server');
      if (!r.exact) {
        assert.ok(plan.sections.length > 0 && plan.sections.every((s) => !s.exact), `${r.id}: refused`);
        assert.match(plan.sections[0].reason ?? '', /any URL may reach any directory/);
        return;
      }
      assert.ok(plan.sections.length > 0 && plan.sections.every((s) => s.exact), `${r.id}: ${plan.sections.map((s) => s.reason).join(' | ')}`);
      const t = fromEngine(out);
      const server = t.slice(t.indexOf(SERVER.split('\n')[0]), t.indexOf(MARK));
      assert.doesNotMatch(server, /\b(Order|Allow|Deny)\b/);
      if (!httpdOrSkip(this)) return;
      const files = { 'priv/a.html': 'a\n', 'status/x.html': 's\n', '.htaccess': '', 'priv/.htaccess': '', 'status/.htaccess': '', 'users/ab/a.html': 'u\n', 'users/ab/.htaccess': '' };
      const opts = { users: USERS, extraModules: r.modules };
      const before = await startOracle([{ id: r.id, config: VHOST, serverConfig: `${r.server}\n${own}`, files }], { compat: true, ...opts });
      const after = await startOracle([{ id: r.id, config: VHOST, serverConfig: `${r.server}\n${server}`, files }], { compat: false, ...opts });
      try {
        const reqs: OracleRequestFor[] = PATHS.flatMap((path) => FROMS.flatMap((from) => AUTHS.map((auth) => ({ caseId: r.id, path, from, ...(auth ? { auth } : {}) }))));
        const a = await before.requestAll(reqs);
        const b = await after.requestAll(reqs);
        assert.ok(a.includes(401) && a.includes(403) && a.some((s) => s === 200 || s === 404), `${r.id}: the original lets some in and refuses others (${[...new Set(a)]})`);
        if (r.extra) {
          // UserDir took /~ab there: the folder's host rules answer.
          const at = (from: string) => a[reqs.findIndex((q) => q.path === '/~ab/a.html' && q.from === from && !q.auth)];
          assert.deepEqual([at('127.0.0.1'), at('127.0.0.3')], [200, 403]);
        }
        assert.deepEqual(mismatches(reqs, a, b), [], `${r.id}:\n${server}`);
        console.log(`    ${r.id}: ${reqs.length} requests, 0 differences`);
      } finally {
        await before.stop();
        await after.stop();
      }
    });
  }
});
