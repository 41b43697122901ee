// planMigration / migrateText: the text each exact rewrite produces, and when none is offered.
import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { migrateText, planMigration } from '../../server/src/access';

interface Row {
  name: string;
  input: string;
  /** The text after migrateText; null = no exact rewrite for any section. */
  output: string | null;
  ctx?: 'server' | 'vhost' | 'htaccess' | 'directory';
}

const d = (body: string, path = '/srv/a') => `<Directory "${path}">\n${body}</Directory>\n`;

const ROWS: Row[] = [
  { name: '§8.5 row 1: deny,allow + Deny from all', input: d('    Order deny,allow\n    Deny from all\n'), output: d('    Require all denied\n') },
  { name: '§8.5 row 2: allow,deny + Allow from all', input: d('  Order allow,deny\n  Allow from all\n'), output: d('  Require all granted\n') },
  {
    name: '§8.5 row 3: deny,allow + Deny all + Allow X',
    input: d('  Order Deny,Allow\n  Deny from all\n  Allow from 10.1.2.3 192.168.0.0/16\n'),
    output: d('  Require ip 10.1.2.3 192.168.0.0/16\n'),
  },
  {
    name: '§8.5 row 4: allow,deny + Allow X (host)',
    input: d('\tOrder allow,deny\n\tAllow from localhost\n'),
    output: d('\tRequire host localhost\n'),
  },
  {
    name: 'CRLF and comments are kept',
    input: '<Directory /x>\r\n  # office only\r\n  Order allow,deny\r\n  Allow from 10.1\r\n</Directory>\r\n',
    output: '<Directory /x>\r\n  # office only\r\n  Require ip 10.1\r\n</Directory>\r\n',
  },
  {
    name: 'two disjoint directories are both rewritten',
    input: d('  Order allow,deny\n  Allow from all\n', '/srv/a') + d('  Order deny,allow\n  Deny from all\n', '/srv/b'),
    output: d('  Require all granted\n', '/srv/a') + d('  Require all denied\n', '/srv/b'),
  },
  {
    name: 'nested compat-only directories: each takes its own T(C) with AuthMerging Off',
    input: d('  Order deny,allow\n  Deny from all\n', '/') + d('  Order allow,deny\n  Allow from all\n', '/srv/x'),
    output: d('  Require all denied\n', '/') + d('  Require all granted\n', '/srv/x'),
  },
  {
    name: '§6.1 case (a): a later Location with only Require gets AuthMerging And (remedy B)',
    input: d('  Order deny,allow\n  Deny from all\n', '/') + '<Location /status>\n  Require local\n</Location>\n',
    output: d('  Require all denied\n', '/') + '<Location /status>\n  AuthMerging And\n  Require local\n</Location>\n',
  },
  {
    name: '§8.5 exp12: an inherited plain Require all denied stays in force (AuthMerging And)',
    input: d('  Require all denied\n', '/') + d('  Order allow,deny\n  Allow from all\n', '/srv/x'),
    output: d('  Require all denied\n', '/') + d('  AuthMerging And\n  Require all granted\n', '/srv/x'),
  },
  {
    name: 'a comment token is refused by httpd: no rewrite',
    input: d('  Order deny,allow\n  Deny from all\n  Allow from 10.1.2.3 # office\n'),
    output: null,
  },
  { name: '.htaccess: the parent rules are unknown', input: 'Order deny,allow\nDeny from all\n', output: null, ctx: 'htaccess' },
];

describe('access plan: single-section rewrites (§8.5 rows 1–4)', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const ctx = row.ctx ?? 'server';
      const { text, plan } = migrateText(row.input, ctx);
      if (row.output === null) {
        assert.equal(text, row.input);
        assert.ok(plan.sections.length > 0);
        for (const sp of plan.sections) {
          assert.equal(sp.exact, undefined);
          assert.ok(sp.reason && sp.reason.length > 10, 'a reason is given');
        }
      } else {
        assert.equal(text, row.output);
        // Idempotent: a migrated text has nothing left to migrate.
        assert.equal(migrateText(text, ctx).text, text);
        assert.equal(planMigration(parse(text), ctx).sections.length, 0);
      }
    });
  }
});
