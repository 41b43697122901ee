import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

describe('rule removed-directive', () => {
  const flagged: Array<[string, string]> = [
    ['AuthzUserAuthoritative Off', 'AuthzUserAuthoritative'],
    ['AuthzGroupFileAuthoritative On', 'AuthzGroupFileAuthoritative'],
    ['AuthzDBMAuthoritative Off', 'AuthzDBMAuthoritative'],
    ['AuthzOwnerAuthoritative Off', 'AuthzOwnerAuthoritative'],
    ['AuthzLDAPAuthoritative off', 'AuthzLDAPAuthoritative'],
    ['AuthzDBDAuthoritative Off', 'AuthzDBDAuthoritative'],
    ['AuthzDefaultAuthoritative Off', 'AuthzDefaultAuthoritative'],
    ['AuthDefaultAuthoritative Off', 'AuthDefaultAuthoritative'],
    ['authzuserauthoritative off', 'AuthzUserAuthoritative'],
    ['LockFile /var/lock/accept.lock', 'LockFile'],
    ['RewriteLog /var/log/rewrite.log', 'RewriteLog'],
    ['RewriteLogLevel 3', 'RewriteLogLevel'],
    ['AcceptMutex fcntl', 'AcceptMutex'],
  ];
  for (const [line, name] of flagged) {
    it(`flags ${line}`, () => {
      const text = lines('<Directory /srv>', '  ' + line, '</Directory>');
      const fs = findingsOf(text, 'removed-directive');
      assert.equal(fs.length, 1, JSON.stringify(fs));
      assert.equal(fs[0].severity, 'error');
      assert.deepEqual(covered(text, fs), [line]);
      assert.match(fs[0].message, new RegExp(name));
      assert.ok(fs[0].tags?.includes('deprecated'));
    });
  }

  // When the directive went: 2.4 for most, 2.0 for the 1.3 leftovers (new_features_2_0: "Port and
  // BindAddress are gone"), and not pinned down for CacheForceCompletion.
  const history: Array<[string, RegExp, RegExp | null]> = [
    ['Port 80', /`Port` is an httpd 1\.3 directive, dropped in 2\.0; it is unknown to httpd 2\.4, which refuses to start/, /removed in httpd 2\.4/],
    ['BindAddress 10.0.0.1', /`BindAddress` is an httpd 1\.3 directive, dropped in 2\.0/, /removed in httpd 2\.4/],
    ['ServerType standalone', /`ServerType` is an httpd 1\.3 directive, dropped in 2\.0/, /removed in httpd 2\.4/],
    ['CacheForceCompletion 80', /`CacheForceCompletion` was dropped before httpd 2\.4/, /removed in httpd 2\.4/],
    ['LockFile /var/lock/accept.lock', /`LockFile` was removed in httpd 2\.4, which refuses to start/, null],
  ];
  for (const [line, says, never] of history) {
    it(`says when ${line.split(' ')[0]} went away`, () => {
      const fs = findingsOf(lines(line), 'removed-directive');
      assert.equal(fs.length, 1, JSON.stringify(fs));
      assert.match(fs[0].message, says);
      if (never) assert.doesNotMatch(fs[0].message, never);
    });
  }

  const lookAlikes = [
    'AuthBasicAuthoritative Off',
    'AuthLDAPBindAuthoritative off',
    'AuthFormAuthoritative Off',
    'AuthzSVNAuthoritative Off',
    'AuthzSendForbiddenOnFailure On',
    'Mutex file:/var/lock default',
  ];
  for (const line of lookAlikes) {
    it(`does not flag the look-alike ${line}`, () => {
      assert.deepEqual(findingsOf(lines('<Location /svn>', '  ' + line, '</Location>'), 'removed-directive'), []);
    });
  }

  const fixes: Array<{ name: string; before: string; after: string }> = [
    {
      name: 'deletes an Authz*Authoritative line and nothing else',
      before: lines('<Directory /srv>', '  # groups from DBM', '  AuthzDBMAuthoritative Off', '', '  Require valid-user', '</Directory>'),
      after: lines('<Directory /srv>', '  # groups from DBM', '', '  Require valid-user', '</Directory>'),
    },
    {
      name: 'keeps CRLF line ends',
      before: '<Directory /srv>\r\n  AuthzUserAuthoritative Off\r\n  Require valid-user\r\n</Directory>\r\n',
      after: '<Directory /srv>\r\n  Require valid-user\r\n</Directory>\r\n',
    },
    {
      name: 'deletes a continued line whole',
      before: lines('AuthzDefaultAuthoritative \\', '   Off', 'ServerName x'),
      after: lines('ServerName x'),
    },
    {
      name: 'works on the last line without a line break',
      before: 'ServerName x\nAuthzOwnerAuthoritative Off',
      after: 'ServerName x\n',
    },
  ];
  for (const c of fixes) {
    it(`fix: ${c.name}`, () => {
      assert.equal(applyFix(c.before, 'removed-directive'), c.after);
    });
  }

  it('offers no deletion for directives with a different replacement', () => {
    const fs = findingsOf('LockFile /var/lock/x\n', 'removed-directive');
    assert.equal(fs[0].fixes?.some((f) => f.preferred) ?? false, false);
    assert.match(fs[0].message, /Mutex/);
  });

  it('is at most a hint inside a branch only 2.2 reads', () => {
    const text = lines('<IfVersion < 2.3>', '  LockFile /var/lock/accept.lock', '</IfVersion>', '<IfModule !mod_authz_core.c>', '  AuthzUserAuthoritative Off', '</IfModule>');
    const fs = findingsOf(text, 'removed-directive');
    assert.deepEqual(fs.map((f) => f.severity), ['hint', 'hint']);
    assert.ok(fs.every((f) => !f.fixes?.length));
  });

  it('is silenced by a disable comment', () => {
    const text = lines('# apacheconf-disable-next-line removed-directive', 'AuthzUserAuthoritative Off');
    assert.deepEqual(findingsOf(text, 'removed-directive'), []);
  });
});
