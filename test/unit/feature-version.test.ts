// newer-than-target: directives and sections newer than the httpd release the configuration targets.
import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { ifVersionHolds, versionFindings } from '../../server/src/features/version';
import { parseHttpdVersion } from '../../server/src/model/project';

describe('features/version: newer-than-target', () => {
  const cases: Array<{ name: string; text: string; target: string; want: string[] }> = [
    { name: '<IfFile> on 2.4.6', text: '<IfFile /etc/x>\nServerName a\n</IfFile>\n', target: '2.4.6', want: ['IfFile@0'] },
    { name: '<IfDirective> and <IfSection> on 2.4.33', text: '<IfDirective Foo>\n</IfDirective>\n<IfSection Bar>\n</IfSection>\n', target: '2.4.33', want: ['IfDirective@0', 'IfSection@2'] },
    { name: '<IfFile> on 2.4.34 (where it arrived)', text: '<IfFile /etc/x>\n</IfFile>\n', target: '2.4.34', want: [] },
    { name: 'a directive: Protocols (2.4.17) on 2.4.6', text: 'Protocols h2 http/1.1\n', target: '2.4.6', want: ['Protocols@0'] },
    { name: 'Protocols on 2.4.17', text: 'Protocols h2 http/1.1\n', target: '2.4.17', want: [] },
    { name: 'target "2.4" means the newest 2.4', text: '<IfFile /x>\n</IfFile>\nProtocols h2\n', target: '2.4', want: [] },
    { name: 'an unparsable target gives nothing', text: 'Protocols h2\n', target: 'latest', want: [] },
    { name: 'a directive without a Compatibility line', text: 'ServerName a\nRequire all granted\n', target: '2.4.1', want: [] },
    { name: 'guarded by <IfVersion >= 2.4.17>', text: '<IfVersion >= 2.4.17>\nProtocols h2\n</IfVersion>\n', target: '2.4.6', want: [] },
    { name: 'not guarded by <IfVersion >= 2.4.0>', text: '<IfVersion >= 2.4.0>\nProtocols h2\n</IfVersion>\n', target: '2.4.6', want: ['Protocols@1'] },
    { name: 'inside <IfVersion !~ ^2\\.4\\.6$>', text: '<IfVersion !~ ^2\\.4\\.6$>\nProtocols h2\n</IfVersion>\n', target: '2.4.6', want: [] },
    { name: 'the section tag inside a guard', text: '<IfVersion > 2.4.33>\n<IfFile /x>\n</IfFile>\n</IfVersion>\n', target: '2.4.6', want: [] },
    { name: 'case-insensitive names', text: 'protocols h2\n', target: '2.4.6', want: ['protocols@0'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const doc = parse(c.text);
      const got = versionFindings(doc, c.target).map((f) => {
        assert.equal(f.rule, 'newer-than-target');
        assert.equal(f.severity, 'warning');
        const word = c.text.slice(f.start, f.end);
        return `${word}@${c.text.slice(0, f.start).split('\n').length - 1}`;
      });
      assert.deepEqual(got, c.want);
    });
  }

  it('says when the directive arrived and what the target is', () => {
    const [f] = versionFindings(parse('<IfFile /x>\n</IfFile>\n'), '2.4.6');
    assert.match(f.message, /2\.4\.34/);
    assert.match(f.message, /2\.4\.6/);
    assert.deepEqual(f.data, { since: '2.4.34', target: '2.4.6' });
  });

  const ifv: Array<[string, string, boolean | undefined]> = [
    ['<IfVersion 2.4.6>', '2.4.6', true],
    ['<IfVersion = 2.4.7>', '2.4.6', false],
    ['<IfVersion < 2.4>', '2.4.6', false],
    ['<IfVersion >= 2.4>', '2.4.6', true],
    ['<IfVersion != 2.4.6>', '2.4.6', false],
    ['<IfVersion /^2\\.4\\.[0-9]$/>', '2.4.6', true],
    ['<IfVersion ~ ^2\\.2>', '2.4.6', false],
    ['<IfVersion ~ ^2\\.2>', '2.4', undefined],
    ['<IfVersion %% 2.4>', '2.4.6', undefined],
  ];
  for (const [tag, target, want] of ifv) {
    it(`${tag} for ${target} → ${want}`, () => {
      const doc = parse(`${tag}\n</IfVersion>\n`);
      assert.equal(ifVersionHolds(doc.sections[0], parseHttpdVersion(target)!), want);
    });
  }
});
