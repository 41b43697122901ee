/**
 * Explain access for one request, the shared parts: the question asked
 * (ExplainQuery, and the engine's Request built from it), the answer
 * (ExplainResult), and a whole configuration spliced into one text with the
 * included files where their Include line stands (a file included inside
 * `<VirtualHost>` is read as that virtual host's body, as httpd reads it),
 * each line knowing its own file and line. explain-disk.ts answers the
 * question, with the `.htaccess` files on the way when it may read them.
 */
import { parse, type ConfigDocument, type DirectiveNode } from '../syntax';
import type { ConfigGraph } from '../model/workspace';
import type { Credentials, Request } from '../access';

/** One configuration as a single text, with the origin of each of its lines. */
export interface FlatConfig {
  doc: ConfigDocument;
  /** The file and 0-based line each physical line of `doc` came from. */
  origins: Array<{ path: string; line: number }>;
  /** True when the size bound cut the text short. */
  truncated: boolean;
}

/** Upper bound on the spliced text (characters). */
export const MAX_FLAT_CHARS = 8 * 1024 * 1024;

/** Splice the graph's files into one text, from its root, in httpd's reading order. */
export function flattenGraph(graph: ConfigGraph, maxChars = MAX_FLAT_CHARS): FlatConfig {
  const byPath = new Map(graph.files.map((f) => [f.path, f]));
  const targets = new Map<DirectiveNode, string[]>();
  for (const e of graph.edges) targets.set(e.directive, e.targets);
  const parts: string[] = [];
  const origins: FlatConfig['origins'] = [];
  let size = 0;
  let truncated = false;
  const stack: string[] = [];

  const emit = (text: string, path: string, firstLine: number) => {
    if (size + text.length > maxChars) {
      truncated = true;
      return;
    }
    const t = text.endsWith('\n') ? text : text + '\n';
    parts.push(t);
    size += t.length;
    let line = firstLine;
    for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) === 10) origins.push({ path, line: line++ });
  };

  const visit = (path: string) => {
    const file = byPath.get(path);
    if (!file || stack.includes(path)) return;
    stack.push(path);
    const doc = file.doc;
    for (let ix = 0; ix < doc.lines.length; ix++) {
      const node = doc.lines[ix];
      if (truncated) break;
      const list = node.type === 'directive' ? targets.get(node) : undefined;
      if (list) {
        // The Include line itself becomes a comment, so steps never point at it by accident.
        emit('#' + doc.text.slice(node.lineStart, node.lineEnd).replace(/\r?\n$/, '').replace(/\\\r?\n/g, ' '), path, node.line);
        for (const t of list) visit(t);
        continue;
      }
      const text = doc.text.slice(node.lineStart, node.lineEnd);
      if (text) emit(text, path, node.line);
    }
    stack.pop();
  };
  visit(graph.root);
  const text = parts.join('');
  return { doc: parse(text), origins, truncated };
}

/**
 * The graph with some files' texts replaced (by path), its Include edges carried over to the new
 * texts' Include lines. The edges point at directive nodes, so replacing a file's document alone
 * would cut what it includes out of flattenGraph's result. Null when a new text's Include lines
 * are not the old ones, in the same order, word for word (what they bring in is then not known).
 */
export function graphWithTexts(graph: ConfigGraph, texts: ReadonlyMap<string, string>): ConfigGraph | null {
  const moved = new Map<DirectiveNode, DirectiveNode>();
  const includes = (doc: ConfigDocument) => doc.directives.filter((d) => d.key === 'include' || d.key === 'includeoptional');
  const files = [];
  for (const f of graph.files) {
    const text = texts.get(f.path);
    if (text === undefined || text === f.doc.text) {
      files.push(f);
      continue;
    }
    const doc = parse(text);
    const before = includes(f.doc);
    const after = includes(doc);
    if (before.length !== after.length) return null;
    for (let i = 0; i < before.length; i++) {
      const a = before[i];
      const b = after[i];
      if (a.key !== b.key || a.args.map((t) => t.raw).join(' ') !== b.args.map((t) => t.raw).join(' ')) return null;
      moved.set(a, b);
    }
    files.push({ ...f, doc });
  }
  return { ...graph, files, edges: graph.edges.map((e) => (moved.has(e.directive) ? { ...e, directive: moved.get(e.directive)! } : e)) };
}

export type CredentialsState = 'none' | 'valid' | 'wrong';

/** What the explain command asks. */
export interface ExplainQuery {
  /** URL path ("/admin/index.html"). */
  path: string;
  /** Client address (default 127.0.0.1). */
  ip?: string;
  credentials?: CredentialsState;
  /** The user name for valid credentials (default "someone"). */
  user?: string;
  /** Groups the user is in (for Require group). */
  groups?: string[];
  /** The Host of the request: picks the <VirtualHost> with that ServerName. */
  serverName?: string;
  /** The client's verified host name (Require host, Allow from a name). */
  hostName?: string;
  method?: string;
  /** Request headers (SetEnvIf and BrowserMatch read them; `Require expr` may). */
  headers?: Record<string, string>;
  /** Variables already set when the access phase runs (from outside this configuration). */
  env?: Record<string, string>;
  /** The document root on disk the URL maps onto (overrides DocumentRoot). */
  documentRoot?: string;
  /** The <VirtualHost> that answers, by the offset of its open tag (wins over serverName). */
  vhostStart?: number;
  /** The names httpd is started with (`-D NAME`): every `<IfDefine>` is then settled. */
  defines?: string[];
}

export interface ExplainStep {
  /** The file the step's line is in (a path, or the uri of a lone document). */
  file: string;
  /** 0-based line. */
  line: number;
  directive: string;
  effect: string;
}

export interface ExplainResult {
  status: 200 | 401 | 403 | 500 | null;
  decision: string;
  steps: ExplainStep[];
  /** 'configuration' when the whole include graph was read, 'file' for one document. */
  scope: 'configuration' | 'file';
  /** The root file, for a configuration. */
  root?: string;
  /** A word on what could not be taken into account. */
  note?: string;
}

export function buildRequest(q: ExplainQuery): Request {
  const ip = q.ip?.trim() || '127.0.0.1';
  let credentials: Credentials = { kind: 'none' };
  if (q.credentials === 'wrong') credentials = { kind: 'wrong' };
  else if (q.credentials === 'valid') credentials = { kind: 'valid', user: q.user?.trim() || 'someone' };
  const r: Request = { path: q.path.trim() || '/', ip, credentials, method: q.method };
  if (q.serverName?.trim()) r.serverName = q.serverName.trim();
  if (q.hostName !== undefined) r.hostName = q.hostName.trim() || null;
  if (q.headers && Object.keys(q.headers).length) r.headers = { ...q.headers };
  if (q.env && Object.keys(q.env).length) r.env = { ...q.env };
  if (q.documentRoot) r.documentRoot = q.documentRoot;
  if (q.vhostStart !== undefined) r.vhostStart = q.vhostStart;
  if (q.defines) r.defines = [...q.defines];
  if (credentials.kind === 'valid' && q.groups?.length) {
    // No prototype: a group may be named `constructor` or `__proto__`.
    const groups = Object.create(null) as Record<string, string[]>;
    for (const g of q.groups) groups[g] = [credentials.user];
    r.groups = groups;
  }
  return r;
}

