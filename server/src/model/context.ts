/**
 * Where a file or a node sits in httpd's configuration: the file context says
 * what the file's top level is (the main server config, the body of one
 * <VirtualHost>, the body of a <Directory>, or an .htaccess file).
 */
import type { ConfigDocument, SectionNode, LineNode, DirectiveNode } from '../syntax';

export type FileContext = 'server' | 'vhost' | 'directory' | 'htaccess';

export const FILE_CONTEXTS: readonly FileContext[] = ['server', 'vhost', 'directory', 'htaccess'];

/** The default context for a path: htaccess for .htaccess, *.htaccess and htaccess.txt, else server. */
export function defaultContextFor(path: string): FileContext {
  const base = path.replace(/\\/g, '/').split('/').pop()!.toLowerCase();
  if (base === '.htaccess' || base.endsWith('.htaccess') || base === 'htaccess.txt') return 'htaccess';
  return 'server';
}

/** The chain of enclosing sections of a node, innermost first. */
export function ancestors(node: { parent: SectionNode | null }): SectionNode[] {
  const out: SectionNode[] = [];
  for (let p = node.parent; p; p = p.parent) out.push(p);
  return out;
}

export type { ConfigDocument, SectionNode, LineNode, DirectiveNode };

/**
 * Folders whose files httpd reads only through an Include of another file: Debian's
 * `{conf,sites,mods}-{available,enabled}/`, Red Hat's `conf.d/` and `conf.modules.d/`, SUSE's
 * `vhosts.d/`, macOS's `other/`, and the `extra/httpd-*.conf` files of httpd's own layout.
 */
const INCLUDED_DIRS = new Set(['conf-available', 'conf-enabled', 'sites-available', 'sites-enabled', 'mods-available', 'mods-enabled', 'conf.d', 'conf.modules.d', 'vhosts.d', 'other']);

/**
 * Whether a server-config file's path says another file includes it (see INCLUDED_DIRS): its
 * sections then inherit what that file says before them, which the file alone does not show.
 */
export function looksIncluded(path: string): boolean {
  const parts = path.replace(/\\/g, '/').split('/');
  if (parts.length < 2) return false;
  const dir = parts[parts.length - 2].toLowerCase();
  const base = parts[parts.length - 1].toLowerCase();
  return INCLUDED_DIRS.has(dir) || (dir === 'extra' && base.startsWith('httpd-'));
}
