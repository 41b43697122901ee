// Rule `syntax`: what the parser could not place, and nesting too deep to analyse. A file that does
// not parse is never reported clean.
import assert from 'node:assert/strict';
import { MAX_ANALYSED_NESTING } from '../../server/src/access/model';
import { createService } from '../../server/src/service';
import { covered, findingsOf, lines } from '../support/rules';

const nest = (n: number, body: string) => '<IfModule m>\n'.repeat(n) + body + '</IfModule>\n'.repeat(n);

describe('rule syntax', () => {
  const cases: Array<{ name: string; text: string; flagged: string[]; kinds: string[] }> = [
    { name: 'a clean file', text: lines('<Directory /srv>', '  Require all granted', '</Directory>'), flagged: [], kinds: [] },
    { name: 'an unclosed section', text: lines('<Directory /srv>', '  Require all granted'), flagged: ['<Directory /srv>'], kinds: ['unclosed-section'] },
    { name: 'a stray close tag', text: lines('Listen 80', '</Directory>'), flagged: ['</Directory>'], kinds: ['stray-close'] },
    { name: 'a mismatched close tag', text: lines('<Files a>', '</Location>'), flagged: ['</Location>', '<Files a>'], kinds: ['unclosed-section', 'stray-close'] },
    { name: 'a NUL byte', text: 'Listen 80\u0000\n', flagged: ['\u0000'], kinds: ['binary'] },
    // httpd 2.4.71 refuses it: "Invalid command '\xef\xbb\xbfServerName'" (before a comment or a blank line too).
    { name: 'a byte order mark', text: '\uFEFFServerName x\n', flagged: ['\uFEFF'], kinds: ['bom'] },
    { name: 'a byte order mark before a comment', text: '\uFEFF# x\nListen 80\n', flagged: ['\uFEFF'], kinds: ['bom'] },
    // httpd -t: "<IfModule> directive requires additional arguments" (a WordPress plugin's uploads/.htaccess, gh5 batch).
    { name: 'a section without the argument it needs', text: lines('<ifmodule>', '  Deny from all', '</ifmodule>'), flagged: ['<ifmodule>'], kinds: ['missing-argument'] },
    { name: 'a Directory tag with only blanks after its name', text: lines('<Directory >', '</Directory>'), flagged: ['<Directory >'], kinds: ['missing-argument'] },
    { name: 'sections that take no argument: <Proxy> (httpd accepts it bare) and <Else>', text: lines('<Proxy>', '</Proxy>', '<If "true">', '</If>', '<Else>', '</Else>'), flagged: [], kinds: [] },
    // Akismet's .htaccess as committed in a plugin repository (gh6 batch): httpd -t refuses each marker line.
    {
      name: 'merge-conflict markers: each marker, not the parser\'s words for the <<<<<<< line',
      text: lines('<<<<<<< HEAD', '<Files a.js>', '=======', '<Files b.js>', '>>>>>>> 2927721', '  Require all granted', '</Files>'),
      flagged: ['<<<<<<< HEAD', '=======', '>>>>>>> 2927721', '<Files a.js>'],
      kinds: ['conflict-marker', 'unclosed-section', 'conflict-marker', 'conflict-marker'],
    },
    // facts/arity.ts: httpd -t refuses these ("takes one argument", "takes two arguments"…; test/httpd/upgrade-fixes runs a table).
    { name: 'a two-argument directive with one', text: lines('ErrorDocument 404'), flagged: ['ErrorDocument 404'], kinds: ['argument-count'] },
    { name: 'a comment after an Alias (Debian\'s openguides example)', text: lines('Alias /myguide /usr/lib/cgi-bin/myguide # or /usr/lib/cgi-bin/openguides'), flagged: ['Alias /myguide'], kinds: ['argument-count'] },
    { name: 'FilterProvider\'s 2.2 form is changed-syntax\'s: not here', text: lines('FilterProvider f DEFLATE resp=Content-Type $text/'), flagged: [], kinds: [] },
    { name: 'a one-argument directive with two', text: lines('ServerAdmin admin example.org'), flagged: ['ServerAdmin admin example.org'], kinds: ['argument-count'] },
    { name: 'a one-argument directive with a comment after it', text: lines('DocumentRoot /srv/www # the site'), flagged: ['DocumentRoot /srv/www # the site'], kinds: ['argument-count'] },
    { name: 'a one-argument directive with none', text: lines('<Location /s>', '  SetHandler', '</Location>'), flagged: ['SetHandler'], kinds: ['argument-count'] },
    { name: 'one argument, quoted with blanks or continued: nothing', text: lines('DocumentRoot "/srv/my site"', 'ServerAdmin \\', '  admin@example.org'), flagged: [], kinds: [] },
    { name: 'a variable that may hold blanks, and a flag with two words (httpd reads the first): nothing', text: lines('DocumentRoot ${ROOT} x', 'RewriteEngine On On'), flagged: [], kinds: [] },
    // facts/places.ts: httpd -t refuses these in the section around them (test/httpd/upgrade-fixes runs a table).
    { name: 'DocumentRoot inside <Directory>, through an <IfModule>', text: lines('<Directory /srv>', '  <IfModule mod_x.c>', '    DocumentRoot /srv', '  </IfModule>', '</Directory>'), flagged: ['DocumentRoot /srv'], kinds: ['not-allowed-here'] },
    { name: 'AuthType right in a <VirtualHost>', text: lines('<VirtualHost *:80>', '  AuthType Basic', '</VirtualHost>'), flagged: ['AuthType Basic'], kinds: ['not-allowed-here'] },
    { name: 'the same directives where httpd takes them: nothing', text: lines('<VirtualHost *:80>', '  DocumentRoot /srv', '  <Location /a>', '    AuthType Basic', '  </Location>', '</VirtualHost>'), flagged: [], kinds: [] },
    { name: 'under <If> or <Limit>, the place is not read: nothing', text: lines('<Directory /srv>', '  <If "true">', '    ServerName a', '  </If>', '</Directory>'), flagged: [], kinds: [] },
    { name: 'Order in a <VirtualHost> body is legacy-access\'s to report: not here', text: lines('<VirtualHost *:80>', '  Order allow,deny', '</VirtualHost>'), flagged: [], kinds: [] },
    { name: 'a ruler of = signs without any other marker is no conflict', text: lines('=======', 'Listen 80'), flagged: [], kinds: [] },
    {
      name: `nesting at the limit (${MAX_ANALYSED_NESTING + 1} levels) is analysed`,
      text: nest(MAX_ANALYSED_NESTING + 1, 'Require all granted\n'),
      flagged: [],
      kinds: [],
    },
    {
      name: 'nesting past the limit is reported, at the first section too deep',
      text: nest(MAX_ANALYSED_NESTING + 2, 'Require all granted\n'),
      flagged: ['<IfModule m>'],
      kinds: ['too-deep'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const fs = findingsOf(c.text, 'syntax');
      assert.deepEqual(
        fs.map((f) => (f.data as { kind?: string } | undefined)?.kind),
        c.kinds,
      );
      // Only the first and the kinds are compared exactly; the covered text shows where they sit.
      const got = covered(c.text, fs);
      for (const want of c.flagged) assert.ok(got.some((g) => g.startsWith(want)), `${JSON.stringify(want)} in ${JSON.stringify(got)}`);
    });
  }

  it('the byte order mark fix deletes the mark and nothing else', () => {
    const [f] = findingsOf('\uFEFFListen 80\r\n', 'syntax');
    assert.deepEqual(f.fixes, [{ title: 'Remove the byte order mark', edits: [{ start: 0, end: 1, newText: '' }], preferred: true }]);
  });

  // httpd answers 500 under a .htaccess file's folder while it starts with a mark
  // (test/httpd/htaccess-repairs.test.ts): deleting it changes that, so fix does not do it on its own.
  it('in a .htaccess file, the byte order mark fix is offered but not preferred', () => {
    const text = '\uFEFFOrder allow,deny\nAllow from all\n';
    const [f] = findingsOf(text, 'syntax', { context: 'htaccess', uri: 'file:///srv/www/.htaccess' });
    assert.equal(f.fixes?.length, 1);
    assert.ok(!f.fixes![0].preferred);
    assert.match(f.fixes![0].title, /^Remove the byte order mark \(httpd answers 500 under this folder/);
    assert.equal(createService().fixText({ text, uri: 'file:///srv/www/.htaccess', context: 'htaccess' }).text, text);
  });

  // An editor that adds a mark to a file that has one makes two: deleting one left the other, and
  // httpd still refused the file (found by a black-box LSP fuzz run).
  it('the fix deletes every mark at the start, in either form, and the first line reads as written after them', () => {
    for (const [text, marks] of [['\uFEFF\uFEFFListen 80\n', 2], ['\uFEFF\u00ef\u00bb\u00bfListen 80\n', 4], ['\u00ef\u00bb\u00bf\u00ef\u00bb\u00bfListen 80\n', 6]] as const) {
      const fs = findingsOf(text, 'syntax');
      assert.equal(fs.length, 1, JSON.stringify(text));
      assert.deepEqual(fs[0].fixes?.[0].edits, [{ start: 0, end: marks, newText: '' }]);
      assert.deepEqual(findingsOf(text, 'unknown-directive'), [], 'the first word is Listen, without a mark');
    }
  });

  it('5,000 levels of nesting: a warning, and no rule fails', () => {
    const text = '<Directory /a>\n'.repeat(5000) + 'Order deny,allow\nDeny from all\n' + '</Directory>\n'.repeat(5000);
    const a = createService().analyze({ text, uri: 'file:///deep/httpd.conf' });
    const internal = a.findings.filter((f) => /Internal error/.test(f.message));
    assert.deepEqual(internal, []);
    assert.ok(a.findings.some((f) => f.rule === 'syntax' && (f.data as { kind?: string }).kind === 'too-deep'));
  });
});
