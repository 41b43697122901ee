import { createService } from '../../server/src/service';
// The access rules (invalid-require, dead-require, access-intent) and the cross-section
// mixed-access helper, table-driven: each row lists the findings expected as [kind, line text].
import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { invalidRequireRule } from '../../server/src/rules/invalid-require';
import { deadRequireRule } from '../../server/src/rules/dead-require';
import { accessIntentRule } from '../../server/src/rules/access-intent';
import { crossSectionMixed } from '../../server/src/rules/access-mixed';
import type { Finding, FileContext } from '../../server/src/rules/types';
import { applyEdits } from '../../server/src/syntax';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

interface Row {
  name: string;
  text: string;
  ctx?: FileContext;
  /** [data.kind, the text of the finding's range] */
  want: Array<[string, string]>;
  /** Expected text after applying the first fix of the first finding. */
  fixed?: string;
}

const d = (body: string, p = '/srv') => `<Directory ${p}>\n${body}\n</Directory>\n`;

function run(check: (text: string, ctx: FileContext) => Finding[], rows: Row[]) {
  for (const row of rows) {
    it(row.name, () => {
      const got = check(row.text, row.ctx ?? 'server');
      assert.deepEqual(
        got.map((f) => [(f.data as { kind?: string } | undefined)?.kind ?? '', row.text.slice(f.start, f.end)]),
        row.want,
      );
      for (const f of got) assert.ok(f.message.length > 20, f.message);
      if (row.fixed !== undefined) {
        const fix = got[0].fixes?.[0];
        assert.ok(fix, 'a fix is offered');
        assert.equal(applyEdits(row.text, fix.edits), row.fixed);
      }
    });
  }
}

const viaRule = (rule: { check: (c: { doc: ReturnType<typeof parse>; fileContext: FileContext }) => Finding[] }) => (text: string, ctx: FileContext) =>
  rule.check({ doc: parse(text), fileContext: ctx });

describe('rule invalid-require', () => {
  run(viaRule(invalidRequireRule), [
    { name: 'Require not alone', text: d('  Require not ip 10.1'), want: [['negated-in-or', 'Require not ip 10.1']] },
    {
      name: 'Require not alone: fix wraps it',
      text: d('  Require not ip 10.1'),
      want: [['negated-in-or', 'Require not ip 10.1']],
      fixed: d('  <RequireAll>\n      Require all granted\n      Require not ip 10.1\n  </RequireAll>'),
    },
    { name: 'RequireNone at section level', text: d('  <RequireNone>\n    Require ip 10.1\n  </RequireNone>'), want: [['none-in-or', '<RequireNone>']] },
    { name: 'Require not in RequireAny', text: d('  <RequireAny>\n    Require ip 10.2\n    Require not ip 10.1\n  </RequireAny>'), want: [['negated-in-or', 'Require not ip 10.1']] },
    {
      name: 'AH01624: RequireAll with only negatives, fix adds all granted',
      text: d('  <RequireAll>\n    Require not ip 10.1\n  </RequireAll>'),
      want: [['only-negative', '<RequireAll>']],
      fixed: d('  <RequireAll>\n    Require all granted\n    Require not ip 10.1\n  </RequireAll>'),
    },
    { name: 'AH01624 after flattening RequireNone in RequireAll', text: d('  <RequireAll>\n    <RequireNone>\n      Require ip 10.1\n    </RequireNone>\n  </RequireAll>'), want: [['only-negative', '<RequireAll>']] },
    { name: 'RequireNone inside RequireAll with a positive is fine', text: d('  <RequireAll>\n    Require ip 10.0.0.0/8\n    <RequireNone>\n      Require ip 10.1\n    </RequireNone>\n  </RequireAll>'), want: [] },
    { name: 'empty container', text: d('  <RequireAll>\n  </RequireAll>'), want: [['empty-container', '<RequireAll>']] },
    { name: 'container with arguments', text: d('  <RequireAny x>\n    Require ip 10.1\n  </RequireAny>'), want: [['container-args', '<RequireAny x>']] },
    { name: 'provider case, fixed to lower case', text: d('  Require IP 10.1'), want: [['provider-case', 'IP']], fixed: d('  Require ip 10.1') },
    { name: 'unknown provider is a warning', text: d('  Require frobnicate x'), want: [['provider-unknown', 'frobnicate']] },
    { name: 'Require ip with a host name', text: d('  Require ip example.com'), want: [['require-ip', 'example.com']] },
    { name: 'Require ip with /0', text: d('  Require ip 0.0.0.0/0'), want: [['require-ip', '0.0.0.0/0']] },
    { name: 'Require all with a bad word', text: d('  Require all allowed'), want: [['require-all', 'Require all allowed']] },
    { name: 'Order with a space, fixed', text: d('  Order deny, allow\n  Deny from all'), want: [['order-args', 'Order deny, allow']], fixed: d('  Order deny,allow\n  Deny from all') },
    { name: 'Allow without from', text: d('  Allow 10.1'), want: [['allow-from', 'Allow 10.1']] },
    {
      name: 'inline comment in Allow, moved to its own line',
      text: d('  Order deny,allow\n  Allow from 10.1.2.3 # office'),
      want: [['comment-token', '#']],
      fixed: d('  Order deny,allow\n  # office\n  Allow from 10.1.2.3'),
    },
    { name: 'partial address with a mask', text: d('  Allow from 10.1/16'), want: [['host-token', '10.1/16']] },
    { name: 'TRACE in Limit', text: d('  <Limit TRACE>\n    Require all denied\n  </Limit>'), want: [['limit-trace', 'TRACE']] },
    { name: 'a 2.2-only branch is not read by 2.4', text: '<IfModule !mod_authz_core.c>\n  Order deny, allow\n</IfModule>\n', want: [] },
    { name: 'valid Require lines', text: d('  Require ip 10.1 192.168.0.0/16\n  Require host example.org\n  Require valid-user'), want: [] },
  ]);
});

