/**
 * Explain a request the way httpd answers it on a real machine: the virtual
 * host the Host header picks, and the `.htaccess` files on the way from `/`
 * to the requested file, read where `AllowOverride` lets them in.
 *
 * httpd reads a directory's `.htaccess` right after the `<Directory>`
 * sections of that directory, so it acts like one more `<Directory>` section
 * for that path, placed after the others of the same depth. That is how it is
 * spliced into the configuration before the access engine runs; every step is
 * mapped back to the `.htaccess` file and line it came from. A directive the
 * directory's `AllowOverride` does not allow, or one that is not allowed in
 * `.htaccess` at all, makes httpd answer 500 for every request below it.
 *
 * Files are read through a small reader, so this stays free of the disk and
 * of the transport (the CLI passes the disk; tests pass a table).
 */
import { parse, physicalLine, trimEndChars, type ChildNode, type ConfigDocument, type DirectiveNode, type SectionNode } from '../syntax';
import type { FileContext } from '../model/context';
import { getDirective } from '../facts';
import { fnmatchPath } from '../access/evaluate';
import { explain, lineLabel, MAX_ANALYSED_NESTING, walkStop } from '../access';
import { buildRequest, type ExplainQuery, type ExplainResult, type ExplainStep, type FlatConfig } from './explain';

export interface DiskReader {
  /** A file's text, or undefined when it does not exist or cannot be read. */
  readFile(path: string): string | undefined;
  isDirectory(path: string): boolean;
}

/** Override classes of AllowOverride, as httpd spells them. */
const OVERRIDE_CLASSES = ['AuthConfig', 'FileInfo', 'Indexes', 'Limit', 'Options'] as const;

/** What a directory allows in its `.htaccess`: null when httpd does not read it at all. */
export interface Overrides {
  classes: Set<string>;
  /** Directive names (lower case) from AllowOverrideList. */
  list: Set<string>;
  /** Nonfatal=Override / Unknown (All sets both): such lines are skipped instead of failing. */
  nonfatalOverride: boolean;
  nonfatalUnknown: boolean;
}

/** Sections whose children httpd reads as if they stood where the section is (for our lookups). */
const TRANSPARENT = new Set(['ifmodule', 'ifdefine', 'ifversion', 'ifdirective', 'ifsection', 'iffile']);
/** Conditional sections inside a .htaccess: what they hold may not be read, so it is not checked. */
const CONDITIONAL = TRANSPARENT;

function unquote(s: string): string {
  return s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0] ? s.slice(1, -1) : s;
}

/**
 * The nodes of the main server (or of one virtual host), looking through conditional sections.
 * A stack of child lists, not recursion: conditional sections may be nested thousands deep.
 */
function* scopeNodes(children: readonly ChildNode[], vhost: SectionNode | null): Generator<ChildNode> {
  const stack: Array<{ list: readonly ChildNode[]; i: number }> = [{ list: children, i: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i >= top.list.length) {
      stack.pop();
      continue;
    }
    const ch = top.list[top.i++];
    if (ch.type === 'section') {
      if (TRANSPARENT.has(ch.key)) {
        stack.push({ list: ch.children, i: 0 });
        continue;
      }
      if (ch.key === 'virtualhost') {
        // The chosen host's body is looked into; other hosts (and hosts inside it) are not.
        if (ch === vhost) stack.push({ list: ch.children, i: 0 });
        continue;
      }
    }
    yield ch;
  }
}

/** A .htaccess text as the `<Directory>` section httpd reads it as (a line break added where it has none at the end). */
export function directoryCopy(dir: string, body: string): string {
  return `<Directory "${dir}">\n${body}${body.endsWith('\n') || !body ? '' : '\n'}</Directory>\n`;
}

/** Every <VirtualHost> of the configuration, in order. */
export function virtualHosts(doc: ConfigDocument): SectionNode[] {
  const out: SectionNode[] = [];
  // Hosts at the top level or inside conditional sections (the document's sections come in order).
  // Whether a section is at the top level or only inside conditional sections (parents come first).
  const open = new Map<SectionNode, boolean>();
  for (const s of doc.sections) {
    const p = s.parent;
    const reached = !p || (TRANSPARENT.has(p.key) && open.get(p) === true);
    open.set(s, reached);
    if (reached && s.key === 'virtualhost') out.push(s);
  }
  return out;
}

