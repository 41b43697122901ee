/**
 * The upgrade fixes against the real httpd: the original line is what httpd
 * 2.4 says it is (refused, or accepted with a warning), and the fixed text is
 * accepted by `httpd -t`. Skips without httpd, except under CI=true.
 */
import assert from 'node:assert/strict';
import { checkConfig, findHttpd, startOracle } from './harness';
import { applyEdits } from '../../server/src/syntax';
import { createService } from '../../server/src/service';

interface Row {
  line: string;
  /** Does httpd 2.4 refuse the original? */
  refused: boolean;
  /** Modules the line needs loaded. */
  modules?: string[];
}

const ROWS: Row[] = [
  { line: 'RewriteLogLevel 3', refused: true, modules: ['rewrite'] },
  { line: 'RewriteLogLevel 0', refused: true, modules: ['rewrite'] },
  { line: 'RewriteLog "/tmp/rewrite.log"', refused: true, modules: ['rewrite'] },
  { line: 'SSLMutex default', refused: true, modules: ['socache_shmcb', 'ssl'] },
  { line: 'DumpIOLogLevel debug', refused: true, modules: ['dumpio'] },
  { line: 'AuthzDefaultAuthoritative Off', refused: true },
  { line: 'MaxClients 150', refused: false },
  { line: 'MaxRequestsPerChild 1000', refused: false },
  { line: 'NameVirtualHost *:80', refused: false },
  { line: 'DefaultType text/plain', refused: false },
  { line: 'KeepAlive 5', refused: true },
  { line: 'KeepAlive 0', refused: true },
  { line: 'CharsetOptions ImplicitAdd DebugLevel=3', refused: true, modules: ['charset_lite'] },
  { line: 'CharsetOptions DebugLevel=1', refused: true, modules: ['charset_lite'] },
  { line: '<Directory /srv>\n  ExtFilterOptions DebugLevel=1 LogStderr\n</Directory>', refused: true, modules: ['ext_filter'] },
  { line: 'CustomLog "|/bin/cat >/dev/null" common', refused: false },
];

/** Skip the running test without httpd (fail under CI=true, where the oracle must run). */
function needHttpd(ctx: Mocha.Context): void {
  if (findHttpd()) return;
  if (process.env.CI === 'true') throw new Error('httpd is required when CI=true');
  ctx.skip();
}

/** `Options` lines, and whether httpd 2.4 refuses them (changed-syntax reports exactly those). */
const OPTIONS: Array<[string, boolean]> = [
  ['FollowSymLinks +ExecCGI', true],
  ['+ExecCGI FollowSymLinks', true],
  ['-Indexes None', true],
  ['Indexes +Indexes', true],
  ['+Indexes All', true],
  ['None -Indexes Indexes', true],
  ['None +ExecCGI', false],
  ['none +execcgi', false],
  ['All -Indexes', false],
  ['All Indexes +FollowSymLinks', false],
  ['-Indexes +FollowSymLinks', false],
  ['Indexes FollowSymLinks', false],
];

describe('Options mixing signed and plain words: what changed-syntax says, httpd -t says', function () {
  this.timeout(120_000);
  for (const [words, refused] of OPTIONS) {
    it(`Options ${words}`, async function () {
      if (!findHttpd()) {
        if (process.env.CI === 'true') throw new Error('httpd is required when CI=true');
        this.skip();
      }
      const text = `<Directory /srv>\n  Options ${words}\n</Directory>`;
      const flagged = createService().analyze({ text: text + '\n' }).findings.some((f) => f.rule === 'changed-syntax');
      const r = await checkConfig([{ id: 'o', config: '', serverConfig: text }], { compat: false });
      assert.equal(!r.ok, refused, r.output);
      if (refused) assert.match(r.output, /Either all Options must start with \+ or -/);
      assert.equal(flagged, refused);
    });
  }
});

/** A configuration text, whether httpd 2.4 refuses it, and the modules it needs. */
type SyntaxRow = [text: string, refused: boolean, modules: string[]];

/**
 * One table of the syntax rule against `httpd -t`: the rule reports a finding of `kind` exactly
 * where httpd refuses the text (and, when given, says `words`).
 */
function syntaxTable(title: string, kind: string, rows: readonly SyntaxRow[], words?: RegExp): void {
  describe(`${title}: what the syntax rule says, httpd -t says`, function () {
    this.timeout(120_000);
    for (const [text, refused, modules] of rows) {
      it(text.replace(/\n\s*/g, ' '), async function () {
        needHttpd(this);
        const flagged = createService().analyze({ text: text + '\n' }).findings.some((f) => f.rule === 'syntax' && (f.data as { kind?: string } | undefined)?.kind === kind);
        const r = await checkConfig([{ id: 's', config: '', serverConfig: text }], { compat: false, extraModules: modules });
        assert.equal(!r.ok, refused, r.output);
        if (refused && words) assert.match(r.output, words);
        assert.equal(flagged, refused);
      });
    }
  });
}

