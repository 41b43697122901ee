import assert from 'node:assert/strict';
import { covered, findingsOf, lines } from '../support/rules';

describe('rule mixed-access: what the message says when no Allow or Deny line is there', () => {
  it('Satisfy Any alone: every client is let in', () => {
    const f = findingsOf(lines('<Directory /srv>', '  Require all denied', '  Satisfy Any', '</Directory>'), 'mixed-access');
    assert.equal(f.length, 1);
    assert.match(f[0].message, /also uses 2\.2 access control \(`Satisfy`\)\. .*With `Satisfy Any` and no `Allow` or `Deny` line, the host rules let every client in, so this line is never consulted/);
  });
  it('Order allow,deny alone: every client is refused', () => {
    const f = findingsOf(lines('<Directory /srv>', '  Require all granted', '  Order allow,deny', '</Directory>'), 'mixed-access');
    assert.equal(f.length, 1);
    assert.match(f[0].message, /With `Order allow,deny` and no `Allow` line, the host rules refuse every client \(403\) before this line is consulted/);
  });
});

describe('rule mixed-access (within one section)', () => {
  const cases: Array<{ name: string; text: string; flagged: string[] }> = [
    {
      name: 'Require all granted beside Deny from all',
      text: lines('<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Require all granted', '</Directory>'),
      flagged: ['Require all granted'],
    },
    {
      name: 'Require ip beside Allow',
      text: lines('<Location /status>', '  Allow from 10.0.0.0/8', '  Require ip 127.0.0.1', '</Location>'),
      flagged: ['Require ip 127.0.0.1'],
    },
    {
      name: 'a Require container and AuthMerging beside Satisfy',
      text: lines('<Directory /srv>', '  Satisfy Any', '  AuthMerging And', '  <RequireAll>', '    Require valid-user', '  </RequireAll>', '</Directory>'),
      flagged: ['AuthMerging And', 'Require valid-user'],
    },
    {
      name: 'Require not inside RequireAll beside Order',
      text: lines('<Files x>', '  Order allow,deny', '  <RequireAll>', '    Require all granted', '    Require not env bad', '  </RequireAll>', '</Files>'),
      flagged: ['Require all granted', 'Require not env bad'],
    },
    // No Allow or Deny line (MediaWiki's .htaccess files: `Require all denied` + `Satisfy All`).
    // httpd 2.4.71 with mod_access_compat, from 127.0.0.2: `Require all denied` + `Satisfy Any`
    // answered 200, `Require all granted` + `Satisfy All` 200, `Require all granted` + `Order
    // allow,deny` 403, `Require all denied` + `Satisfy All` 403.
    {
      name: 'Satisfy All alone: the host rules let everyone in, the Require decides (not reported)',
      text: lines('Require all denied', 'Satisfy All'),
      flagged: [],
    },
    {
      name: 'Order allow,deny alone under Satisfy Any: the host rules let no one in, so the Require decides (not reported)',
      text: lines('<Directory /srv>', '  Order allow,deny', '  Satisfy Any', '  Require all granted', '</Directory>'),
      flagged: [],
    },
    {
      name: 'Satisfy Any alone lets everyone in past the Require',
      text: lines('<Directory /srv>', '  Require all denied', '  Satisfy Any', '</Directory>'),
      flagged: ['Require all denied'],
    },
    {
      name: 'Order allow,deny alone refuses everyone before the Require',
      text: lines('<Directory /srv>', '  Require all granted', '  Order allow,deny', '</Directory>'),
      flagged: ['Require all granted'],
    },
    {
      name: 'Require valid-user with host rules is 2.2 style, not mixed',
      text: lines('<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Allow from 10.1', '  AuthType Basic', '  Require valid-user', '  Satisfy any', '</Directory>'),
      flagged: [],
    },
    {
      name: 'Require user and group are 2.2 style',
      text: lines('<Directory /srv>', '  Order allow,deny', '  Allow from all', '  Require user alice', '  Require group admins', '</Directory>'),
      flagged: [],
    },
    {
      name: 'across sections: the parent directory\'s host rules still gate a child\'s Require (spec §6.1)',
      text: lines('<Directory />', '  Deny from all', '</Directory>', '<Directory /srv>', '  Require all granted', '</Directory>'),
      flagged: ['Require all granted'],
    },
    {
      name: 'across sections: host rules in a Location do not lift an inherited Require all denied (spec §6.2)',
      text: lines('<Directory />', '  Require all denied', '</Directory>', '<Location /server-status>', '  Order deny,allow', '  Deny from all', '  Allow from 127.0.0.1', '</Location>'),
      flagged: ['Order deny,allow'],
    },
    {
      name: 'sections that never apply to the same request are not mixed',
      text: lines('<Directory /a>', '  Deny from all', '</Directory>', '<Directory /b>', '  Require all granted', '</Directory>'),
      flagged: [],
    },
    {
      name: 'a dual-version file is not mixed',
      text: lines(
        '<Directory /srv>',
        '  <IfModule !mod_authz_core.c>',
        '    Order allow,deny',
        '    Allow from all',
        '  </IfModule>',
        '  <IfModule mod_authz_core.c>',
        '    Require all granted',
        '  </IfModule>',
        '</Directory>',
      ),
      flagged: [],
    },
    {
      name: 'IfVersion split is not mixed',
      text: lines('<Directory /srv>', '  <IfVersion < 2.4>', '    Order allow,deny', '    Allow from all', '  </IfVersion>', '  <IfVersion >= 2.4>', '    Require all granted', '  </IfVersion>', '</Directory>'),
      flagged: [],
    },
    {
      name: 'inside a Limit the section is still the same',
      text: lines('<Directory /srv>', '  <Limit POST>', '    Order deny,allow', '    Deny from all', '  </Limit>', '  <LimitExcept POST>', '    Require all granted', '  </LimitExcept>', '</Directory>'),
      flagged: ['Require all granted'],
    },
    {
      name: 'IfModule X and IfModule !X exclude each other (mod_version spelled two ways)',
      text: lines(
        '<FilesMatch \\.pm$>',
        '  <IfModule mod_version.c>',
        '    <IfVersion < 2.4>',
        '      Deny from all',
        '    </IfVersion>',
        '    <IfVersion >= 2.4>',
        '      Require all denied',
        '    </IfVersion>',
        '  </IfModule>',
        '  <IfModule !version_module>',
        '    Deny from all',
        '  </IfModule>',
        '</FilesMatch>',
      ),
      flagged: [],
    },
    {
      name: 'IfDefine X and IfDefine !X exclude each other',
      text: lines('<Directory /srv>', '  <IfDefine OLD>', '    Deny from all', '  </IfDefine>', '  <IfDefine !OLD>', '    Require all denied', '  </IfDefine>', '</Directory>'),
      flagged: [],
    },
    {
      name: 'a compat branch read by 2.4 with mod_access_compat is mixed',
      text: lines('<Directory /srv>', '  Require all granted', '  <IfModule mod_access_compat.c>', '    Order allow,deny', '    Allow from all', '  </IfModule>', '</Directory>'),
      flagged: ['Require all granted'],
    },
    {
      name: 'provider names are case-sensitive: Require IP is not a 2.4 provider',
      text: lines('<Directory /srv>', '  Deny from all', '  Require IP 10.1', '</Directory>'),
      flagged: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = findingsOf(c.text, 'mixed-access');
      assert.deepEqual(covered(c.text, fs), c.flagged);
      for (const f of fs) {
        assert.equal(f.severity, 'warning');
        assert.ok(f.related?.length, 'points at the host rules');
      }
    });
  }

  it('says what Satisfy Any does', () => {
    const text = lines('<Directory /srv>', '  Allow from 10.1', '  Satisfy Any', '  Require ip 10.2', '</Directory>');
    assert.match(findingsOf(text, 'mixed-access')[0].message, /Satisfy Any/);
  });
});