function namesOf(vhost: SectionNode): { serverName: string | null; aliases: string[] } {
  let serverName: string | null = null;
  const aliases: string[] = [];
  for (const n of scopeNodes(vhost.children, null)) {
    if (n.type !== 'directive') continue;
    if (n.key === 'servername' && n.args[0]) serverName = unquote(n.args[0].value).replace(/^[a-z]+:\/\//i, '').replace(/:\d+$/, '');
    if (n.key === 'serveralias') aliases.push(...n.args.map((a) => unquote(a.value)));
  }
  return { serverName, aliases };
}

/** The ports a <VirtualHost> listens on ('*' for any), from its addresses. */
function portsOf(vhost: SectionNode): string[] {
  return vhost.args.map((a) => {
    const v = unquote(a.value);
    const m = /:(\d+|\*)$/.exec(v);
    return m && !v.endsWith(']') ? m[1] : '*';
  });
}

/** A `<VirtualHost>` address: host (`*` and `_default_` for any) and port (`*` for any). */
function hostPort(v: string): { host: string; port: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+|\*))?$/.exec(v);
  if (!m) return { host: v.toLowerCase(), port: '*' };
  return { host: m[1].toLowerCase(), port: m[2] ?? '*' };
}

/**
 * Whether the main server answers some connections although the configuration has virtual hosts:
 * a `Listen` address and port that no `<VirtualHost>` covers (one for any address, `*` or
 * `_default_`, on that port or any port, or one for that very address). Null when none does;
 * else the first such Listen line, or a null directive when the configuration has no Listen at all
 * (a part of a configuration: the main server may answer, so it counts).
 */
export function mainServerListen(doc: ConfigDocument): { directive: DirectiveNode | null } | null {
  const vhosts = virtualHosts(doc);
  if (!vhosts.length) return { directive: null };
  const taken = vhosts.flatMap((v) => v.args.map((a) => hostPort(unquote(a.value))));
  let any = false;
  for (const n of scopeNodes(doc.children, null)) {
    if (n.type !== 'directive' || n.key !== 'listen' || !n.args[0]) continue;
    any = true;
    const v = unquote(n.args[0].value);
    const m = /^(?:(\[[^\]]*\]|[^:]*):)?(\d+)$/.exec(v);
    if (!m) return { directive: n };
    const host = m[1] === undefined || m[1] === '0.0.0.0' || m[1] === '[::]' || m[1] === '*' ? null : m[1].toLowerCase();
    const port = m[2];
    const covered = taken.some((t) => (t.port === '*' || t.port === port) && (t.host === '*' || t.host === '_default_' || (host !== null && t.host === host)));
    if (!covered) return { directive: n };
  }
  return any ? null : { directive: null };
}

/** The port a request without one in its Host arrives on: 80 when the server listens there (or says nothing), else its first Listen port. */
function defaultPort(doc: ConfigDocument): string {
  const ports: string[] = [];
  for (const n of scopeNodes(doc.children, null)) {
    if (n.type !== 'directive' || n.key !== 'listen' || !n.args[0]) continue;
    const m = /(?:^|:)(\d+)$/.exec(unquote(n.args[0].value));
    if (m) ports.push(m[1]);
  }
  return !ports.length || ports.includes('80') ? '80' : ports[0];
}

/**
 * The virtual host httpd picks for a request: among those listening on the request's port (from
 * the Host header, else 80 or the first Listen port), the one whose ServerName or ServerAlias is the Host, else the first
 * of them (name-based hosting's default). None listening on that port: the main server.
 */
