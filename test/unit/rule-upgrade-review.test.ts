// Rules changed-syntax, changed-behavior, changed-default: table-driven, fixes applied and compared.
// (The start-up refusals and the fixed forms are checked with the real httpd in test/httpd/upgrade-fixes.test.ts.)
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyFix, covered, findingsOf, lines } from '../support/rules';
import { parse, type DirectiveNode } from '../../server/src/syntax';
import { mixedOptionsAt } from '../../server/src/rules/upgrade-review';

describe('rules changed-syntax, changed-behavior, changed-default', () => {
  const cases: Array<{ rule: string; name: string; before: string; flagged: string[]; after?: string; severity?: string }> = [
    { rule: 'changed-syntax', name: 'CharsetOptions DebugLevel among others', before: lines('CharsetOptions ImplicitAdd DebugLevel=3'), flagged: ['DebugLevel=3'], after: lines('CharsetOptions ImplicitAdd') },
    { rule: 'changed-syntax', name: 'CharsetOptions DebugLevel alone', before: lines('Listen 80', 'CharsetOptions DebugLevel=1', 'ServerName a'), flagged: ['DebugLevel=1'], after: lines('Listen 80', 'ServerName a') },
    { rule: 'changed-syntax', name: 'ExtFilterOptions keeps its other option', before: lines('<Directory /srv>', '  ExtFilterOptions DebugLevel=1 LogStderr', '</Directory>'), flagged: ['DebugLevel=1'], after: lines('<Directory /srv>', '  ExtFilterOptions LogStderr', '</Directory>') },
    { rule: 'changed-syntax', name: 'FilterProvider 2.2 form: no fix', before: lines('FilterProvider gz DEFLATE resp=Content-Type $text/'), flagged: ['resp=Content-Type $text/'], after: undefined },
    { rule: 'changed-syntax', name: 'FilterProvider 2.4 form', before: lines('FilterProvider gz DEFLATE "%{CONTENT_TYPE} =~ m#^text/#"'), flagged: [] },
    { rule: 'changed-syntax', name: 'CharsetOptions without DebugLevel', before: lines('CharsetOptions ImplicitAdd'), flagged: [] },
    // Each row's verdict is httpd -t's (test/httpd/upgrade-fixes.test.ts runs the same lines).
    { rule: 'changed-syntax', name: 'Options: a signed word after a plain one', before: lines('<Directory /srv>', '  Options FollowSymLinks +ExecCGI', '</Directory>'), flagged: ['FollowSymLinks +ExecCGI'] },
    { rule: 'changed-syntax', name: 'Options: a plain word after a signed one', before: lines('<Directory /srv>', '  Options -Indexes None', '</Directory>'), flagged: ['-Indexes None'] },
    { rule: 'changed-syntax', name: 'Options: None then signed words is accepted', before: lines('<Directory /srv>', '  Options none +ExecCGI', '</Directory>'), flagged: [] },
    { rule: 'changed-syntax', name: 'Options: All, a plain word, then signed ones is accepted', before: lines('<Directory /srv>', '  Options All Indexes +FollowSymLinks', '</Directory>'), flagged: [] },
    { rule: 'changed-syntax', name: 'Options: all signed, or all plain', before: lines('<Directory /srv>', '  Options -Indexes +FollowSymLinks', '  Options Indexes FollowSymLinks', '</Directory>'), flagged: [] },
    // Lines whose words the rule reads from the text before it makes a node (upgrade-review.ts, mayMixOptions): each still flagged.
    { rule: 'changed-syntax', name: 'Options: mixed words split by tabs', before: lines('<Directory /srv>', '\tOptions\t-Indexes\tFollowSymLinks', '</Directory>'), flagged: ['-Indexes\tFollowSymLinks'] },
    { rule: 'changed-syntax', name: 'Options: a quoted signed word among plain ones', before: lines('<Directory /srv>', '  Options "+Indexes" FollowSymLinks', '</Directory>'), flagged: ['"+Indexes" FollowSymLinks'] },
    { rule: 'changed-syntax', name: 'Options: mixed words on a continued line', before: lines('<Directory /srv>', '  Options -Indexes \\', '    FollowSymLinks', '</Directory>'), flagged: ['-Indexes \\\n    FollowSymLinks'] },
    { rule: 'changed-syntax', name: 'Options: signed words split by a form feed', before: lines('<Directory /srv>', '  Options -Indexes\fFollowSymLinks', '</Directory>'), flagged: ['-Indexes\fFollowSymLinks'] },
    { rule: 'changed-behavior', name: 'piped log on a continued line', before: lines('ErrorLog \\', '  "|/bin/cat >> /tmp/e"'), flagged: ['"|/bin/cat >> /tmp/e"'], after: lines('ErrorLog \\', '  "|$/bin/cat >> /tmp/e"') },
    { rule: 'changed-behavior', name: 'piped log with shell syntax', before: lines('CustomLog "|/usr/bin/tee -a /var/log/a.log | logger" combined'), flagged: ['"|/usr/bin/tee -a /var/log/a.log | logger"'], after: lines('CustomLog "|$/usr/bin/tee -a /var/log/a.log | logger" combined'), severity: 'warning' },
    { rule: 'changed-behavior', name: 'ErrorLog piped with a redirect, unquoted', before: lines('ErrorLog |/bin/cat>>/tmp/e'), flagged: ['|/bin/cat>>/tmp/e'], after: lines('ErrorLog |$/bin/cat>>/tmp/e') },
    { rule: 'changed-behavior', name: 'piped log without shell syntax', before: lines('CustomLog "|/usr/bin/rotatelogs /var/log/a.%Y%m%d 86400" common'), flagged: [] },
    { rule: 'changed-behavior', name: 'piped log already through the shell', before: lines('CustomLog "|$/usr/bin/a | b" common'), flagged: [] },
    { rule: 'changed-behavior', name: 'CRL file without SSLCARevocationCheck', before: lines('<VirtualHost *:443>', '    SSLCARevocationFile /etc/ssl/crl.pem', '</VirtualHost>'), flagged: ['SSLCARevocationFile'], after: lines('<VirtualHost *:443>', '    SSLCARevocationFile /etc/ssl/crl.pem', '    SSLCARevocationCheck chain', '</VirtualHost>'), severity: 'warning' },
    { rule: 'changed-behavior', name: 'CRL path, CRLF, last line without a break', before: 'ServerName a\r\nSSLCARevocationPath /etc/ssl/crl', flagged: ['SSLCARevocationPath'], after: 'ServerName a\r\nSSLCARevocationPath /etc/ssl/crl\r\nSSLCARevocationCheck chain' },
    { rule: 'changed-behavior', name: 'CRL with SSLCARevocationCheck', before: lines('SSLCARevocationFile /x', 'SSLCARevocationCheck leaf'), flagged: [] },
    { rule: 'changed-behavior', name: 'review: CacheIgnoreURLSessionIdentifiers', before: lines('CacheIgnoreURLSessionIdentifiers jsessionid'), flagged: ['CacheIgnoreURLSessionIdentifiers'], severity: 'information' },
    { rule: 'changed-behavior', name: 'review: CacheEnable / on a forward proxy', before: lines('ProxyRequests On', 'CacheEnable disk /'), flagged: ['CacheEnable'] },
    { rule: 'changed-behavior', name: 'CacheEnable / without a forward proxy', before: lines('CacheEnable disk /'), flagged: [] },
    { rule: 'changed-behavior', name: 'review: server-wide LDAPTrustedClientCert', before: lines('LDAPTrustedClientCert CERT_BASE64 /c.pem'), flagged: ['LDAPTrustedClientCert'] },
    { rule: 'changed-behavior', name: 'LDAPTrustedClientCert per directory', before: lines('<Location /a>', '  LDAPTrustedClientCert CERT_BASE64 /c.pem', '</Location>'), flagged: [] },
    { rule: 'changed-behavior', name: 'review: DavLockDB', before: lines('DavLockDB /var/lock/DAV'), flagged: ['DavLockDB'] },
    { rule: 'changed-behavior', name: 'review: scgi back end', before: lines('ProxyPass /app scgi://127.0.0.1:4000/'), flagged: ['ProxyPass'] },
    { rule: 'changed-default', name: '2.2-era main config without the three settings', before: lines('ServerRoot "/etc/httpd"', 'Listen 80', 'MaxClients 150'), flagged: ['ServerRoot', 'ServerRoot', 'ServerRoot'] },
    { rule: 'changed-default', name: 'a 2.4 main config: its defaults are its own', before: lines('ServerRoot "/etc/httpd"', 'Listen 80', 'MaxRequestWorkers 150'), flagged: [] },
    { rule: 'changed-default', name: 'main config that sets them', before: lines('ServerRoot "/etc/httpd"', 'NameVirtualHost *:80', 'EnableSendfile On', 'FileETag MTime Size', '<Directory />', '  AllowOverride None', '</Directory>'), flagged: [] },
    { rule: 'changed-default', name: 'a fragment (no ServerRoot)', before: lines('Listen 80'), flagged: [] },
  ];
  for (const c of cases) {
    it(`${c.rule}: ${c.name}`, () => {
      const fs = findingsOf(c.before, c.rule);
      assert.deepEqual(covered(c.before, fs), c.flagged);
      if (c.severity) assert.equal(fs[0].severity, c.severity);
      if ('after' in c) assert.equal(applyFix(c.before, c.rule), c.after);
    });
  }

  it('changed-default: the AllowOverride finding is a warning, the others information', () => {
    const fs = findingsOf(lines('ServerRoot /etc/httpd', 'Order allow,deny'), 'changed-default');
    assert.deepEqual(fs.map((f) => [(f.data as { setting: string }).setting, f.severity]), [['AllowOverride', 'warning'], ['EnableSendfile', 'information'], ['FileETag', 'information']]);
  });

  // The rule reads an Options line's text before it splits the line into words (mayMixOptions):
  // on any line, it must flag exactly what mixedOptionsAt finds in the parsed words.
  it('changed-syntax: Options lines of random words, blanks, quotes and continuations', () => {
    const word = fc.constantFrom('Indexes', '+Indexes', '-Indexes', 'None', 'All', '"+ExecCGI"', "'-Multiviews'", 'a\\"b', '+', '-', '""');
    const blank = fc.constantFrom(' ', '\t', '  ', '\f', ' \\\n  ', '\v');
    fc.assert(
      fc.property(fc.array(fc.tuple(blank, word), { minLength: 1, maxLength: 5 }), (parts) => {
        const text = lines('<Directory /srv>', '  Options' + parts.map(([b, w]) => b + w).join(''), '</Directory>');
        const d = parse(text).directives.find((x): x is DirectiveNode => x.key === 'options');
        const expected = d ? mixedOptionsAt(d.args.map((a) => a.value)) >= 0 : false;
        assert.equal(findingsOf(text, 'changed-syntax').length > 0, expected, JSON.stringify(text));
      }),
      { seed: 4242, numRuns: 2000 },
    );
  });

  it('2.2-only branches: hints, no fixes', () => {
    const text = lines('<IfVersion < 2.4>', '  CharsetOptions DebugLevel=2', '  CustomLog "|a | b" common', '</IfVersion>');
    for (const rule of ['changed-syntax', 'changed-behavior']) {
      const fs = findingsOf(text, rule);
      assert.equal(fs.length, 1, rule);
      assert.equal(fs[0].severity, 'hint');
      assert.equal(fs[0].fixes, undefined);
    }
  });
});
