/**
 * The quick pass (what an editor shows at once) and the full pass (with the access engine's
 * request-point checks and exact rewrites): the quick findings are a subset of the full ones,
 * and code actions asked on a quick analysis still carry the exact fixes.
 */
import assert from 'node:assert/strict';
import { Range } from 'vscode-languageserver-types';
import fc from 'fast-check';
import { createService } from '../../server/src/service';

const TEXT = [
  '<Directory />',
  '  Order deny,allow',
  '  Deny from all',
  '</Directory>',
  '<Directory /srv>',
  '  Order allow,deny',
  '  Allow from 10.1.2.3',
  '  Deny from all',
  '</Directory>',
  '<Location /status>',
  '  Require local',
  '</Location>',
  '<Directory /x>',
  '  Require not ip 10.9.9.9',
  '</Directory>',
  '',
].join('\n');

describe('service: quick and full analysis', () => {
  const s = createService();
  const quick = s.analyze({ text: TEXT, depth: 'quick' });
  const full = s.analyze({ text: TEXT });
  const key = (f: { rule: string; start: number; end: number }) => `${f.rule}@${f.start}-${f.end}`;

  it('quick findings are a subset of the full ones', () => {
    const all = new Set(full.findings.map(key));
    for (const f of quick.findings) assert.ok(all.has(key(f)), `${key(f)} missing from the full pass`);
    assert.ok(full.findings.length > quick.findings.length, 'the full pass adds what needs request points');
  });

  it('quick has the cheap access findings: legacy lines and start-up errors', () => {
    assert.equal(quick.findings.filter((f) => f.rule === 'legacy-access').length, 5);
    assert.equal(quick.findings.filter((f) => f.rule === 'invalid-require').length, 1);
    assert.ok(quick.findings.every((f) => f.rule !== 'access-intent'));
    assert.ok(quick.findings.every((f) => !f.fixes?.some((x) => x.preferred) || f.rule !== 'legacy-access'));
  });

  it('code actions on a quick analysis are those of the full one', () => {
    for (let line = 0; line < 15; line++) {
      const r = Range.create(line, 2, line, 2);
      const titles = (a: typeof quick) => s.codeActions(a, r).map((x) => `${x.title}${x.isPreferred ? ' [preferred]' : ''}`);
      assert.deepEqual(titles(quick), titles(full), `line ${line + 1}`);
    }
    const simple = 'Listen 80\n<Directory /srv>\n  Order deny,allow\n  Deny from all\n</Directory>\n';
    const actions = s.codeActions(s.analyze({ text: simple, depth: 'quick' }), Range.create(2, 2, 2, 2));
    assert.ok(actions.some((a) => a.isPreferred && /Require all denied/.test(a.title)), actions.map((a) => a.title).join(' | '));
  });
});

/*
 * The quick pass's start-up checks read a light access model (access/model.ts) that skips what
 * cannot yield a problem: host-rule lines and lone `Require` lines whose text it found sound
 * before (caches shared between analyses, so a file's second pass skips more than its first).
 * Over random files of access sections and lines, valid and not: the quick pass's invalid-require
 * and dead-require findings are the same on the first pass, on a second pass of the same text, and
 * in the full pass, which reads the whole model.
 */
describe('service: the light model of the quick pass, against the full one', () => {
  const LINES = [
    'Require all granted', 'Require all denied', 'Require local', 'Require ip 10.0.0.1', 'Require ip 10.0.0.0/0', 'Require ip db.example',
    'Require valid-user', 'Require user bob', 'Require not ip 10.1.1.1', 'Require not local', 'Require Local', 'Require bogus', 'Require all',
    'Require', 'Require myalias', 'Require all   granted', 'AuthMerging And', 'AuthMerging Sometimes', 'Order allow,deny', 'Allow from all',
    'Deny from 10.0.0.0/255.0.0.0', 'Allow from 300.1.1.1', 'Satisfy Any', 'Options None',
  ];
  const SECTIONS = [
    '<Directory /srv>', '<Location /a>', '<Files x.txt>', '<IfModule mod_authz_core.c>', '<IfModule !mod_authz_core.c>', '<Limit GET>',
    '<LimitExcept POST>', '<RequireAll>', '<RequireAny>', '<RequireNone>', '<VirtualHost *:80>', '<Macro M>', '<RequireAll extra>',
  ];
  const closeOf = (open: string) => `</${open.slice(1).split(/[ >]/)[0]}>`;
  type Tree = { line: string } | { open: string; kids: Tree[] };
  const tree = fc.letrec<{ node: Tree; list: Tree[] }>((t) => ({
    node: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...LINES).map((line) => ({ line })) },
      { weight: 1, arbitrary: fc.record({ open: fc.constantFrom(...SECTIONS), kids: t('list') }) },
    ),
    list: fc.array(t('node'), { maxLength: 4 }),
  })).list;
  const render = (ts: Tree[], indent = ''): string[] =>
    ts.flatMap((n) => ('line' in n ? [indent + n.line] : [indent + n.open, ...render(n.kids, indent + '  '), indent + closeOf(n.open)]));
  const startUp = (a: { findings: Array<{ rule: string; start: number; end: number; message: string }> }) =>
    a.findings.filter((f) => f.rule === 'invalid-require' || f.rule === 'dead-require').map((f) => `${f.rule}@${f.start}-${f.end} ${f.message}`);

  it('a bare Require beside Satisfy Any: the full pass reports the Require, without an internal error', () => {
    // (The full pass's dead-require notes read the first line of a tree that had none.)
    const full = createService().analyze({ text: 'Require\nSatisfy Any\n' });
    assert.deepEqual(full.findings.filter((f) => f.rule === 'invalid-require').map((f) => f.message), ['httpd refuses to start with this line: Require takes at least one argument.']);
  });

  it('the same invalid-require and dead-require findings, first pass, second pass and full pass', () => {
    const s = createService();
    fc.assert(
      fc.property(tree, fc.boolean(), (ts, alias) => {
        const text = [...(alias ? ['<AuthzProviderAlias ldap-group myalias cn=x>', '</AuthzProviderAlias>'] : []), ...render(ts), ''].join('\n');
        const first = startUp(s.analyze({ text, depth: 'quick' }));
        assert.deepEqual(startUp(s.analyze({ text, depth: 'quick' })), first, text);
        const full = s.analyze({ text });
        assert.deepEqual(full.findings.filter((f) => /Internal error/.test(f.message)), [], text);
        const fullStartUp = startUp(full);
        const invalid = (l: string[]) => l.filter((f) => f.startsWith('invalid-require'));
        assert.deepEqual(invalid(first), invalid(fullStartUp), text);
        for (const f of first) assert.ok(fullStartUp.includes(f), `${f} is not in the full pass:\n${text}`);
      }),
      { seed: 2911, numRuns: 1000 },
    );
  });
});
