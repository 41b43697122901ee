/**
 * How the files of one httpd configuration fit together: from a root file,
 * follow `Include` and `IncludeOptional` (globs resolved against the
 * ServerRoot, as httpd does), so that a file included inside a
 * `<VirtualHost>` is known to be a virtual host body, and a file that is
 * included at the top level is server context.
 *
 * Lazy and bounded: only files reachable from the root are read, at most
 * `maxFiles` of them and `maxDepth` levels deep; a file reached twice (a
 * cycle, a symlink loop, two globs that overlap) is read once. No I/O
 * happens here: the caller passes a host that reads files and lists folders.
 */
import { parse, trimEndChars, type ConfigDocument, type DirectiveNode, type SectionNode } from '../syntax';
import { ancestors, type FileContext } from './context';

export interface WorkspaceHost {
  /** The decoded text of a file, or undefined when it cannot be read (missing, a folder, no permission). */
  readFile(path: string): string | undefined;
  /** Entries of a folder (names only; folders end with '/'), or undefined when it is not a readable folder. */
  listDir(path: string): string[] | undefined;
  /** The canonical path (symlinks resolved), used to read each file once. Defaults to the path itself. */
  realPath?(path: string): string;
}

export interface WorkspaceOptions {
  maxFiles?: number;
  maxDepth?: number;
  /** The ServerRoot to use when the root file sets none (httpd's -d). Default: the root file's folder. */
  serverRoot?: string;
}

export interface IncludeEdge {
  /** The including file. */
  from: string;
  /** The Include directive in it. */
  directive: DirectiveNode;
  /** The files the directive's path matched (after globbing), in httpd's order. */
  targets: string[];
  /** Set when the path matched nothing and the directive is `Include` (httpd refuses to start), or a limit was hit. */
  problem?: string;
}

export interface WorkspaceFile {
  path: string;
  doc: ConfigDocument;
  /** Where the file sits: server (top-level include), vhost, directory. The root file is server. */
  context: FileContext;
  /** The first Include that brought the file in (undefined for the root). */
  includedBy?: { file: string; directive: DirectiveNode; sections: SectionNode[] };
}

export interface ConfigGraph {
  root: string;
  serverRoot: string;
  /** Files in the order httpd reads them. */
  files: WorkspaceFile[];
  edges: IncludeEdge[];
  /** True when maxFiles or maxDepth stopped the walk. */
  truncated: boolean;
}

const DEFAULTS = { maxFiles: 1000, maxDepth: 16 };

/** Unquoted path helpers (forward slashes only; the server passes normalized paths). */
function isAbs(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
}
function join(a: string, b: string): string {
  if (isAbs(b)) return normalize(b);
  return normalize(trimEndChars(a, '/') + '/' + b);
}
function normalize(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return (abs ? '/' : '') + out.join('/');
}
function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** fnmatch as httpd's Include uses it (apr_fnmatch with APR_FNM_PERIOD): `*`, `?`, `[…]`; a leading dot must be literal. */
export function fnmatch(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false;
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!') || body.startsWith('^')) body = '^' + body.slice(1);
        re += '[' + body.replace(/\\/g, '\\\\') + ']';
        i = close;
      }
    } else if (c === '\\' && i + 1 < pattern.length) re += '\\' + pattern[++i];
    else re += c.replace(/[.+^${}()|\]\\]/g, '\\$&');
  }
  try {
    return new RegExp(re + '$').test(name);
  } catch {
    return false;
  }
}

