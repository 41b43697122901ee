import assert from 'node:assert/strict';
import { applyFix, covered, findingsOf, lines } from '../support/rules';

describe('rules renamed-directive, obsolete-directive, changed-value', () => {
  const fixes: Array<{ rule: string; before: string; after: string | undefined; flagged: string[] }> = [
    { rule: 'renamed-directive', before: lines('<IfModule mpm_prefork_module>', '    MaxClients          150', '</IfModule>'), after: lines('<IfModule mpm_prefork_module>', '    MaxRequestWorkers   150', '</IfModule>'), flagged: ['MaxClients'] },
    { rule: 'renamed-directive', before: lines('MaxRequestsPerChild 0'), after: lines('MaxConnectionsPerChild 0'), flagged: ['MaxRequestsPerChild'] },
    { rule: 'renamed-directive', before: lines('MaxRequestsPerChild   0'), after: lines('MaxConnectionsPerChild 0'), flagged: ['MaxRequestsPerChild'] },
    { rule: 'renamed-directive', before: lines('maxclients 10'), after: lines('MaxRequestWorkers 10'), flagged: ['maxclients'] },
    { rule: 'renamed-directive', before: lines('MaxRequestWorkers 10', 'MaxConnectionsPerChild 0'), after: undefined, flagged: [] },
    { rule: 'obsolete-directive', before: lines('Listen 80', 'NameVirtualHost *:80', '<VirtualHost *:80>', '</VirtualHost>'), after: lines('Listen 80', '<VirtualHost *:80>', '</VirtualHost>'), flagged: ['NameVirtualHost *:80'] },
    { rule: 'obsolete-directive', before: 'DefaultType text/plain\r\nServerName a\r\n', after: 'ServerName a\r\n', flagged: ['DefaultType text/plain'] },
    { rule: 'changed-value', before: lines('KeepAlive 5'), after: lines('KeepAlive On'), flagged: ['5'] },
    { rule: 'changed-value', before: lines('KeepAlive 0'), after: lines('KeepAlive Off'), flagged: ['0'] },
    { rule: 'changed-value', before: lines('KeepAlive yes'), after: lines('KeepAlive On'), flagged: ['yes'] },
    { rule: 'changed-value', before: lines('KeepAlive off', 'KeepAlive ON'), after: undefined, flagged: [] },
  ];
  for (const c of fixes) {
    it(`${c.rule}: ${JSON.stringify(c.before.split(/\r?\n/)[c.before.includes('IfModule') ? 1 : 0])}`, () => {
      assert.deepEqual(covered(c.before, findingsOf(c.before, c.rule)), c.flagged);
      assert.equal(applyFix(c.before, c.rule), c.after);
    });
  }

  it('2.2-only branches get hints and no fixes', () => {
    const text = lines('<IfVersion < 2.4>', '  NameVirtualHost *:80', '  MaxClients 5', '  KeepAlive 1', '</IfVersion>');
    for (const rule of ['renamed-directive', 'obsolete-directive', 'changed-value']) {
      const fs = findingsOf(text, rule);
      assert.equal(fs.length, 1, rule);
      assert.equal(fs[0].severity, 'hint');
      assert.equal(fs[0].fixes, undefined);
    }
  });
});

describe('removed-directive replacement fixes', () => {
  const cases: Array<{ before: string; after: string | undefined; title?: RegExp }> = [
    { before: 'AcceptMutex fcntl\n', after: undefined },
    { before: 'AcceptMutex fcntl\n', after: 'Mutex fcntl mpm-accept\n', title: /Mutex/ },
    { before: 'RewriteLogLevel 3\n', after: 'LogLevel rewrite:trace3\n' },
    { before: 'RewriteLogLevel 9\n', after: 'LogLevel rewrite:trace8\n' },
    { before: 'ServerName a\nRewriteLogLevel 0\n', after: 'ServerName a\n' },
    { before: 'RewriteLog "/var/log/apache2/rewrite.log"\nServerName a\n', after: 'ServerName a\n' },
    { before: 'SSLMutex default\n', after: 'Mutex default ssl-cache\n' },
    { before: 'SSLMutex file:/var/run/ssl_mutex\n', after: undefined },
    { before: 'SSLMutex file:/var/run/ssl_mutex\n', after: 'Mutex file:/var/run ssl-cache\n', title: /Mutex/ },
    { before: 'LockFile /var/lock/apache2/accept.lock\n', after: 'Mutex file:/var/lock/apache2 mpm-accept\n', title: /Mutex/ },
    { before: 'RewriteLock /var/lock/rewrite.lock\n', after: 'Mutex file:/var/lock rewrite-map\n', title: /Mutex/ },
    { before: 'DumpIOLogLevel debug\n', after: 'LogLevel dumpio:trace7\n' },
  ];
  for (const c of cases) {
    it(`${c.before.trim().split('\n').pop()}${c.title ? ' (offered, not preferred)' : ''}`, () => {
      assert.equal(applyFix(c.before, 'removed-directive', { title: c.title, index: 0 }), c.after);
    });
  }
});