describe('invalid-require in a .htaccess file: repairs offered, not applied by a migration', () => {
  // httpd answers 500 under the folder while such a line is there (test/httpd/htaccess-repairs.test.ts):
  // the repair changes that, so it is not one of the fixes a migration applies on its own.
  for (const [name, text, kind] of [
    ['Order with a space', 'Order deny, allow\nDeny from all\n', 'order-args'],
    ['a provider in capitals', 'Require IP 10.1\n', 'provider-case'],
  ] as const) {
    it(name, () => {
      const [inServer] = invalidRequireRule.check({ doc: parse(d(text.trimEnd())), fileContext: 'server' }).filter((f) => (f.data as { kind?: string }).kind === kind);
      assert.equal(inServer.fixes?.[0].preferred, true, 'in the server config (httpd does not start) it is the preferred fix');
      const [inHtaccess] = invalidRequireRule.check({ doc: parse(text), fileContext: 'htaccess' }).filter((f) => (f.data as { kind?: string }).kind === kind);
      const fix = inHtaccess.fixes?.[0];
      assert.ok(fix, 'a repair is offered');
      assert.ok(!fix.preferred, 'not preferred');
      assert.match(fix.title, /httpd answers 500 under this folder as the file stands/);
      assert.equal(createService().fixText({ text, uri: 'file:///srv/www/.htaccess', context: 'htaccess' }).text, text, 'fix leaves the file as it is');
    });
  }
});

