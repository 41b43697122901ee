import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  allDirectives,
  allModules,
  catalog,
  directiveDocsMarkdown,
  editDistance,
  GENERATED,
  getDirective,
  getModule,
  isHttpdModule,
  suggestDirective,
} from '../../server/src/facts';
import type { DirectiveContext, DirectiveFact, DirectiveStatus } from '../../server/src/facts/types';
import type { Catalog } from '../../server/src/features/completion';
import descriptionsAL from '../../server/src/facts/descriptions/directives-a-l.json';
import descriptionsMZ from '../../server/src/facts/descriptions/directives-m-z.json';
import moduleDescriptions from '../../server/src/facts/descriptions/modules.json';

const ALL: DirectiveContext[] = ['server', 'vhost', 'directory', 'htaccess'];
const SV: DirectiveContext[] = ['server', 'vhost'];
const DH: DirectiveContext[] = ['directory', 'htaccess'];

describe('facts: the directive catalog', () => {
  describe('known directives', () => {
    const cases: Array<{ name: string; module: string; contexts: DirectiveContext[]; override?: string; status: DirectiveStatus; section?: boolean; extra?: Partial<DirectiveFact> }> = [
      { name: 'ServerName', module: 'core', contexts: SV, status: 'current' },
      { name: 'DocumentRoot', module: 'core', contexts: SV, status: 'current' },
      { name: 'AllowOverride', module: 'core', contexts: ['directory'], status: 'current' },
      { name: 'Options', module: 'core', contexts: ALL, override: 'Options', status: 'current' },
      { name: 'Directory', module: 'core', contexts: SV, status: 'current', section: true },
      { name: 'VirtualHost', module: 'core', contexts: ['server'], status: 'current', section: true },
      { name: 'IfModule', module: 'core', contexts: ALL, override: 'All', status: 'current', section: true },
      { name: 'RequireAll', module: 'mod_authz_core', contexts: DH, override: 'AuthConfig', status: 'current', section: true },
      { name: 'Require', module: 'mod_authz_core', contexts: DH, override: 'AuthConfig', status: 'current' },
      { name: 'AuthType', module: 'mod_authn_core', contexts: DH, override: 'AuthConfig', status: 'current' },
      { name: 'RewriteRule', module: 'mod_rewrite', contexts: ALL, override: 'FileInfo', status: 'current' },
      { name: 'SSLCipherSuite', module: 'mod_ssl', contexts: ALL, override: 'AuthConfig', status: 'current' },
      { name: 'SSLProxyEngine', module: 'mod_ssl', contexts: ['server', 'vhost', 'directory'], status: 'current', extra: { proxySection: true } },
      { name: 'Listen', module: 'mpm_common', contexts: ['server'], status: 'current' },
      { name: 'MaxRequestWorkers', module: 'mpm_common', contexts: ['server'], status: 'current', extra: { modules: ['event', 'worker', 'prefork'] } },
      { name: 'AsyncRequestWorkerFactor', module: 'event', contexts: ['server'], status: 'current' },
      { name: 'User', module: 'mod_unixd', contexts: ['server'], status: 'current' },
      { name: 'Protocols', module: 'core', contexts: SV, status: 'current', extra: { since: '2.4.17' } },
      { name: 'Mutex', module: 'core', contexts: ['server'], status: 'current', extra: { default: 'Mutex default' } },
      { name: 'HeartbeatStorage', module: 'mod_heartmonitor', contexts: ['server'], status: 'current', extra: { modules: ['mod_heartmonitor', 'mod_lbmethod_heartbeat'] } },
      { name: 'AddOutputFilterByType', module: 'mod_filter', contexts: ALL, override: 'FileInfo', status: 'current' },
      { name: 'AuthnProviderAlias', module: 'mod_authn_core', contexts: ['server'], status: 'current', section: true },
      { name: 'Order', module: 'mod_access_compat', contexts: DH, override: 'Limit', status: 'compat' },
      { name: 'Allow', module: 'mod_access_compat', contexts: DH, override: 'Limit', status: 'compat' },
      { name: 'Deny', module: 'mod_access_compat', contexts: DH, override: 'Limit', status: 'compat' },
      { name: 'Satisfy', module: 'mod_access_compat', contexts: DH, override: 'AuthConfig', status: 'compat' },
      { name: 'NameVirtualHost', module: 'core', contexts: ['server'], status: 'noop' },
      { name: 'DefaultType', module: 'core', contexts: ALL, override: 'FileInfo', status: 'noop' },
      { name: 'MaxClients', module: 'mpm_common', contexts: ['server'], status: 'renamed', extra: { renamedTo: 'MaxRequestWorkers' } },
      { name: 'MaxRequestsPerChild', module: 'mpm_common', contexts: ['server'], status: 'renamed', extra: { renamedTo: 'MaxConnectionsPerChild' } },
      { name: 'LockFile', module: 'mpm_common', contexts: ['server'], status: 'removed' },
      { name: 'RewriteLog', module: 'mod_rewrite', contexts: SV, status: 'removed' },
      { name: 'AuthzLDAPAuthoritative', module: 'mod_authnz_ldap', contexts: DH, override: 'AuthConfig', status: 'removed' },
      { name: 'MCacheSize', module: 'mod_mem_cache', contexts: ['server'], status: 'removed' },
    ];
    for (const c of cases) {
      it(`${c.name}: ${c.module}, ${c.contexts.join('/')}, ${c.status}`, () => {
        const f = getDirective(c.name);
        assert.ok(f, `${c.name} is in the catalog`);
        assert.equal(f.name, c.name);
        assert.equal(f.module, c.module);
        assert.deepEqual(f.contexts, c.contexts);
        assert.equal(f.override, c.override);
        assert.equal(f.status, c.status);
        assert.equal(!!f.section, !!c.section);
        for (const [k, v] of Object.entries(c.extra ?? {})) assert.deepEqual((f as unknown as Record<string, unknown>)[k], v, `${c.name}.${k}`);
      });
    }
  });

  describe('lookup spellings', () => {
    const cases: Array<[string, string | undefined]> = [
      ['servername', 'ServerName'],
      ['SERVERNAME', 'ServerName'],
      ['<Directory', 'Directory'],
      ['<Directory>', 'Directory'],
      ['</Directory>', 'Directory'],
      ['directorymatch', 'DirectoryMatch'],
      ['order', 'Order'],
      ['lockfile', 'LockFile'],
      ['AuthzSVNAuthoritative', undefined],
      ['PassengerEnabled', undefined],
      ['', undefined],
    ];
    for (const [input, expected] of cases) {
      it(`getDirective(${JSON.stringify(input)}) → ${expected ?? 'undefined'}`, () => {
        assert.equal(getDirective(input)?.name, expected);
      });
    }
  });

  describe('generated.json', () => {
    it('has hundreds of directives and a module fact for every module page', () => {
      assert.ok(GENERATED.directives.length > 600, `${GENERATED.directives.length} directives`);
      assert.ok(GENERATED.modules.length > 120, `${GENERATED.modules.length} modules`);
    });
    it('every directive has a manual url with an anchor, a syntax line and at least one context', () => {
      for (const d of GENERATED.directives) {
        assert.match(d.url, /^https:\/\/httpd\.apache\.org\/docs\/2\.4\/mod\/[a-z0-9_]+\.html#[a-z0-9_-]+$/, d.name);
        assert.ok(d.syntax.length > 0, `${d.name}: syntax`);
        assert.ok(d.contexts.length > 0, `${d.name}: contexts`);
        if (d.since) assert.match(d.since, /^2\.4\.\d+$/, `${d.name}: since`);
      }
    });
    it('every section starts its syntax with <Name', () => {
      for (const d of GENERATED.directives.filter((x) => x.section)) {
        assert.ok(d.syntax.toLowerCase().startsWith('<' + d.name.toLowerCase()), `${d.name}: ${d.syntax}`);
      }
    });
    it('is sorted by name, one fact per name, and carries no prose', () => {
      const names = GENERATED.directives.map((d) => d.name.toLowerCase());
      assert.deepEqual(names, [...names].sort());
      assert.equal(new Set(names).size, names.length);
      for (const d of GENERATED.directives) assert.equal((d as unknown as Record<string, unknown>).description, undefined);
    });
    it('every module has an identifier and a source file', () => {
      for (const m of GENERATED.modules) {
        assert.match(m.id, /^[a-z0-9_]+_module$/, m.name);
        assert.match(m.file, /^[a-z0-9_]+\.c$/, m.name);
        assert.match(m.url, /^https:\/\/httpd\.apache\.org\/docs\/2\.4\/mod\/[a-z0-9_]+\.html$/, m.name);
      }
    });
  });

  describe('legacy directives', () => {
    const removed = [
      'AuthzUserAuthoritative', 'AuthzGroupFileAuthoritative', 'AuthzDBMAuthoritative', 'AuthzOwnerAuthoritative',
      'AuthzLDAPAuthoritative', 'AuthzDBDAuthoritative', 'AuthzDefaultAuthoritative', 'AuthDefaultAuthoritative',
      'AuthLDAPAuthzEnabled', 'AcceptMutex', 'LockFile', 'RewriteLock', 'SSLMutex', 'SSLStaplingMutex', 'WatchdogMutexPath',
      'RewriteLog', 'RewriteLogLevel', 'DumpIOLogLevel', 'MCacheSize', 'MCacheMaxObjectCount', 'MCacheMinObjectSize',
      'MCacheMaxObjectSize', 'MCacheRemovalAlgorithm', 'MCacheMaxStreamingBuffer', 'ServerType', 'Port', 'BindAddress',
      'ClearModuleList', 'AddModule', 'ResourceConfig', 'AccessConfig', 'CookieLog', 'FancyIndexing', 'SSLLog', 'SSLLogLevel',
    ];
    const cases: Array<[string, DirectiveStatus]> = [
      ...removed.map((n): [string, DirectiveStatus] => [n, 'removed']),
      ['Order', 'compat'], ['Allow', 'compat'], ['Deny', 'compat'], ['Satisfy', 'compat'],
      ['MaxClients', 'renamed'], ['MaxRequestsPerChild', 'renamed'],
      ['NameVirtualHost', 'noop'], ['DefaultType', 'noop'],
      // Look-alikes that 2.4 still has.
      ['AuthBasicAuthoritative', 'current'], ['AuthLDAPBindAuthoritative', 'current'], ['AuthFormAuthoritative', 'current'],
      ['MaxRequestWorkers', 'current'], ['MaxConnectionsPerChild', 'current'], ['Mutex', 'current'],
    ];
    for (const [name, status] of cases) {
      it(`${name} is ${status}`, () => {
        const f = getDirective(name);
        assert.ok(f, name);
        assert.equal(f.status, status);
        if (status !== 'current') assert.ok(f.replacement && f.replacement.length > 10, `${name} says what to do instead`);
        else assert.equal(f.replacement, undefined);
      });
    }
    it('AuthzSVNAuthoritative (mod_authz_svn, third-party) is not called removed', () => {
      assert.equal(getDirective('AuthzSVNAuthoritative'), undefined);
    });
    it('renamed directives point at a current directive', () => {
      for (const f of allDirectives().filter((x) => x.status === 'renamed')) {
        assert.ok(f.renamedTo, f.name);
        assert.equal(getDirective(f.renamedTo)?.status, 'current', f.name);
      }
    });
    it('the compat four keep the manual\'s facts', () => {
      assert.equal(getDirective('Allow')?.syntax, 'Allow from all|host|env=[!]env-variable [host|env=[!]env-variable] ...');
      assert.equal(getDirective('Order')?.default, 'Order Deny,Allow');
      assert.match(getDirective('Satisfy')!.url, /docs\/2\.4\/mod\/mod_access_compat\.html#satisfy$/);
    });
  });

  describe('modules', () => {
    const spellings: Array<[string, string | undefined]> = [
      ['mod_ssl', 'mod_ssl'], ['ssl_module', 'mod_ssl'], ['mod_ssl.c', 'mod_ssl'], ['MOD_SSL.C', 'mod_ssl'],
      ['mod_authz_core.c', 'mod_authz_core'], ['authz_core_module', 'mod_authz_core'],
      ['event.c', 'event'], ['mpm_event_module', 'event'], ['prefork.c', 'prefork'], ['mpm_winnt.c', 'mpm_winnt'],
      ['core.c', 'core'], ['util_ldap.c', 'mod_ldap'], ['ldap_module', 'mod_ldap'],
      ['mod_mem_cache.c', 'mod_mem_cache'], ['disk_cache_module', 'mod_disk_cache'], ['mod_authn_default', 'mod_authn_default'],
      ['mod_php7.c', undefined], ['php_module', undefined],
    ];
    for (const [input, expected] of spellings) {
      it(`getModule(${input}) → ${expected ?? 'undefined'}`, () => {
        assert.equal(getModule(input)?.name, expected);
      });
    }
    const removed: Array<[string, string | undefined]> = [
      ['mod_authn_default', 'mod_authn_core'], ['mod_authz_default', 'mod_authz_core'], ['mod_mem_cache', 'mod_cache_disk'],
      ['mod_disk_cache', 'mod_cache_disk'], ['mod_authn_alias', 'mod_authn_core'],
    ];
    for (const [name, by] of removed) {
      it(`${name} is removed, replaced by ${by}`, () => {
        const m = getModule(name)!;
        assert.equal(m.status, 'removed');
        assert.equal(m.replacedBy, by);
        assert.ok(m.replacement);
        assert.equal(getModule(by!)?.status, 'current');
      });
    }
    it('mod_file_cache and mod_authz_host are still current', () => {
      assert.equal(getModule('mod_file_cache')?.status, 'current');
      assert.equal(getModule('mod_authz_host')?.status, 'current');
    });
    const httpd: Array<[string, boolean]> = [
      ['mod_ssl.c', true], ['ssl_module', true], ['mod_rewrite', true], ['mod_mem_cache.c', true], ['mod_authz_default.c', true],
      ['http_core.c', true], ['core.c', true], ['worker.c', true],
      ['mod_php7.c', false], ['php_module', false], ['php7_module', false], ['mod_wsgi.c', false], ['wsgi_module', false],
      ['mod_security2.c', false], ['security2_module', false], ['mod_authz_svn.c', false], ['mod_passenger.c', false],
    ];
    for (const [name, yes] of httpd) {
      it(`isHttpdModule(${name}) is ${yes}`, () => assert.equal(isHttpdModule(name), yes));
    }
  });

  describe('suggestDirective', () => {
    const cases: Array<[string, string | undefined]> = [
      ['ServrName', 'ServerName'],
      ['DocumentRot', 'DocumentRoot'],
      ['SeverName', 'ServerName'],
      ['ServerNmae', 'ServerName'],
      ['RewriteEngin', 'RewriteEngine'],
      ['RewirteRule', 'RewriteRule'],
      ['AllowOveride', 'AllowOverride'],
      ['ErrorDocuments', 'ErrorDocument'],
      ['Lisen', 'Listen'],
      ['SSLCertificateFiles', 'SSLCertificateFile'],
      ['ServerName', undefined],
      ['servername', undefined],
      ['Foo', undefined],
      ['PassengerRuby', undefined],
      ['WSGIDaemonProcess', undefined],
      ['php_value', undefined],
      ['SecRuleEngine', undefined],
      ['JkMount', undefined],
      ['SuexecUserGroup', undefined],
      ['AuthzSVNAuthoritative', undefined],
    ];
    for (const [input, expected] of cases) {
      it(`${input} → ${expected ?? 'no suggestion'}`, () => assert.equal(suggestDirective(input), expected));
    }
    it('never suggests a removed or legacy directive', () => {
      assert.notEqual(getDirective(suggestDirective('LockFil') ?? 'ServerName')?.status, 'removed');
      assert.equal(suggestDirective('RewriteLogg'), undefined);
    });
    const distances: Array<[string, string, number]> = [
      ['abc', 'abc', 0], ['abc', 'acb', 1], ['abc', 'ab', 1], ['kitten', 'sitting', 3], ['', 'abc', 3],
    ];
    for (const [a, b, d] of distances) it(`editDistance(${a}, ${b}) = ${d}`, () => assert.equal(editDistance(a, b), d));
  });

  describe('documentation markdown', () => {
    it('a current directive: syntax block, module, contexts, override, default, link', () => {
      const md = directiveDocsMarkdown(getDirective('Options')!);
      assert.ok(md.startsWith('```apacheconf\nOptions '), md);
      assert.match(md, /Module: `core`/);
      assert.match(md, /Context: server config, virtual host, directory, \.htaccess/);
      assert.match(md, /Override: Options/);
      assert.match(md, /Default: `Options FollowSymlinks`/);
      assert.match(md, /\(https:\/\/httpd\.apache\.org\/docs\/2\.4\/mod\/core\.html#options\)/);
    });
    it('a removed directive leads with what replaces it', () => {
      const md = directiveDocsMarkdown(getDirective('RewriteLog')!);
      assert.ok(md.startsWith('**Removed:**'), md);
      assert.ok(md.split('\n')[0].includes('LogLevel rewrite:trace'), md);
      assert.match(md, /docs\/2\.2\/mod\/mod_rewrite\.html#rewritelog/);
    });
    it('a renamed directive names its successor first', () => {
      assert.ok(directiveDocsMarkdown(getDirective('MaxClients')!).startsWith('**Renamed:** 2.4 still reads `MaxClients`, but its name is now `MaxRequestWorkers`.'));
    });
    it('a proxy-section directive says so', () => {
      assert.match(directiveDocsMarkdown(getDirective('SSLProxyEngine')!), /Context: server config, virtual host, proxy section/);
    });
    it('the catalog object satisfies the completion layer\'s Catalog', () => {
      const c: Catalog = catalog;
      assert.equal(c.getDirective('listen')?.name, 'Listen');
      assert.equal(c.allDirectives(), allDirectives());
      assert.equal(c.allModules(), allModules());
      assert.ok(c.directiveDocsMarkdown);
    });
  });
});

/** The manual's module pages, for the originality check. */
const MANUAL_DIR = process.env.APACHE_MANUAL_DIR || '/usr/share/doc/apache2-doc/manual/en/mod';

function words(html: string): string[] {
  const plain = html
    .replace(/<script[\s\S]*?<\/script>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z]+;|&#\d+;/gi, ' ')
    .toLowerCase();
  return plain.match(/[a-z0-9]+/g) ?? [];
}

function runs(ws: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= ws.length; i++) out.push(ws.slice(i, i + n).join(' '));
  return out;
}

/** Every 8-word run of the manual's module pages (the directive's own page and its neighbours alike). */
let manualRunSet: Set<string> | undefined;
function manualRuns(): Set<string> {
  if (manualRunSet) return manualRunSet;
  manualRunSet = new Set();
  for (const f of fs.readdirSync(MANUAL_DIR).filter((x) => x.endsWith('.html'))) {
    for (const r of runs(words(fs.readFileSync(path.join(MANUAL_DIR, f), 'utf8')), 8)) manualRunSet.add(r);
  }
  return manualRunSet;
}

describe('facts: descriptions', () => {
  const written = { ...descriptionsAL, ...descriptionsMZ } as Record<string, string>;

  // ─── FOR THE LEAD ──────────────────────────────────────────────────────
  // This test lists every directive that still has no description and fails
  // while any is missing. The count is in the test title and the message.
  const missing = allDirectives().filter((f) => !f.description).map((f) => f.name);
  it(`DESCRIPTIONS MISSING: ${missing.length} directive(s) have no description yet`, () => {
    assert.equal(missing.length, 0, `${missing.length} directive(s) without a description:\n  ${missing.join('\n  ')}`);
  });

  it('every description key names a catalog directive, spelled as the manual spells it', () => {
    const bad = Object.keys(written).filter((k) => getDirective(k)?.name !== k);
    assert.deepEqual(bad, [], `unknown or misspelt keys: ${bad.join(', ')}`);
  });

  it('every module has a description', () => {
    const none = allModules().filter((m) => !m.description).map((m) => m.name);
    assert.deepEqual(none, []);
    const stray = Object.keys(moduleDescriptions).filter((k) => getModule(k)?.name !== k);
    assert.deepEqual(stray, [], 'modules.json keys that are not modules');
  });

  it('every description is non-empty and at most about 400 characters', () => {
    const long: string[] = [];
    const texts: Array<[string, string]> = [
      ...Object.entries(written),
      ...allDirectives().filter((f) => f.replacement).map((f): [string, string] => [f.name + ' (replacement)', f.replacement!]),
      ...Object.entries(moduleDescriptions as Record<string, string>),
    ];
    for (const [name, text] of texts) {
      assert.equal(typeof text, 'string', name);
      assert.ok(text.trim().length > 0, `${name}: empty`);
      if (text.length > 420) long.push(`${name} (${text.length})`);
    }
    assert.deepEqual(long, [], 'descriptions over ~400 characters');
  });

  it('no description repeats 8 words in a row from the manual', function () {
    this.timeout(60000);
    if (!fs.existsSync(MANUAL_DIR)) {
      if (process.env.CI === 'true') assert.fail(`httpd manual not found at ${MANUAL_DIR} (install apache2-doc or set APACHE_MANUAL_DIR)`);
      console.log(`    (skipped: httpd manual not found at ${MANUAL_DIR})`);
      this.skip();
    }
    const set = manualRuns();
    const copied: string[] = [];
    const check = (label: string, text: string): void => {
      const hit = runs(words(text), 8).find((r) => set.has(r));
      if (hit) copied.push(`${label}: "${hit}"`);
    };
    for (const f of allDirectives()) {
      if (f.description) check(f.name, f.description);
      if (f.replacement) check(f.name + ' (replacement)', f.replacement);
    }
    for (const m of allModules()) {
      if (m.description) check(m.name, m.description);
      if (m.replacement) check(m.name + ' (replacement)', m.replacement);
    }
    assert.deepEqual(copied, [], 'descriptions that reuse the manual\'s wording');
  });
});
