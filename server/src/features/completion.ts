/**
 * Completion.
 *
 * - Directive names valid where the cursor is: the file's own context at the
 *   top level, `vhost` inside <VirtualHost>, `directory` inside
 *   <Directory>/<Location>/<Files>/<Proxy>/<If> and their Match forms, and
 *   `htaccess` everywhere in an .htaccess file (which AllowOverride class
 *   applies is unknown here, so every .htaccess-valid directive is offered).
 *   Directives that 2.4 refuses or keeps only for compatibility are tagged
 *   Deprecated and sorted last.
 * - Sections as snippets that close their tag.
 * - Argument values: Require providers (and `not`, and `granted|denied`
 *   after `all`), Options and SSLProtocol flags with +/-, AllowOverride
 *   classes (and `Options=` lists), AuthType, AuthMerging, authentication
 *   providers, module names in <IfModule> and LoadModule, defined names in
 *   <IfDefine>, and every `A|B|C` choice the catalog's syntax lines spell out.
 * - File paths in Include, AuthUserFile and other file-valued directives,
 *   through the caller's `listDir` (no I/O here).
 *
 * The catalog is passed in, so this file only needs its shape.
 */
import {
  CompletionItem,
  CompletionItemKind,
  CompletionItemTag,
  InsertTextFormat,
  MarkupKind,
  TextEdit,
} from 'vscode-languageserver-types';
import type { ConfigDocument, DirectiveNode, LineNode, SectionNode, Token } from '../syntax';
import { rangeOf, wordTable } from '../syntax';
import type { FileContext } from '../model/context';
import type { DirectiveFact, ModuleFact } from '../facts/types';
import { PROVIDERS } from '../facts/providers';
import { lineAt, tokensOf } from './util';
import { parseSyntax, paramIndexFor } from './syntaxparams';
import { FILE_ARGUMENTS, isFileValue, resolvePathValue, walkPathEnvironment, type PathEnvironment } from './links';
import { hasGlob } from './paths';

/** The part of the directive catalog completion reads. */
export interface Catalog {
  getDirective(name: string): DirectiveFact | undefined;
  allDirectives(): readonly DirectiveFact[];
  allModules(): readonly ModuleFact[];
  directiveDocsMarkdown?(fact: DirectiveFact): string;
}

export interface CompletionOptions {
  /** The document's folder, ServerRoot fallback: as for document links. */
  baseDir?: string;
  serverRoot?: string;
  /** Names in a folder, folders with a trailing '/'. Without it there is no path completion. */
  listDir?: (dir: string) => string[];
}

/** What `data` carries on directive items, for completionItem/resolve. */
export interface CompletionData {
  directive: string;
}

/** The context (in the manual's terms) that applies at a position. */
export function scopeAt(parent: SectionNode | null, fileContext: FileContext): FileContext {
  if (fileContext === 'htaccess') return 'htaccess';
  let vhost = false;
  for (let s = parent; s; s = s.parent) {
    if (DIRECTORY_LIKE.has(s.key)) return 'directory';
    if (s.key === 'virtualhost') vhost = true;
  }
  return vhost ? 'vhost' : fileContext;
}

/** Sections whose body is per-directory configuration. */
const DIRECTORY_LIKE = new Set([
  'directory',
  'directorymatch',
  'files',
  'filesmatch',
  'location',
  'locationmatch',
  'proxy',
  'proxymatch',
  'if',
  'elseif',
  'else',
]);

/** Snippet arguments for common sections (the catalog's syntax line is used for the rest). */
const SECTION_ARGS: Readonly<Record<string, string | undefined>> = wordTable({
  virtualhost: '*:${1:80}',
  directory: '"${1:/path}"',
  directorymatch: '"${1:^/path}"',
  files: '"${1:name}"',
  filesmatch: '"${1:regex}"',
  location: '"${1:/url}"',
  locationmatch: '"${1:regex}"',
  proxy: '"${1:url}"',
  proxymatch: '"${1:regex}"',
  ifmodule: '${1:mod_name.c}',
  ifdefine: '${1:NAME}',
  ifversion: '${1:>=} ${2:2.4}',
  iffile: '"${1:path}"',
  ifdirective: '${1:Directive}',
  ifsection: '${1:Section}',
  if: '"${1:expression}"',
  elseif: '"${1:expression}"',
  else: '',
  requireall: '',
  requireany: '',
  requirenone: '',
  limit: '${1:GET POST}',
  limitexcept: '${1:GET POST}',
  macro: '${1:name} ${2:\\$param}',
});