describe('rule dead-require', () => {
  run(viaRule(deadRequireRule), [
    { name: 'sibling of Require all granted', text: d('  Require all granted\n  Require ip 10.1'), want: [['decided-by-sibling', 'Require ip 10.1']] },
    { name: 'sibling of Require all denied in RequireAll', text: d('  <RequireAll>\n    Require all denied\n    Require ip 10.1\n  </RequireAll>'), want: [['decided-by-sibling', 'Require ip 10.1']] },
    { name: 'duplicate line', text: d('  Require ip 10.1\n  Require ip 10.1'), want: [['duplicate', 'Require ip 10.1']] },
    {
      name: 'a repeat of the deciding line is reported once, as a repeat',
      text: d('  Require all granted\n  <IfModule mod_authz_core.c>\n    Require all granted\n  </IfModule>\n  Require ip 10.1'),
      want: [['duplicate', 'Require all granted'], ['decided-by-sibling', 'Require ip 10.1']],
    },
    { name: 'replaced by a later section for the same directory', text: d('  Require valid-user') + d('  Require all granted'), want: [['replaced', 'Require valid-user']] },
    { name: 'not replaced by AuthMerging And', text: d('  Require valid-user') + d('  AuthMerging And\n  Require ip 10.1'), want: [] },
    { name: 'never read: host rules refuse everyone (Satisfy All)', text: d('  Order deny,allow\n  Deny from all\n  Require valid-user'), want: [['never-consulted', 'Require valid-user']] },
    { name: 'never read: Satisfy Any and hosts let everyone in', text: d('  Order allow,deny\n  Allow from all\n  Satisfy any\n  Require valid-user'), want: [['never-consulted', 'Require valid-user']] },
    { name: 'read when the hosts restrict only some clients', text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1\n  Require valid-user'), want: [] },
    { name: 'a deeper directory is not always reached', text: d('  Require valid-user') + d('  Require all granted', '/srv/sub'), want: [] },
  ]);
});

describe('rule access-intent', () => {
  run(viaRule(accessIntentRule), [
    {
      name: 'Allow under allow,deny + Deny from all never matches; fix switches the order',
      text: d('  Order allow,deny\n  Deny from all\n  Allow from 10.1'),
      want: [['allow-never-matches', 'Allow from 10.1']],
      fixed: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1'),
    },
    { name: 'mutual-failure too', text: d('  Order mutual-failure\n  Allow from 10.1\n  Deny from all'), want: [['allow-never-matches', 'Allow from 10.1']] },
    {
      name: 'Allow without Order has no effect; fix adds Order allow,deny',
      text: d('  Allow from 10.1'),
      want: [['allow-no-effect', 'Allow from 10.1']],
      fixed: d('  Order allow,deny\n  Allow from 10.1'),
    },
    { name: 'Deny under deny,allow + Allow from all has no effect', text: d('  Order deny,allow\n  Allow from all\n  Deny from 10.1'), want: [['deny-no-effect', 'Deny from 10.1']] },
    { name: 'Satisfy Any with no Require lets everyone in', text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1\n  Satisfy any'), want: [['satisfy-any-open', 'Satisfy any']] },
    { name: 'Satisfy Any with Require is fine', text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1\n  Satisfy any\n  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Require valid-user'), want: [] },
    {
      name: 'a Satisfy-only child resets the parent host rules (§7)',
      text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1') + d('  Satisfy any', '/srv/sub'),
      want: [['satisfy-only-resets', 'Satisfy any']],
    },
    {
      name: 'a child with host rules does not inherit Satisfy Any (§7)',
      text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1\n  Satisfy any\n  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Require valid-user') + d('  Order deny,allow\n  Deny from 10.2', '/srv/sub'),
      want: [['satisfy-not-inherited', 'Order deny,allow']],
    },
    { name: 'plain rules are quiet', text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1'), want: [] },
    // A Subversion repository on GitHub (<Location /> with DAV svn): `Satisfy Any`, a password and
    // no host rule, so the password is never asked (httpd: test/httpd/upgrade-fixes.test.ts).
    {
      name: 'Satisfy Any with a password and no host rule: nobody is asked; the fix deletes Satisfy Any',
      text: d('  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Satisfy Any\n  Require valid-user'),
      want: [['satisfy-any-skips-require', 'Satisfy Any']],
      fixed: d('  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Require valid-user'),
    },
    {
      name: 'the same with host rules that let everyone in',
      text: d('  Order allow,deny\n  Allow from all\n  Satisfy any\n  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Require user alice'),
      want: [['satisfy-any-skips-require', 'Satisfy any']],
    },
    { name: 'host rules that refuse some: the password is asked of them', text: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1\n  Satisfy any\n  AuthType Basic\n  AuthName x\n  AuthUserFile /u\n  Require valid-user'), want: [] },
    { name: 'a Require that grants everyone anyway (Thruk)', text: d('  Require all granted\n  <IfModule mod_access_compat.c>\n    Order Deny,Allow\n    Allow from all\n    Satisfy any\n  </IfModule>'), want: [] },
    { name: '.htaccess: AllowOverride note', text: 'Order deny,allow\nDeny from all\n', ctx: 'htaccess', want: [['needs-authconfig', 'Order deny,allow']] },
  ]);
});

describe('crossSectionMixed (mixed-access across sections)', () => {
  run((t, c) => crossSectionMixed({ doc: parse(t), fileContext: c }), [
    {
      name: '§6.1 case (a): Directory host rules gate a Location Require',
      text: d('  Order deny,allow\n  Deny from all', '/') + '<Location /server-status>\n  Require local\n</Location>\n',
      want: [['host-rules-before-require', 'Require local']],
    },
    {
      name: '§6.2 case (b): Location host rules do not lift a Directory Require',
      text: d('  Require all denied', '/') + '<Location /server-status>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1\n</Location>\n',
      want: [['require-still-applies', 'Order deny,allow']],
    },
    {
      name: 'host rules that refuse everyone under a Require: nobody they let in meets it (phpMyAdmin\'s setup/lib)',
      text: d('  Require valid-user', '/usr/share/phpmyadmin/setup') + d('  Order Deny,Allow\n  Deny from All', '/usr/share/phpmyadmin/setup/lib'),
      want: [],
    },
    {
      name: 'the same with `Allow from None` (Fedora\'s phpMyAdmin.conf, in ten files of a GitHub batch): no client is named None',
      text: d('  Require ip 127.0.0.1', '/usr/share/phpMyAdmin') + d('  Order Deny,Allow\n  Deny from All\n  Allow from None', '/usr/share/phpMyAdmin/libraries'),
      want: [],
    },
    {
      name: 'the same with one address let in: it still meets the Require',
      text: d('  Require valid-user', '/usr/share/phpmyadmin/setup') + d('  Order Deny,Allow\n  Deny from All\n  Allow from 10.1', '/usr/share/phpmyadmin/setup/lib'),
      want: [['require-still-applies', 'Order Deny,Allow']],
    },
    {
      name: 'disjoint directories do not meet',
      text: d('  Order deny,allow\n  Deny from all', '/srv/a') + d('  Require valid-user', '/srv/b'),
      want: [],
    },
    {
      name: 'host rules that let everyone in do not gate anything',
      text: d('  Order allow,deny\n  Allow from all', '/') + '<Location /x>\n  Require ip 10.1\n</Location>\n',
      want: [],
    },
  ]);
  it('points at the other section', () => {
    const t = d('  Order deny,allow\n  Deny from all', '/') + '<Location /s>\n  Require local\n</Location>\n';
    const f = crossSectionMixed({ doc: parse(t), fileContext: 'server' });
    assert.equal(f[0].related?.length, 2);
    assert.equal(t.slice(f[0].related![0].start, f[0].related![0].end), 'Order deny,allow');
  });
});

describe('invalid-require: fragments included inside a Require container', () => {
  it('a top-level Require not in a server-context file is information, not an error', () => {
    const text = '# included inside <RequireAll> by the main config\nRequire not ip 192.0.2.1\nRequire not ip 198.51.100.0/24\n';
    const fs = createService().analyze({ text, uri: 'file:///etc/apache2/custom.d/blacklist-ips.conf' }).findings.filter((f) => f.rule === 'invalid-require');
    assert.equal(fs.length, 2);
    assert.deepEqual(fs.map((f) => f.severity), ['information', 'information']);
    assert.match(fs[0].message, /included inside/);
    // One sentence end between httpd's reason and the note (it read "…line).. This file…").
    for (const f of fs) assert.doesNotMatch(f.message, /\.\./);
  });
  it('the note after a reason that ends in a full stop has one full stop', () => {
    const fs = createService().analyze({ text: 'Require all granted\n<RequireNone>\n</RequireNone>\n', uri: 'file:///etc/apache2/conf.d/x.conf' }).findings.filter((f) => f.rule === 'invalid-require');
    assert.ok(fs.some((f) => /This file holds Require lines/.test(f.message)));
    for (const f of fs) assert.doesNotMatch(f.message, /\.\./, f.message);
  });
  it('in an .htaccess file (whose top level is the implicit RequireAny) it stays an error', () => {
    const fs = createService().analyze({ text: 'Require not ip 192.0.2.1\n', uri: 'file:///srv/www/.htaccess' }).findings.filter((f) => f.rule === 'invalid-require');
    assert.deepEqual(fs.map((f) => f.severity), ['error']);
  });
  it('inside a Directory it stays an error', () => {
    const fs = createService().analyze({ text: '<Directory /srv>\n  Require not ip 192.0.2.1\n</Directory>\n' }).findings.filter((f) => f.rule === 'invalid-require');
    assert.deepEqual(fs.map((f) => f.severity), ['error']);
  });
});

describe('dead-require: only what the file proves', () => {
  const L = (...x: string[]) => x.join('\n') + '\n';
  const cases: Array<{ name: string; text: string; dead: string[]; severity?: string }> = [
    {
      name: 'copies in branches that exclude each other are not repeats',
      text: L('<Directory /srv>', '  <IfModule version_module>', '    Require all denied', '  </IfModule>', '  <IfModule !version_module>', '    Require all denied', '  </IfModule>', '</Directory>'),
      dead: [],
    },
    {
      name: 'a real repeat in one section',
      text: L('<Directory /srv>', '  Require ip 10.1', '  Require ip 10.1', '</Directory>'),
      dead: ['Require ip 10.1'],
    },
    {
      name: 'a <Files> pattern does not replace <Directory /> for every request',
      text: L('<Directory />', '  Require all denied', '</Directory>', '<Files ".ht*">', '  Require all denied', '</Files>'),
      dead: [],
    },
    {
      name: 'a later section under <IfDefine X> replaces an earlier one only where X is defined',
      text: L('<Directory /srv>', '  Require ip 10.1', '</Directory>', '<IfDefine X>', '<Directory /srv>', '  Require all granted', '</Directory>', '</IfDefine>'),
      dead: [],
    },
    {
      name: 'a later section with the same path replaces an earlier one',
      text: L('<Directory /srv>', '  Require ip 10.1', '</Directory>', '<Directory /srv>', '  Require all granted', '</Directory>'),
      dead: ['Require ip 10.1'],
    },
    {
      name: 'a Require all granted in the other branch of <IfFile> decides nothing (zoph\'s apache.conf)',
      text: L('<Directory /srv>', '  <IfFile includes/ldap.conf>', '    Require valid-user', '  </IfFile>', '  <IfFile !includes/ldap.conf>', '    Require all granted', '  </IfFile>', '</Directory>'),
      dead: [],
    },
    {
      name: 'the same with a quoted path and <IfDefine>',
      text: L('<Directory /srv>', '  <IfFile "/etc/x">', '    <IfDefine LDAP>', '      Require valid-user', '    </IfDefine>', '  </IfFile>', '  <IfFile !"/etc/x">', '    Require all granted', '  </IfFile>', '</Directory>'),
      dead: [],
    },
    {
      name: 'a Require all granted read by every 2.4 server beside a password: the password never matters (ocsinventory, xymon)',
      text: L('<Location /soap>', '  <IfModule mod_authz_core.c>', '    Require all granted', '  </IfModule>', '  AuthType Basic', '  <IfModule mod_authz_core.c>', '    Require user soap', '  </IfModule>', '</Location>'),
      dead: ['Require user soap'],
    },
    {
      name: 'a later <Location /> with the same Require lines: the line never decides, but no answer changes (a hint: lemonldap-ng\'s manager vhost)',
      text: L('<Directory /srv>', '  <IfVersion >= 2.3>', '    Require all granted', '  </IfVersion>', '</Directory>', '<Location />', '  <IfVersion >= 2.3>', '    Require all granted', '  </IfVersion>', '  <IfModule mod_deflate.c>', '    SetOutputFilter DEFLATE', '  </IfModule>', '</Location>'),
      dead: ['Require all granted'],
      severity: 'hint',
    },
    {
      name: 'a later <Location /> that answers otherwise: a warning',
      text: L('<Directory /srv>', '  Require ip 10.1', '</Directory>', '<Location />', '  Require all granted', '</Location>'),
      dead: ['Require ip 10.1'],
      severity: 'warning',
    },
    {
      name: 'a Require all granted under a later <Location /> password: the password only asks more (a hint: the usual public directory with a password over the site)',
      text: L('<Directory /srv>', '  Require all granted', '</Directory>', '<Location />', '  AuthType Basic', '  AuthName "site"', '  AuthUserFile /srv/.passwd', '  Require valid-user', '</Location>'),
      dead: ['Require all granted'],
      severity: 'hint',
    },
    {
      name: 'a Require all denied under a later <Location /> that grants: a warning (the denial never holds)',
      text: L('<Directory /srv>', '  Require all denied', '</Directory>', '<Location />', '  Require all granted', '</Location>'),
      dead: ['Require all denied'],
      severity: 'warning',
    },
    {
      name: 'user names are compared as written: Bob is not bob',
      text: L('<Directory /srv>', '  Require user Bob', '</Directory>', '<Location />', '  Require user bob', '</Location>'),
      dead: ['Require user Bob'],
      severity: 'warning',
    },
    {
      name: 'host rules guarded by IfModule mod_access_compat.c beside Require: the usual dual setup',
      text: L('<Location /x>', '  Require all granted', '  <IfModule mod_access_compat.c>', '    Order deny,allow', '    Allow from all', '    Satisfy any', '  </IfModule>', '</Location>'),
      dead: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = createService().analyze({ text: c.text }).findings.filter((f) => f.rule === 'dead-require' && f.severity !== 'information');
      assert.deepEqual(fs.map((f) => c.text.slice(f.start, f.end)), c.dead);
      if (c.severity) assert.deepEqual(fs.map((f) => f.severity), c.dead.map(() => c.severity));
    });
  }
});

// `Allow from 127.0.0.1, 10.0.0.5` (GitHub configurations do this): httpd splits the list at
// blanks only, so `127.0.0.1,` is one word, read as a host name (test/httpd/upgrade-fixes.test.ts:
// 127.0.0.1 gets 403 on httpd with mod_access_compat).
describe('access-intent: lists separated by commas', () => {
  const rows: Array<{ name: string; text: string; flagged: string[]; fixed?: string; severity?: string }> = [
    {
      name: 'an address with a comma after it: a host name; the fix separates with blanks',
      text: lines('<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Allow from 127.0.0.1, 10.0.0.5', '</Directory>'),
      flagged: ['127.0.0.1,'],
      fixed: lines('<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Allow from 127.0.0.1 10.0.0.5', '</Directory>'),
    },
    {
      name: 'no blank at all: one word for both',
      text: lines('<Directory /srv>', '  Deny from 10.1.2.3,10.1.2.4', '</Directory>'),
      flagged: ['10.1.2.3,10.1.2.4'],
      fixed: lines('<Directory /srv>', '  Deny from 10.1.2.3 10.1.2.4', '</Directory>'),
    },
    { name: 'a network with a comma: httpd refuses it, invalid-require says so', text: lines('<Directory /srv>', '  Allow from 10.0.0.0/8, 10.1', '</Directory>'), flagged: [] },
    { name: 'an env= word keeps its comma', text: lines('<Directory /srv>', '  Allow from env=a,b', '</Directory>'), flagged: [] },
    { name: 'blanks only: nothing', text: lines('<Directory /srv>', '  Allow from 127.0.0.1 10.0.0.5', '</Directory>'), flagged: [] },
    {
      name: 'in a branch only 2.2 reads: a hint',
      text: lines('<Directory /srv>', '  <IfModule !mod_authz_core.c>', '    Allow from 127.0.0.1, ::1', '  </IfModule>', '</Directory>'),
      flagged: ['127.0.0.1,'],
      severity: 'hint',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'access-intent').filter((f) => /with a comma in it/.test(f.message));
      assert.deepEqual(covered(r.text, fs), r.flagged);
      if (r.severity) assert.equal(fs[0].severity, r.severity);
      if (r.fixed) assert.equal(applyFix(r.text, 'access-intent', { title: /Separate the entries/ }), r.fixed);
    });
  }
});

// hiki's .htaccess (GitHub): `<Files "data/*"> deny from all`. <Files> compares the file's name
// alone, so the pattern matches nothing (httpd answers 200 for data/x.txt: test/httpd/upgrade-fixes).
describe('access-intent: <Files> patterns with a folder in them', () => {
  const rows: Array<{ name: string; text: string; flagged: string[]; ctx?: 'htaccess' }> = [
    { name: 'a folder pattern around a Deny', text: lines('<Files "data/*">', '  deny from all', '</Files>'), flagged: ['"data/*"'], ctx: 'htaccess' },
    { name: 'around a Require, in a Directory', text: lines('<Directory /srv>', '  <Files private/secret.txt>', '    Require all denied', '  </Files>', '</Directory>'), flagged: ['private/secret.txt'] },
    { name: 'a name alone is fine', text: lines('<Files "*.rb">', '  deny from all', '</Files>'), flagged: [], ctx: 'htaccess' },
    { name: 'no access line inside: not this rule\'s', text: lines('<Files "a/b">', '  ForceType text/plain', '</Files>'), flagged: [], ctx: 'htaccess' },
    { name: 'FilesMatch is a regex: left alone', text: lines('<FilesMatch "^data/">', '  deny from all', '</FilesMatch>'), flagged: [], ctx: 'htaccess' },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'access-intent', r.ctx ? { context: r.ctx, uri: 'file:///srv/www/.htaccess' } : {}).filter((f) => /never applies: <Files>/.test(f.message));
      assert.deepEqual(covered(r.text, fs), r.flagged);
    });
  }
});