export function pickVirtualHost(
  doc: ConfigDocument,
  host: string | undefined,
  /** How a note names a line of `doc` (a flattened configuration's lines come from several files). */
  where: (line: number) => string = (line) => `line ${line + 1}`,
): { vhost: SectionNode | null; note?: string } {
  const vhosts = virtualHosts(doc);
  if (!vhosts.length) return { vhost: null };
  const portMatch = host ? /:(\d+)$/.exec(host) : null;
  const port = portMatch ? portMatch[1] : defaultPort(doc);
  const candidates = vhosts.filter((v) => portsOf(v).some((p) => p === '*' || p === port));
  if (!candidates.length) return { vhost: null, note: `no <VirtualHost> listens on port ${port}: the main server answers` };
  const named = candidates.map((v) => ({ v, ...namesOf(v) }));
  const label = (n: { v: SectionNode; serverName: string | null }) => n.serverName ?? `<VirtualHost ${n.v.args.map((a) => a.value).join(' ')}> on ${where(n.v.open.line)}`;
  if (!host) {
    return { vhost: named[0].v, note: `no Host header given: the first virtual host on port ${port} (${label(named[0])}) answers, as in name-based hosting; give a Host (--header Host:NAME in the CLI, the server name in the editor) for another` };
  }
  const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const hit =
    named.find((n) => n.serverName?.toLowerCase() === name) ??
    named.find((n) => n.aliases.some((a) => a.toLowerCase() === name || fnmatchPath(a.toLowerCase(), name)));
  if (hit) return { vhost: hit.v };
  return { vhost: named[0].v, note: `no virtual host on port ${port} is named ${host}: the first one (${label(named[0])}) answers, as in name-based hosting` };
}

function components(p: string): string[] {
  return p.split('/').filter(Boolean);
}

/** Does a non-regex <Directory> pattern cover directory `dir` (itself or a parent of it)? */
function directoryCovers(pattern: string, dir: string): boolean {
  const pat = components(pattern);
  const d = components(dir);
  if (pat.length > d.length) return false;
  for (let i = 0; i < pat.length; i++) {
    if (pat[i] !== d[i] && !fnmatchPath(pat[i], d[i])) return false;
  }
  return true;
}

/** AllowOverride and AllowOverrideList for one directory (the <Directory> sections that cover it, by depth then order). */
export function overridesFor(doc: ConfigDocument, vhost: SectionNode | null, dir: string): Overrides | null {
  const sections: Array<{ s: SectionNode; depth: number; order: number }> = [];
  let order = 0;
  const consider = (nodes: Iterable<ChildNode>) => {
    for (const n of nodes) {
      if (n.type !== 'section' || n.key !== 'directory' || !n.args.length) continue;
      const first = unquote(n.args[0].value);
      if (first === '~') continue; // regular-expression sections cannot hold AllowOverride
      if (directoryCovers(first, dir)) sections.push({ s: n, depth: components(first).length, order: order++ });
    }
  };
  consider(scopeNodes(doc.children, null));
  if (vhost) consider(scopeNodes(vhost.children, null));
  sections.sort((a, b) => a.depth - b.depth || a.order - b.order);
  // Never set: httpd still reads the file, with no class allowed (any directive in it answers 500;
  // seen with httpd 2.4: "Require not allowed here" with no AllowOverride anywhere). An explicit
  // `AllowOverride None` (and no AllowOverrideList) is what stops it reading the file.
  let allow: string[] | null = null;
  let list: string[] = [];
  for (const { s } of sections) {
    for (const n of scopeNodes(s.children, null)) {
      if (n.type !== 'directive') continue;
      if (n.key === 'allowoverride') allow = n.args.map((a) => unquote(a.value));
      else if (n.key === 'allowoverridelist') list = n.args.map((a) => unquote(a.value));
    }
  }
  const classes = new Set<string>();
  let nonfatalOverride = false;
  let nonfatalUnknown = false;
  for (const a of allow ?? []) {
    const [head, value] = a.split('=', 2);
    const h = head.toLowerCase();
    if (h === 'all') OVERRIDE_CLASSES.forEach((c) => classes.add(c));
    else if (h === 'nonfatal') {
      const v = (value ?? '').toLowerCase();
      if (v === 'override' || v === 'all') nonfatalOverride = true;
      if (v === 'unknown' || v === 'all') nonfatalUnknown = true;
    } else {
      const c = OVERRIDE_CLASSES.find((x) => x.toLowerCase() === h);
      if (c) classes.add(c);
    }
  }
  const listed = new Set(list.filter((x) => x.toLowerCase() !== 'none').map((x) => x.toLowerCase()));
  if (allow !== null && !classes.size && !listed.size) return null;
  return { classes, list: listed, nonfatalOverride, nonfatalUnknown };
}

