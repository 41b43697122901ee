// `apacheconf explain`: arguments, output shapes, users and groups from the files the configuration
// names, .htaccess under --docroot. (Agreement with the real httpd is in test/httpd/explain-cli.test.ts.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../server/src/cli/cli';

async function run(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { cwd, stdout: { write: (c: string | Uint8Array) => (out += String(c)) }, stderr: { write: (c: string | Uint8Array) => (err += String(c)) } };
  const code = await runCli(['explain', ...args], io);
  return { code, out, err };
}

describe('CLI explain', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-explain-'));
    fs.writeFileSync(path.join(dir, 'users'), 'carol:{SHA}x\ndave:{SHA}y\n');
    fs.writeFileSync(path.join(dir, 'groups'), 'staff: dave\n');
    fs.mkdirSync(path.join(dir, 'www', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'www', 'sub', '.htaccess'), 'Require ip 10.0.0.0/8\n');
    fs.mkdirSync(path.join(dir, 'other'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'other', 'x.txt'), 'x\n');
    fs.writeFileSync(
      path.join(dir, 'httpd.conf'),
      [
        'ServerRoot "' + dir + '"',
        'Include conf.d/*.conf',
        '<Directory "' + dir + '/www">',
        '  AllowOverride AuthConfig',
        '</Directory>',
        'Alias /al/ "' + dir + '/www/sub/"',
        'Alias /ot "' + dir + '/other"',
        '<VirtualHost *:80>',
        '  ServerName disk.example',
        '  DocumentRoot "' + dir + '/www"',
        '</VirtualHost>',
        '<VirtualHost *:80>',
        '  ServerName elsewhere.example',
        '  DocumentRoot /nonexistent/www',
        '</VirtualHost>',
        '<Location /private>',
        '  AuthType Basic',
        '  AuthName x',
        '  AuthUserFile users',
        '  AuthGroupFile groups',
        '  Require group staff',
        '</Location>',
        '',
      ].join('\n'),
    );
    fs.mkdirSync(path.join(dir, 'conf.d'));
    fs.writeFileSync(path.join(dir, 'conf.d', 'old.conf'), '<Location /old>\n  Order allow,deny\n  Allow from 192.0.2.0/24\n</Location>\n');
    fs.writeFileSync(path.join(dir, 'conf.d', 'lock.conf'), '<IfDefine LOCKED>\n  <Location /maint>\n    Require all denied\n  </Location>\n</IfDefine>\n<IfDefine !LOCKED>\n  <Location /maint>\n    Require all granted\n  </Location>\n</IfDefine>\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cases: Array<{ name: string; args: string[]; status: number | null; decision: string; user?: string; stepFile?: string; stepLine?: number }> = [
    { name: 'no credentials on a group-protected path', args: ['--url', '/private/x'], status: 401, decision: 'auth-required' },
    { name: '--auth valid takes the first user of the password file (not in the group: 401, as httpd answers an authenticated user that authorization refuses)', args: ['--url', '/private/x', '--auth', 'valid'], status: 401, decision: 'auth-required', user: 'carol' },
    { name: '--auth USER in the group', args: ['--url', '/private/x', '--auth', 'dave'], status: 200, decision: 'granted', user: 'dave' },
    { name: '--auth valid --user', args: ['--url', '/private/x', '--auth', 'valid', '--user', 'dave'], status: 200, decision: 'granted', user: 'dave' },
    { name: 'wrong credentials', args: ['--url', '/private/x', '--auth', 'wrong'], status: 401, decision: 'auth-required' },
    { name: 'an included file decides, and the step names it', args: ['--url', '/old/', '--from', '198.51.100.7'], status: 403, decision: 'denied', stepFile: path.join('conf.d', 'old.conf'), stepLine: 2 },
    { name: 'the included file lets its network in', args: ['--url', '/old/', '--from', '192.0.2.9'], status: 200, decision: 'granted' },
    { name: '.htaccess under --docroot is read', args: ['--url', '/sub/a.html', '--from', '192.0.2.9', '--docroot', 'www'], status: 403, decision: 'denied', stepFile: path.join('www', 'sub', '.htaccess'), stepLine: 1 },
    { name: '<IfDefine X> and <IfDefine !X> that disagree: unknown without -D', args: ['--url', '/maint/x'], status: null, decision: 'unknown' },
    { name: '-D LOCKED settles it', args: ['--url', '/maint/x', '-D', 'LOCKED'], status: 403, decision: 'denied' },
    { name: '--define OTHER: LOCKED is not defined', args: ['--url', '/maint/x', '--define', 'OTHER'], status: 200, decision: 'granted' },
    // An Alias maps the URL into another folder: that folder's .htaccess files, not the document
    // root's (fifth black-box run: explain had read the document root's for an aliased URL).
    { name: 'an Alias into a folder with a .htaccess: that one is read', args: ['--url', '/al/a.html', '--from', '192.0.2.9', '--docroot', 'www'], status: 403, decision: 'denied', stepFile: path.join('www', 'sub', '.htaccess'), stepLine: 1 },
    { name: 'an Alias out of the document root: none under it is read', args: ['--url', '/ot/x.txt', '--from', '192.0.2.9', '--docroot', 'www'], status: 200, decision: 'granted' },
    // Without --docroot, the configuration's own DocumentRoot where it exists on this machine (as
    // the editor does): its .htaccess files count, as in httpd (sixth black-box run: explain said
    // 200 where httpd, reading the .htaccess file, answered 403).
    { name: 'the configured DocumentRoot on disk stands in for --docroot', args: ['--url', '/sub/a.html', '--from', '192.0.2.9', '--header', 'Host:disk.example'], status: 403, decision: 'denied', stepFile: path.join('www', 'sub', '.htaccess'), stepLine: 1 },
    { name: '.htaccess lets its network in', args: ['--url', '/sub/a.html', '--from', '10.1.2.3', '--docroot', 'www'], status: 200, decision: 'granted' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await run(['httpd.conf', ...c.args, '--format', 'json'], dir);
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out);
      assert.equal(j.status, c.status);
      assert.equal(j.decision, c.decision);
      assert.ok(Array.isArray(j.steps));
      for (const s of j.steps) assert.deepEqual(Object.keys(s).sort(), ['directive', 'effect', 'file', 'line']);
      if (c.user) assert.equal(j.request.user, c.user);
      if (c.stepFile) assert.ok(j.steps.some((s: { file: string; line: number }) => s.file === c.stepFile && s.line === c.stepLine), JSON.stringify(j.steps));
    });
  }

  describe('which virtual host answers', () => {
    let vdir: string;
    before(() => {
      vdir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-explain-vh-'));
      fs.writeFileSync(
        path.join(vdir, 'httpd.conf'),
        [
          'Listen 80',
          'Listen 443',
          '<VirtualHost *:443>',
          '  ServerName secure.example',
          '  <Location />',
          '    Require ip 10.0.0.1',
          '  </Location>',
          '</VirtualHost>',
          '<VirtualHost *:80>',
          '  <Location />',
          '    Require ip 10.0.0.2',
          '  </Location>',
          '</VirtualHost>',
          '<VirtualHost *:80>',
          '  ServerName www.example',
          '  ServerAlias *.example.org',
          '  <Location />',
          '    Require ip 10.0.0.3',
          '  </Location>',
          '</VirtualHost>',
          '',
        ].join('\n'),
      );
    });
    after(() => fs.rmSync(vdir, { recursive: true, force: true }));
    const table: Array<{ name: string; host?: string; granted: string; note?: RegExp }> = [
      { name: 'no Host: the first host on port 80 (it has no ServerName)', granted: '10.0.0.2', note: /first virtual host on port 80/ },
      { name: 'Host by ServerName', host: 'www.example', granted: '10.0.0.3' },
      { name: 'Host by a ServerAlias wildcard', host: 'a.example.org', granted: '10.0.0.3' },
      { name: 'an unknown Host: the first host on the port', host: 'nobody.example', granted: '10.0.0.2', note: /no virtual host on port 80 is named/ },
      { name: 'the port in the Host picks the 443 hosts', host: 'secure.example:443', granted: '10.0.0.1' },
    ];
    for (const c of table) {
      it(c.name, async () => {
        for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
          const args = ['httpd.conf', '--url', '/', '--from', ip, '--format', 'json', ...(c.host ? ['--header', `Host:${c.host}`] : [])];
          const j = JSON.parse((await run(args, vdir)).out);
          assert.equal(j.status, ip === c.granted ? 200 : 403, `${ip}: ${JSON.stringify(j)}`);
          if (c.note) assert.match(j.note ?? '', c.note);
        }
      });
    }
  });

  it('prints the outcome and the deciding lines as text', async () => {
    const r = await run(['httpd.conf', '--url', '/old/', '--from', '198.51.100.7'], dir);
    assert.equal(r.code, 0);
    assert.match(r.out, /GET \/old\/ from 198\.51\.100\.7, no credentials/);
    assert.match(r.out, /→ 403 denied/);
    assert.match(r.out, new RegExp(`${path.join('conf.d', 'old.conf').replace(/[.]/g, '\\.')}:2`));
  });

  const usage: Array<[string, string[], RegExp]> = [
    ['no --url', ['httpd.conf'], /needs --url/],
    ['two files', ['httpd.conf', 'other.conf', '--url', '/'], /exactly one/],
    ['a bad header', ['httpd.conf', '--url', '/', '--header', 'novalue'], /NAME:VALUE/],
    ['a bad context', ['httpd.conf', '--url', '/', '--context', 'nowhere'], /--context/],
    ['an unknown option', ['httpd.conf', '--url', '/', '--frobnicate'], /unknown option/],
    ['a bad address', ['httpd.conf', '--url', '/', '--from', 'not-an-ip'], /not an IP address/],
  ];
  for (const [name, args, re] of usage) {
    it(`usage error: ${name}`, async () => {
      const r = await run(args, dir);
      assert.equal(r.code, 2);
      assert.match(r.err, re);
    });
  }

  it('an unreadable file exits 2', async () => {
    const r = await run(['missing.conf', '--url', '/'], dir);
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot read/);
  });
});
