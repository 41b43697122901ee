// compat-switch: access lines whose reading depends on mod_access_compat itself.
import assert from 'node:assert/strict';
import { covered, findingsOf, lines } from '../support/rules';

describe('rule compat-switch', () => {
  const cases: Array<{ name: string; text: string; flagged: string[]; says?: RegExp }> = [
    {
      name: 'a Require only a server without the module reads comes into force when it goes',
      text: lines('<Location /x>', '  <IfModule !mod_access_compat.c>', '    Require ip 10.1', '  </IfModule>', '</Location>'),
      flagged: ['Require ip 10.1'],
      says: /read only once mod_access_compat is unloaded \(`<IfModule !mod_access_compat.c>` \(line 2\)\)/,
    },
    {
      name: 'a Require only a server with the module reads stops applying when it goes',
      text: lines('<Location /x>', '  <IfModule mod_access_compat.c>', '    Require valid-user', '    AuthType Basic', '  </IfModule>', '</Location>'),
      flagged: ['Require valid-user', 'AuthType Basic'],
      says: /read only while mod_access_compat is loaded/,
    },
    {
      name: 'host rules under <IfModule mod_access_compat.c> are legacy-access\'s, not repeated',
      text: lines('<Directory /srv>', '  Require all granted', '  <IfModule mod_access_compat.c>', '    Order allow,deny', '    Allow from all', '  </IfModule>', '</Directory>'),
      flagged: [],
    },
    {
      name: '<IfDirective !Order> tells the servers apart too',
      text: lines('<IfDirective !Order>', '  <Location /x>', '    Require all denied', '  </Location>', '</IfDirective>'),
      flagged: ['Require all denied'],
    },
    {
      name: 'a file written for 2.2 and 2.4 alike: both 2.4 servers read the same half',
      text: lines('<Directory /srv>', '  <IfModule mod_authz_core.c>', '    Require all granted', '  </IfModule>', '  <IfModule !mod_authz_core.c>', '    Order allow,deny', '    Allow from all', '  </IfModule>', '</Directory>'),
      flagged: [],
    },
    {
      name: 'lines that do not decide access are left alone',
      text: lines('<IfModule !mod_access_compat.c>', '  Header set X-A 1', '  ServerSignature Off', '</IfModule>'),
      flagged: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = findingsOf(c.text, 'compat-switch');
      assert.deepEqual(covered(c.text, fs), c.flagged);
      if (c.says) assert.match(fs[0].message, c.says);
    });
  }
});
