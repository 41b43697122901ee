// Server-level sections that requests reach through a virtual host (found by a black-box run
// against httpd): a `<Directory>` written at server level applies to the files of every virtual
// host, each mapping URLs by its own DocumentRoot and Aliases. The engine once built request points
// from the main server's mapping alone, saw no request reach such a directory, and dropped its host
// rules without a replacement (original 403, rewrite 200). Each row is a server config and one
// virtual host's body; the file the engine reads is both, in server context. httpd with
// mod_access_compat runs the original, httpd without it the rewrite; every request must get the
// same answer (200 and 404 count as one).
import assert from 'node:assert/strict';
import { migrateText } from '../../server/src/access';
import { checkConfig, mismatches, startOracle, type OracleRequestFor } from './harness';
import { FROMS, forEngine, fromEngine, httpdOrSkip } from './migration-cases.test';

interface Row {
  id: string;
  server: string;
  vhost: string;
  paths: string[];
  files?: Record<string, string>;
  /** Methods to send (default GET). */
  methods?: string[];
  /** 2.2 lines stay in a branch no server reads. */
  keepsDead?: boolean;
  /** A status the original must answer someone (default 403: it refuses someone). */
  expectSome?: number;
}

const ROWS: Row[] = [
  {
    id: 'vhost-docroot',
    server: '<Directory "@DOCROOT@/sub">\n  Order allow,deny\n  Allow from 127.0.0.3\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html', '/index.html'],
  },
  {
    id: 'vhost-alias',
    server: '<Directory "@DOCROOT@/sub">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@/other"\nAlias /e "@DOCROOT@/sub"',
    paths: ['/e/a.html', '/index.html', '/sub/a.html'],
    files: { 'other/index.html': 'o\n' },
  },
  {
    id: 'vhost-docroot-and-main',
    server: '<Directory "@DOCROOT@">\n  Order deny,allow\n  Deny from 127.0.0.2\n</Directory>\n<Directory "@DOCROOT@/sub">\n  Order allow,deny\n  Allow from 127.0.0.3\n</Directory>',
    vhost: 'ServerAlias www.example.test\nDocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html', '/index.html'],
  },
  // A variable in a section's path or in DocumentRoot: httpd puts its value in before it reads
  // the line, the engine does not know it, and once read the section as applying nowhere.
  {
    id: 'define-directory',
    server: 'Define SUBDIR "@DOCROOT@/sub"\n<Directory ${SUBDIR}>\n  Order allow,deny\n  Allow from 127.0.0.3\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html', '/index.html'],
  },
  {
    id: 'define-location',
    server: 'Define LOC /sub\n<Directory "@DOCROOT@">\n  Order deny,allow\n  Deny from 127.0.0.2\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"\n<Location ${LOC}>\n  Require all granted\n</Location>',
    paths: ['/sub/a.html', '/index.html'],
  },
  {
    id: 'define-documentroot',
    server: 'Define ROOT "@DOCROOT@"\n<Directory "@DOCROOT@">\n  Order deny,allow\n  Deny from 127.0.0.2\n</Directory>\n<Directory ${ROOT}/sub>\n  Require all granted\n</Directory>',
    vhost: 'DocumentRoot ${ROOT}',
    paths: ['/sub/a.html', '/index.html'],
  },
  // httpd compares method names as written: `<Limit get>` names a method of its own (registered
  // when httpd reads the tag), and GET requests are not it. The engine once took it for GET.
  {
    id: 'limit-lowercase',
    // (Node's client sends methods in capitals: the requests are GET and POST, which the tag never names.)
    server: '<Directory "@DOCROOT@/sub">\n  Order allow,deny\n  Allow from all\n  Deny from 127.0.0.3\n  <Limit get>\n    Deny from 127.0.0.2\n  </Limit>\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html'],
    methods: ['GET', 'POST'],
  },
  // httpd finds a module for <IfModule> by its file (`mod_x.c`) or its identifier (`x_module`),
  // spelt exactly (apache2 -t: `<IfModule mod_mime>` and `<IfModule MOD_MIME.C>` never hold). The
  // engine once read `!mod_authz_core` as a 2.2-only branch (left as it was, httpd without
  // mod_access_compat would not start) and `MOD_ACCESS_COMPAT.C` as mod_access_compat.
  {
    id: 'ifmodule-without-c',
    server: '<Directory "@DOCROOT@/sub">\n  <IfModule !mod_authz_core>\n    Order allow,deny\n    Allow from 127.0.0.3\n  </IfModule>\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html'],
  },
  {
    id: 'ifmodule-misspelt',
    server: '<Directory "@DOCROOT@/sub">\n  Order deny,allow\n  Deny from 127.0.0.2\n  <IfModule MOD_ACCESS_COMPAT.C>\n    Deny from 127.0.0.3\n  </IfModule>\n  <IfModule access_compat_module.c>\n    Deny from 127.0.1.5\n  </IfModule>\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html'],
    keepsDead: true,
  },
  // Ways into a server-level directory found by the fourth black-box run (the host rules were
  // dropped as unreachable: 403 became 200), and a directory answering 500 through a virtual host
  // (AuthType with no Require for GET), rewritten as `Require all granted` (500 became 200).
  {
    id: 'alias-in-location',
    server: '<Directory "@DOCROOT@/other">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"\n<Location /la>\n  Alias "@DOCROOT@/other/file.html"\n</Location>',
    paths: ['/la', '/other/file.html', '/index.html'],
    files: { 'other/file.html': 'f\n' },
  },
  {
    id: 'dotdot-documentroot',
    server: '<Directory "@DOCROOT@/sub">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@/zz/.."',
    paths: ['/sub/a.html', '/index.html'],
  },
  {
    id: 'authtype-without-require-through-vhost',
    server: '<Directory "@DOCROOT@/sub">\n  AuthType Basic\n  AuthName x\n  AuthUserFile "@USERS@"\n  <Limit POST PUT>\n    Satisfy any\n    Allow from 127.0.0.1\n  </Limit>\n</Directory>',
    vhost: 'DocumentRoot "@DOCROOT@"',
    paths: ['/sub/a.html', '/index.html'],
    methods: ['GET', 'POST'],
    expectSome: 500,
  },
];

