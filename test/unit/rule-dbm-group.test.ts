import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

describe('rule dbm-group', () => {
  const cases: Array<{ name: string; before: string; flagged: string[]; after?: string }> = [
    {
      name: 'Require group with AuthDBMGroupFile in the same section',
      before: lines('<Directory /srv>', '  AuthType Basic', '  AuthDBMGroupFile /etc/apache2/groups.dbm', '  Require group admins ops', '</Directory>'),
      flagged: ['group'],
      after: lines('<Directory /srv>', '  AuthType Basic', '  AuthDBMGroupFile /etc/apache2/groups.dbm', '  Require dbm-group admins ops', '</Directory>'),
    },
    {
      name: 'group file in an enclosing section',
      before: lines('<VirtualHost *:80>', '  AuthDBMGroupFile /etc/g.dbm', '  <Location /admin>', '    Require group admins', '  </Location>', '</VirtualHost>'),
      flagged: ['group'],
      after: lines('<VirtualHost *:80>', '  AuthDBMGroupFile /etc/g.dbm', '  <Location /admin>', '    Require dbm-group admins', '  </Location>', '</VirtualHost>'),
    },
    {
      name: 'file-group becomes dbm-file-group',
      before: lines('<Directory /srv>', '  AuthDBMGroupFile /etc/g.dbm', '  Require file-group', '</Directory>'),
      flagged: ['file-group'],
      after: lines('<Directory /srv>', '  AuthDBMGroupFile /etc/g.dbm', '  Require dbm-file-group', '</Directory>'),
    },
    {
      name: 'inside a Limit and a RequireAll',
      before: lines('<Directory /srv>', '  AuthDBMGroupFile /etc/g.dbm', '  <Limit POST>', '    <RequireAll>', '      Require group a', '      Require valid-user', '    </RequireAll>', '  </Limit>', '</Directory>'),
      flagged: ['group'],
      after: lines('<Directory /srv>', '  AuthDBMGroupFile /etc/g.dbm', '  <Limit POST>', '    <RequireAll>', '      Require dbm-group a', '      Require valid-user', '    </RequireAll>', '  </Limit>', '</Directory>'),
    },
    {
      name: 'AuthGroupFile only: nothing to do',
      before: lines('<Directory /srv>', '  AuthGroupFile /etc/groups', '  Require group admins', '</Directory>'),
      flagged: [],
    },
    {
      name: 'the DBM file belongs to a sibling section',
      before: lines('<Directory /a>', '  AuthDBMGroupFile /etc/g.dbm', '</Directory>', '<Directory /b>', '  Require group admins', '</Directory>'),
      flagged: [],
    },
    {
      name: 'already dbm-group',
      before: lines('<Directory /srv>', '  AuthDBMGroupFile /etc/g.dbm', '  Require dbm-group admins', '</Directory>'),
      flagged: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(covered(c.before, findingsOf(c.before, 'dbm-group')), c.flagged);
      if (c.after) assert.equal(applyFix(c.before, 'dbm-group'), c.after);
    });
  }

  it('both group files in scope: flagged, fix offered but not preferred', () => {
    const text = lines('<Directory /srv>', '  AuthGroupFile /etc/groups', '  AuthDBMGroupFile /etc/g.dbm', '  Require group admins', '</Directory>');
    const fs = findingsOf(text, 'dbm-group');
    assert.equal(fs.length, 1);
    assert.match(fs[0].message, /both/);
    assert.equal(applyFix(text, 'dbm-group'), undefined);
    assert.equal(applyFix(text, 'dbm-group', { title: /dbm-group/ }), text.replace('Require group', 'Require dbm-group'));
  });
});
