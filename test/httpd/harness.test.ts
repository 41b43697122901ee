// Self-test of the httpd oracle harness: against a real httpd, it must see what
// ../shared/docs/access-semantics.md says (sections cited per row). If httpd is missing, the suite
// is skipped, except with CI=true, where that is a failure.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import {
  checkConfig, findHttpd, mismatches, outcomeOf, sameOutcome, startOracle,
  type Oracle, type OracleCase, type OracleOptions, type OracleRequest, type OracleRequestFor,
} from './harness';

interface Expect extends OracleRequest {
  status: number;
}

interface Row extends OracleCase {
  /** What the row shows, with the spec section. */
  why: string;
  expect: Expect[];
  /** Patterns that the error log must contain after this row's requests. */
  log?: RegExp[];
}

const USERS = { alice: 'alice-pw', bob: 'bob-pw' };
const GROUPS = { admins: ['alice'] };
const ALICE = { user: 'alice', password: 'alice-pw' };
const BOB = { user: 'bob', password: 'bob-pw' };
const WRONG = { user: 'alice', password: 'nope' };
const NOBODY = { user: 'mallory', password: 'x' };

const dir = (body: string, where = '@DOCROOT@') => `<Directory "${where}">\n${body.trim()}\n</Directory>`;
const BASIC = 'AuthType Basic\nAuthName "oracle"\nAuthUserFile "@USERS@"';