const MARK = '<VirtualHost *:80>';

/** The file the engine reads: the server config, then the virtual host. */
function engineText(r: Row): string {
  return forEngine(`DocumentRoot "/oracle-main"\n${r.server}\n${MARK}\n${r.vhost}\n</VirtualHost>\n`);
}

/** The rewritten file split back into its server config and its virtual host's body. */
function split(text: string): { server: string; vhost: string } {
  const t = fromEngine(text);
  const a = t.indexOf(MARK);
  const b = t.lastIndexOf('</VirtualHost>');
  return { server: t.slice(t.indexOf('\n') + 1, a), vhost: t.slice(a + MARK.length + 1, b) };
}

describe('server-level sections reached through a virtual host (real httpd)', function () {
  this.timeout(300_000);
  for (const r of ROWS) {
    it(`${r.id}: the rewrite answers as the original`, async function () {
      const { text, plan } = migrateText(engineText(r), 'server');
      assert.ok(plan.sections.length > 0 && plan.sections.every((s) => s.exact), `${r.id}: ${plan.sections.map((s) => s.reason).join(' | ')}`);
      const rw = split(text);
      if (!r.keepsDead) assert.doesNotMatch(rw.server + rw.vhost, /\b(Order|Allow|Deny)\b/);
      if (!httpdOrSkip(this)) return;
      const files = { 'sub/a.html': 'a\n', ...(r.files ?? {}) };
      const before = await startOracle([{ id: r.id, config: r.vhost, serverConfig: r.server, files }], { compat: true });
      const after = await startOracle([{ id: r.id, config: rw.vhost, serverConfig: rw.server, files }], { compat: false });
      try {
        const reqs: OracleRequestFor[] = r.paths.flatMap((path) => FROMS.flatMap((from) => (r.methods ?? ['GET']).map((method) => ({ caseId: r.id, path, from, method }))));
        const a = await before.requestAll(reqs);
        const b = await after.requestAll(reqs);
        assert.ok(a.some((s) => s === (r.expectSome ?? 403)), `${r.id}: the original answers ${r.expectSome ?? 403} to someone`);
        assert.deepEqual(mismatches(reqs, a, b), [], `${r.id}:\n${text}`);
      } finally {
        await before.stop();
        await after.stop();
      }
    });
  }
});

