import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';
import { createService } from '../../server/src/service';
import { applyEdits } from '../../server/src/syntax';

describe('rule legacy-access: findings', () => {
  const cases: Array<{ name: string; text: string; flagged: string[]; severity?: string; context?: 'htaccess' }> = [
    {
      name: 'each directive carries its own finding',
      text: lines('<Directory /srv>', '  Order deny,allow', '  Deny from all', '  Allow from 10.1.2.3 192.168', '  Satisfy any', '</Directory>'),
      flagged: ['Order deny,allow', 'Deny from all', 'Allow from 10.1.2.3 192.168', 'Satisfy any'],
      severity: 'warning',
    },
    { name: 'names are case-insensitive', text: lines('<Location />', '  ORDER Allow,Deny', '  allow FROM all', '</Location>'), flagged: ['ORDER Allow,Deny', 'allow FROM all'] },
    { name: 'in .htaccess', text: lines('Order allow,deny', 'Allow from all'), flagged: ['Order allow,deny', 'Allow from all'], context: 'htaccess' },
    { name: 'a continued directive is ranged over its continuation', text: lines('<Directory /srv>', '  Allow from 10.1 \\', '     10.2', '</Directory>'), flagged: ['Allow from 10.1 \\\n     10.2'] },
    { name: 'Require lines are not legacy', text: lines('<Directory /srv>', '  Require all granted', '</Directory>'), flagged: [] },
    { name: 'look-alike names are not legacy', text: lines('AllowOverride None', 'AllowMethods GET', 'DenyWhatever x', 'SatisfyMe 1'), flagged: [] },
    {
      name: 'hint only in <IfModule !mod_authz_core.c>',
      text: lines('<IfModule !mod_authz_core.c>', '  Order allow,deny', '  Allow from all', '</IfModule>'),
      flagged: ['Order allow,deny', 'Allow from all'],
      severity: 'hint',
    },
    { name: 'hint only in <IfModule !authz_core_module>', text: lines('<Directory /x>', '  <IfModule !authz_core_module>', '    Deny from all', '  </IfModule>', '</Directory>'), flagged: ['Deny from all'], severity: 'hint' },
    { name: 'hint only in <IfVersion < 2.3>', text: lines('<IfVersion < 2.3>', '  Deny from all', '</IfVersion>'), flagged: ['Deny from all'], severity: 'hint' },
    { name: 'hint only in <IfVersion < 2.4>', text: lines('<IfVersion < 2.4>', '  Deny from all', '</IfVersion>'), flagged: ['Deny from all'], severity: 'hint' },
    { name: 'hint only in <IfModule mod_authz_default.c>', text: lines('<IfModule mod_authz_default.c>', '  Deny from all', '</IfModule>'), flagged: ['Deny from all'], severity: 'hint' },
    { name: 'still a warning under <IfModule mod_access_compat.c> (2.4 reads it)', text: lines('<IfModule mod_access_compat.c>', '  Deny from all', '</IfModule>'), flagged: ['Deny from all'], severity: 'warning' },
    { name: 'still a warning under <IfVersion >= 2.2>', text: lines('<IfVersion >= 2.2>', '  Deny from all', '</IfVersion>'), flagged: ['Deny from all'], severity: 'warning' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = findingsOf(c.text, 'legacy-access', { context: c.context });
      assert.deepEqual(covered(c.text, fs), c.flagged);
      for (const f of fs) {
        assert.ok(f.tags?.includes('deprecated'));
        if (c.severity) assert.equal(f.severity, c.severity);
      }
    });
  }

  it('a hint inside a 2.2-only branch stays a hint even when the user raises the rule to error', () => {
    const s = createService({ rules: { 'legacy-access': 'error' } });
    const a = s.analyze({ text: lines('<IfModule !mod_authz_core.c>', '  Deny from all', '</IfModule>', 'Deny from all') });
    assert.deepEqual(a.findings.filter((f) => f.rule === 'legacy-access').map((f) => f.severity), ['hint', 'error']);
  });

  it('no fixes are offered inside 2.2-only branches', () => {
    const fs = findingsOf(lines('<IfModule !mod_authz_core.c>', '  Order allow,deny', '  Allow from all', '</IfModule>'), 'legacy-access');
    assert.ok(fs.every((f) => !f.fixes?.length));
  });

  it('disable comment silences one directive only', () => {
    const text = lines('<Directory /srv>', '  # apacheconf-disable-next-line legacy-access', '  Order deny,allow', '  Deny from all', '</Directory>');
    assert.deepEqual(covered(text, findingsOf(text, 'legacy-access')), ['Deny from all']);
  });

  // The mark in any case and spacing silences; a comment that only starts like it, or another word, does not.
  for (const [mark, silenced] of [
    ['# apacheconf-disable-next-line legacy-access', true],
    ['#APACHECONF-Disable-Next-Line legacy-access', true],
    ['#  \tApacheConf-disable-next-line', true],
    ['# apacheconf-disable-next-line', true],
    ['# apacheconf-disable-next-lines legacy-access', false],
    ['# apacheconf_disable-next-line legacy-access', false],
    ['# apacheconf-disable legacy-access', false],
    ['# Access for the office network.', false],
  ] as const) {
    it(`a comment ${JSON.stringify(mark)} ${silenced ? 'silences' : 'does not silence'} the next line`, () => {
      const text = lines('<Directory /srv>', '  ' + mark, '  Order deny,allow', '  Deny from all', '</Directory>');
      assert.deepEqual(covered(text, findingsOf(text, 'legacy-access')), silenced ? ['Deny from all'] : ['Order deny,allow', 'Deny from all']);
    });
  }
});

