// Files that another file includes, planned without that main file (server/src/access/in-configuration.ts
// plansAsIncluded): a rewrite only when it is right under any main file that sets access before
// the file's sections. Fixes are applied and compared as text; test/httpd/included-alone.test.ts
// runs the same kind of rewrite on httpd.
import assert from 'node:assert/strict';
import { createService } from '../../server/src/service';
import { looksIncluded } from '../../server/src/model/context';
import { INCLUDED_NOTE } from '../../server/src/access';

const IN = 'file:///etc/apache2/conf-enabled/site.conf';

describe('looksIncluded: folders only an Include reads', () => {
  const rows: Array<[string, boolean]> = [
    ['/etc/apache2/conf-enabled/security.conf', true],
    ['/etc/apache2/conf-available/x.conf', true],
    ['/etc/apache2/sites-available/000-default.conf', true],
    ['/etc/apache2/sites-enabled/site', true],
    ['/etc/apache2/mods-enabled/status.conf', true],
    ['/etc/httpd/conf.d/ssl.conf', true],
    ['/etc/httpd/conf.modules.d/00-base.conf', true],
    ['/etc/apache2/vhosts.d/a.conf', true],
    ['/usr/local/apache2/conf/extra/httpd-vhosts.conf', true],
    ['C:\\Apache24\\conf\\extra\\httpd-ssl.conf', true],
    ['/etc/apache2/apache2.conf', false],
    ['/etc/httpd/conf/httpd.conf', false],
    ['/usr/local/apache2/conf/extra/proxy.conf', false],
    ['/srv/site/app.conf', false],
    ['app.conf', false],
  ];
  for (const [p, want] of rows) it(`${p} → ${want}`, () => assert.equal(looksIncluded(p), want));
});