// A method only a <Limit> names is registered by httpd when it reads the tag, for the whole
// server: a rewrite that drops the tag makes httpd answer that method with 501 instead of 405
// (here outside the rewritten section too). The engine refuses such a rewrite; httpd shows why.
describe('a <Limit> that registers a method (real httpd)', function () {
  this.timeout(120_000);
  it('dropping <Limit FOO> changes FOO requests everywhere, and the engine refuses to', async function () {
    const original = '<Directory "@DOCROOT@/sub">\n  Order deny,allow\n  Deny from all\n  <Limit FOO>\n    Deny from 127.0.0.2\n  </Limit>\n</Directory>';
    const { plan } = migrateText(forEngine(`DocumentRoot "@DOCROOT@"\n${original}\n`), 'server');
    assert.ok(plan.sections.length > 0 && plan.sections.every((s) => !s.exact && /`FOO`/.test(s.reason ?? '')), JSON.stringify(plan.sections.map((s) => s.reason)));
    if (!httpdOrSkip(this)) return;
    const dropped = '<Directory "@DOCROOT@/sub">\n  Require all denied\n</Directory>';
    const files = { 'sub/a.html': 'a\n' };
    const before = await startOracle([{ id: 'foo', config: 'DocumentRoot "@DOCROOT@"', serverConfig: original, files }], { compat: true });
    const after = await startOracle([{ id: 'foo', config: 'DocumentRoot "@DOCROOT@"', serverConfig: dropped, files }], { compat: false });
    try {
      const reqs: OracleRequestFor[] = [{ caseId: 'foo', path: '/index.html', method: 'FOO' }, { caseId: 'foo', path: '/sub/a.html', method: 'GET' }];
      assert.deepEqual(await before.requestAll(reqs), [405, 403]);
      assert.deepEqual(await after.requestAll(reqs), [501, 403]);
    } finally {
      await before.stop();
      await after.stop();
    }
  });
});

