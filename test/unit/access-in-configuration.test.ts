/**
 * A server-config file's access rewrites planned in the configuration it is read in
 * (access/in-configuration.ts): fixes applied and compared as text, then `fix --root` and
 * `check --root` on a Debian-like tree. test/httpd/in-configuration.test.ts runs them on httpd.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createService } from '../../server/src/service';
import { parse } from '../../server/src/syntax';
import { runCli } from '../../server/src/cli/cli';
import { INCLUDED_NOTE, type ConfigurationView } from '../../server/src/access';

/** `parts` as one configuration: each [path, text], in the order the root includes them. */
function viewOf(parts: Array<[string, string]>, path: string, together?: string[]): ConfigurationView {
  const origins: Array<{ path: string; line: number }> = [];
  for (const [p, t] of parts) t.split('\n').slice(0, -1).forEach((_, line) => origins.push({ path: p, line }));
  return { doc: parse(parts.map(([, t]) => t).join('')), origins, path, root: 'apache2.conf', ...(together ? { together: new Set(together) } : {}) };
}

function fixIn(parts: Array<[string, string]>, path: string, together?: string[]): { text: string; messages: string[] } {
  const text = parts.find(([p]) => p === path)![1];
  const input = { text, uri: `file:///etc/apache2/${path}`, context: 'server' as const, configuration: viewOf(parts, path, together) };
  const service = createService();
  const before = service.analyze(input).findings.filter((f) => f.rule === 'legacy-access');
  return { text: service.fixText(input).text, messages: before.map((f) => f.message + ' | ' + (f.fixes ?? []).map((x) => x.title).join(' | ')) };
}

const CLOSED_ROOT = '<Directory />\n  Require all denied\n</Directory>\n<Directory /usr/share>\n  Require all granted\n</Directory>\n';
const OLD = (where: string) => `Alias /app ${where}\n<Directory ${where}>\n  Order allow,deny\n  Allow from all\n</Directory>\n`;

// A configuration that lists its modules and lacks one the rewrite needs (a second black-box
// run: without mod_authz_host, httpd refused the rewritten `Require ip` with "Unknown Authz
// provider: ip"; without mod_authz_core, `Require` itself was an invalid command).
// A CRLF file included by an LF root (a second black-box run: fix --root wrote the new lines of
// the included file with LF only). The file keeps its own line breaks.
describe('access rewrites planned in the configuration keep the file\'s line breaks', () => {
  it('CRLF file, LF configuration', () => {
    const file = 'Alias /app /srv/app\r\n<Directory /srv/app>\r\n  Order allow,deny\r\n  Allow from 10.1.0.0/16\r\n</Directory>\r\n';
    const { text } = fixIn([['apache2.conf', 'ServerName x\n'], ['conf-enabled/app.conf', file]], 'conf-enabled/app.conf');
    assert.notEqual(text, file);
    assert.doesNotMatch(text.replace(/\r\n/g, ''), /\n/, JSON.stringify(text));
  });
});

describe('access rewrites planned in a configuration that does not load what they need', () => {
  const LOADS = (mods: string[]) => mods.map((m) => `LoadModule ${m}_module modules/mod_${m}.so\n`).join('');
  const FILE = '<Directory /srv/app>\n  Order allow,deny\n  Allow from 10.1.0.0/16\n</Directory>\n';
  const rows: Array<{ mods: string[]; missing: string | null }> = [
    { mods: ['authz_core', 'authz_host', 'access_compat'], missing: null },
    { mods: ['authz_core', 'access_compat'], missing: 'authz_host_module' },
    { mods: ['authz_host', 'access_compat'], missing: 'authz_core_module' },
  ];
  for (const r of rows) {
    it(`loads ${r.mods.join(', ')}`, () => {
      const { text, messages } = fixIn([['apache2.conf', LOADS(r.mods)], ['conf-enabled/app.conf', FILE]], 'conf-enabled/app.conf');
      if (r.missing === null) assert.match(text, /Require ip 10\.1\.0\.0\/16/);
      else {
        assert.equal(text, FILE);
        assert.ok(messages.every((m) => m.includes(`the rewrite needs \`${r.missing}\``)), messages.join('\n'));
      }
    });
  }
});

