import assert from 'node:assert/strict';
import fc from 'fast-check';
import { edgeLines, expandInclude, findRootFile, fnmatch, loadConfigGraph, modelineContext, type WorkspaceHost } from '../../server/src/model/workspace';

/** An in-memory file tree: paths → text; folders are implied. `links` maps a path to its real path. */
function memHost(files: Record<string, string>, links: Record<string, string> = {}): WorkspaceHost & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readFile(p) {
      reads.push(p);
      const target = links[p] ?? p;
      return files[target];
    },
    listDir(p) {
      const prefix = p.replace(/\/+$/, '') + '/';
      const names = new Set<string>();
      for (const f of [...Object.keys(files), ...Object.keys(links)]) {
        if (!f.startsWith(prefix)) continue;
        const rest = f.slice(prefix.length);
        const i = rest.indexOf('/');
        names.add(i < 0 ? rest : rest.slice(0, i + 1));
      }
      return names.size ? [...names] : undefined;
    },
    realPath(p) {
      return links[p] ?? p;
    },
  };
}

describe('model/workspace: includes', () => {
  it('fnmatch follows httpd rules', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*.conf', 'a.conf', true],
      ['*.conf', '.hidden.conf', false],
      ['*.conf', 'a.conf.bak', false],
      ['?.load', 'a.load', true],
      ['[ab]*.conf', 'b1.conf', true],
      ['[!ab]*.conf', 'b1.conf', false],
      ['httpd-*.conf', 'httpd-ssl.conf', true],
    ];
    for (const [p, n, want] of cases) assert.equal(fnmatch(p, n), want, `${p} ~ ${n}`);
  });

  it('follows a Debian layout and gives included files their context', () => {
    const host = memHost({
      '/etc/apache2/apache2.conf': 'ServerRoot "/etc/apache2"\nIncludeOptional mods-enabled/*.load\nInclude ports.conf\nIncludeOptional sites-enabled/*.conf\n',
      '/etc/apache2/mods-enabled/ssl.load': 'LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so\n',
      '/etc/apache2/ports.conf': 'Listen 80\n',
      '/etc/apache2/sites-enabled/000-default.conf': '<VirtualHost *:80>\n  Include conf-vhost/common.conf\n  <Directory /srv>\n    Include conf-vhost/dir.conf\n  </Directory>\n</VirtualHost>\n',
      '/etc/apache2/conf-vhost/common.conf': 'ServerAdmin x@example.org\n',
      '/etc/apache2/conf-vhost/dir.conf': 'Require all granted\n',
    });
    const g = loadConfigGraph(host, '/etc/apache2/apache2.conf');
    assert.deepEqual(
      g.files.map((f) => [f.path.replace('/etc/apache2/', ''), f.context]),
      [
        ['apache2.conf', 'server'],
        ['mods-enabled/ssl.load', 'server'],
        ['ports.conf', 'server'],
        ['sites-enabled/000-default.conf', 'server'],
        ['conf-vhost/common.conf', 'vhost'],
        ['conf-vhost/dir.conf', 'directory'],
      ],
    );
    assert.equal(g.truncated, false);
  });

  it('reads each file once through cycles and symlink loops', () => {
    const host = memHost(
      {
        '/c/httpd.conf': 'Include /c/a.conf\nInclude /c/b.conf\n',
        '/c/a.conf': 'Include /c/httpd.conf\nInclude /c/link.conf\n',
        '/c/b.conf': 'Include /c/a.conf\n',
      },
      { '/c/link.conf': '/c/b.conf' },
    );
    const g = loadConfigGraph(host, '/c/httpd.conf');
    assert.deepEqual(g.files.map((f) => f.path), ['/c/httpd.conf', '/c/a.conf', '/c/link.conf']);
  });

  it('stops at the file and depth limits and says so', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`/d/f${i}.conf`] = `Include /d/f${i + 1}.conf\n`;
    files['/d/f50.conf'] = 'Listen 80\n';
    const deep = loadConfigGraph(memHost(files), '/d/f0.conf', { maxDepth: 5 });
    assert.equal(deep.files.length, 6);
    assert.equal(deep.truncated, true);
    const wide = loadConfigGraph(memHost(files), '/d/f0.conf', { maxFiles: 3 });
    assert.equal(wide.files.length, 3);
    assert.equal(wide.truncated, true);
  });

  it('reports an Include that matches nothing, not an IncludeOptional', () => {
    const host = memHost({ '/e/httpd.conf': 'Include missing.conf\nIncludeOptional gone/*.conf\n' });
    const g = loadConfigGraph(host, '/e/httpd.conf');
    assert.equal(g.edges.length, 2);
    assert.match(g.edges[0].problem ?? '', /missing\.conf/);
    assert.equal(g.edges[1].problem, undefined);
  });

  it('a folder named by Include is read whole, sorted; wildcards in middle segments work', () => {
    const host = memHost({ '/f/conf.d/b.conf': 'B x\n', '/f/conf.d/a.conf': 'A x\n', '/f/vh/one/site.conf': '', '/f/vh/two/site.conf': '' });
    assert.deepEqual(expandInclude(host, '/f/conf.d'), ['/f/conf.d/a.conf', '/f/conf.d/b.conf']);
    assert.deepEqual(expandInclude(host, '/f/vh/*/site.conf'), ['/f/vh/one/site.conf', '/f/vh/two/site.conf']);
  });

  it('finds a conventional root file without scanning', () => {
    const host = memHost({ '/w/etc/httpd/conf/httpd.conf': 'Listen 80\n', '/w/random/x.conf': '' });
    assert.equal(findRootFile(host, '/w'), '/w/etc/httpd/conf/httpd.conf');
    assert.ok(host.reads.every((p) => !p.includes('random')));
  });

  it('modelines declare a context', () => {
    assert.equal(modelineContext('# apacheconf: context=htaccess\nOrder allow,deny\n'), 'htaccess');
    assert.equal(modelineContext('Listen 80\n#apacheconf: context = vhost\n'), 'vhost');
    assert.equal(modelineContext('# apacheconf context=vhost\n'), undefined);
    assert.equal(modelineContext('# apacheconf: context=bogus\n'), undefined);
  });

  it('modelines are read in the first and last five lines only', () => {
    const body = Array.from({ length: 20 }, (_, i) => `Listen ${8000 + i}`);
    const at = (i: number, crlf = false) => {
      const l = [...body];
      l[i] = '# apacheconf: context=vhost';
      return l.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
    };
    // 21 lines (the empty one after the last break counts, as split() counts it): 0–4 and 16–20 are read.
    const table: Array<[number, boolean, string | undefined]> = [[0, false, 'vhost'], [4, false, 'vhost'], [5, false, undefined], [15, false, undefined], [16, false, 'vhost'], [19, false, 'vhost'], [4, true, 'vhost'], [16, true, 'vhost']];
    for (const [i, crlf, want] of table) assert.equal(modelineContext(at(i, crlf)), want, `line ${i}${crlf ? ' (CRLF)' : ''}`);
  });

  it('edgeLines cuts the first and last lines exactly as split(/\\r?\\n/) does', () => {
    const reference = (text: string, n: number) => {
      const lines = text.split(/\r?\n/);
      return lines.length <= 2 * n ? lines : [...lines.slice(0, n), ...lines.slice(-n)];
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', ' ', '#', '\n', '\r', '\r\n'), { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), (parts, n) => {
        const text = parts.join('');
        assert.deepEqual(edgeLines(text, n), reference(text, n));
      }),
      { numRuns: 2000 },
    );
  });
});