describe('legacy-access in a file another includes, the main file unknown', () => {
  const rows: Array<{ name: string; text: string; want: string; uri?: string; context?: 'server' | 'vhost' }> = [
    {
      name: 'host rules that let everyone in keep what <Directory /> says (AuthMerging And)',
      text: '<Directory /srv/stats>\n    Order allow,deny\n    Allow from all\n</Directory>\n',
      want: '<Directory /srv/stats>\n    AuthMerging And\n    Require all granted\n</Directory>\n',
    },
    {
      name: 'a host list: the same, with the addresses',
      text: '<Directory /srv/lan>\r\n    # the office\r\n    Order deny,allow\r\n    Deny from all\r\n    Allow from 10.0.0.0/8\r\n</Directory>\r\n',
      want: '<Directory /srv/lan>\r\n    # the office\r\n    AuthMerging And\r\n    Require ip 10.0.0.0/8\r\n</Directory>\r\n',
    },
    {
      // Horde's Debian file: `Require local` (2.4 half of an IfModule pair) on the application's
      // folder, `Deny from all` on its subfolders. Keeping what they inherit (AuthMerging And) would
      // say nothing more: refusing everyone answers alike whatever comes before.
      name: 'deny everyone under a folder with a Require of its own: Require all denied alone, no AuthMerging',
      text: '<Directory /usr/share/horde>\n  <IfModule mod_authz_core.c>\n    Require local\n  </IfModule>\n  <IfModule !mod_authz_core.c>\n    Order Deny,Allow\n    Deny from All\n    Allow from 127.0.0.1\n  </IfModule>\n</Directory>\n<Directory /usr/share/horde/config>\n     Deny from all\n</Directory>\n',
      want: '<Directory /usr/share/horde>\n  <IfModule mod_authz_core.c>\n    Require local\n  </IfModule>\n  <IfModule !mod_authz_core.c>\n    Order Deny,Allow\n    Deny from All\n    Allow from 127.0.0.1\n  </IfModule>\n</Directory>\n<Directory /usr/share/horde/config>\n     Require all denied\n</Directory>\n',
    },
    {
      name: 'deny everyone: right whatever comes before, written alone',
      text: '<Directory /srv/secret>\n    Order deny,allow\n    Deny from all\n</Directory>\n',
      want: '<Directory /srv/secret>\n    Require all denied\n</Directory>\n',
    },
    {
      name: 'Satisfy Any with everyone let in: Require all granted alone',
      text: '<Location /open>\n    Order allow,deny\n    Allow from all\n    Satisfy Any\n</Location>\n',
      want: '<Location /open>\n    Require all granted\n</Location>\n',
    },
    {
      name: 'the same file under a name that says nothing of an Include, with a Listen line: planned as the whole configuration',
      uri: 'file:///srv/site/app.conf',
      text: 'Listen 80\n<Directory /srv/stats>\n    Order allow,deny\n    Allow from all\n</Directory>\n',
      want: 'Listen 80\n<Directory /srv/stats>\n    Require all granted\n</Directory>\n',
    },
    {
      // httpd does not start without a Listen line: Debian's /etc/phpldapadmin/apache.conf, linked
      // from conf-enabled/, under apache2.conf's `<Directory /> Require all denied` answered 403
      // with mod_access_compat, and 200 after the bare rewrite (a black-box run, helper-40).
      name: 'no Listen line and no Include, under a name that says nothing: planned as a file another includes',
      uri: 'file:///etc/phpldapadmin/apache.conf',
      text: '<Directory /srv/stats>\n    Order allow,deny\n    Allow from all\n</Directory>\n',
      want: '<Directory /srv/stats>\n    AuthMerging And\n    Require all granted\n</Directory>\n',
    },
    {
      // Debian's mods-available/status.conf: under a main file's <Directory /> the <Location> is
      // read only where the module is loaded; the rewrite holds both ways.
      name: 'a <Location> inside <IfModule mod_status.c>: checked with the module loaded and not, under each main file',
      text: '<IfModule mod_status.c>\n    <Location /server-status>\n        SetHandler server-status\n        Order deny,allow\n        Deny from all\n        Allow from 127.0.0.1 ::1\n    </Location>\n</IfModule>\n',
      want: '<IfModule mod_status.c>\n    <Location /server-status>\n        SetHandler server-status\n        AuthMerging And\n        Require ip 127.0.0.1 ::1\n    </Location>\n</IfModule>\n',
    },
    {
      name: 'a directory that lets everyone in and one below it with a host list, inside <IfDefine>: each keeps what it inherits',
      text: '<IfDefine !NOSITE>\n<Directory /srv/www>\n    Order allow,deny\n    Allow from all\n</Directory>\n<Directory /srv/www/reports>\n    Order deny,allow\n    Deny from all\n    Allow from 192.0.2.0/24\n</Directory>\n</IfDefine>\n',
      want: '<IfDefine !NOSITE>\n<Directory /srv/www>\n    AuthMerging And\n    Require all granted\n</Directory>\n<Directory /srv/www/reports>\n    AuthMerging And\n    Require ip 192.0.2.0/24\n</Directory>\n</IfDefine>\n',
    },
    {
      name: 'the same in a <VirtualHost>, not wrapped: the file-alone rewrite drops AuthMerging where nothing comes before, so each section keeping what it inherits is tried',
      text: '<VirtualHost *:80>\n    DocumentRoot /srv/www\n    <Directory /srv/www>\n        Order allow,deny\n        Allow from all\n    </Directory>\n    <Directory /srv/www/reports>\n        Order deny,allow\n        Deny from all\n        Allow from 192.0.2.0/24\n    </Directory>\n</VirtualHost>\n',
      want: '<VirtualHost *:80>\n    DocumentRoot /srv/www\n    <Directory /srv/www>\n        AuthMerging And\n        Require all granted\n    </Directory>\n    <Directory /srv/www/reports>\n        AuthMerging And\n        Require ip 192.0.2.0/24\n    </Directory>\n</VirtualHost>\n',
    },
    {
      // A WebDAV vhost (gh4 batch, 455): `<Location />` asks for a password over a directory whose
      // host rules let everyone in. Its Require replaced every Require before it; with `AuthMerging
      // And` added it would also take in what the main file requires of directories this file does
      // not show (`<Directory />`'s `Require all denied` under an Alias): on httpd, 401 became 403.
      name: 'a <Location /> password over a directory that lets everyone in: the Location is left as it is (no AuthMerging)',
      text: '<VirtualHost *:80>\n    DocumentRoot /srv/dav\n    <Directory /srv/dav>\n        Order Allow,Deny\n        Allow from All\n    </Directory>\n    <Location />\n        DAV On\n        AuthType Basic\n        AuthName "dav"\n        AuthUserFile /srv/dav.passwd\n        Require valid-user\n    </Location>\n</VirtualHost>\n',
      want: '<VirtualHost *:80>\n    DocumentRoot /srv/dav\n    <Directory /srv/dav>\n        Require all granted\n    </Directory>\n    <Location />\n        DAV On\n        AuthType Basic\n        AuthName "dav"\n        AuthUserFile /srv/dav.passwd\n        Require valid-user\n    </Location>\n</VirtualHost>\n',
    },
    {
      name: '--context vhost declares nothing inherited: planned as the whole configuration',
      context: 'vhost',
      text: '<Directory /srv/stats>\n    Order allow,deny\n    Allow from all\n</Directory>\n',
      want: '<Directory /srv/stats>\n    Require all granted\n</Directory>\n',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const out = createService().fixText({ text: r.text, uri: r.uri ?? IN, ...(r.context ? { context: r.context } : {}) });
      assert.equal(out.text, r.want);
    });
  }

  it('says what the rewrite rests on', () => {
    const a = createService().analyze({ text: rows[0].text, uri: IN });
    const f = a.findings.filter((x) => x.rule === 'legacy-access');
    assert.ok(f.length && f.every((x) => x.message.includes(INCLUDED_NOTE)), f.map((x) => x.message).join('\n'));
  });

  it('a Satisfy Any block that lets a host list in under a password: no preferred rewrite, the file-alone one offered and marked', () => {
    const text = '<Directory /srv/mixed>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.0/8\n    Satisfy Any\n</Directory>\n';
    const a = createService().analyze({ text, uri: IN });
    const f = a.findings.filter((x) => x.rule === 'legacy-access');
    assert.ok(f.length);
    for (const x of f) {
      assert.ok(!x.fixes?.some((fx) => fx.preferred), x.message);
      assert.match(x.message, /No exact rewrite is offered: this file sits in a folder that another file includes/);
    }
    assert.ok(f[0].fixes?.some((fx) => /exact only where the main file sets no access/.test(fx.title)), JSON.stringify(f[0].fixes?.map((x) => x.title)));
    assert.equal(createService().fixText({ text, uri: IN }).text, text);
  });

  // OpenMandriva's fileprotector.conf: <FilesMatch> denials inside <IfModule>/<IfDefine> tests.
  // Each way the tests can go is read (2^n readings under each main file): up to four tests.
  const guarded = (tests: string[]) => {
    const blocks = tests.map((t, i) => `<${t}>\n    <FilesMatch "\\.(bak${i})$">\n        Order allow,deny\n        Deny from all\n    </FilesMatch>\n</${t.split(' ')[0]}>\n`);
    return blocks.join('');
  };
  it('sections inside four different tests: each way they go is checked, and the denials become Require all denied', () => {
    const text = guarded(['IfModule mod_dir.c', 'IfModule !mod_include.c', 'IfDefine HAVE_PHP', 'IfModule !mod_php4.c']);
    const out = createService().fixText({ text, uri: IN }).text;
    assert.equal(out, text.replace(/        Order allow,deny\n        Deny from all\n/g, '        Require all denied\n'));
  });
  // The test suite's proxy.conf.in: <Location>s of ProxyPass lines, each in a <IfModule
  // mod_lbmethod_*.c> of its own, beside the section of host rules. Sections with no access line
  // change no answer whether httpd reads them or not: their tests are not worked out both ways.
  it('tests around sections with no access line are not counted: five of them beside the host rules, rewritten', () => {
    const lb = ['byrequests', 'bytraffic', 'bybusyness', 'heartbeat', 'other'].map((m, i) => `    <IfModule mod_lbmethod_${m}.c>\n        <Location /baltest${i}>\n            ProxyPass balancer://foo${i}/\n        </Location>\n    </IfModule>\n`);
    const text = `<IfModule mod_proxy_balancer.c>\n<VirtualHost *:8080>\n${lb.join('')}    <Location /balancer-manager>\n        SetHandler balancer-manager\n        Allow from all\n    </Location>\n</VirtualHost>\n</IfModule>\n`;
    const out = createService().fixText({ text, uri: IN }).text;
    assert.equal(out, text.replace('        Allow from all\n', '        AuthMerging And\n        Require all granted\n'));
  });
  // Evergreen's eg_vhost.conf: a virtual host with fifteen <LocationMatch> sections of handlers and
  // no access line, beside <Location>s of host rules. Each regex may match a request or not, so
  // counting them made too many combinations; they change no answer either way.
  it('regex sections with no access line do not count: the host rules beside fourteen of them are rewritten', () => {
    const handlers = Array.from({ length: 14 }, (_, i) => `    <LocationMatch /app${i}/.*\\.html$>\n        SetHandler perl-script\n    </LocationMatch>\n`);
    const open = [0, 1, 2].map((i) => `    <Location /app${i}/open>\n        Order allow,deny\n        Allow from all\n    </Location>\n`);
    const text = `<VirtualHost *:80>\n${handlers.join('')}${open.join('')}</VirtualHost>\n`;
    const out = createService().fixText({ text, uri: IN }).text;
    assert.equal(out, text.replace(/        Order allow,deny\n        Allow from all\n/g, '        AuthMerging And\n        Require all granted\n'));
  });
  it('inside five: too many ways to check, no preferred rewrite, and the message says so', () => {
    const text = guarded(['IfModule mod_dir.c', 'IfModule !mod_include.c', 'IfDefine HAVE_PHP', 'IfModule !mod_php4.c', 'IfDefine EXTRA']);
    assert.equal(createService().fixText({ text, uri: IN }).text, text);
    const f = createService().analyze({ text, uri: IN }).findings.filter((x) => x.rule === 'legacy-access');
    assert.ok(f.length && f.every((x) => !x.fixes?.some((fx) => fx.preferred)));
    for (const x of f) assert.match(x.message, /sit inside 5 tests httpd may or may not pass .*too many ways to check/);
  });
});
