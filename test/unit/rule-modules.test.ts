import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

describe('rules removed-module, third-party-module, compat-module', () => {
  const cases: Array<{ rule: string; text: string; flagged: string[]; after?: string }> = [
    {
      rule: 'removed-module',
      text: lines('LoadModule disk_cache_module modules/mod_disk_cache.so'),
      flagged: ['LoadModule disk_cache_module modules/mod_disk_cache.so'],
      after: lines('LoadModule cache_disk_module modules/mod_cache_disk.so'),
    },
    {
      rule: 'removed-module',
      text: lines('LoadModule authz_default_module modules/mod_authz_default.so', 'LoadModule authz_host_module modules/mod_authz_host.so'),
      flagged: ['LoadModule authz_default_module modules/mod_authz_default.so'],
      after: lines('LoadModule authz_host_module modules/mod_authz_host.so'),
    },
    { rule: 'removed-module', text: lines('LoadModule mem_cache_module modules/mod_mem_cache.so'), flagged: ['LoadModule mem_cache_module modules/mod_mem_cache.so'] },
    { rule: 'removed-module', text: lines('LoadModule cache_disk_module modules/mod_cache_disk.so', 'LoadModule authn_core_module modules/mod_authn_core.so'), flagged: [] },
    { rule: 'third-party-module', text: lines('LoadModule php5_module modules/libphp5.so', 'LoadModule wsgi_module modules/mod_wsgi.so', 'LoadModule ssl_module modules/mod_ssl.so', 'LoadModule rewrite_module modules/mod_rewrite.so'), flagged: ['php5_module', 'wsgi_module'] },
    { rule: 'third-party-module', text: lines('LoadModule mpm_event_module modules/mod_mpm_event.so', 'LoadModule access_compat_module modules/mod_access_compat.so', 'LoadModule lbmethod_byrequests_module modules/mod_lbmethod_byrequests.so'), flagged: [] },
    {
      rule: 'compat-module',
      text: lines('LoadModule access_compat_module modules/mod_access_compat.so', '<Directory />', '  Require all denied', '</Directory>'),
      flagged: ['LoadModule access_compat_module modules/mod_access_compat.so'],
    },
    { rule: 'compat-module', text: lines('LoadModule access_compat_module modules/mod_access_compat.so', '<Directory />', '  Deny from all', '</Directory>'), flagged: [] },
    { rule: 'compat-module', text: lines('LoadModule access_compat_module modules/mod_access_compat.so', 'IncludeOptional conf.d/*.conf'), flagged: [] },
    // Unloading the module would bring these Require lines into force: not "no longer needed".
    { rule: 'compat-module', text: lines('LoadModule access_compat_module modules/mod_access_compat.so', '<Directory />', '  <IfModule !mod_access_compat.c>', '    Require all denied', '  </IfModule>', '</Directory>'), flagged: [] },
    // A section written for 2.2 and 2.4 alike: every 2.4 server reads the same half.
    {
      rule: 'compat-module',
      text: lines('LoadModule access_compat_module modules/mod_access_compat.so', '<Directory />', '  <IfModule mod_authz_core.c>', '    Require all denied', '  </IfModule>', '  <IfModule !mod_authz_core.c>', '    Deny from all', '  </IfModule>', '</Directory>'),
      flagged: ['LoadModule access_compat_module modules/mod_access_compat.so'],
    },
    { rule: 'compat-module', text: lines('# Depends: authz_core', 'LoadModule access_compat_module /usr/lib/apache2/modules/mod_access_compat.so'), flagged: [] },
  ];
  for (const c of cases) {
    it(`${c.rule}: ${c.text.split('\n')[0]}`, () => {
      assert.deepEqual(covered(c.text, findingsOf(c.text, c.rule)), c.flagged);
      if (c.after !== undefined) assert.equal(applyFix(c.text, c.rule), c.after);
    });
  }
});