/**
 * The DocumentRoot of the host that answers for `host` (the Host header; see pickVirtualHost):
 * the virtual host's own, else the main server's; undefined when neither sets one.
 */
export function documentRootOf(doc: ConfigDocument, host: string | undefined): string | undefined {
  const { vhost } = pickVirtualHost(doc, host);
  let root: string | undefined;
  const look = (nodes: Iterable<ChildNode>) => {
    for (const n of nodes) if (n.type === 'directive' && n.key === 'documentroot' && n.args.length) root = unquote(n.args[0].value);
  };
  look(scopeNodes(doc.children, null));
  if (vhost) look(scopeNodes(vhost.children, null));
  return root;
}

/**
 * Directives that map a URL to a file outside the DocumentRoot (or whose module may): with one of
 * them anywhere in the configuration, any host may serve files from any folder.
 */
const MAPPERS = new Set([
  'alias', 'aliasmatch', 'scriptalias', 'scriptaliasmatch', 'rewriterule', 'userdir',
  'virtualdocumentroot', 'virtualdocumentrootip', 'virtualscriptalias', 'virtualscriptaliasip',
  'luahooktranslatename', 'luamaphandler', 'perltranshandler', 'perlmaptostoragehandler',
]);

/**
 * The access file httpd reads in folder `dir`: the first of the AccessFileName `names` that exists
 * there (httpd reads no other), with its text; undefined when none does.
 */
export function accessFileIn(dir: string, names: readonly string[], reader: { readFile(p: string): string | undefined }): { file: string; body: string } | undefined {
  for (const name of names) {
    const file = (dir === '/' ? '' : dir) + '/' + name;
    const body = reader.readFile(file);
    if (body !== undefined) return { file, body };
  }
  return undefined;
}

/**
 * Whether `vhost` (null: the main server) may serve files from `dir`, and so read its `.htaccess`
 * files: false only when the configuration maps no URL outside a DocumentRoot (no Alias,
 * RewriteRule, UserDir, mod_vhost_alias…) and the host's DocumentRoot, known as an absolute path,
 * is not `dir` or above it. A host that can never reach a folder never reads its files.
 */
export function mayServeFrom(doc: ConfigDocument, vhost: SectionNode | null, dir: string): boolean {
  let known = SERVED.get(doc);
  if (!known) SERVED.set(doc, (known = { mapped: doc.directives.some((d) => MAPPERS.has(d.key)), roots: new Map() }));
  if (known.mapped) return true;
  let r = known.roots.get(vhost);
  if (r === undefined) {
    // The host's own DocumentRoot replaces the main server's.
    const own = vhost ? documentRootIn(vhost.children) : null;
    const root = own && own.value !== undefined ? own : documentRootIn(doc.children);
    // Not set (httpd's built-in default), set twice in different branches, relative, or with a variable: not known here.
    r = root.value === undefined || root.unsure || !root.value.startsWith('/') || root.value.includes('${') ? null : root.value.length > 1 ? root.value.replace(/\/+$/, '') : root.value;
    known.roots.set(vhost, r);
  }
  return r === null || r === '/' || dir === r || dir.startsWith(r + '/');
}

/** Per configuration: whether it maps URLs outside a DocumentRoot, and each host's DocumentRoot (null: not known). */
const SERVED = new WeakMap<ConfigDocument, { mapped: boolean; roots: Map<SectionNode | null, string | null> }>();