// A `<Directory>` may name a file. A request for something below it (/a/h.html/extra) reaches the
// file with the rest as path_info, and httpd's directory walk stops at the file without applying
// the section that names it: those requests get the parent's rules. The engine once took the
// section as applying to them, copied its host rules into a `<Location /a/h.html>` (which also
// matches /a/h.html/extra), and the rewrite answered 404, or with `AcceptPathInfo On` 200, where
// the original answered 403 (found by a black-box run against httpd 2.4.71).
describe('a <Directory> that names a file, requested with path_info (real httpd)', function () {
  this.timeout(180_000);
  const server = [
    '<Directory "@DOCROOT@">',
    '  Order deny,allow',
    '  Deny from all',
    '</Directory>',
    '<Directory "@DOCROOT@/a/h.html">',
    '  AuthType Basic',
    '  AuthName x',
    '  AuthUserFile "@USERS@"',
    '  Require valid-user',
    '  Order deny,allow',
    '  Deny from all',
    '  Allow from 127.0.0.2',
    '  Satisfy any',
    '</Directory>',
    '<Location /a/h.html>',
    '  Require ip 127.0.0.3',
    '</Location>',
  ].join('\n');
  // What the engine wrote before it took path_info into account.
  const formerRewrite = [
    '<Directory "@DOCROOT@">',
    '  Require all denied',
    '</Directory>',
    '<Directory "@DOCROOT@/a/h.html">',
    '  AuthType Basic',
    '  AuthName x',
    '  AuthUserFile "@USERS@"',
    '  Require ip 127.0.0.2',
    '  Require valid-user',
    '</Directory>',
    '<Location /a/h.html>',
    '  Require ip 127.0.0.2',
    '  Require ip 127.0.0.3',
    '</Location>',
  ].join('\n');
  const users = { alice: 'alice-pw' };
  const files = { 'a/h.html': 'h\n' };

  it('the engine offers no exact rewrite, and httpd shows what the former one changed', async function () {
    const text = forEngine(`DocumentRoot "@DOCROOT@"\n${server}\n`);
    const { plan } = migrateText(text, 'server');
    assert.ok(plan.sections.length > 0 && plan.sections.every((s) => !s.exact), JSON.stringify(plan.sections.map((s) => s.reason)));
    if (!httpdOrSkip(this)) return;
    for (const pathInfo of ['', '\nAcceptPathInfo On']) {
      const before = await startOracle([{ id: 'pi', config: 'DocumentRoot "@DOCROOT@"' + pathInfo, serverConfig: server, files }], { compat: true, users });
      const after = await startOracle([{ id: 'pi', config: 'DocumentRoot "@DOCROOT@"' + pathInfo, serverConfig: formerRewrite, files }], { compat: false, users });
      try {
        const reqs: OracleRequestFor[] = ['/a/h.html', '/a/h.html/extra'].flatMap((path) => FROMS.flatMap((from) => [undefined, { user: 'alice', password: 'alice-pw' }].map((auth) => ({ caseId: 'pi', path, from, ...(auth ? { auth } : {}) }))));
        const a = await before.requestAll(reqs);
        const b = await after.requestAll(reqs);
        const diff = mismatches(reqs, a, b);
        // The file itself: the same answers. Below it, from 127.0.0.2 and 127.0.0.3: not.
        assert.ok(diff.length > 0, 'the former rewrite differs somewhere');
        for (const d of diff) assert.match(JSON.stringify(d), /\/a\/h\.html\/extra/);
        assert.ok(diff.some((d) => /127\.0\.0\.2/.test(JSON.stringify(d))) && diff.some((d) => /127\.0\.0\.3/.test(JSON.stringify(d))), JSON.stringify(diff));
      } finally {
        await before.stop();
        await after.stop();
      }
    }
  });

  // Without the `<Location>`, each section keeps its own rules and the rewrite stays exact, below
  // the file too.
  it('a file-named <Directory> alone: still rewritten, and exact for path_info requests', async function () {
    const alone = server.replace(/<Location[\s\S]*<\/Location>/, '');
    const { text, plan } = migrateText(forEngine(`DocumentRoot "@DOCROOT@"\n${alone}\n`), 'server');
    assert.ok(plan.sections.length > 0 && plan.sections.every((s) => s.exact), JSON.stringify(plan.sections.map((s) => s.reason)));
    if (!httpdOrSkip(this)) return;
    const rewritten = fromEngine(text).replace(/^DocumentRoot[^\n]*\n/, '');
    const before = await startOracle([{ id: 'pi', config: 'DocumentRoot "@DOCROOT@"\nAcceptPathInfo On', serverConfig: alone, files }], { compat: true, users });
    const after = await startOracle([{ id: 'pi', config: 'DocumentRoot "@DOCROOT@"\nAcceptPathInfo On', serverConfig: rewritten, files }], { compat: false, users });
    try {
      const reqs: OracleRequestFor[] = ['/a/h.html', '/a/h.html/extra', '/index.html'].flatMap((path) => FROMS.flatMap((from) => [undefined, { user: 'alice', password: 'alice-pw' }].map((auth) => ({ caseId: 'pi', path, from, ...(auth ? { auth } : {}) }))));
      const a = await before.requestAll(reqs);
      assert.ok(a.some((s) => s === 403) && a.some((s) => s === 200));
      assert.deepEqual(mismatches(reqs, a, await after.requestAll(reqs)), [], rewritten);
    } finally {
      await before.stop();
      await after.stop();
    }
  });
});

// Host rules at a file's top level: httpd refuses them at server level and in a <VirtualHost>
// body, so the engine plans no rewrite there and says how to have the file read where it belongs
// (a bot blocker's list of `Deny from` lines is included inside a <Directory>); the engine's side
// is in test/unit/rule-legacy-access.test.ts.
describe('host rules at the top level of a server config or a virtual host (real httpd)', function () {
  this.timeout(120_000);
  const lines = 'Order deny,allow\nDeny from 127.0.0.2\nAllow from all';
  const rows: Array<{ name: string; serverConfig?: string; config: string; ok: boolean; says?: RegExp }> = [
    { name: 'at server level', serverConfig: lines, config: 'Require all granted', ok: false, says: /order not allowed here/i },
    { name: 'in a <VirtualHost> body', config: lines, ok: false, says: /not allowed in <VirtualHost> context/i },
    { name: 'inside a <Directory>', config: `<Directory "@DOCROOT@">\n${lines}\n</Directory>`, ok: true },
  ];
  for (const r of rows) {
    it(`httpd -t ${r.name}: ${r.ok ? 'accepted' : 'refused'}`, async function () {
      if (!httpdOrSkip(this)) return;
      const check = await checkConfig([{ id: 'top', config: r.config, ...(r.serverConfig ? { serverConfig: r.serverConfig } : {}) }], { compat: true });
      assert.equal(check.ok, r.ok, check.output);
      if (r.says) assert.match(check.output, r.says);
    });
  }
});