describe('rule legacy-access: messages (shared between lines of the same text)', () => {
  const ONLY22 = 'only httpd 2.2 reads this branch; 2.4 skips it.';
  const cases: Array<{ name: string; text: string; lines: Array<{ words: string; only22: boolean }> }> = [
    {
      name: 'the same line inside a 2.2-only branch, then outside it',
      text: lines('<IfModule !mod_authz_core.c>', '  Deny from all', '</IfModule>', 'Deny from all'),
      lines: [{ words: 'Deny from all', only22: true }, { words: 'Deny from all', only22: false }],
    },
    {
      name: 'outside first, then inside',
      text: lines('Deny from all', '<IfVersion < 2.3>', '  Deny from all', '</IfVersion>'),
      lines: [{ words: 'Deny from all', only22: false }, { words: 'Deny from all', only22: true }],
    },
    {
      name: 'each line names its own words',
      text: lines('<Directory /a>', '  Allow from 10.1.2.3', '</Directory>', '<Directory /b>', '  Allow from 10.9.9.9', '  ALLOW from 10.9.9.9', '</Directory>'),
      lines: [{ words: 'Allow from 10.1.2.3', only22: false }, { words: 'Allow from 10.9.9.9', only22: false }, { words: 'Allow from 10.9.9.9', only22: false }],
    },
    {
      name: 'a line of 2,000 addresses is quoted up to 80 characters',
      text: lines('<Directory /a>', '  Deny from ' + Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(' '), '</Directory>'),
      lines: [{ words: 'Deny from 10.0.0.0 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6 …', only22: false }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      for (const depth of ['quick', 'full'] as const) {
        // Twice: the second analysis meets the messages the first one made.
        for (let round = 0; round < 2; round++) {
          const a = createService().analyze({ text: c.text, depth });
          const fs = a.findings.filter((f) => f.rule === 'legacy-access');
          assert.equal(fs.length, c.lines.length);
          fs.forEach((f, i) => {
            const want = c.lines[i];
            assert.ok(f.message.startsWith('`' + want.words + '`'), `${depth}: ${f.message}`);
            assert.equal(f.message.includes(ONLY22), want.only22, `${depth}: ${f.message}`);
            assert.equal(f.severity, want.only22 ? 'hint' : 'warning');
            assert.ok(f.message.indexOf('`', 1) <= 81, 'the quoted line is at most 80 characters');
            // No data: the editor receives thousands of these on every change, and no client needs it.
            assert.equal(f.data, undefined);
          });
        }
      }
    });
  }
});