const OPTIONS_FLAGS = ['All', 'ExecCGI', 'FollowSymLinks', 'Includes', 'IncludesNOEXEC', 'Indexes', 'MultiViews', 'SymLinksIfOwnerMatch', 'None'];
const OVERRIDE_CLASSES = ['All', 'None', 'AuthConfig', 'FileInfo', 'Indexes', 'Limit', 'Options', 'Options=', 'Nonfatal='];
const SSL_PROTOCOLS = ['all', 'SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];
const AUTHN_PROVIDERS = ['file', 'dbm', 'dbd', 'ldap', 'socache', 'anon'];

/** Hand-kept value lists, for directives whose syntax line does not spell them out. */
const VALUES: Readonly<Record<string, string[] | undefined>> = wordTable({
  authtype: ['Basic', 'Digest', 'Form', 'None'],
  authmerging: ['Off', 'And', 'Or'],
  satisfy: ['Any', 'All'],
  order: ['Deny,Allow', 'Allow,Deny', 'Mutual-failure'],
});

/** 2.2 access directives, deprecated even if the catalog does not say. */
const COMPAT_ONLY = new Set(['order', 'satisfy', 'allow', 'deny']);

/** Directives whose every argument takes one of a list (flags may repeat). */
const MULTI: Readonly<Record<string, readonly string[] | undefined>> = wordTable({
  authbasicprovider: AUTHN_PROVIDERS,
  authdigestprovider: AUTHN_PROVIDERS,
  authformprovider: AUTHN_PROVIDERS,
});

interface Word {
  /** Replace range in offsets. */
  start: number;
  end: number;
  /** The text from `start` to the cursor. */
  prefix: string;
}

function isDeprecated(f: DirectiveFact): boolean {
  return f.status !== 'current';
}

function statusNote(f: DirectiveFact): string {
  switch (f.status) {
    case 'removed':
      return f.removedIn === '2.0' ? 'httpd 1.3, gone since 2.0' : f.removedIn === 'earlier' ? 'gone before 2.4' : 'removed in 2.4';
    case 'compat':
      return '2.2 style, needs mod_access_compat';
    case 'renamed':
      return f.renamedTo ? `renamed to ${f.renamedTo}` : 'renamed';
    case 'noop':
      return 'no effect in 2.4';
    default:
      return '';
  }
}

export function completionAt(
  doc: ConfigDocument,
  offset: number,
  fileContext: FileContext,
  catalog: Catalog,
  options: CompletionOptions = {},
): CompletionItem[] {
  const text = doc.text;
  const node = lineAt(doc, offset);
  if (!node) return directiveItems(doc, catalog, scopeAt(null, fileContext), { start: offset, end: offset, prefix: '' }, null);

  if (node.type === 'blank' || offset < node.start) {
    return directiveItems(doc, catalog, scopeAt(node.parent, fileContext), { start: offset, end: offset, prefix: '' }, node.parent);
  }
  if (node.type === 'comment') return [];

  const tokens = tokensOf(node);
  let ti = tokens.findIndex((t) => offset >= t.start && offset <= t.end);
  const tok = ti >= 0 ? tokens[ti] : undefined;
  if (ti < 0) ti = tokens.filter((t) => t.end < offset).length;
  const word = tok ? wordOf(text, tok, offset) : { start: offset, end: offset, prefix: '' };

  if (node.type === 'close') {
    if (ti !== 0) return [];
    return closeItems(doc, node, word);
  }

  if (node.type === 'open') {
    const s = node.section;
    // After the `>` of the tag: nothing.
    const last = text.lastIndexOf('>', node.end - 1);
    const gt = last >= s.name.end ? last : -1;
    if (gt >= 0 && offset > gt) return [];
    if (ti === 0) {
      const lt = text[s.name.start - 1] === '<' ? s.name.start - 1 : s.name.start;
      const bare = s.args.length === 0 && gt < 0 && node.end === s.name.end;
      return sectionItems(doc, catalog, scopeAt(s.parent, fileContext), { start: lt, end: s.name.end, prefix: text.slice(lt, offset) }, bare, s.parent);
    }
    return sectionArgItems(doc, catalog, s, ti - 1, word);
  }

  if (node.type === 'directive') {
    if (ti === 0) {
      const scope = scopeAt(node.parent, fileContext);
      if (node.name.raw.startsWith('<')) {
        const bare = node.args.length === 0;
        return sectionItems(doc, catalog, scope, { start: node.name.start, end: node.name.end, prefix: word.prefix }, bare, node.parent);
      }
      return directiveItems(doc, catalog, scope, word, node.parent);
    }
    return argumentItems(doc, catalog, node, ti - 1, word, options);
  }
  return [];
}

/** The replace range of a word at the cursor: without its opening quote, and on the cursor's line. */
function wordOf(text: string, tok: Token, offset: number): Word {
  let start = tok.quote && offset > tok.start ? tok.start + 1 : tok.start;
  let end = tok.quote && !tok.unterminated && tok.end - 1 >= offset ? tok.end - 1 : tok.end;
  // A line ends at LF, CRLF or a lone CR (as the client counts lines); a quoted word may run past one.
  for (let i = offset - 1; i >= start; i--) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      start = i + 1;
      break;
    }
  }
  for (let i = offset; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      end = offset;
      break;
    }
  }
  return { start, end: Math.max(end, offset), prefix: text.slice(start, offset) };
}