/** The DocumentRoot set among these nodes (through conditional sections, not into virtual hosts), and whether it is set to different values. */
function documentRootIn(children: readonly ChildNode[]): { value: string | undefined; unsure: boolean } {
  let value: string | undefined;
  let unsure = false;
  for (const n of scopeNodes(children, null)) {
    if (n.type !== 'directive' || n.key !== 'documentroot') continue;
    const v = n.args.length ? unquote(n.args[0].value) : '';
    if (value !== undefined && value !== v) unsure = true;
    value = v;
  }
  return { value, unsure };
}

/** The names of the per-directory files (AccessFileName), default .htaccess. */
export function accessFileNames(doc: ConfigDocument, vhost: SectionNode | null): string[] {
  let names = ['.htaccess'];
  const look = (nodes: Iterable<ChildNode>) => {
    for (const n of nodes) if (n.type === 'directive' && n.key === 'accessfilename' && n.args.length) names = n.args.map((a) => unquote(a.value));
  };
  look(scopeNodes(doc.children, null));
  if (vhost) look(scopeNodes(vhost.children, null));
  return names;
}

/**
 * Every name httpd may read access files under: the main server's and each virtual host's
 * AccessFileName (a rewrite of a server-level section holds only if none of them sets access below).
 */
export function allAccessFileNames(doc: ConfigDocument): string[] {
  const names = new Set(accessFileNames(doc, null));
  for (const s of doc.sections) if (s.key === 'virtualhost') for (const n of accessFileNames(doc, s)) names.add(n);
  return [...names];
}

export interface Violation {
  line: number;
  directive: string;
  effect: string;
  /** Unknown to apacheconf (a module it does not know may define it): the answer is not known. */
  unknown: boolean;
}

/** What httpd refuses in this .htaccess given the directory's overrides; `skip` holds lines Nonfatal leaves out. */
export function checkHtaccess(doc: ConfigDocument, ov: Overrides): { fatal: Violation | null; skip: number[] } {
  const skip: number[] = [];
  let fatal: Violation | null = null;
  // A stack of child lists, not recursion: sections may be nested thousands deep.
  const visit = (children: readonly ChildNode[]) => {
    const stack: Array<{ list: readonly ChildNode[]; i: number }> = [{ list: children, i: 0 }];
    while (stack.length && !fatal) {
      const top = stack[stack.length - 1];
      if (top.i >= top.list.length) {
        stack.pop();
        continue;
      }
      const n = top.list[top.i++];
      if (n.type !== 'directive' && n.type !== 'section') continue;
      const name = n.name.value;
      const line = n.type === 'section' ? n.open.line : n.line;
      const fact = getDirective(name);
      if (!fact) {
        if (ov.nonfatalUnknown) skip.push(line);
        else fatal = { line, directive: name, effect: `${name} is not a directive apacheconf knows; httpd answers 500 unless a loaded module defines it`, unknown: true };
        continue;
      }
      const allowedHere = fact.contexts.includes('htaccess');
      const needs = (fact.override ?? '').split(',').map((x) => x.trim()).filter(Boolean);
      const any = needs.some((c) => c.toLowerCase() === 'all');
      const listedName = (n.type === 'section' ? '<' : '') + name.toLowerCase();
      const granted = ov.list.has(listedName) || (allowedHere && (any ? true : needs.some((c) => ov.classes.has(c))));
      if (!granted) {
        const why = !allowedHere
          ? `${name} is not allowed in .htaccess files`
          : `${name} needs AllowOverride ${needs.join(' or ')}, and this directory allows ${ov.classes.size ? [...ov.classes].join(' ') : 'none of the classes'}`;
        if (ov.nonfatalOverride && allowedHere) skip.push(line);
        else fatal = { line, directive: name, effect: `${why}: httpd answers 500`, unknown: false };
        continue;
      }
      if (n.type === 'section' && !CONDITIONAL.has(n.key)) stack.push({ list: n.children, i: 0 });
    }
  };
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = doc.lineStarts ? physicalLine(doc, e.start) : 0;
    return { fatal: { line, directive: '', effect: `${e.message}: httpd cannot read this .htaccess and answers 500`, unknown: false }, skip };
  }
  visit(doc.children);
  return { fatal, skip };
}