/** Rows run on httpd WITH mod_access_compat. */
const COMPAT: Row[] = [
  {
    id: 'deny-allow', why: '§2.4 deny,allow: OK iff allow matches or deny does not',
    config: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
      { path: '/', status: 403 },
    ],
    log: [/\[access_compat:error\].*\[client 127\.0\.0\.3:\d+\] AH01797: client denied by server configuration/],
  },
  {
    id: 'allow-deny', why: '§2.4 allow,deny + Deny from all: everyone denied, the allowed address too',
    config: dir('Order allow,deny\nAllow from 127.0.0.2\nDeny from all'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 403 },
      { path: '/', from: '127.0.0.3', status: 403 },
    ],
  },
  {
    id: 'allow-without-order', why: '§2.4 Allow with no Order: deny,allow with an empty deny list, everyone allowed',
    config: dir('Allow from 127.0.0.2'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 200 },
    ],
  },
  {
    id: 'order-allow-deny-alone', why: '§2.4 Order allow,deny with nothing else denies all',
    config: dir('Order allow,deny'),
    expect: [{ path: '/', status: 403 }, { path: '/', from: '127.0.0.9', status: 403 }],
  },
  {
    id: 'partial-and-cidr', why: '§2.2 partial IPv4 = /24, CIDR masks; clients from other 127.x networks',
    config: dir('Order allow,deny\nAllow from 127.0.0\nDeny from 127.0.0.0/30'),
    expect: [
      { path: '/', from: '127.0.0.9', status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
      { path: '/', from: '127.0.1.9', status: 403 },
      { path: '/', from: '127.255.0.1', status: 403 },
    ],
  },
  {
    id: 'basic-valid-user', why: '§1 authn: 401 without or with bad credentials, 200 with the right password',
    config: dir(`${BASIC}\nRequire valid-user`),
    expect: [
      { path: '/', status: 401 },
      { path: '/', auth: ALICE, status: 200 },
      { path: '/', auth: WRONG, status: 401 },
      { path: '/', auth: NOBODY, status: 401 },
    ],
  },
  {
    id: 'group', why: '§4 Require group with AuthGroupFile: a valid user outside the group gets 401',
    config: dir(`${BASIC}\nAuthGroupFile "@GROUPS@"\nRequire group admins`),
    expect: [
      { path: '/', auth: ALICE, status: 200 },
      { path: '/', auth: BOB, status: 401 },
      { path: '/', status: 401 },
    ],
    log: [/AH01631: user bob: authorization failure/],
  },
  {
    id: 'satisfy-any-no-require', why: '§7 Satisfy any + Deny from all with no Require: granted (2.2 said 403)',
    config: dir('Order deny,allow\nDeny from all\nSatisfy any'),
    expect: [{ path: '/', status: 200 }, { path: '/', from: '127.0.0.7', status: 200 }],
    log: [/AH01797/],
  },
  {
    id: 'satisfy-any-auth', why: '§1 Satisfy any: host OK → no auth at all; host fails → authz decides',
    config: dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n${BASIC}\nRequire valid-user`),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.2', auth: WRONG, status: 200 },
      { path: '/', from: '127.0.0.3', status: 401 },
      { path: '/', from: '127.0.0.3', auth: ALICE, status: 200 },
      { path: '/', from: '127.0.0.3', auth: WRONG, status: 401 },
    ],
  },
  {
    id: 'satisfy-all-auth', why: '§1 Satisfy all: host AND auth; a host failure is 403 before any 401',
    config: dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy all\n${BASIC}\nRequire valid-user`),
    expect: [
      { path: '/', from: '127.0.0.2', status: 401 },
      { path: '/', from: '127.0.0.2', auth: ALICE, status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
      { path: '/', from: '127.0.0.3', auth: ALICE, status: 403 },
    ],
  },
  {
    id: 'satisfy-any-skips-denied', why: '§0 Satisfy any with compat OK skips authz, even Require all denied',
    config: dir('Satisfy any\nRequire all denied'),
    expect: [{ path: '/', status: 200 }],
  },
  {
    id: 'limit-methods', why: '§2.5 <Limit GET> Order allow,deny + Allow outside: GET/HEAD restricted, POST open',
    config: dir('<Limit GET>\n  Order allow,deny\n</Limit>\nAllow from 127.0.0.2'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
      { path: '/', from: '127.0.0.3', method: 'HEAD', status: 403 },
      { path: '/', from: '127.0.0.3', method: 'POST', status: 200 },
    ],
  },
  {
    id: 'env', why: '§2.3 Allow from env= sees SetEnvIf (header_parser) variables',
    config: `SetEnvIf User-Agent ^good let_in\n${dir('Order deny,allow\nDeny from all\nAllow from env=let_in')}`,
    expect: [
      { path: '/', headers: { 'User-Agent': 'good/1.0' }, status: 200 },
      { path: '/', headers: { 'User-Agent': 'bad/1.0' }, status: 403 },
    ],
  },
  {
    id: 'setenv-too-late', why: '§2.3 SetEnv runs in fixups, after the access phase: Allow from env= does not see it',
    config: `SetEnv let_in 1\n${dir('Order deny,allow\nDeny from all\nAllow from env=let_in')}`,
    expect: [{ path: '/', status: 403 }],
  },
  {
    id: 'child-allow-only', why: '§2.6 a section with only Allow replaces the inherited compat config: everyone allowed',
    config: `${dir('Order allow,deny\nAllow from 127.0.0.2')}\n${dir('Allow from 127.0.0.3', '@DOCROOT@/sub')}`,
    files: { 'sub/index.html': 'sub\n' },
    expect: [
      { path: '/', from: '127.0.0.9', status: 403 },
      { path: '/sub/', from: '127.0.0.9', status: 200 },
    ],
  },
  {
    id: 'child-satisfy-only', why: '§2.6/§7 a section with only Satisfy any resets the host rules: no password asked',
    config: `${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n${BASIC}\nRequire valid-user`)}\n${dir('Satisfy any', '@DOCROOT@/sub')}`,
    files: { 'sub/index.html': 'sub\n' },
    expect: [
      { path: '/', from: '127.0.0.3', auth: ALICE, status: 403 },
      { path: '/sub/', from: '127.0.0.3', status: 200 },
    ],
  },
  {
    id: 'host-localhost', why: '§2.3 host tokens need double reverse DNS: only 127.0.0.1 is "localhost" here',
    config: dir('Order deny,allow\nDeny from all\nAllow from localhost'),
    expect: [
      { path: '/', from: '127.0.0.1', status: 200 },
      { path: '/', from: '127.0.0.2', status: 403 },
    ],
  },
  {
    id: 'htaccess', why: '§2.1 .htaccess with AllowOverride Limit; files and @DOCROOT@ substitution',
    config: dir('AllowOverride Limit', '@DOCROOT@/sub'),
    files: { 'sub/.htaccess': 'Order deny,allow\nDeny from 127.0.0.3\n', 'sub/index.html': 'sub\n' },
    expect: [
      { path: '/sub/', from: '127.0.0.3', status: 403 },
      { path: '/sub/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 200 },
    ],
  },
  {
    id: 'missing-file', why: '404 comes after authorization: granted for an allowed client, 403 for a denied one',
    config: dir('Order deny,allow\nDeny from 127.0.0.3'),
    expect: [
      { path: '/missing.html', from: '127.0.0.2', status: 404 },
      { path: '/missing.html', from: '127.0.0.3', status: 403 },
    ],
  },
  {
    id: 'authtype-without-require', why: '§10 AH01627: AuthType with no authorization directive → 500',
    config: dir(BASIC),
    expect: [{ path: '/', status: 500 }, { path: '/', auth: ALICE, status: 500 }],
    log: [/AH01627/],
  },
];

/** Rows run on httpd WITHOUT mod_access_compat. */
const PLAIN: Row[] = [
  {
    id: 'require-ip', why: '§4 Require ip',
    config: dir('Require ip 127.0.0.2'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
    ],
    log: [/\[authz_core:error\].*\[client 127\.0\.0\.3:\d+\] AH01630: client denied by server configuration/],
  },
  {
    id: 'require-all-with-not', why: '§3.3 <RequireAll> of a positive and a negative',
    config: dir('<RequireAll>\n  Require ip 127.0.0.0/24\n  Require not ip 127.0.0.3\n</RequireAll>'),
    expect: [
      { path: '/', from: '127.0.0.2', status: 200 },
      { path: '/', from: '127.0.0.3', status: 403 },
      { path: '/', from: '127.0.1.2', status: 403 },
    ],
  },
  {
    id: 'require-host', why: '§4 Require host: 127.0.0.1 ↔ localhost; other 127.x have no name (AH01753)',
    config: dir('Require host localhost'),
    expect: [
      { path: '/', from: '127.0.0.1', status: 200 },
      { path: '/', from: '127.0.0.2', status: 403 },
    ],
    log: [/\[authz_host:error\].*\[client 127\.0\.0\.2:\d+\] AH01753: access check of 'localhost' to \/ failed, reason: unable to get the remote host name/],
  },
  {
    id: 'require-host-other', why: '§2.3 a name that is not the verified reverse name of 127.0.0.1 never matches',
    config: dir('Require host example.invalid'),
    expect: [{ path: '/', from: '127.0.0.1', status: 403 }],
  },
  {
    id: 'require-local', why: '§4 Require local: all of 127.0.0.0/8',
    config: dir('Require local'),
    expect: [{ path: '/', from: '127.0.0.5', status: 200 }, { path: '/', from: '127.200.3.4', status: 200 }],
  },
  {
    id: 'require-all-denied', why: '§4 Require all denied',
    config: dir('Require all denied'),
    expect: [{ path: '/', status: 403 }],
  },
  {
    id: 'require-valid-user', why: '§3.5 valid-user: 401 / 200 / 401',
    config: dir(`${BASIC}\nRequire valid-user`),
    expect: [
      { path: '/', status: 401 },
      { path: '/', auth: ALICE, status: 200 },
      { path: '/', auth: WRONG, status: 401 },
    ],
  },
  {
    id: 'require-env', why: '§2.3 Require env sees SetEnvIf variables',
    config: `SetEnvIf User-Agent ^good let_in\n${dir('Require env let_in')}`,
    expect: [
      { path: '/', headers: { 'User-Agent': 'good' }, status: 200 },
      { path: '/', headers: { 'User-Agent': 'bad' }, status: 403 },
    ],
  },
  {
    id: 'Row 8.5/2 (odd id)', why: 'ids that are not DNS labels get a sanitised host name',
    config: dir('Require ip 127.0.0.4'),
    expect: [{ path: '/', from: '127.0.0.4', status: 200 }, { path: '/', from: '127.0.0.5', status: 403 }],
  },
  {
    id: 'missing-file', why: 'a missing file is 404 when granted, 403 when denied',
    config: dir('<RequireAll>\n  Require all granted\n  Require not ip 127.0.0.3\n</RequireAll>'),
    expect: [
      { path: '/nope', from: '127.0.0.2', status: 404 },
      { path: '/nope', from: '127.0.0.3', status: 403 },
    ],
  },
];

/** Configurations httpd must refuse at start-up (checkConfig). */
const REFUSED: Array<{ why: string; compat: boolean; config: string; output: RegExp }> = [
  {
    why: '§3.4 Require not alone', compat: false, config: dir('Require not ip 127.0.0.2'),
    output: /negative Require directive has no effect in <RequireAny> directive/,
  },
  {
    why: '§3.4 <RequireAll> with only negatives (AH01624, a check_config error)', compat: false,
    config: dir('<RequireAll>\n  Require not ip 127.0.0.2\n</RequireAll>'),
    output: /AH01624: <RequireAll> directive contains only negative authorization directives/,
  },
  {
    why: '§2.1 Order with whitespace', compat: true, config: dir('Order deny, allow'),
    output: /order takes one argument/,
  },
  {
    why: '§2.2 inline comment in Allow', compat: true, config: dir('Allow from 127.0.0.1 # office'),
    output: /No comments are allowed here/,
  },
  {
    why: 'Order without mod_access_compat', compat: false, config: dir('Order deny,allow'),
    output: /Invalid command 'Order'/,
  },
];

function label(r: Expect): string {
  const parts = [r.method ?? 'GET', r.path, `from ${r.from ?? '127.0.0.1'}`];
  if (r.auth) parts.push(`as ${r.auth.user}:${r.auth.password}`);
  if (r.headers) parts.push(JSON.stringify(r.headers));
  return parts.join(' ');
}

async function checkRow(oracle: Oracle, row: Row): Promise<void> {
  const mark = oracle.logMark();
  const got = await oracle.requestAll(row.expect.map(({ status: _s, ...req }) => ({ caseId: row.id, ...req })));
  const wrong = row.expect.flatMap((e, i) => (got[i] === e.status ? [] : [`${label(e)}: got ${got[i]}, expected ${e.status}`]));
  const log = oracle.errorLog(mark);
  assert.deepEqual(wrong, [], `${row.why}\n${row.config}\nerror log:\n${log}`);
  for (const re of row.log ?? []) assert.match(log, re, `${row.why}: error log`);
}

describe('sameOutcome', () => {
  const table: Array<[number, number, boolean]> = [
    [200, 200, true], [200, 404, true], [404, 200, true], [404, 404, true],
    [200, 403, false], [404, 401, false], [401, 403, false], [403, 403, true],
    [401, 401, true], [500, 500, true], [500, 403, false], [405, 200, false], [405, 405, true],
  ];
  for (const [a, b, same] of table) {
    it(`${a} vs ${b} → ${same}`, () => assert.equal(sameOutcome(a, b), same));
  }
  it('classes and mismatches', () => {
    assert.equal(outcomeOf(404), 'granted');
    assert.equal(outcomeOf(401), '401');
    const list: OracleRequestFor[] = [{ caseId: 'a', path: '/' }, { caseId: 'a', path: '/x' }];
    assert.deepEqual(mismatches(list, [200, 403], [404, 401]), [{ index: 1, request: list[1], a: 403, b: 401 }]);
  });
});

describe('httpd oracle harness (real httpd)', function () {
  let compat: Oracle | undefined;
  let plain: Oracle | undefined;
  const opts = (c: boolean): OracleOptions => ({ compat: c, users: USERS, groups: GROUPS });

  before(async function () {
    const httpd = findHttpd();
    if (!httpd) {
      const msg = 'Apache httpd not found: install apache2 + apache2-utils (Debian/Ubuntu) or set APACHECONF_HTTPD';
      if (process.env.CI === 'true') throw new Error(`${msg} (CI=true: the oracle tests must run in CI)`);
      console.log(`    skipped: ${msg}`);
      this.skip();
    }
    [compat, plain] = await Promise.all([startOracle(COMPAT, opts(true)), startOracle(PLAIN, opts(false))]);
  });

  after(async () => {
    await Promise.all([compat?.stop(), plain?.stop()]);
  });

  describe('with mod_access_compat', () => {
    for (const row of COMPAT) it(`${row.id}: ${row.why}`, () => checkRow(compat as Oracle, row));
  });

  describe('without mod_access_compat', () => {
    for (const row of PLAIN) it(`${row.id}: ${row.why}`, () => checkRow(plain as Oracle, row));
  });

  describe('start-up refusal', () => {
    for (const r of REFUSED) {
      it(`checkConfig refuses: ${r.why}`, async () => {
        const res = await checkConfig([{ id: 'ok', config: dir('Require all granted') }, { id: 'bad', config: r.config }], { compat: r.compat });
        assert.equal(res.ok, false, res.output);
        assert.match(res.output, r.output);
      });
    }
    it('checkConfig accepts a valid config and names the case of a bad line', async () => {
      assert.deepEqual(await checkConfig(PLAIN, opts(false)), { ok: true, output: 'Syntax OK\n' });
      const res = await checkConfig([{ id: 'culprit', config: `ServerAlias x\n${dir('Require not ip 127.0.0.2')}` }], opts(false));
      assert.match(res.output, /line \d+ is in case culprit, line 3 of its config: "Require not ip 127\.0\.0\.2"/);
    });
    it('startOracle throws httpd\'s own error text', async () => {
      await assert.rejects(startOracle([{ id: 'bad', config: dir('Require not ip 127.0.0.2') }], opts(false)),
        /httpd refused the configuration:[\s\S]*negative Require directive has no effect/);
    });
  });

  describe('mechanics', () => {
    it('unknown case ids and unknown hosts are not served by a case', async () => {
      await assert.rejects((plain as Oracle).request('no-such-case', { path: '/' }), /unknown case id/);
      const status = await (plain as Oracle).request('require-local', { path: '/', headers: { Host: 'elsewhere.test' } });
      assert.equal(status, 410);
    });

    it('500 requests over 50 cases from 10 addresses, concurrently, in seconds', async function () {
      const cases: OracleCase[] = Array.from({ length: 50 }, (_, i) => ({
        id: `bulk${i}`,
        config: dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.${1 + (i % 10)}`),
      }));
      const list: OracleRequestFor[] = Array.from({ length: 500 }, (_, i) => ({
        caseId: `bulk${i % 50}`, path: i % 4 ? '/' : '/missing', from: `127.0.0.${1 + (Math.floor(i / 3) % 10)}`,
      }));
      const t0 = Date.now();
      const o = await startOracle(cases, opts(true));
      const t1 = Date.now();
      let got: number[];
      let t2: number;
      try {
        got = await o.requestAll(list);
        t2 = Date.now();
      } finally {
        await o.stop();
      }
      const t3 = Date.now();
      const want = list.map((r, i) => {
        const allowed = r.from === `127.0.0.${1 + ((i % 50) % 10)}`;
        return allowed ? (r.path === '/' ? 200 : 404) : 403;
      });
      assert.deepEqual(got, want);
      assert.ok(want.includes(200) && want.includes(404) && want.includes(403));
      if (process.env.APACHECONF_ORACLE_TIMING) {
        console.log(`      start ${t1 - t0} ms, 500 requests ${t2 - t1} ms (${Math.round(500_000 / (t2 - t1))}/s), stop ${t3 - t2} ms`);
      }
      assert.ok(t3 - t0 < 30_000, `took ${t3 - t0} ms`);
    });

    it('ipv6: requests from ::1', async function () {
      const v6 = await new Promise<boolean>((resolve) => {
        const srv = net.createServer().once('error', () => resolve(false));
        srv.listen(0, '::1', () => srv.close(() => resolve(true)));
      });
      if (!v6) this.skip();
      const o = await startOracle([{ id: 'v6', config: dir('Require ip ::1') }], { compat: false, ipv6: true });
      try {
        assert.deepEqual(await o.requestAll([{ caseId: 'v6', path: '/', from: '::1' }, { caseId: 'v6', path: '/', from: '127.0.0.1' }]), [200, 403]);
      } finally {
        await o.stop();
      }
    });

    it('stop() kills httpd and removes the ServerRoot; a second stop() is harmless', async () => {
      const o = await startOracle([{ id: 'x', config: '' }], { compat: false });
      const root = o.serverRoot;
      const pid = Number(fs.readFileSync(`${root}/run/httpd.pid`, 'utf8').trim());
      assert.equal(await o.request('x', { path: '/' }), 200);
      await o.stop();
      await o.stop();
      assert.equal(fs.existsSync(root), !!process.env.APACHECONF_KEEP_ORACLE);
      assert.throws(() => process.kill(pid, 0), /ESRCH/);
    });
  });
});