// Section tags without an argument.
syntaxTable('a section tag without its argument', 'missing-argument', [
  ...['Directory', 'DirectoryMatch', 'Files', 'FilesMatch', 'Location', 'LocationMatch', 'VirtualHost', 'IfModule', 'IfDefine', 'IfVersion', 'IfFile', 'IfDirective', 'IfSection', 'If', 'AuthnProviderAlias', 'AuthzProviderAlias'].map(
    (name): SyntaxRow => [`<${name}>\n</${name}>`, true, []],
  ),
  ['<Macro>\n</Macro>', true, ['macro']],
  ['<Proxy>\n</Proxy>', false, ['proxy']],
]);

// Directive lines and their number of arguments.
syntaxTable(
  'directives with a wrong number of arguments',
  'argument-count',
  [
    ['ServerAdmin admin example.org', true, []],
    ['DocumentRoot /srv/www # the site', true, []],
    ['DocumentRoot', true, []],
    ['<Location /s>\n  SetHandler\n</Location>', true, []],
    ['<Directory /srv>\n  AuthName Private area\n</Directory>', true, []],
    ['<Directory /srv>\n  AuthName "Private area"\n</Directory>', false, []],
    ['<Directory /srv>\n  AuthUserFile /etc/a /etc/b\n</Directory>', true, ['authn_file']],
    ['RewriteEngine On On', false, ['rewrite']],
    ['DocumentRoot \\\n  /srv', false, []],
    ['ErrorDocument 404', true, []],
    ['ErrorDocument 404 "/missing.html"', false, []],
    ['AddType text/html', true, []],
    // Debian's openguides example: a comment after an Alias.
    ['Alias /myguide /usr/lib/cgi-bin/myguide # or /usr/lib/cgi-bin/openguides', true, []],
  ],
  /takes (one|two|1-2)|requires at least/,
);

// Directives in a section's body.
syntaxTable('directives where httpd does not take them', 'not-allowed-here', [
  ['<Directory /srv>\n  DocumentRoot /srv\n</Directory>', true, []],
  ['<Directory /srv>\n  ServerName a.example\n</Directory>', true, []],
  ['<Files a>\n  Alias /a /srv/a\n</Files>', true, []],
  ['<Location /a>\n  ProxyPass http://127.0.0.1:9/\n</Location>', false, ['proxy']],
  ['<Directory /srv>\n  ProxyPass /a http://127.0.0.1:9/\n</Directory>', true, ['proxy']],
  ['<VirtualHost *:80>\n  AuthType Basic\n</VirtualHost>', true, []],
  ['<VirtualHost *:80>\n  AllowOverride None\n</VirtualHost>', true, []],
  ['<VirtualHost *:80>\n  <Location /a>\n    AuthType Basic\n  </Location>\n</VirtualHost>', false, []],
  ['<VirtualHost *:80>\n  MaxRequestWorkers 10\n</VirtualHost>', true, []],
  ['<Directory /srv>\n  <If "true">\n    SetHandler none\n  </If>\n</Directory>', false, []],
]);

describe('merge-conflict markers: what the syntax rule says, httpd -t says', function () {
  this.timeout(120_000);
  for (const line of ['<<<<<<< HEAD', '=======', '>>>>>>> 2927721']) {
    it(line, async function () {
      needHttpd(this);
      const text = `<<<<<<< HEAD\n${line}\n>>>>>>> 2927721\n`;
      const flagged = createService().analyze({ text }).findings.some((f) => f.rule === 'syntax' && (f.data as { kind?: string } | undefined)?.kind === 'conflict-marker' && text.slice(f.start, f.end) === line);
      const r = await checkConfig([{ id: 'm', config: '', serverConfig: line }], { compat: false });
      assert.equal(r.ok, false, r.output);
      assert.ok(flagged);
    });
  }
});

describe('access-intent: a list separated by commas, on httpd', function () {
  this.timeout(120_000);
  it('`Allow from 127.0.0.1, 127.0.0.2` lets 127.0.0.2 in and not 127.0.0.1 (a host name); separated with blanks, both', async function () {
    needHttpd(this);
    const text = '<Directory "@DOCROOT@">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1, 127.0.0.2\n</Directory>\n';
    const f = createService().analyze({ text }).findings.find((x) => x.rule === 'access-intent' && /with a comma in it/.test(x.message));
    assert.ok(f, 'reported');
    const fixed = applyEdits(text, f.fixes![0].edits);
    const o = await startOracle([{ id: 'before', config: text }, { id: 'after', config: fixed }], { compat: true });
    try {
      const got = [];
      for (const id of ['before', 'after']) for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) got.push(await o.request(id, { path: '/index.html', from }));
      assert.deepEqual(got, [403, 200, 403, 200, 200, 403]);
    } finally {
      await o.stop();
    }
  });
});