/** The directories httpd walks for a file: `/`, then each component down to the file's own folder (or the folder itself). */
function walkedDirectories(filename: string, reader: DiskReader): string[] {
  const parts = components(filename);
  const isDir = filename.endsWith('/') || reader.isDirectory(filename);
  const n = isDir ? parts.length : parts.length - 1;
  const out = ['/'];
  for (let i = 1; i <= n; i++) out.push('/' + parts.slice(0, i).join('/'));
  return out;
}

function decodeUrlPath(p: string): string {
  const bare = p.split('?')[0];
  try {
    return decodeURIComponent(bare).replace(/\/+/g, '/');
  } catch {
    return bare;
  }
}

/**
 * The file a URL path maps to: the first plain `Alias`/`ScriptAlias` that matches (the virtual
 * host's before the main server's, as mod_alias tries them), else the document root. (An alias
 * target's .htaccess files are its own: those under the document root do not apply there.)
 */
function diskFilename(doc: ConfigDocument, vhost: SectionNode | null, docRoot: string, urlPath: string): string {
  const uri = decodeUrlPath(urlPath.startsWith('/') ? urlPath : '/' + urlPath);
  const aliasesOf = (children: readonly ChildNode[]): DirectiveNode[] => {
    const out: DirectiveNode[] = [];
    for (const c of scopeNodes(children, null)) if (c.type === 'directive' && (c.key === 'alias' || c.key === 'scriptalias') && c.args.length >= 2) out.push(c);
    return out;
  };
  for (const d of [...(vhost ? aliasesOf(vhost.children) : []), ...aliasesOf(doc.children)]) {
    const from = d.args[0].value;
    if (uri === from || uri.startsWith(from.endsWith('/') ? from : from + '/')) return d.args[1].value + uri.slice(from.length);
  }
  return (docRoot === '/' ? '' : docRoot) + uri;
}

export interface DiskExplainInput {
  flat: FlatConfig;
  context: FileContext;
  query: ExplainQuery;
  /** Where `.htaccess` files are read from; without it none are read. */
  reader?: DiskReader;
  /** Which <VirtualHost> answers: the Host header's (default: from query.headers). */
  host?: string;
  compat?: boolean;
}

/**
 * Explain one request against a configuration (already spliced into one text)
 * plus the `.htaccess` files under the document root.
 */
