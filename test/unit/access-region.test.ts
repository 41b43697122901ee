/** Paths and `<Directory>` patterns (access/region.ts). */
import assert from 'node:assert/strict';
import { isBelowDir } from '../../server/src/access';

describe('isBelowDir: a path below the folders a <Directory> path names', () => {
  const rows: Array<[string, string, boolean]> = [
    ['/srv/www/a/.htaccess', '/srv/www', true],
    ['/srv/www/a/.htaccess', '/srv/www/', true],
    ['/srv/www', '/srv/www', false],
    ['/srv/wwwx/.htaccess', '/srv/www', false],
    ['/anything', '/', true],
    // Wildcards, part by part: `*` never crosses '/'.
    ['/home/carol/www/priv/.htaccess', '/home/*/www', true],
    ['/home/carol/www/.htaccess', '/home/*/www/', true],
    ['/home/carol/x/www/.htaccess', '/home/*/www', false],
    ['/home/carol/www', '/home/*/www', false],
    ['/home/carol/web/.htaccess', '/home/*/w?b', true],
    ['/home/carol/wxb/.htaccess', '/home/*/w[ae]b', false],
    ['/home/.carol/www/.htaccess', '/home/*/www', true],
  ];
  for (const [p, d, want] of rows) it(`${p} below ${d}: ${want}`, () => assert.equal(isBelowDir(p, d), want));
});
