/**
 * The quick pass (what an editor shows at once) and the full pass (with the access engine's
 * request-point checks and exact rewrites): the quick findings are a subset of the full ones,
 * and code actions asked on a quick analysis still carry the exact fixes.
 */
import assert from 'node:assert/strict';
import { Range } from 'vscode-languageserver-types';
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