describe('rule legacy-access: exact fixes (spec §8.5 rows 1–4, nothing interfering)', () => {
  const cases: Array<{ name: string; before: string; after: string }> = [
    {
      name: 'deny all',
      before: lines('<Directory /srv>', '    Order deny,allow', '    Deny from all', '</Directory>'),
      after: lines('<Directory /srv>', '    Require all denied', '</Directory>'),
    },
    {
      name: 'allow all, comment kept',
      before: lines('<Directory /srv>', '  # open to all', '  Order allow,deny', '  Allow from all', '</Directory>'),
      after: lines('<Directory /srv>', '  # open to all', '  Require all granted', '</Directory>'),
    },
    {
      name: 'deny,allow + Deny from all + Allow from an address',
      before: lines('<Location /status>', '\tOrder deny,allow', '\tDeny from all', '\tAllow from 127.0.0.1', '</Location>'),
      after: lines('<Location /status>', '\tRequire ip 127.0.0.1', '</Location>'),
    },
    {
      name: 'allow,deny + Allow from a network (CRLF kept)',
      before: '<Directory /srv>\r\n  Order allow,deny\r\n  Allow from 10.1.0.0/16\r\n</Directory>\r\n',
      after: '<Directory /srv>\r\n  Require ip 10.1.0.0/16\r\n</Directory>\r\n',
    },
  ];
  // A whole configuration: httpd runs no file without a Listen line, and one without it is planned
  // as a file another includes (access-included.test.ts), whose main file may set access before it.
  const whole = (t: string) => (t.includes('\r\n') ? 'Listen 80\r\n' : 'Listen 80\n') + t;
  for (const c of cases) {
    it(c.name, () => {
      const before = whole(c.before);
      for (let i = 0; i < findingsOf(before, 'legacy-access').length; i++) {
        assert.equal(applyFix(before, 'legacy-access', { index: i }), whole(c.after), `fix offered on finding ${i}`);
      }
      assert.equal(createService().fixText({ text: before }).text, whole(c.after), 'fix all');
    });
    it(`${c.name}, in a file with no Listen line: the rewrite holds under any main file, or it is offered, not preferred`, () => {
      const fixed = createService().fixText({ text: c.before }).text;
      if (fixed === c.after) return;
      for (const f of findingsOf(c.before, 'legacy-access')) {
        assert.ok(!(f.fixes ?? []).some((x) => x.preferred && applyEdits(c.before, x.edits) === c.after), f.message);
        if (fixed === c.before) assert.match(f.message, /no `Listen` line and includes no other file/);
      }
    });
  }

  const refused: Array<{ name: string; text: string }> = [
    {
      name: 'an inherited Require all denied (distribution style) still applies',
      text: lines('<Directory />', '  Require all denied', '</Directory>', '<Directory /srv>', '  Order allow,deny', '  Allow from all', '</Directory>'),
    },
  ];
  for (const c of refused) {
    it(`no naive bare rewrite when ${c.name}`, () => {
      const fixed = createService().fixText({ text: c.text }).text;
      // Whatever the engine does, it must not open the directory with a bare `Require all granted` under AuthMerging Off.
      assert.ok(!/<Directory \/srv>\n  Require all granted\n<\/Directory>/.test(fixed), fixed);
    });
  }
});