describe('access-intent: Satisfy Any with a password and no host rule, on httpd', function () {
  this.timeout(120_000);
  it('nobody is asked for the password (200 without credentials); the exact rewrite keeps that, the fix that deletes Satisfy Any asks (401)', async function () {
    needHttpd(this);
    const text = '<Directory "@DOCROOT@">\n  AuthType Basic\n  AuthName "o"\n  AuthUserFile "@USERS@"\n  Satisfy Any\n  Require valid-user\n</Directory>\n';
    // The engine reads absolute paths; the oracle's placeholders go back in afterwards.
    const forEngine = text.split('@DOCROOT@').join('/srv/d').split('@USERS@').join('/srv/u');
    const back = (t: string) => t.split('/srv/d').join('@DOCROOT@').split('/srv/u').join('@USERS@');
    const f = createService().analyze({ text: forEngine }).findings.find((x) => x.rule === 'access-intent' && /without the `Require` lines being asked/.test(x.message));
    assert.ok(f, 'reported');
    const asked = back(applyEdits(forEngine, f.fixes![0].edits));
    assert.doesNotMatch(asked, /Satisfy/);
    const exact = back(createService().fixText({ text: forEngine }).text);
    assert.match(exact, /Require all granted/);
    const withCompat = await startOracle([{ id: 'original', config: text }, { id: 'asked', config: asked }], { compat: true, users: { alice: 'pw' } });
    let without: Awaited<ReturnType<typeof startOracle>> | null = null;
    try {
      without = await startOracle([{ id: 'exact', config: exact }], { compat: false, users: { alice: 'pw' } });
      const got = [await withCompat.request('original', { path: '/index.html' }), await withCompat.request('asked', { path: '/index.html' }), await withCompat.request('asked', { path: '/index.html', auth: { user: 'alice', password: 'pw' } }), await without.request('exact', { path: '/index.html' })];
      assert.deepEqual(got, [200, 401, 200, 200]);
    } finally {
      await withCompat.stop();
      await without?.stop();
    }
  });
});

describe('access-intent: <Files> with a folder in its pattern, on httpd', function () {
  this.timeout(120_000);
  it('`<Files "data/*">` protects nothing (200 for data/x.txt), where `<Files "*.rb">` does (403)', async function () {
    needHttpd(this);
    const ht = '<Files "data/*">\n  deny from all\n</Files>\n<Files "*.rb">\n  deny from all\n</Files>\n';
    const flagged = createService().analyze({ text: ht, uri: 'file:///srv/www/.htaccess', context: 'htaccess' }).findings.filter((x) => x.rule === 'access-intent' && /never applies: <Files>/.test(x.message));
    assert.deepEqual(flagged.map((f) => ht.slice(f.start, f.end)), ['"data/*"']);
    const o = await startOracle([{ id: 'h', config: '<Directory "@DOCROOT@">\n  AllowOverride All\n</Directory>', files: { '.htaccess': ht, 'data/x.txt': 'x\n', 'a.rb': 'r\n' } }], { compat: true });
    try {
      assert.deepEqual([await o.request('h', { path: '/data/x.txt' }), await o.request('h', { path: '/a.rb' })], [200, 403]);
    } finally {
      await o.stop();
    }
  });
});

describe('upgrade fixes accepted by the real httpd', function () {
  this.timeout(120_000);
  before(function () {
    if (!findHttpd()) {
      if (process.env.CI === 'true') throw new Error('httpd is required when CI=true');
      console.log('    (skipped: no httpd; install apache2 or set APACHECONF_HTTPD)');
      this.skip();
    }
  });

  // AcceptMutex has no fix that fits every MPM: httpd 2.4 with the event MPM refuses
  // `Mutex fcntl mpm-accept` ("Mutex type mpm-accept is not valid"); prefork accepts it.
  it('AcceptMutex: the offered Mutex spelling is right for prefork, refused under event', async () => {
    const f = createService().analyze({ text: 'AcceptMutex fcntl\n' }).findings.find((x) => x.rule === 'removed-directive')!;
    assert.equal(f.fixes?.some((x) => x.preferred) ?? false, false);
    const line = f.fixes![0].edits[0].newText;
    assert.equal(line, 'Mutex fcntl mpm-accept');
    assert.ok((await checkConfig([{ id: 'p', config: '', serverConfig: line }], { compat: false, mpm: 'prefork' })).ok);
    assert.equal((await checkConfig([{ id: 'e', config: '', serverConfig: line }], { compat: false, mpm: 'event' })).ok, false);
    assert.equal((await checkConfig([{ id: 'o', config: '', serverConfig: 'AcceptMutex fcntl' }], { compat: true, mpm: 'prefork' })).ok, false);
  });

  for (const row of ROWS) {
    it(row.line, async () => {
      const fixed = createService().fixText({ text: row.line + '\n' }).text;
      assert.notEqual(fixed, row.line + '\n', 'a fix applies');
      const before = await checkConfig([{ id: 'before', config: '', serverConfig: row.line }], { compat: true, extraModules: row.modules });
      assert.equal(before.ok, !row.refused, `original: ${before.output}`);
      const after = await checkConfig([{ id: 'after', config: '', serverConfig: fixed }], { compat: false, extraModules: row.modules });
      assert.ok(after.ok, `fixed text ${JSON.stringify(fixed)} refused: ${after.output}`);
    });
  }
});