function hasWild(s: string): boolean {
  return /[*?[]/.test(s);
}

/**
 * Expand an Include path. httpd allows wildcards in any segment (2.3.6+);
 * matches are sorted by name; folders named directly are read whole (every
 * file in them, sorted). Returns files only.
 */
export function expandInclude(host: WorkspaceHost, path: string): string[] {
  const segs = normalize(path).split('/');
  const abs = path.startsWith('/');
  let current: string[] = [abs ? '/' : ''];
  for (let i = abs ? 1 : 0; i < segs.length; i++) {
    const seg = segs[i];
    const next: string[] = [];
    for (const base of current) {
      if (!hasWild(seg)) {
        next.push(base ? join(base, seg) : seg);
        continue;
      }
      const entries = host.listDir(base || '.') ?? [];
      const last = i === segs.length - 1;
      for (const e of [...entries].sort()) {
        const isDir = e.endsWith('/');
        const name = isDir ? e.slice(0, -1) : e;
        if (!fnmatch(seg, name)) continue;
        if (!last && !isDir) continue;
        if (last && isDir) continue; // a wildcard that matches a folder in last position is not read
        next.push(join(base || '.', name));
      }
    }
    current = next;
  }
  const files: string[] = [];
  for (const p of current) {
    const listing = host.listDir(p);
    if (listing) {
      // A folder: every file in it, sorted (httpd reads a directory named by Include whole).
      for (const e of [...listing].sort()) if (!e.endsWith('/')) files.push(join(p, e));
    } else files.push(p);
  }
  return files;
}

function contextFromSections(sections: SectionNode[], base: FileContext): FileContext {
  for (const s of sections) {
    if (s.key === 'virtualhost') return 'vhost';
    if (['directory', 'directorymatch', 'location', 'locationmatch', 'files', 'filesmatch', 'if', 'elseif', 'else', 'proxy', 'proxymatch'].includes(s.key)) return 'directory';
  }
  return base;
}

/** Follow the includes from `root`. Never throws. */
export function loadConfigGraph(host: WorkspaceHost, root: string, options: WorkspaceOptions = {}): ConfigGraph {
  const maxFiles = options.maxFiles ?? DEFAULTS.maxFiles;
  const maxDepth = options.maxDepth ?? DEFAULTS.maxDepth;
  const real = (p: string) => {
    try {
      return host.realPath ? host.realPath(p) : p;
    } catch {
      return p;
    }
  };
  const seen = new Set<string>();
  const files: WorkspaceFile[] = [];
  const edges: IncludeEdge[] = [];
  let truncated = false;
  let serverRoot = options.serverRoot ?? dirOf(root);

  const visit = (path: string, depth: number, context: FileContext, includedBy?: WorkspaceFile['includedBy']): void => {
    const key = real(path);
    if (seen.has(key)) return;
    if (files.length >= maxFiles || depth > maxDepth) {
      truncated = true;
      return;
    }
    const text = host.readFile(path);
    if (text === undefined) return;
    seen.add(key);
    const doc = parse(text);
    const file: WorkspaceFile = { path, doc, context, includedBy };
    files.push(file);
    for (let ix = 0; ix < doc.directives.length; ix++) {
      const d = doc.directives[ix];
      if (d.key === 'serverroot' && d.args[0] && depth === 0 && !options.serverRoot) serverRoot = d.args[0].value;
      if (d.key !== 'include' && d.key !== 'includeoptional') continue;
      const arg = d.args[0]?.value;
      if (!arg || /\$\{/.test(arg)) continue;
      const full = join(serverRoot, arg);
      const targets = expandInclude(host, full).filter((t) => host.readFile(t) !== undefined);
      const edge: IncludeEdge = { from: path, directive: d, targets };
      if (!targets.length && d.key === 'include' && !hasWild(arg)) edge.problem = `Include path ${arg} matches no readable file (httpd refuses to start)`;
      edges.push(edge);
      const sections = ancestors(d);
      const childContext = contextFromSections(sections, context);
      for (const t of targets) visit(t, depth + 1, childContext, { file: path, directive: d, sections });
    }
  };
  visit(root, 0, 'server');
  return { root, serverRoot, files, edges, truncated };
}

/**
 * The folder an Include line reads and the name pattern it takes there, when only the last part
 * of its path has wildcards (`sites-enabled/*.conf`); null for other paths (a folder named whole
 * takes every file in it; wildcards in a folder part).
 */
export function includePattern(graph: ConfigGraph, edge: IncludeEdge): { dir: string; pattern: string } | null {
  const arg = edge.directive.args[0]?.value;
  if (!arg || /\$\{/.test(arg)) return null;
  const full = join(graph.serverRoot, arg);
  const dir = dirOf(full);
  const pattern = full.slice(full.lastIndexOf('/') + 1);
  if (!hasWild(pattern) || hasWild(dir)) return null;
  return { dir, pattern };
}

/** Conventional root files of the layouts users keep in a repository (Debian, Red Hat, source builds). */
export const ROOT_CANDIDATES = [
  'apache2.conf',
  'httpd.conf',
  'conf/httpd.conf',
  'etc/apache2/apache2.conf',
  'etc/httpd/conf/httpd.conf',
  'apache2/apache2.conf',
  'httpd/conf/httpd.conf',
];

/** The first conventional root file under a workspace folder, without scanning the folder. */
export function findRootFile(host: WorkspaceHost, folder: string): string | undefined {
  for (const c of ROOT_CANDIDATES) {
    const p = join(folder, c);
    if (host.readFile(p) !== undefined) return p;
  }
  return undefined;
}

/** A modeline in the first or last five lines: `# apacheconf: context=htaccess`. */
/** A modeline is read in the first and the last five lines. */
const MODELINE_LINES = 5;

/**
 * The first `n` and the last `n` lines of a text (every line when it has no more than 2n), as
 * `text.split(/\r?\n/)` cuts them, without cutting the lines in between: this runs on every
 * change of a document, however long.
 */
export function edgeLines(text: string, n: number): string[] {
  // Where the first 2n line breaks are; fewer means the text has at most 2n lines.
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0 && breaks.length < 2 * n; i = text.indexOf('\n', i + 1)) breaks.push(i);
  if (breaks.length < 2 * n) return text.split(/\r?\n/);
  const line = (from: number, nl: number): string => text.slice(from, nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl);
  const out: string[] = [];
  let from = 0;
  for (let k = 0; k < n; k++) {
    out.push(line(from, breaks[k]));
    from = breaks[k] + 1;
  }
  // The last n lines: the part after the last break, and the n - 1 lines before it.
  const tail: string[] = [];
  let end = text.length;
  let nl = text.lastIndexOf('\n');
  tail.push(text.slice(nl + 1, end));
  for (let k = 1; k < n; k++) {
    end = nl;
    const prev = text.lastIndexOf('\n', end - 1);
    tail.push(line(prev + 1, end));
    nl = prev;
  }
  return out.concat(tail.reverse());
}

export function modelineContext(text: string): FileContext | undefined {
  for (const l of edgeLines(text, MODELINE_LINES)) {
    const m = /^\s*#\s*apacheconf:\s*(.*)$/i.exec(l);
    if (!m) continue;
    const c = /(?:^|[\s;,])context\s*=\s*(server|vhost|directory|htaccess)\b/i.exec(m[1]);
    if (c) return c[1].toLowerCase() as FileContext;
  }
  return undefined;
}