// A server config that includes files not read with it (found by a black-box run against httpd):
// the included files' sections may set access for the same requests (`<Location /sub>` with
// `Require all granted` made a rewrite of the directory's `Deny from` answer 200 where the
// original answered 403), and their own host rules keep httpd from starting without
// mod_access_compat. The rewrite stays on offer, not preferred, and the message says why.
describe('rule legacy-access: a file with Include lines, read alone', () => {
  const body = lines('<Directory /srv/www>', '    Order deny,allow', '    Deny from 127.0.0.2', '</Directory>');
  const rows: Array<{ name: string; text: string; exact: boolean }> = [
    { name: 'Include after the section', text: body + lines('Include /etc/httpd/extra/*.conf'), exact: false },
    { name: 'IncludeOptional before it', text: lines('IncludeOptional conf.d/*.conf') + body, exact: false },
    { name: 'an Include only httpd 2.2 reads does not count', text: lines('<IfVersion < 2.4>', '  Include old/*.conf', '</IfVersion>') + body, exact: true },
    { name: 'no Include', text: body, exact: true },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'legacy-access');
      assert.ok(fs.length >= 2);
      for (const f of fs) {
        const preferred = (f.fixes ?? []).filter((x) => x.preferred);
        assert.equal(preferred.length, r.exact ? 1 : 0, f.message);
        if (!r.exact) {
          assert.match(f.message, /includes other files \(`(Include|IncludeOptional) [^`]+` \(line \d+\)\) that were not read with it/);
          assert.ok((f.fixes ?? []).some((x) => /exact only if the included files set no access/.test(x.title)));
        }
      }
      assert.equal(createService().fixText({ text: r.text }).text !== r.text, r.exact, 'fix all applies only exact rewrites');
    });
  }
});

// httpd refuses a file whose section tags do not pair up, so there is nothing to keep, and the
// nesting the tree guesses may not be the author's. (A file of 50,000 unclosed sections, each in
// the last, also took two minutes to fix when every rewrite was checked.)
describe('rule legacy-access: section tags that do not pair up', () => {
  const body = lines('<Directory /srv/www>', '    Order deny,allow', '    Deny from 127.0.0.2', '</Directory>');
  const rows: Array<{ name: string; text: string; exact: boolean }> = [
    { name: 'an unclosed section after it', text: body + lines('<Location /x>', '    Require all granted') },
    { name: 'a stray closing tag before it', text: lines('</Files>') + body },
    { name: 'a tag closed by the wrong name', text: lines('<Files a>', '    Order deny,allow', '    Deny from all', '</Directory>') },
    { name: 'deep nesting, never closed', text: Array.from({ length: 3000 }, (_, i) => `<Directory /d${i}>\n  Order deny,allow\n`).join('') },
    { name: 'tags that pair up', text: body, exact: true },
  ].map((r) => ({ exact: false, ...r }));
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'legacy-access');
      assert.ok(fs.length >= 1);
      for (const [i, f] of fs.entries()) {
        assert.equal((f.fixes ?? []).filter((x) => x.preferred).length, r.exact ? 1 : 0, f.message);
        // (Past the nesting the engine models, lines get no plan at all; the syntax rule says so.)
        if (!r.exact && i < 100) assert.match(f.message, /No exact rewrite is offered: httpd cannot read this file as it stands \([^)]*(\(line \d+\))?[^)]*\), so there is no behaviour to keep .*; fix the section tags first\./);
      }
      assert.equal(createService().fixText({ text: r.text }).text !== r.text, r.exact, 'fix all applies only exact rewrites');
    });
  }
});

describe('rule legacy-access: <IfModule> names httpd never finds', () => {
  // apache2 -t with mod_mime loaded: `<IfModule mime_module>` and `<IfModule mod_mime.c>` hold,
  // `mod_mime`, `MOD_MIME.C` and `mime_module.c` never do.
  const rows: Array<{ test: string; severity: string; says: RegExp }> = [
    { test: 'mod_access_compat', severity: 'hint', says: /no httpd reads this branch \(`<IfModule mod_access_compat>` names no module/ },
    { test: 'MOD_ACCESS_COMPAT.C', severity: 'hint', says: /no httpd reads this branch/ },
    { test: 'access_compat_module.c', severity: 'hint', says: /no httpd reads this branch/ },
    { test: '!mod_authz_core', severity: 'warning', says: /is 2\.2 access control/ },
    { test: 'mod_access_compat.c', severity: 'warning', says: /is 2\.2 access control/ },
    { test: '!mod_authz_core.c', severity: 'hint', says: /only httpd 2\.2 reads this branch/ },
    // httpd 2.0's names, which 2.1 replaced (Ampache's config/.htaccess guards its 2.2 half with
    // `<IfModule mod_access.c>`): no 2.2 or 2.4 server has them.
    { test: 'mod_access.c', severity: 'hint', says: /no httpd since 2\.0 reads this branch: `<IfModule mod_access\.c>` names httpd 2\.0's mod_access\.c, which 2\.2 replaced with mod_authz_host/ },
    { test: 'access_module', severity: 'hint', says: /names httpd 2\.0's access_module, which 2\.2 replaced with mod_authz_host/ },
    { test: 'mod_auth.c', severity: 'hint', says: /names httpd 2\.0's mod_auth\.c, which 2\.2 replaced with mod_auth_basic, mod_authn_file and mod_authz_user/ },
    // And so every server reads the negated test: 2.4 with the compatibility module sees host rules.
    { test: '!mod_access.c', severity: 'warning', says: /is 2\.2 access control/ },
  ];
  for (const r of rows) {
    it(`<IfModule ${r.test}>`, () => {
      const fs = findingsOf(lines('<Directory /srv>', `  <IfModule ${r.test}>`, '    Order deny,allow', '    Deny from all', '  </IfModule>', '</Directory>'), 'legacy-access');
      assert.equal(fs.length, 2);
      for (const f of fs) {
        assert.equal(f.severity, r.severity);
        assert.match(f.message, r.says);
      }
    });
  }
});

// A module test read before the configuration loads that module (a second black-box run, httpd:
// `<IfModule mod_access_compat.c>` above `LoadModule access_compat_module` does not hold, so its
// host rules were never read; the rewrite made them count: 200 became 403).
describe('rule legacy-access: a module test before its LoadModule', () => {
  const LOAD = 'LoadModule access_compat_module modules/mod_access_compat.so\nLoadModule authz_core_module modules/mod_authz_core.so\n';
  const BODY = (test: string) => `<Directory /srv/www>\n  <${test}>\n    Order allow,deny\n    Allow from 127.0.0.3\n  </${test.split(' ')[0]}>\n</Directory>\n`;
  // (A whole configuration: with no Listen line the file is planned as one another includes.)
  const rows: Array<{ name: string; text: string; preferred: boolean; severity: string }> = [
    { name: 'IfModule before the load: no rewrite', text: 'Listen 80\n' + BODY('IfModule mod_access_compat.c') + LOAD, preferred: false, severity: 'warning' },
    { name: 'IfDirective before the load: no rewrite', text: 'Listen 80\n' + BODY('IfDirective Order') + LOAD, preferred: false, severity: 'warning' },
    { name: 'a ! test before the load is read by 2.4: a warning, not a 2.2-only hint', text: 'Listen 80\n' + BODY('IfModule !mod_authz_core.c') + LOAD, preferred: false, severity: 'warning' },
    { name: 'the same test after the load: rewritten', text: 'Listen 80\n' + LOAD + BODY('IfModule mod_access_compat.c'), preferred: true, severity: 'warning' },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'legacy-access');
      assert.equal(fs.length, 2);
      for (const f of fs) {
        assert.equal(f.severity, r.severity);
        assert.equal((f.fixes ?? []).some((x) => x.preferred), r.preferred, f.message);
      }
    });
  }
});

describe('rule legacy-access: --mode intent', () => {
  it('prefers the naive mapping where it differs, and the exact one stays on offer', () => {
    // allow,deny + Deny from all + Allow from X denies X too (spec §2.4); the naive mapping lets X in.
    const text = lines('<Directory /srv>', '  Order allow,deny', '  Allow from 10.1.2.3', '  Deny from all', '</Directory>');
    const preserve = createService().fixText({ text }).text;
    const intent = createService({ mode: 'intent' }).fixText({ text }).text;
    assert.match(preserve, /Require all denied/);
    assert.match(intent, /Require ip 10\.1\.2\.3/);
    assert.doesNotMatch(intent, /Order|Deny|Allow/);
  });

  // debian-edu-config's site: `Require all denied` beside `Allow from 127.0.0.0/255.0.0.0 ::1/128`.
  // The naive mapping was `<RequireAll>` of both, which refuses everyone as the section's own line
  // does, and which dead-require then flagged; when the section's own Require settles the answer
  // (refuses everyone under Satisfy All, lets everyone in under Satisfy Any), it is all there is.
  const settled: Array<{ name: string; text: string; want: string }> = [
    { name: 'Require all denied under Satisfy All', text: lines('<Directory /srv>', '  Require all denied', '  Allow from 127.0.0.0/255.0.0.0 ::1/128', '</Directory>'), want: lines('<Directory /srv>', '  Require all denied', '</Directory>') },
    { name: 'Require all granted under Satisfy Any', text: lines('<Directory /srv>', '  Require all granted', '  Order deny,allow', '  Deny from all', '  Allow from 10.1', '  Satisfy Any', '</Directory>'), want: lines('<Directory /srv>', '  Require all granted', '</Directory>') },
  ];
  for (const c of settled) {
    it(`the section's own line settles it: ${c.name}`, () => {
      for (const mode of ['intent', 'preserve'] as const) {
        const out = createService({ mode }).fixText({ text: c.text }).text;
        assert.equal(out, c.want, mode);
      }
    });
  }
});

