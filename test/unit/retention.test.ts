// The server checks a file again on every keystroke and keeps a few caches across versions (names,
// words, patterns, messages). V8 makes a substring of 13 characters or more a view into the text it
// was cut from, so a cache that kept such a word kept that whole version of the document: typing
// in a large file kept a copy of it per keystroke. After many versions of a 1 MB file and a full
// garbage collection, the heap must not hold the old versions.
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { createService } from '../../server/src/service';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const FILLER = ('# ' + 'x'.repeat(70) + '\n').repeat(14000); // 1 MB of comments
/** Version `i` of the file: the same 1 MB with access lines whose words change each time. */
function version(i: number): string {
  return (
    FILLER +
    `<VirtualHost *:80>\n ServerName site-number-${i}.example.org\n <DirectoryMatch "^/srv/www/site-number-${i}/">\n` +
    `  Order allow,deny\n  Allow from 10.0.${i >> 8}.${i & 255} host-${i}.example.org\n  Deny from 192.168.100.${i & 255}/255.255.255.0\n </DirectoryMatch>\n` +
    ` <Location /private-area-${i}>\n  Require ip 10.20.${i & 255}.0/24\n </Location>\n <FilesMatch "\\.(secret-${i}|private)$">\n  Require all denied\n </FilesMatch>\n` +
    ` <Directory /srv/www/some-directory-${i}>\n  Unknowndirectivename${i} on\n </Directory>\n</VirtualHost>\n`
  );
}

describe('memory: caches keep no old version of a document', () => {
  for (const depth of ['quick', 'full'] as const) {
    it(`60 versions of a 1 MB file, ${depth} pass: the heap grows by less than 15 MB`, () => {
      const service = createService();
      // Warm up once (code, facts, first cache entries), then measure what the versions leave.
      service.analyze({ text: version(100000), uri: 'file:///retention/httpd.conf', context: 'server', depth });
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 60; i++) service.analyze({ text: version(i), uri: 'file:///retention/httpd.conf', context: 'server', depth });
      gc();
      const grown = (process.memoryUsage().heapUsed - before) / 1e6;
      assert.ok(grown < 15, `the heap grew by ${grown.toFixed(1)} MB over 60 versions of a 1 MB file`);
    });
  }
});