// phpMyAdmin's upstream file (`Deny from All` / `Allow from None`) and Ganglia's Debian file
// (`Allow from all` / `Deny from none`): `None` is a host name to httpd.
describe('access-intent: None after from', () => {
  const rows: Array<{ name: string; text: string; flagged: string[]; severity?: string }> = [
    { name: 'Allow from None', text: lines('<Directory /srv>', '  Order Deny,Allow', '  Deny from All', '  Allow from None', '</Directory>'), flagged: ['None'], severity: 'information' },
    { name: 'Deny from none', text: lines('<Directory /srv>', '  Order allow,deny', '  Allow from all', '  Deny from none', '</Directory>'), flagged: ['none'], severity: 'information' },
    { name: 'in a branch only 2.2 reads: a hint', text: lines('<Directory /srv>', '  <IfVersion < 2.4>', '    Allow from none', '    Deny from all', '  </IfVersion>', '</Directory>'), flagged: ['none'], severity: 'hint' },
    { name: 'a host that merely contains none', text: lines('<Directory /srv>', '  Allow from nonexistent.example', '</Directory>'), flagged: [] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'access-intent').filter((f) => /is no keyword of/.test(f.message));
      assert.deepEqual(covered(r.text, fs), r.flagged);
      if (r.severity) assert.equal(fs[0].severity, r.severity);
    });
  }
});