function edit(doc: ConfigDocument, w: Word, newText: string): TextEdit {
  return TextEdit.replace(rangeOf(doc, w.start, w.end), newText);
}

function directiveItem(doc: ConfigDocument, f: DirectiveFact, w: Word): CompletionItem {
  const deprecated = isDeprecated(f);
  const note = statusNote(f);
  const item: CompletionItem = {
    label: f.name,
    kind: CompletionItemKind.Keyword,
    detail: note ? `${f.module} (${note})` : f.module,
    documentation: { kind: MarkupKind.Markdown, value: `\`${f.syntax}\`\n\n${f.description}` },
    sortText: (deprecated ? '2_' : '1_') + f.name.toLowerCase(),
    textEdit: edit(doc, w, f.name),
    data: { directive: f.name } satisfies CompletionData,
  };
  if (deprecated) item.tags = [CompletionItemTag.Deprecated];
  return item;
}

function sectionSnippet(f: DirectiveFact): string {
  const key = f.name.toLowerCase();
  let args = SECTION_ARGS[key];
  if (args === undefined) {
    const params = parseSyntax(f.syntax).params.filter((p) => !p.optional);
    args = params.map((p, i) => `\${${i + 1}:${escapeSnippet(p.label.replace(/\.\.\.|…/g, '').trim())}}`).join(' ');
  }
  return `<${f.name}${args ? ' ' + args : ''}>\n\t$0\n</${f.name}>`;
}

function escapeSnippet(s: string): string {
  return s.replace(/[\\$}]/g, (c) => '\\' + c);
}

function sectionItem(doc: ConfigDocument, f: DirectiveFact, w: Word, snippet: boolean, filterText: string): CompletionItem {
  const deprecated = isDeprecated(f);
  const note = statusNote(f);
  const item: CompletionItem = {
    label: `<${f.name}>`,
    kind: CompletionItemKind.Module,
    detail: note ? `${f.module} (${note})` : f.module,
    documentation: { kind: MarkupKind.Markdown, value: `\`${f.syntax}\`\n\n${f.description}` },
    filterText,
    sortText: (deprecated ? '2_' : '1_') + f.name.toLowerCase(),
    data: { directive: f.name } satisfies CompletionData,
  };
  if (snippet) {
    item.insertTextFormat = InsertTextFormat.Snippet;
    item.textEdit = edit(doc, w, sectionSnippet(f));
  } else {
    item.textEdit = edit(doc, w, filterText.startsWith('<') ? `<${f.name}` : f.name);
  }
  if (deprecated) item.tags = [CompletionItemTag.Deprecated];
  return item;
}

/**
 * True when `f` may be written in `scope` under `parent`. A directive whose directory-level
 * context is "proxy section" (SSLProxy*, ProxyAddHeaders…) is read in `<Proxy>` and
 * `<ProxyMatch>` only: httpd refuses it in `<Directory>`, `<Location>` or `<Files>`.
 */
function allowedAt(f: DirectiveFact, scope: FileContext, parent: SectionNode | null): boolean {
  if (!f.contexts.includes(scope)) return false;
  if (scope !== 'directory' || !f.proxySection) return true;
  for (let s = parent; s; s = s.parent) if (DIRECTORY_LIKE.has(s.key)) return s.key === 'proxy' || s.key === 'proxymatch';
  return false;
}