describe('access rewrites planned in the configuration', () => {
  const rows: Array<{ name: string; parts: Array<[string, string]>; file: string; want: string; message?: RegExp; together?: string[] }> = [
    {
      name: 'under a closed <Directory />, the rewrite keeps the inherited Require (AuthMerging And)',
      parts: [['apache2.conf', CLOSED_ROOT], ['conf-enabled/app.conf', OLD('/srv/app')]],
      file: 'conf-enabled/app.conf',
      want: 'Alias /app /srv/app\n<Directory /srv/app>\n  AuthMerging And\n  Require all granted\n</Directory>\n',
      message: /checked in the configuration of apache2\.conf/,
    },
    {
      name: 'under a granted /usr/share, Require all granted',
      parts: [['apache2.conf', CLOSED_ROOT], ['conf-enabled/app.conf', OLD('/usr/share/app')]],
      file: 'conf-enabled/app.conf',
      want: 'Alias /app /usr/share/app\n<Directory /usr/share/app>\n  Require all granted\n</Directory>\n',
    },
    {
      // The first host inherits `Require all denied` (its rewrite ANDs with it), the second nothing
      // (a plain `Require all granted`): the first host's form holds in the second too (AuthMerging
      // And with nothing inherited is the section's own Require), so both take it.
      name: 'included twice where the rewrites differ: the one that holds in both',
      parts: [
        ['apache2.conf', '<VirtualHost *:80>\n<Directory />\n  Require all denied\n</Directory>\n'],
        ['app.conf', OLD('/srv/app')],
        ['apache2.conf', '</VirtualHost>\n<VirtualHost *:81>\n'],
        ['app.conf', OLD('/srv/app')],
        ['apache2.conf', '</VirtualHost>\n'],
      ],
      file: 'app.conf',
      want: 'Alias /app /srv/app\n<Directory /srv/app>\n  AuthMerging And\n  Require all granted\n</Directory>\n',
    },
    {
      name: 'a root file with 2.2 rules: a rewrite that spans both files is not offered for one alone',
      parts: [['apache2.conf', '<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n'], ['conf.d/app.conf', OLD('/srv/app')]],
      file: 'apache2.conf',
      want: '<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n',
      message: /also edits lines of other files/,
    },
    {
      name: '... and each file gets its part when both are rewritten in the same run',
      parts: [['apache2.conf', '<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n'], ['conf.d/app.conf', OLD('/srv/app')]],
      file: 'apache2.conf',
      together: ['apache2.conf', 'conf.d/app.conf'],
      want: '<Directory />\n  Require all denied\n</Directory>\n',
      message: /with its part in app\.conf/,
    },
    {
      name: '... the included file too',
      parts: [['apache2.conf', '<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n'], ['conf.d/app.conf', OLD('/srv/app')]],
      file: 'conf.d/app.conf',
      together: ['apache2.conf', 'conf.d/app.conf'],
      want: 'Alias /app /srv/app\n<Directory /srv/app>\n  Require all granted\n</Directory>\n',
    },
    {
      name: 'CRLF lines',
      parts: [['apache2.conf', CLOSED_ROOT.replace(/\n/g, '\r\n')], ['conf-enabled/app.conf', OLD('/srv/app').replace(/\n/g, '\r\n')]],
      file: 'conf-enabled/app.conf',
      want: 'Alias /app /srv/app\r\n<Directory /srv/app>\r\n  AuthMerging And\r\n  Require all granted\r\n</Directory>\r\n',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = fixIn(r.parts, r.file, r.together);
      assert.equal(got.text, r.want);
      if (r.message) assert.ok(got.messages.some((m) => r.message!.test(m)), got.messages.join('\n'));
    });
  }

  it('a file the configuration does not hold is planned alone', () => {
    const view = viewOf([['apache2.conf', CLOSED_ROOT]], 'conf-available/app.conf');
    const r = createService().fixText({ text: OLD('/srv/app'), uri: 'file:///x/app.conf', context: 'server', configuration: view });
    assert.match(r.text, /^ {2}Require all granted$/m);
    assert.doesNotMatch(r.text, /AuthMerging/);
  });

  it('lines that are not what the configuration read get no rewrite from it (an unsaved buffer)', () => {
    const parts: Array<[string, string]> = [['apache2.conf', CLOSED_ROOT], ['app.conf', OLD('/srv/app')]];
    const view = viewOf(parts, 'app.conf');
    const edited = OLD('/srv/app').replace('Allow from all', 'Allow from 10.0.0.1');
    const r = createService().fixText({ text: edited, uri: 'file:///x/app.conf', context: 'server', configuration: view });
    assert.equal(r.text, edited);
  });
});