// Two `Order` lines in one section (a jsboard vhost from a GitHub batch): httpd keeps the last
// (test/httpd/migration-cases a05-last-order), so the first decides nothing.
describe('access-intent: an Order a later one replaces', () => {
  const rows: Array<{ name: string; text: string; flagged: string[]; severity?: string }> = [
    { name: 'two in a row: the first', text: lines('<Proxy *>', '  Order allow,deny', '  Order deny,allow', '  Allow from all', '</Proxy>'), flagged: ['Order allow,deny'], severity: 'warning' },
    { name: 'one per section: nothing', text: lines('<Directory /a>', '  Order allow,deny', '</Directory>', '<Directory /a>', '  Order deny,allow', '</Directory>'), flagged: [] },
    { name: 'the later under <IfModule> the first is not in: it may not be read, nothing', text: lines('<Directory /a>', '  Order allow,deny', '  <IfModule mod_x.c>', '    Order deny,allow', '  </IfModule>', '</Directory>'), flagged: [] },
    { name: 'the first under an <IfModule>, the later always read: the first', text: lines('<Directory /a>', '  <IfModule mod_x.c>', '    Order deny,allow', '  </IfModule>', '  Order allow,deny', '</Directory>'), flagged: ['Order deny,allow'] },
    { name: 'one inside <Limit GET>: it sets GET only, nothing', text: lines('<Directory /a>', '  Order allow,deny', '  <Limit GET>', '    Order deny,allow', '  </Limit>', '</Directory>'), flagged: [] },
    { name: 'two branches that exclude each other: nothing', text: lines('<Directory /a>', '  <IfModule mod_x.c>', '    Order deny,allow', '  </IfModule>', '  <IfModule !mod_x.c>', '    Order allow,deny', '  </IfModule>', '</Directory>'), flagged: [] },
    { name: 'in a branch only 2.2 reads: a hint', text: lines('<Directory /a>', '  <IfModule !mod_authz_core.c>', '    Order deny,allow', '    Order allow,deny', '  </IfModule>', '</Directory>'), flagged: ['Order deny,allow'], severity: 'hint' },
  ];
  for (const r of rows) {
    it(r.name, () => {
      for (const depth of ['quick', 'full'] as const) {
        const fs = createService().analyze({ text: r.text, depth }).findings.filter((f) => f.rule === 'access-intent' && /has no effect: the `Order`/.test(f.message));
        assert.deepEqual(covered(r.text, fs), r.flagged, depth);
        if (r.severity) assert.equal(fs[0].severity, r.severity);
      }
    });
  }
});