/** At the start of a line or in a directive name: directives and section snippets valid in `scope`. */
function directiveItems(doc: ConfigDocument, catalog: Catalog, scope: FileContext, w: Word, parent: SectionNode | null): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const f of catalog.allDirectives()) {
    if (!allowedAt(f, scope, parent)) continue;
    if (f.section) out.push(sectionItem(doc, f, w, true, f.name));
    else out.push(directiveItem(doc, f, w));
  }
  return out;
}

/** After `<`: section names; a snippet with the closing tag when the tag is still bare. */
function sectionItems(doc: ConfigDocument, catalog: Catalog, scope: FileContext, w: Word, bare: boolean, parent: SectionNode | null): CompletionItem[] {
  const out: CompletionItem[] = [];
  for (const f of catalog.allDirectives()) {
    if (!f.section || !allowedAt(f, scope, parent)) continue;
    out.push(sectionItem(doc, f, w, bare, `<${f.name}`));
  }
  return out;
}

/** In a closing tag: the name of the section it closes (or the innermost open one). */
function closeItems(doc: ConfigDocument, node: LineNode & { type: 'close' }, w: Word): CompletionItem[] {
  const s = node.section ?? node.parent;
  if (!s) return [];
  const hasGt = doc.text.slice(w.end, node.end + 1).includes('>') || doc.text.slice(node.start, node.end).endsWith('>');
  return [
    {
      label: s.name.raw,
      kind: CompletionItemKind.Module,
      detail: `closes <${s.name.raw}> on line ${s.open.line + 1}`,
      textEdit: edit(doc, w, s.name.raw + (hasGt ? '' : '>')),
    },
  ];
}

function valueItems(
  doc: ConfigDocument,
  w: Word,
  values: readonly string[],
  opts: { kind?: CompletionItemKind; deprecated?: boolean; detail?: string; docs?: (v: string) => string | undefined } = {},
): CompletionItem[] {
  return values.map((v, i) => {
    const item: CompletionItem = {
      label: v,
      kind: opts.kind ?? CompletionItemKind.EnumMember,
      sortText: String(i).padStart(4, '0'),
      textEdit: edit(doc, w, v),
    };
    if (opts.detail) item.detail = opts.detail;
    const d = opts.docs?.(v);
    if (d) item.documentation = { kind: MarkupKind.Markdown, value: d };
    if (opts.deprecated) item.tags = [CompletionItemTag.Deprecated];
    return item;
  });
}

/** Flags with an optional +/- sign, leaving out those already given. */
function signedFlags(doc: ConfigDocument, w: Word, flags: readonly string[], others: readonly Token[], unsigned: readonly string[] = []): CompletionItem[] {
  const used = new Set(others.map((t) => t.value.replace(/^[+-]/, '').toLowerCase()));
  const sign = /^[+-]/.test(w.prefix) ? w.prefix[0] : '';
  const list = flags.filter((f) => !used.has(f.toLowerCase()) && !(sign && unsigned.includes(f)));
  return valueItems(doc, w, list.map((f) => sign + f));
}

function argumentItems(
  doc: ConfigDocument,
  catalog: Catalog,
  d: DirectiveNode,
  argIndex: number,
  w: Word,
  options: CompletionOptions,
): CompletionItem[] {
  const others = d.args.filter((_, i) => i !== argIndex);
  const fact = catalog.getDirective(d.key);
  const deprecated = fact ? isDeprecated(fact) : COMPAT_ONLY.has(d.key);

  switch (d.key) {
    case 'require':
      return requireItems(doc, d, argIndex, w);
    case 'options':
      return signedFlags(doc, w, OPTIONS_FLAGS, others, ['All', 'None']);
    case 'allowoverride':
      return allowOverrideItems(doc, w, others);
    case 'sslprotocol':
    case 'sslproxyprotocol':
      return signedFlags(doc, w, SSL_PROTOCOLS, others);
    case 'loadmodule':
      return loadModuleItems(doc, catalog, d, argIndex, w, options);
  }
  const multi = MULTI[d.key];
  if (multi) {
    const used = new Set(others.map((t) => t.value));
    return valueItems(doc, w, multi.filter((v) => !used.has(v)));
  }
  const which = FILE_ARGUMENTS[d.key];
  if (which !== undefined && (which === 'all' || which === argIndex)) {
    if (!isFileValue(d.key, w.prefix)) return [];
    return pathItems(doc, d, w, options);
  }
  const values = VALUES[d.key];
  if (values && argIndex === 0) return valueItems(doc, w, values, { deprecated });
  if (fact) {
    const params = parseSyntax(fact.syntax).params;
    const p = params[paramIndexFor(params, argIndex, true)];
    if (p?.alternatives) return valueItems(doc, w, p.alternatives, { deprecated });
  }
  return [];
}

