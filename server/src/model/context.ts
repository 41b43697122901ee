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