export function explainOnDisk(input: DiskExplainInput): ExplainResult & { htaccess: string[] } {
  const { flat, context, reader } = input;
  const q: ExplainQuery = { ...input.query };
  const notes: string[] = [];
  const hostHeader = input.host ?? Object.entries(q.headers ?? {}).find(([k]) => k.toLowerCase() === 'host')?.[1];
  const picked: { vhost: SectionNode | null; note?: string } = context === 'server' ? pickVirtualHost(flat.doc, hostHeader, (line) => lineLabel(flat.origins[line], line)) : { vhost: null };
  // The chosen host by its open tag (the .htaccess splice goes after it, so its offset stays put).
  if (picked.vhost) q.vhostStart = picked.vhost.open.start;
  if (picked.note) notes.push(picked.note);
  if (flat.truncated) notes.push('the configuration is larger than the limits: part of it was not read');

  let text = flat.doc.text;
  let origins = flat.origins;
  const read: string[] = [];
  if (reader && q.documentRoot && context !== 'htaccess') {
    const docRoot = trimEndChars(q.documentRoot, '/') || '/';
    const filename = diskFilename(flat.doc, picked.vhost, docRoot, q.path);
    const names = accessFileNames(flat.doc, picked.vhost);
    const inserts: Array<{ text: string; origins: FlatConfig['origins'] }> = [];
    for (const dir of walkedDirectories(filename, reader)) {
      const ov = overridesFor(flat.doc, picked.vhost, dir);
      if (!ov) continue;
      const found = accessFileIn(dir, names, reader);
      if (found) {
        const { file, body } = found;
        read.push(file);
        const hdoc = parse(body);
        const { fatal, skip } = checkHtaccess(hdoc, ov);
        if (fatal) {
          const step: ExplainStep = { file, line: fatal.line, directive: fatal.directive, effect: fatal.effect };
          return {
            status: fatal.unknown ? null : 500,
            decision: fatal.unknown ? 'unknown' : 'error',
            steps: [step],
            scope: flat.origins.length ? 'configuration' : 'file',
            htaccess: read,
            ...(notes.length ? { note: notes.join('; ') } : {}),
          };
        }
        // The body, with the lines httpd skips (Nonfatal) turned into comments, inside <Directory "dir">.
        const lines = body.split(/(?<=\n)/);
        const skipSet = new Set(skip);
        const kept = lines.map((l, i) => (skipSet.has(i) ? '#' + l : l)).join('');
        const wrapped = directoryCopy(dir, kept);
        const o: FlatConfig['origins'] = [{ path: file, line: 0 }];
        const bodyLines = kept ? kept.split('\n').length - (kept.endsWith('\n') ? 1 : 0) : 0;
        for (let i = 0; i < bodyLines; i++) o.push({ path: file, line: i });
        o.push({ path: file, line: Math.max(0, bodyLines - 1) });
        inserts.push({ text: wrapped, origins: o });
      }
    }
    if (inserts.length) {
      // Inside the chosen virtual host (before its closing tag), else at the end of the server config.
      const close = picked.vhost?.close;
      const at = close ? close.lineStart : text.length;
      const atLine = close ? close.line : origins.length;
      const head = text.slice(0, at);
      const sep = head && !head.endsWith('\n') ? '\n' : '';
      const add = inserts.map((i) => i.text).join('');
      text = head + sep + add + text.slice(at);
      const addOrigins = inserts.flatMap((i) => i.origins);
      origins = [...origins.slice(0, atLine), ...(sep ? [origins[atLine - 1] ?? { path: '', line: 0 }] : []), ...addOrigins, ...origins.slice(atLine)];
    }
  }

  const doc = text === flat.doc.text ? flat.doc : parse(text);
  // The access engine reads sections down to a bounded depth: say so when the configuration goes deeper.
  if (doc.sections.some((s) => s.depth > MAX_ANALYSED_NESTING + 1)) {
    notes.push(`sections are nested more than ${MAX_ANALYSED_NESTING} levels deep: the access lines below that depth were not taken into account`);
  }
  const request = buildRequest(q);
  // With the document root on this disk, the directory walk stops where httpd's does.
  if (reader && q.documentRoot && context !== 'htaccess') {
    request.disk = { isDirectory: (p) => reader.isDirectory(p), isFile: (p) => !reader.isDirectory(p) && reader.readFile(p) !== undefined };
  }
  const ev = explain(doc, context, request, { compat: input.compat });
  if (request.disk) {
    const docRoot = trimEndChars(q.documentRoot!, '/') || '/';
    const stopped = walkStop(diskFilename(flat.doc, picked.vhost, trimEndChars(q.documentRoot!, '/') || '/', q.path), request.disk);
    if (stopped?.missing) {
      notes.push(`${stopped.stop} does not exist: httpd's directory walk stops before it, and a request access lets through ends in 404`);
    } else if (stopped) notes.push(`${stopped.stop} is a file: the rest of the path is its path_info, and no <Directory> naming the file applies`);
  }
  const fallback = flat.origins[0]?.path ?? '';
  return {
    status: ev.status,
    decision: ev.decision,
    steps: ev.steps.map((s) => {
      const o = origins[s.line] ?? { path: fallback, line: s.line };
      return { file: o.path, line: o.line, directive: s.directive, effect: s.effect };
    }),
    scope: 'configuration',
    htaccess: read,
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/** One document on its own as a FlatConfig (every line is its own origin). */
export function flatOfDocument(doc: ConfigDocument, path: string): FlatConfig {
  const origins: FlatConfig['origins'] = [];
  const n = doc.lineStarts.length;
  for (let i = 0; i < n; i++) origins.push({ path, line: i });
  return { doc, origins, truncated: false };
}