function requireItems(doc: ConfigDocument, d: DirectiveNode, argIndex: number, w: Word): CompletionItem[] {
  const negated = d.args[0]?.value === 'not';
  const providerIndex = negated ? 1 : 0;
  if (argIndex < providerIndex) return [];
  if (argIndex === providerIndex) {
    const items = PROVIDERS.map((p, i) => ({
      label: p.name,
      kind: CompletionItemKind.Function,
      detail: p.args ? `${p.name} ${p.args} (${p.module})` : p.module,
      documentation: { kind: MarkupKind.Markdown, value: `${p.description}\n\n[Documentation](${p.url})` },
      sortText: '1_' + String(i).padStart(3, '0'),
      textEdit: edit(doc, w, p.name),
    })) as CompletionItem[];
    if (!negated) items.unshift({ label: 'not', kind: CompletionItemKind.Keyword, detail: 'negate the provider that follows', sortText: '0_not', textEdit: edit(doc, w, 'not') });
    return items;
  }
  const provider = d.args[providerIndex]?.value;
  if (provider === 'all' && argIndex === providerIndex + 1) {
    return valueItems(doc, w, ['granted', 'denied'], {
      docs: (v) => (v === 'granted' ? 'Every request is let through.' : 'Every request is turned away.'),
    });
  }
  if (provider === 'method') {
    const used = new Set(d.args.slice(providerIndex + 1).map((t) => t.value));
    return valueItems(doc, w, HTTP_METHODS.filter((m) => !used.has(m) || m === w.prefix));
  }
  return [];
}

function allowOverrideItems(doc: ConfigDocument, w: Word, others: readonly Token[]): CompletionItem[] {
  const eq = w.prefix.indexOf('=');
  if (eq >= 0) {
    // Inside `Options=A,B` or `Nonfatal=…`: complete the item after the last `=` or `,`.
    const cut = Math.max(w.prefix.lastIndexOf(','), eq) + 1;
    const stop = doc.text.indexOf(',', w.start + w.prefix.length);
    const inner: Word = { start: w.start + cut, end: stop >= 0 && stop < w.end ? stop : w.end, prefix: w.prefix.slice(cut) };
    const head = w.prefix.slice(0, eq).toLowerCase();
    if (head === 'options') {
      const given = new Set(w.prefix.slice(eq + 1, cut).split(',').map((s) => s.toLowerCase()));
      return valueItems(doc, inner, OPTIONS_FLAGS.filter((f) => f !== 'None' && !given.has(f.toLowerCase())));
    }
    if (head === 'nonfatal') return valueItems(doc, inner, ['Override', 'Unknown', 'All']);
    return [];
  }
  const used = new Set(others.map((t) => t.value.toLowerCase()));
  return valueItems(doc, w, OVERRIDE_CLASSES.filter((c) => !used.has(c.toLowerCase())));
}

function moduleItems(doc: ConfigDocument, catalog: Catalog, w: Word, forms: 'both' | 'id', bang: string): CompletionItem[] {
  const out: CompletionItem[] = [];
  const mods = [...catalog.allModules()].sort((a, b) => (a.status === b.status ? a.name.localeCompare(b.name) : a.status === 'current' ? -1 : 1));
  mods.forEach((m, i) => {
    const labels = forms === 'both' ? [m.file, m.id] : [m.id];
    for (const label of labels) {
      const item: CompletionItem = {
        label: bang + label,
        kind: CompletionItemKind.Module,
        detail: m.name,
        documentation: { kind: MarkupKind.Markdown, value: `${m.description}\n\n[Documentation](${m.url})` },
        sortText: (m.status === 'current' ? '1_' : '2_') + String(i).padStart(4, '0') + label,
        textEdit: edit(doc, w, bang + label),
      };
      if (m.status !== 'current') item.tags = [CompletionItemTag.Deprecated];
      out.push(item);
    }
  });
  return out;
}