describe('rule legacy-access: what a .htaccess directory inherits, as declared (--inherited)', () => {
  const text = 'Order deny,allow\nDeny from all\nAllow from 10.1\nSatisfy any\n';
  const rows = [
    { inherited: undefined, preferred: false, says: /No exact rewrite is offered: this \.htaccess file does not show/ },
    { inherited: 'require', preferred: true, says: /exact on the terms declared \(inherited: require\): the directory inherits a 2\.4 `Require`/ },
    // Satisfy Any without a Require of its own: with nothing inherited, everyone gets in today.
    { inherited: 'none', preferred: false, says: /with none, `Satisfy Any` lets everyone in today/ },
  ] as const;
  for (const row of rows) {
    it(`inherited ${row.inherited ?? '(not declared)'}: the form is ${row.preferred ? '' : 'not '}preferred`, () => {
      const a = createService(row.inherited ? { inherited: row.inherited } : {}).analyze({ text, uri: 'file:///site/.htaccess' });
      const f = a.findings.find((x) => x.rule === 'legacy-access')!;
      assert.match(f.message, row.says);
      const form = f.fixes!.find((x) => /AuthMerging Or/.test(x.title))!;
      assert.equal(form.preferred === true, row.preferred);
      if (row.preferred) assert.match(form.title, /\(exact for a directory that inherits a 2\.4 `Require`\)$/);
      else assert.match(form.title, /\(check the server config first\)$/);
    });
  }
});