describe('fix --root and check --root plan included files in the configuration', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-inconf-'));
    fs.mkdirSync(path.join(dir, 'apache2/conf-available'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'apache2/conf-enabled'));
    fs.writeFileSync(path.join(dir, 'apache2/apache2.conf'), `${CLOSED_ROOT}IncludeOptional conf-enabled/*.conf\n`);
    fs.writeFileSync(path.join(dir, 'apache2/conf-available/app.conf'), OLD('/srv/app'));
    fs.symlinkSync('../conf-available/app.conf', path.join(dir, 'apache2/conf-enabled/app.conf'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cli = async (args: string[]) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const code = await runCli(args, {
      stdout: { write: (c: string | Uint8Array) => (out.push(Buffer.from(c)), true) },
      stderr: { write: (c: string | Uint8Array) => (err.push(Buffer.from(c)), true) },
      cwd: dir,
    });
    return { code, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() };
  };

  it('fix --root: the file given through its conf-available path keeps what <Directory /> closes', async () => {
    const r = await cli(['fix', '--stdout', '--root', 'apache2/apache2.conf', 'apache2/conf-available/app.conf']);
    assert.equal(r.out, 'Alias /app /srv/app\n<Directory /srv/app>\n  AuthMerging And\n  Require all granted\n</Directory>\n');
  });

  it('fix without --root: a file of conf-available/ gets only a rewrite right under any main file (it keeps what <Directory /> says)', async () => {
    const r = await cli(['fix', '--stdout', 'apache2/conf-available/app.conf']);
    assert.equal(r.out, 'Alias /app /srv/app\n<Directory /srv/app>\n  AuthMerging And\n  Require all granted\n</Directory>\n');
    const c = await cli(['check', '--format', 'json', 'apache2/conf-available/app.conf']);
    const json = JSON.parse(c.out) as { files: Array<{ diagnostics: Array<{ code: string; message: string }> }> };
    assert.ok(json.files[0].diagnostics.some((d) => d.code === 'legacy-access' && d.message.includes(INCLUDED_NOTE)), c.out);
  });

  it('fix without --root: a file whose folder says nothing of an Include, with a Listen line, is planned as the whole configuration', async () => {
    fs.writeFileSync(path.join(dir, 'app.conf'), 'Listen 80\n' + OLD('/srv/app'));
    const r = await cli(['fix', '--stdout', 'app.conf']);
    assert.equal(r.out, 'Listen 80\nAlias /app /srv/app\n<Directory /srv/app>\n  Require all granted\n</Directory>\n');
  });

  // Debian's /etc/PACKAGE/apache.conf, linked from conf-enabled/ (a black-box run, helper-40): httpd
  // runs no file without a Listen line, so another file includes it, whatever its folder.
  it('fix without --root: a file with no Listen line and no Include, in any folder, gets only a rewrite right under any main file', async () => {
    fs.writeFileSync(path.join(dir, 'app.conf'), OLD('/srv/app'));
    const r = await cli(['fix', '--stdout', 'app.conf']);
    assert.equal(r.out, 'Alias /app /srv/app\n<Directory /srv/app>\n  AuthMerging And\n  Require all granted\n</Directory>\n');
  });

  it('check --root says where the rewrite was checked', async () => {
    const r = await cli(['check', '--format', 'json', '--root', 'apache2/apache2.conf', 'apache2/conf-enabled/app.conf']);
    const json = JSON.parse(r.out) as { files: Array<{ path: string; diagnostics: Array<{ code: string; message: string }> }> };
    const mine = json.files.find((f) => f.path.endsWith('app.conf'))!;
    assert.ok(mine.diagnostics.some((d) => d.code === 'legacy-access' && /configuration of apache2\.conf/.test(d.message)), JSON.stringify(mine.diagnostics));
  });
});