function loadModuleItems(doc: ConfigDocument, catalog: Catalog, d: DirectiveNode, argIndex: number, w: Word, options: CompletionOptions): CompletionItem[] {
  if (argIndex === 0) return moduleItems(doc, catalog, w, 'id', '');
  if (argIndex !== 1) return [];
  const id = d.args[0]?.value;
  const m = catalog.allModules().find((x) => x.id === id);
  const items: CompletionItem[] = [];
  if (m && !w.prefix.includes('/')) {
    const so = 'modules/' + m.file.replace(/\.c$/, '.so');
    items.push({ label: so, kind: CompletionItemKind.File, detail: `the usual place of ${m.name}`, sortText: '0', textEdit: edit(doc, w, so) });
  }
  return items.concat(pathItems(doc, d, w, options));
}

function sectionArgItems(doc: ConfigDocument, catalog: Catalog, s: SectionNode, argIndex: number, w: Word): CompletionItem[] {
  const bang = w.prefix.startsWith('!') ? '!' : '';
  switch (s.key) {
    case 'ifmodule':
      return argIndex === 0 ? moduleItems(doc, catalog, w, 'both', bang) : [];
    case 'ifdirective':
      return argIndex === 0
        ? catalog
            .allDirectives()
            .filter((f) => !f.section)
            .map((f) => ({ label: bang + f.name, kind: CompletionItemKind.Keyword, detail: f.module, textEdit: edit(doc, w, bang + f.name) }))
        : [];
    case 'ifsection':
      return argIndex === 0
        ? catalog
            .allDirectives()
            .filter((f) => f.section)
            .map((f) => ({ label: bang + f.name, kind: CompletionItemKind.Module, detail: f.module, textEdit: edit(doc, w, bang + f.name) }))
        : [];
    case 'ifdefine': {
      if (argIndex !== 0) return [];
      const names = new Set<string>();
      for (const d of doc.directives) if (d.key === 'define' && d.args[0]) names.add(d.args[0].value);
      return valueItems(doc, w, [...names].sort().map((n) => bang + n), { kind: CompletionItemKind.Constant });
    }
  }
  const fact = catalog.getDirective(s.key);
  if (fact) {
    const params = parseSyntax(fact.syntax).params;
    const p = params[paramIndexFor(params, argIndex, true)];
    if (p?.alternatives) return valueItems(doc, w, p.alternatives);
  }
  return [];
}

function pathItems(doc: ConfigDocument, d: DirectiveNode, w: Word, options: CompletionOptions): CompletionItem[] {
  if (!options.listDir || hasGlob(w.prefix)) return [];
  let env: PathEnvironment | undefined;
  walkPathEnvironment(doc, options, (x, e) => {
    if (x !== d) return true;
    env = { root: e.root, defines: new Map(e.defines) };
    return false;
  });
  if (!env) return [];
  const slash = w.prefix.lastIndexOf('/');
  const dirPart = w.prefix.slice(0, slash + 1);
  const dir = dirPart ? resolvePathValue(dirPart, env) : env.root;
  if (!dir) return [];
  let entries: string[];
  try {
    entries = options.listDir(dir);
  } catch {
    return [];
  }
  const seg: Word = { start: w.start + slash + 1, end: segmentEnd(doc.text, w.start + slash + 1, w.end), prefix: w.prefix.slice(slash + 1) };
  return entries.slice(0, 1000).map((name) => {
    const folder = name.endsWith('/');
    return {
      label: name,
      kind: folder ? CompletionItemKind.Folder : CompletionItemKind.File,
      sortText: (folder ? '1_' : '2_') + name,
      textEdit: edit(doc, seg, name),
    };
  });
}

/** The end of the path segment that starts at `from` (the next `/`, or the word end). */
function segmentEnd(text: string, from: number, end: number): number {
  const k = text.indexOf('/', from);
  return k >= 0 && k < end ? k : end;
}

/** completionItem/resolve: the full catalog documentation of a directive or section item. */
export function resolveCompletion(item: CompletionItem, catalog: Catalog): CompletionItem {
  const name = (item.data as Partial<CompletionData> | undefined)?.directive;
  const fact = typeof name === 'string' ? catalog.getDirective(name) : undefined;
  if (fact && catalog.directiveDocsMarkdown) {
    return { ...item, documentation: { kind: MarkupKind.Markdown, value: catalog.directiveDocsMarkdown(fact) } };
  }
  return item;
}
