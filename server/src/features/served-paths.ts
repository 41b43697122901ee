/**
 * The paths by which httpd's URL mapping reaches a folder on disk, through symbolic links.
 *
 * httpd maps a URL to a file name under a `DocumentRoot` or an `Alias` target and follows links
 * without resolving them: the `<Directory>` sections it applies, and the `.htaccess` files it reads
 * on the way down, are those of the path as mapped, not of the folder's real path. A folder that
 * a link in a served tree points to (or into) is reached by two paths, each with its own sections
 * and parent `.htaccess` files, so a rewrite of its `.htaccess` file checked on one path says
 * nothing of the other. A black-box run against httpd: a `.htaccess` file with `Satisfy Any`,
 * under an Alias that asks for a password and under a link in the DocumentRoot that does not, was
 * rewritten for the first path, and the second answered 403 where it had answered 200.
 */
import type { ConfigDocument } from '../syntax';
import { isAbsolutePath, joinPath, normalizePath } from './paths';

/** What the walk needs of the disk: real paths and folder entries. */
export interface LinkHost {
  /** The path with every symbolic link resolved; the path itself when it cannot be resolved. */
  realPath(p: string): string;
  /** A folder's entries, or undefined when it cannot be listed. */
  entries(dir: string): Array<{ name: string; directory: boolean; link: boolean }> | undefined;
}

/** The most folders the walk lists; past it, which paths reach a folder is not known. */
export const MAX_SERVED_FOLDERS = 20000;

/** The folders of the served trees, by real path. */
export interface ServedFolders {
  /** How many mapped paths reach each folder walked (2 stands for two or more). */
  readonly paths: ReadonlyMap<string, number>;
  /** The first mapped path found for each folder walked. */
  readonly first: ReadonlyMap<string, string>;
  /** The walk stopped at MAX_SERVED_FOLDERS. */
  readonly truncated: boolean;
}

/** How httpd reaches a folder (its real path): the one mapped path, or why that is not one path. */
export type ServedPath = { kind: 'one'; path: string } | { kind: 'none' } | { kind: 'several'; path: string } | { kind: 'unknown' };

const memo = new WeakMap<LinkHost, WeakMap<ConfigDocument, ServedFolders>>();

/** The folders under every `DocumentRoot`, `Alias` and `ScriptAlias` target of `doc`, links followed (kept per host and document). */
export function servedFolders(doc: ConfigDocument, links: LinkHost): ServedFolders {
  let byDoc = memo.get(links);
  if (!byDoc) memo.set(links, (byDoc = new WeakMap()));
  let r = byDoc.get(doc);
  if (!r) byDoc.set(doc, (r = walkServed(servedTops(doc), links)));
  return r;
}

/** The targets of the URL mappings httpd reaches folders by (absolute, variables left out). */
export function servedTops(doc: ConfigDocument): string[] {
  let serverRoot: string | null = null;
  const tops = new Set<string>();
  for (const d of doc.directives) {
    const v = d.key === 'serverroot' ? d.args[0]?.value : d.key === 'documentroot' ? d.args[0]?.value : d.key === 'alias' || d.key === 'scriptalias' ? d.args[1]?.value : undefined;
    if (!v || v.includes('${')) continue;
    if (d.key === 'serverroot') {
      if (isAbsolutePath(v)) serverRoot = normalizePath(v);
      continue;
    }
    if (isAbsolutePath(v)) tops.add(normalizePath(v));
    else if (serverRoot && d.key === 'documentroot') tops.add(joinPath(serverRoot, v));
  }
  // A target inside another's tree is reached by that tree's walk under the same path: it is one path, not two.
  const all = [...tops].sort();
  return all.filter((t) => !all.some((u) => u !== t && (u === '/' ? t.startsWith('/') : t.startsWith(u + '/'))));
}

/**
 * Walks the served trees breadth first, following links to folders, and counts the mapped paths
 * to each real folder: a folder reached through a link that another walk reached too, or below
 * such a folder, has several. Each real folder is listed once.
 */
function walkServed(tops: readonly string[], links: LinkHost): ServedFolders {
  const first = new Map<string, string>();
  /** Edges between real folders (a folder's entries that are folders or links to folders). */
  const children = new Map<string, string[]>();
  /** Mapped paths entering each folder from outside the walk's edges (a top). */
  const entered = new Map<string, number>();
  const queue: Array<{ path: string; real: string }> = [];
  for (const t of tops) {
    const real = links.realPath(t);
    entered.set(real, (entered.get(real) ?? 0) + 1);
    if (!first.has(real)) {
      first.set(real, t);
      queue.push({ path: t, real });
    }
  }
  let truncated = false;
  for (let i = 0; i < queue.length; i++) {
    if (i >= MAX_SERVED_FOLDERS) {
      truncated = true;
      break;
    }
    const { path, real } = queue[i];
    const entries = links.entries(path);
    if (!entries) continue;
    const out: string[] = [];
    for (const e of entries) {
      if (!e.directory && !e.link) continue;
      const p = path === '/' ? '/' + e.name : path + '/' + e.name;
      // A link to a file, or a dangling one, lists as nothing.
      if (e.link && !links.entries(p)) continue;
      const r = e.link ? links.realPath(p) : real === '/' ? '/' + e.name : real + '/' + e.name;
      out.push(r);
      if (!first.has(r)) {
        first.set(r, p);
        queue.push({ path: p, real: r });
      }
    }
    children.set(real, out);
  }
  // Paths per folder, capped at 2: a folder entered twice, or below one that is, has several.
  // (A loop of links gives its folders endless paths: the cap holds them at 2.)
  const paths = new Map<string, number>();
  const bump = (r: string, n: number): void => {
    const stack: Array<[string, number]> = [[r, n]];
    while (stack.length) {
      const [x, add] = stack.pop()!;
      const before = paths.get(x) ?? 0;
      const after = Math.min(2, before + add);
      if (after === before) continue;
      paths.set(x, after);
      for (const c of children.get(x) ?? []) stack.push([c, after - before]);
    }
  };
  for (const [r, n] of entered) bump(r, n);
  return { paths, first, truncated };
}

/** How httpd reaches the folder whose real path is `real`, in the served trees of `doc`. */
export function servedPathOf(doc: ConfigDocument, real: string, links: LinkHost): ServedPath {
  const s = servedFolders(doc, links);
  const n = s.paths.get(real) ?? 0;
  if (n >= 2) return { kind: 'several', path: s.first.get(real)! };
  if (s.truncated) return { kind: 'unknown' };
  if (n === 1) return { kind: 'one', path: s.first.get(real)! };
  return { kind: 'none' };
}
