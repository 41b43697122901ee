import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

describe('rule unknown-directive', () => {
  const cases: Array<{ name: string; text: string; flagged: string[]; severities?: string[] }> = [
    { name: 'a typo of a known directive is a warning', text: lines('ServrName example.com'), flagged: ['ServrName'], severities: ['warning'] },
    { name: 'another typo', text: lines('DocumentRot /srv/www'), flagged: ['DocumentRot'], severities: ['warning'] },
    { name: 'a third-party directive is information', text: lines('WSGIScriptAlias / /srv/app.wsgi'), flagged: ['WSGIScriptAlias'], severities: ['information'] },
    // mod_jk's names (a GitHub httpd.conf): a known name with a module's prefix is no typo of it (no "Did you mean `LogLevel`?").
    { name: 'a known name behind a module prefix is information, not a typo', text: lines('JkLogLevel trace', 'JkLogFile logs/mod_jk.log'), flagged: ['JkLogLevel', 'JkLogFile'], severities: ['information', 'information'] },
    { name: 'in a file that loads the module, nothing', text: lines('LoadModule jk_module modules/mod_jk.so', 'JkLogLevel trace'), flagged: [] },
    { name: 'a letter more at the start is still a typo', text: lines('xLogLevel warn'), flagged: ['xLogLevel'], severities: ['warning'] },
    // Registered by stock modules (apache2 -L, httpd 2.4.71), not documented in the manual.
    { name: 'directives stock modules register that the manual does not document', text: lines('H2SessionExtraFiles 5', 'MacroIgnoreEmptyArgs', 'MacroIgnoreBadNesting', '<Directory /x>', 'AuthDigestNcCheck On', '</Directory>'), flagged: [] },
    { name: 'known directives in any case', text: lines('servername a', 'DOCUMENTROOT /srv', 'Require all granted', '<Directory /srv>', '</Directory>'), flagged: [] },
    { name: 'third-party directives inside their IfModule', text: lines('<IfModule mod_php7.c>', '  php_value memory_limit 64M', '</IfModule>', '<IfModule wsgi_module>', '  WSGIDaemonProcess app', '</IfModule>'), flagged: [] },
    { name: 'negated third-party IfModule too', text: lines('<IfModule !mod_php5.c>', '  php_flag engine off', '</IfModule>'), flagged: [] },
    { name: 'IfModule of an httpd module does not excuse an unknown name', text: lines('<IfModule mod_rewrite.c>', '  RewriteEngin On', '</IfModule>'), flagged: ['RewriteEngin'] },
    { name: 'names built from variables', text: lines('${DIRECTIVE} value'), flagged: [] },
    { name: 'macro bodies', text: lines('<Macro VHost $name>', '  $name on', '</Macro>'), flagged: [] },
    { name: 'a misspelt section is a warning (httpd refuses to start)', text: lines('<Directroy /srv>', '  Options None', '</Directroy>'), flagged: ['Directroy'], severities: ['warning'] },
    { name: 'a third-party section is information, and its lines are its own (mod_perl)', text: lines('<Perl>', '  use Plack::Handler::Apache2;', '  Plack::Handler::Apache2->preload("/srv/app");', '</Perl>'), flagged: ['Perl'], severities: ['information'] },
    { name: 'a third-party section inside its IfModule', text: lines('<IfModule mod_perl.c>', '  <Perl>', '    my $x = 1;', '  </Perl>', '</IfModule>'), flagged: [] },
    { name: 'lines of a misspelt section are still checked', text: lines('<Locaton /x>', '  SetHandlr none', '</Locaton>'), flagged: ['Locaton', 'SetHandlr'], severities: ['warning', 'warning'] },
    { name: 'every section httpd defines, in any case', text: lines('<ifmodule mod_ssl.c>', '<VIRTUALHOST *:443>', '<RequireAll>', 'Require all granted', '</RequireAll>', '</VirtualHost>', '</IfModule>', '<IfFile /x>', '</IfFile>', '<MDomainSet a.example>', '</MDomainSet>'), flagged: [] },
    { name: "mod_lua's inline hooks are sections httpd takes, holding Lua code", text: lines('<LuaHookFixups>', '  r.filename = "/srv/x"', '  return apache2.OK', '</LuaHookFixups>'), flagged: [] },
    { name: '<MDomain> is a section httpd takes (as well as <MDomainSet>)', text: lines('<MDomain a.example>', '  MDMember b.example', '</MDomain>'), flagged: [] },
    // httpd -t: "Invalid command 'If', perhaps misspelled or defined by a module not included in the server configuration".
    { name: 'a section name without its angle brackets is a warning (httpd refuses to start)', text: lines('If permalinks are on', 'Directory /srv', 'requireall', '<Files x>', '</Files>'), flagged: ['If', 'Directory', 'requireall'], severities: ['warning', 'warning', 'warning'] },
    { name: 'a bare section name in a 2.2-only branch or a macro is left alone', text: lines('<IfModule !mod_authz_core.c>', '  Files x', '</IfModule>', '<Macro M $x>', '  Location $x', '</Macro>'), flagged: [] },
    // backuppc's README: `Options …` words on a line of their own (httpd -t: "Invalid command 'SymLinksIfOwnerMatch'").
    { name: 'a word of Options on a line of its own is a warning', text: lines('Options Indexes', '  SymLinksIfOwnerMatch IncludesNoExec', '+FollowSymLinks'), flagged: ['SymLinksIfOwnerMatch', '+FollowSymLinks'], severities: ['warning', 'warning'] },
    { name: 'legacy directives are known (other rules report them)', text: lines('Order allow,deny', 'AuthzUserAuthoritative Off', 'NameVirtualHost *:80', 'MaxClients 10'), flagged: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = findingsOf(c.text, 'unknown-directive');
      assert.deepEqual(covered(c.text, fs), c.flagged);
      if (c.severities) assert.deepEqual(fs.map((f) => f.severity), c.severities);
    });
  }

  // A file that belongs to a third-party module (found on Debian's libapache2-mod-* packages:
  // netcgi_apache.load loads its module and sets NetcgiRequire; mods-available/php8.2.conf, read
  // only when php8.2.load is enabled, sets php_admin_flag).
  const owned: Array<{ name: string; text: string; uri?: string; flagged: string[] }> = [
    { name: 'after a LoadModule of a third-party module', text: lines('LoadModule netcgi_apache_module /usr/lib/apache2/modules/mod_netcgi_apache.so', 'NetcgiRequire netstring'), flagged: [] },
    { name: "a LoadModule of httpd's own module excuses nothing", text: lines('LoadModule rewrite_module modules/mod_rewrite.so', 'NetcgiRequire netstring'), flagged: ['NetcgiRequire'] },
    { name: "Debian's mods-available/NAME.conf of a third-party module", text: lines('php_admin_flag engine Off'), uri: 'file:///etc/apache2/mods-available/php8.2.conf', flagged: [] },
    { name: "Debian's mods-available/NAME.conf of httpd's own module", text: lines('php_admin_flag engine Off'), uri: 'file:///etc/apache2/mods-available/ssl.conf', flagged: ['php_admin_flag'] },
    { name: 'a typo is still a warning there', text: lines('LoadModule php_module x.so', 'ServrName a'), flagged: ['ServrName'] },
  ];
  for (const c of owned) {
    it(`unknown names in a third-party module's file: ${c.name}`, () => {
      assert.deepEqual(covered(c.text, findingsOf(c.text, 'unknown-directive', c.uri ? { uri: c.uri } : {})), c.flagged);
    });
  }

  it('the did-you-mean fix of a section renames its opening and closing tags', () => {
    assert.equal(applyFix('<Directroy /srv>\n  Options None\n</directroy>\n', 'unknown-directive', { title: /Directory/ }), '<Directory /srv>\n  Options None\n</Directory>\n');
  });

  it('the did-you-mean fix renames only the name', () => {
    assert.equal(applyFix('  ServrName example.com\n', 'unknown-directive', { title: /ServerName/ }), '  ServerName example.com\n');
  });
});