// httpd refuses host rules at server level and in a <VirtualHost> body ("order not allowed here",
// "deny not allowed in <VirtualHost> context": test/httpd/server-level.test.ts). No rewrite is
// planned there; the finding says where the lines belong and how to have the file read there.
describe('rule legacy-access: host rules at the top level of a server or virtual host file', () => {
  const body = lines('# the bot list, included inside a <Directory>', 'Order deny,allow', 'Deny from 127.0.0.2', 'Allow from all');
  const rows: Array<{ name: string; text: string; context?: 'vhost' | 'directory'; says: RegExp; fixes: boolean }> = [
    {
      name: 'a file with no Listen line: most likely included inside a section',
      text: body,
      says: /at the top level of a server configuration \(it stops at the first with "… not allowed here"\), so this file is most likely included inside a `<Directory>` or `<Location>`\. Give the main file that includes it \(`apacheconf fix --root`.*`--context directory`/,
      fixes: false,
    },
    { name: 'a main file (Listen): move the lines', text: lines('Listen 80') + body, says: /at the top level of a server configuration .*: move these lines into the `<Directory>` or `<Location>` they are meant for\.$/, fixes: false },
    { name: 'a virtual host body: move the lines', text: body, context: 'vhost', says: /in the body of a `<VirtualHost>` \(it stops at the first with "… not allowed in <VirtualHost> context"\): move these lines/, fixes: false },
    { name: 'the same file read as a <Directory> body gets its rewrite on offer', text: body, context: 'directory', says: /read inside a `<Directory>`/, fixes: true },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const fs = findingsOf(r.text, 'legacy-access', { context: r.context });
      assert.equal(fs.length, 3);
      for (const f of fs) {
        assert.match(f.message, r.says);
        assert.equal((f.fixes ?? []).length > 0, r.fixes, f.message);
        assert.equal((f.fixes ?? []).some((x) => x.preferred), false);
      }
    });
  }
});
