/**
 * served-paths.ts: how many mapped paths reach a folder through symbolic links, on a disk held in
 * memory (folders, and links with their targets). httpd applies the sections of the path it maps
 * a URL to, links unresolved, so a folder reached by two paths cannot have its `.htaccess` file
 * rewritten on one of them alone (test/httpd/symlinked-folders.test.ts shows it on httpd).
 */
import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { MAX_SERVED_FOLDERS, servedPathOf, servedTops, type LinkHost } from '../../server/src/features/served-paths';

/** A disk of folders (`/a/b/`) and links (`/a/l -> /x`). */
function disk(spec: string[]): LinkHost & { listed: number } {
  const dirs = new Set<string>(['/']);
  const links = new Map<string, string>();
  for (const s of spec) {
    const m = /^(\S+) -> (\S+)$/.exec(s);
    const p = m ? m[1] : s.replace(/\/+$/, '');
    if (m) links.set(p, m[2]);
    else dirs.add(p);
    for (let q = p.slice(0, p.lastIndexOf('/')); q; q = q.slice(0, q.lastIndexOf('/'))) dirs.add(q);
  }
  const resolve = (p: string, depth = 0): string | null => {
    if (depth > 40) return null;
    const parts = p.split('/').filter(Boolean);
    let cur = '';
    for (const part of parts) {
      const next = cur + '/' + part;
      const target = links.get(next);
      if (target !== undefined) {
        const r = resolve(target, depth + 1);
        if (r === null) return null;
        cur = r === '/' ? '' : r;
      } else cur = next;
    }
    return cur || '/';
  };
  const kids = new Map<string, Array<{ name: string; directory: boolean; link: boolean }>>();
  const add = (p: string, directory: boolean) => {
    const parent = p.slice(0, p.lastIndexOf('/')) || '/';
    if (!kids.has(parent)) kids.set(parent, []);
    kids.get(parent)!.push({ name: p.slice(p.lastIndexOf('/') + 1), directory, link: !directory });
  };
  for (const d of dirs) if (d !== '/') add(d, true);
  for (const l of links.keys()) add(l, false);
  const host = {
    listed: 0,
    realPath: (p: string) => resolve(p) ?? p,
    entries(dir: string) {
      const real = resolve(dir);
      if (real === null || !dirs.has(real)) return undefined;
      host.listed++;
      return kids.get(real) ?? [];
    },
  };
  return host;
}

const CONF = 'DocumentRoot /www\nAlias /p /srv/priv\n';

describe('features: the mapped paths that reach a folder (served-paths)', () => {
  const rows: Array<{ name: string; conf?: string; disk: string[]; folder: string; want: string }> = [
    { name: 'a folder of the document root, no links', disk: ['/www/a/b/'], folder: '/www/a/b', want: 'one /www/a/b' },
    { name: 'an Alias target', disk: ['/www/', '/srv/priv/sub/'], folder: '/srv/priv/sub', want: 'one /srv/priv/sub' },
    { name: 'a folder outside every tree', disk: ['/www/', '/srv/priv/', '/other/x/'], folder: '/other/x', want: 'none' },
    { name: 'reached only through a link in the document root: that path', disk: ['/www/l -> /outside', '/outside/sub/', '/srv/priv/'], folder: '/outside/sub', want: 'one /www/l/sub' },
    { name: 'a link into an Alias target: two paths', disk: ['/www/l -> /srv/priv', '/srv/priv/sub/'], folder: '/srv/priv/sub', want: 'several' },
    { name: 'a link above the folder, in another tree', disk: ['/www/l -> /srv', '/srv/priv/'], folder: '/srv/priv', want: 'several' },
    { name: 'two links to one folder', disk: ['/www/a -> /x', '/www/b -> /x', '/x/', '/srv/priv/'], folder: '/x', want: 'several' },
    { name: 'a link to a folder below, inside the same tree', disk: ['/www/a/b/', '/www/c -> /www/a', '/srv/priv/'], folder: '/www/a/b', want: 'several' },
    { name: 'a loop of links', disk: ['/www/a/', '/www/a/up -> /www', '/srv/priv/'], folder: '/www/a', want: 'several' },
    { name: 'a link to a file, and a dangling one, change nothing', disk: ['/www/a/', '/www/f -> /www/a/index.html', '/www/d -> /gone', '/srv/priv/'], folder: '/www/a', want: 'one /www/a' },
    { name: 'a DocumentRoot written through a link: the path as written', conf: 'DocumentRoot /var/www\n', disk: ['/var/www -> /data/www', '/data/www/a/'], folder: '/data/www/a', want: 'one /var/www/a' },
    { name: 'an Alias inside the document root is the same path', conf: 'DocumentRoot /www\nAlias /a /www/a\n', disk: ['/www/a/b/'], folder: '/www/a/b', want: 'one /www/a/b' },
    { name: 'a DocumentRoot relative to ServerRoot', conf: 'ServerRoot /etc/httpd\nDocumentRoot htdocs\n', disk: ['/etc/httpd/htdocs/l -> /x', '/x/'], folder: '/x', want: 'one /etc/httpd/htdocs/l' },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = servedPathOf(parse(r.conf ?? CONF), r.folder, disk(r.disk));
      assert.equal(got.kind === 'one' ? `one ${got.path}` : got.kind, r.want);
    });
  }

  it('past the walk limit nothing is claimed, and the walk stops there', () => {
    const many = Array.from({ length: MAX_SERVED_FOLDERS + 10 }, (_, i) => `/www/d${i}/`);
    const host = disk(many);
    const got = servedPathOf(parse(CONF), '/www/d1', host);
    assert.equal(got.kind, 'unknown');
    assert.ok(host.listed <= MAX_SERVED_FOLDERS + 1, String(host.listed));
  });

  it('the walk starts at each DocumentRoot, Alias and ScriptAlias target, variables left out', () => {
    assert.deepEqual(servedTops(parse('DocumentRoot "/www/"\n<VirtualHost *:80>\nDocumentRoot /v\nScriptAlias /cgi-bin/ /usr/lib/cgi-bin/\nAlias /x ${X}/y\n</VirtualHost>\n')), ['/usr/lib/cgi-bin', '/v', '/www']);
  });
});
