/**
 * The commands the server executes (workspace/executeCommand), as a table:
 * each entry owns its id and a handler that gets a small context instead of
 * the connection, so new commands need no change in server.ts.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  AnnotatedTextEdit,
  TextDocumentEdit,
  TextEdit,
  type ChangeAnnotation,
  type Diagnostic,
  type WorkspaceEdit,
} from 'vscode-languageserver-types';
import * as nodePath from 'path';
import type { Analysis, AnalyzeInput, ApacheConfService } from '../service';
import type { FileContext } from '../model/context';
import type { ConfigGraph } from '../model/workspace';
import { openDirectories, parseClient, type ConfigurationView } from '../access';
import { flattenGraph, graphWithTexts } from '../features/explain';
import { hasHostRules, migrateHtaccessInContext, spliceHtaccessFiles } from '../features/htaccess-context';
import type { CredentialsState, ExplainQuery, ExplainResult } from '../features/explain';
import { fileUriToPath, pathToFileUri } from '../features/paths';
import { diskReader, type ConfigWorkspace, type FolderConfiguration } from './workspace';
import type { LspSettings } from './settings';
import { flatConfigOf, htaccessInContext } from './htaccess';
import { JointPlanner } from '../features/joint-htaccess';
import { diskLinks, freshDiskLinks } from '../model/disk';
import { findHttpdBinary, httpdDiagnostics, runHttpdCheck, type HttpdRun } from './httpd';

export interface CommandContext {
  /** The service of the document at `uri` (its project file's rule settings apply). */
  serviceFor(uri: string): ApacheConfService;
  /** The open document with this uri, if any. */
  document(uri: string): TextDocument | undefined;
  /** Every open document. */
  documents(): TextDocument[];
  /** The cached analysis of an open document's current version. */
  analysis(doc: TextDocument): Analysis;
  /** The context of a file's top level (modeline, settings, project file, where the include graph puts it, its name). */
  contextFor(uri: string, text: string): FileContext;
  /** Sends workspace/applyEdit; resolves to whether the client applied it. */
  applyEdit(label: string, edit: WorkspaceEdit, refactoring?: boolean): Promise<boolean>;
  /** Builds the edit for one document (documentChanges with the version when the client supports them). */
  documentEdit(doc: TextDocument, edits: TextEdit[]): WorkspaceEdit;
  /** What the client can take in a workspace edit. */
  readonly edits: { documentChanges: boolean; changeAnnotations: boolean };
  /** False in an untrusted workspace: nothing is run and nothing is read from disk. */
  readonly trusted: boolean;
  /** The include graphs of the workspace folders. */
  readonly workspace: ConfigWorkspace;
  /** The workspace configuration a server-config file is read in (its rewrites are planned there), if known. */
  configuration(uri: string, text: string, context: FileContext): ConfigurationView | undefined;
  /** Whether a file is included by another of a configuration it cannot be planned in (AnalyzeInput.included). */
  includedAlone(uri: string, context: FileContext, configuration: ConfigurationView | undefined): boolean;
  settings(): LspSettings;
  /** Replaces the httpd diagnostics (by file path) and publishes them. */
  publishHttpd(byPath: Map<string, Diagnostic[]>): Promise<void>;
  log(message: string): void;
}

export interface ServerCommand {
  readonly id: string;
  /** What the command does, for logs and docs. */
  readonly description: string;
  run(ctx: CommandContext, args: readonly unknown[]): Promise<unknown>;
}

export class CommandError extends Error {}

/** What `apacheconf.migrateFile` answers. */
export interface MigrateResult {
  uri: string;
  /** How many fixes the new text holds (0: nothing to change). */
  fixes: number;
  /** False when there was nothing to do or the client refused the edit. */
  applied: boolean;
}

/**
 * The document a command is about. Accepted forms: a uri string, `{ uri }`,
 * `{ textDocument: { uri } }` (VS Code, Neovim and plain JSON-RPC clients pass
 * different shapes).
 */
export function uriArgument(args: readonly unknown[]): string | undefined {
  const a = args[0];
  if (typeof a === 'string') return a;
  if (typeof a === 'object' && a !== null) {
    const o = a as { uri?: unknown; textDocument?: { uri?: unknown } };
    if (typeof o.uri === 'string') return o.uri;
    if (typeof o.textDocument?.uri === 'string') return o.textDocument.uri;
  }
  return undefined;
}

/**
 * The smallest single replacement that turns `before` into `after`: the
 * common head and tail stay untouched, so the cursor and folds outside the
 * changed lines do not move.
 */
export function minimalEdit(doc: TextDocument, after: string): TextEdit | undefined {
  const before = doc.getText();
  if (before === after) return undefined;
  let head = 0;
  const max = Math.min(before.length, after.length);
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  // Never split a CRLF pair or a surrogate pair.
  while (head > 0 && (isLowSurrogate(before.charCodeAt(head)) || (before[head] === '\n' && before[head - 1] === '\r'))) head--;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  while (tail > 0 && (isLowSurrogate(before.charCodeAt(before.length - tail)) || (before[before.length - tail] === '\n' && before[before.length - tail - 1] === '\r'))) tail--;
  return TextEdit.replace(
    { start: doc.positionAt(head), end: doc.positionAt(before.length - tail) },
    after.slice(head, after.length - tail),
  );
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

export const MIGRATE_FILE = 'apacheconf.migrateFile';

const migrateFile: ServerCommand = {
  id: MIGRATE_FILE,
  description: 'Apply every preferred (exact) fix of a document, through workspace/applyEdit.',
  async run(ctx, args) {
    const uri = uriArgument(args);
    if (!uri) throw new CommandError(`${MIGRATE_FILE} needs the document uri as its argument`);
    const doc = ctx.document(uri);
    if (!doc) throw new CommandError(`${MIGRATE_FILE}: ${uri} is not open`);
    const fixed = fileMigration(ctx, doc);
    const edit = minimalEdit(doc, fixed.text);
    const result: MigrateResult = { uri, fixes: fixed.applied, applied: false };
    if (!edit) return result;
    result.applied = await ctx.applyEdit('Migrate access control to 2.4', ctx.documentEdit(doc, [edit]));
    ctx.log(`${MIGRATE_FILE} ${uri}: ${fixed.applied} fix(es), ${result.applied ? 'applied' : 'not applied by the client'}`);
    return result;
  },
};

/**
 * Every preferred (exact) fix of an open document, planned as its quick fixes are (in the
 * workspace's configuration, a .htaccess file's in-context rewrite first): what "Migrate access
 * control in this file" and the fix-all code action apply.
 */
export function fileMigration(ctx: CommandContext, doc: TextDocument): { text: string; applied: number } {
  const uri = doc.uri;
  const a = ctx.analysis(doc);
  // A .htaccess file whose rewrite is exact in the workspace's configuration gets it first.
  const inContext = ctx.trusted ? htaccessInContext(ctx.workspace, uri, doc.getText(), a.context) : null;
  const configuration = ctx.configuration(uri, doc.getText(), a.context);
  const fixed = ctx.serviceFor(uri).fixText({ text: inContext?.text ?? doc.getText(), uri, context: a.context, configuration, included: ctx.includedAlone(uri, a.context, configuration) });
  // (A rewrite that empties the file is one too: its text is the empty string.)
  return { text: fixed.text, applied: fixed.applied + (inContext && inContext.text !== null ? 1 : 0) };
}

/** The first argument when it is an object (named arguments), else an empty one. */
function namedArguments(args: readonly unknown[]): Record<string, unknown> {
  const a = args[0];
  return typeof a === 'object' && a !== null && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
}

/** The path of a file uri argument, if any. */
function pathArgument(args: readonly unknown[]): { uri?: string; path?: string } {
  const uri = uriArgument(args);
  return { uri, path: uri ? fileUriToPath(uri) : undefined };
}

/**
 * Open documents by file path (an editor's uri and ours may spell the same file differently), a
 * path through a symbolic link finding the file it leads to: Debian's sites-enabled/x.conf, read by
 * the include graph, is the sites-available/x.conf the user has open (a black-box run of the
 * editor, helper-39: the graph's text was taken and the buffer's unsaved edits ignored, and the
 * edit went to a second model of the same file).
 */
class OpenDocuments extends Map<string, TextDocument> {
  private readonly realOf = new Map<string, string>();

  constructor(private readonly resolve: (p: string) => string) {
    super();
  }

  private real(p: string): string {
    let r = this.realOf.get(p);
    if (r === undefined) this.realOf.set(p, (r = this.resolve(p)));
    return r;
  }

  override get(p: string): TextDocument | undefined {
    return super.get(p) ?? super.get(this.real(p));
  }

  override has(p: string): boolean {
    return this.get(p) !== undefined;
  }

  add(p: string, d: TextDocument): void {
    super.set(p, d);
    super.set(this.real(p), d);
  }
}

function openByPath(ctx: CommandContext): Map<string, TextDocument> {
  const out = new OpenDocuments((p) => ctx.workspace.realPath(p));
  for (const d of ctx.documents()) {
    const p = fileUriToPath(d.uri);
    if (p) out.add(p, d);
  }
  return out;
}

/** The graph with the open documents' current trees in place of what was read from disk. */
function graphWithOpenDocuments(ctx: CommandContext, graph: ConfigGraph): ConfigGraph {
  const open = openByPath(ctx);
  if (!open.size) return graph;
  return {
    ...graph,
    files: graph.files.map((f) => {
      const d = open.get(f.path);
      return d && d.getText() !== f.doc.text ? { ...f, doc: ctx.analysis(d).doc } : f;
    }),
  };
}

// ---- migrate the workspace ------------------------------------------------------------

export const MIGRATE_WORKSPACE = 'apacheconf.migrateWorkspace';
/** The change annotation every edit of a workspace migration carries. */
export const MIGRATE_ANNOTATION = 'apacheconf.migrate';

/** What `apacheconf.migrateWorkspace` answers. */
export interface MigrateWorkspaceResult {
  /** `configuration`: every file of the root file's include graph; `open documents`: no root file is known. */
  scope: 'configuration' | 'open documents';
  root?: string;
  /** The files that change, with the number of fixes in each. */
  files: Array<{ uri: string; fixes: number }>;
  fixes: number;
  /** False when there was nothing to do or the client refused (or the user discarded) the edit. */
  applied: boolean;
}

const migrateWorkspace: ServerCommand = {
  id: MIGRATE_WORKSPACE,
  description:
    'Apply every preferred (exact) fix in every file of the configuration (the root file and what it includes; else the open documents) as one workspace edit. ' +
    'Arguments: a uri or { uri?, confirm? }; with confirm (the default) the edits ask the editor for confirmation (a refactor preview).',
  async run(ctx, args) {
    const named = namedArguments(args);
    const confirm = named.confirm !== false;
    const { path } = pathArgument(args);
    const conf = ctx.workspace.configurationFor(path);
    const open = openByPath(ctx);
    const inputs: Array<AnalyzeInput & { uri: string; doc?: TextDocument }> = [];
    let scope: MigrateWorkspaceResult['scope'];
    if (conf?.graph) {
      scope = 'configuration';
      for (const f of conf.graph.files) {
        const doc = open.get(f.path);
        const uri = doc?.uri ?? pathToFileUri(f.path);
        const text = doc ? doc.getText() : f.doc.text;
        inputs.push({ uri, text, context: ctx.contextFor(uri, text), doc });
      }
    } else {
      scope = 'open documents';
      for (const doc of ctx.documents()) inputs.push({ uri: doc.uri, text: doc.getText(), context: ctx.analysis(doc).context, doc });
    }
    const result: MigrateWorkspaceResult = { scope, ...(conf?.root && scope === 'configuration' ? { root: conf.root } : {}), files: [], fixes: 0, applied: false };
    const annotate = ctx.edits.documentChanges && ctx.edits.changeAnnotations;
    const documentChanges: TextDocumentEdit[] = [];
    const changes: Record<string, TextEdit[]> = {};
    // The configuration's files are rewritten in it, and together (one workspace edit): a rewrite
    // spanning several of them gives each its part, when every one is as the graph read it.
    const clean = scope === 'configuration' && conf?.graph ? conf.graph.files.every((f) => { const d = open.get(f.path); return !d || d.getText() === f.doc.text; }) : false;
    const together = clean && conf?.graph ? new Set(conf.graph.files.map((f) => f.path)) : undefined;
    // In a trusted workspace, the .htaccess files httpd reads in the configuration may be planned
    // with the server config and each make their part of a rewrite of the two (as fix --root does
    // with the files it is given: here every one of them is in the edit).
    const joint = scope === 'configuration' && clean && ctx.trusted && conf?.graph && conf.root ? jointPlannerFor(ctx, conf.graph, open) : null;
    const jointTogether = joint && conf?.graph ? new Set([...conf.graph.files.map((f) => diskLinks.realPath(f.path)), ...[...joint.htaccessFiles()].map((p) => diskLinks.realPath(p))]) : undefined;
    /** The rewrites planned with the .htaccess files whose parts in the server config's files were made. */
    const made = new Set<string>();
    /** What each changed file becomes. */
    const afterByUri = new Map<string, string>();
    for (const input of inputs) {
      if (scope === 'configuration') {
        const real = joint && jointTogether && input.context !== 'htaccess' && input.context !== undefined ? diskLinks.realPath(fileUriToPath(input.uri) ?? '') : undefined;
        if (joint && jointTogether && real && joint.configuration.real.some((o) => o.path === real)) input.configuration = joint.view(real, conf!.root!, jointTogether);
        else {
          const configuration = ctx.configuration(input.uri, input.text, input.context ?? 'server');
          if (configuration) input.configuration = together ? { ...configuration, together } : configuration;
        }
      }
      if (scope === 'configuration') input.included = ctx.includedAlone(input.uri, input.context ?? 'server', input.configuration);
      const [changed] = ctx.serviceFor(input.uri).migrateFiles([input]);
      if (!changed) continue;
      for (const k of changed.rewrites) made.add(k);
      afterByUri.set(input.uri, changed.after);
      const doc = input.doc ?? TextDocument.create(input.uri, 'apacheconf', 0, input.text);
      const edit = minimalEdit(doc, changed.after);
      if (!edit) continue;
      result.files.push({ uri: input.uri, fixes: changed.fixes });
      result.fixes += changed.fixes;
      if (ctx.edits.documentChanges) {
        const e = annotate ? AnnotatedTextEdit.replace(edit.range, edit.newText, MIGRATE_ANNOTATION) : edit;
        // A file that is not open has no version: null tells the client to take it as it is on disk.
        documentChanges.push(TextDocumentEdit.create({ uri: input.uri, version: input.doc ? input.doc.version : null }, [e]));
      } else changes[input.uri] = [edit];
    }
    // The .htaccess files httpd reads in the configuration, each rewritten under what the server
    // config's files become in this edit (as `fix --root` does), parents before children.
    if (scope === 'configuration' && clean && ctx.trusted && conf?.graph) {
      const parts = joint && jointTogether ? { planner: joint, together: jointTogether, made, root: conf.root ?? '' } : undefined;
      for (const h of htaccessRewrites(ctx, conf.graph, afterByUri, open, parts)) {
        const doc = open.get(h.path) ?? TextDocument.create(h.uri, 'apacheconf', 0, h.text);
        const edit = minimalEdit(doc, h.after);
        if (!edit) continue;
        result.files.push({ uri: h.uri, fixes: 1 });
        result.fixes += 1;
        if (ctx.edits.documentChanges) {
          const e = annotate ? AnnotatedTextEdit.replace(edit.range, edit.newText, MIGRATE_ANNOTATION) : edit;
          documentChanges.push(TextDocumentEdit.create({ uri: h.uri, version: open.has(h.path) ? doc.version : null }, [e]));
        } else changes[h.uri] = [edit];
      }
    }
    if (!result.files.length) {
      ctx.log(`${MIGRATE_WORKSPACE}: nothing to migrate (${scope}, ${inputs.length} file(s))`);
      return result;
    }
    const edit: WorkspaceEdit = ctx.edits.documentChanges ? { documentChanges } : { changes };
    if (annotate) {
      const n = result.files.length;
      const annotation: ChangeAnnotation = {
        label: 'Migrate to httpd 2.4',
        needsConfirmation: confirm,
        description: `${result.fixes} exact fix${result.fixes === 1 ? '' : 'es'} in ${n} file${n === 1 ? '' : 's'}`,
      };
      edit.changeAnnotations = { [MIGRATE_ANNOTATION]: annotation };
    }
    result.applied = await ctx.applyEdit('Migrate the configuration to httpd 2.4', edit, true);
    ctx.log(`${MIGRATE_WORKSPACE}: ${result.fixes} fix(es) in ${result.files.length} file(s) (${scope}), ${result.applied ? 'applied' : 'not applied by the client'}`);
    return result;
  },
};

/**
 * The exact rewrites of the .htaccess files that httpd reads in the configuration `graph` and that
 * have host rules, under the configuration as `after` (uri → new text) leaves its files; each is
 * read under the rewrites of the ones above it.
 */
function htaccessRewrites(
  ctx: CommandContext,
  graph: ConfigGraph,
  after: ReadonlyMap<string, string>,
  open: ReadonlyMap<string, TextDocument>,
  /** The joint plans of the configuration as it was, and the rewrites whose server parts the edit makes. */
  parts?: { planner: JointPlanner; together: ReadonlySet<string>; made: ReadonlySet<string>; root: string },
): Array<{ uri: string; path: string; text: string; after: string }> {
  const texts = new Map<string, string>();
  for (const f of graph.files) {
    const text = after.get(open.get(f.path)?.uri ?? pathToFileUri(f.path));
    if (text !== undefined) texts.set(f.path, text);
  }
  // The files as this edit leaves them, with what they include (an Include line the edit changed: none).
  const changed = graphWithTexts(graph, texts);
  if (!changed) return [];
  const flat = flattenGraph(changed);
  if (flat.truncated || graph.truncated) return [];
  const done = new Map<string, string>();
  const reader = { readFile: (p: string) => done.get(p) ?? open.get(p)?.getText() ?? ctx.workspace.readText(p), listDir: (p: string) => ctx.workspace.listDir(p) };
  const found = new Set(spliceHtaccessFiles(flat.doc, flat.origins, openDirectories(flat.doc), reader).files);
  // Those planned with the server config make their part of its rewrites (read as they were).
  if (parts) for (const p of parts.planner.htaccessFiles()) found.add(p);
  const out: Array<{ uri: string; path: string; text: string; after: string }> = [];
  // The disk's links as this command finds them (the walk of the served trees is made once for it).
  const links = freshDiskLinks();
  const depth = (p: string) => p.split('/').length;
  for (const path of [...found].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1))) {
    // A file found through a symbolic link to its folder is planned nowhere: the sections httpd
    // applies are those of the path it reaches, which the walk cannot tell (a black-box run of the
    // editor, helper-39: the copy under a link no host serves was emptied as exact, and one edit
    // held two texts for the same file).
    if (ctx.workspace.realPath(path) !== path) continue;
    const text = reader.readFile(path);
    if (text === undefined) continue;
    const part = parts ? parts.planner.part(diskLinks.realPath(path), text, parts.root, parts.together, parts.made) : null;
    if (part) {
      done.set(path, part.text);
      if (part.text !== text) out.push({ uri: open.get(path)?.uri ?? pathToFileUri(path), path, text, after: part.text });
      continue;
    }
    if (!hasHostRules(text)) continue;
    const r = migrateHtaccessInContext(flat.doc, nodePath.dirname(path), text, flat.origins, reader, links);
    if (r.text === null) continue;
    done.set(path, r.text);
    out.push({ uri: open.get(path)?.uri ?? pathToFileUri(path), path, text, after: r.text });
  }
  return out;
}

/**
 * The joint plans of a configuration (features/joint-htaccess.ts), its .htaccess files read as the
 * editor has them (open ones as typed); null when the graph was cut at the limits.
 */
function jointPlannerFor(ctx: CommandContext, graph: ConfigGraph, open: ReadonlyMap<string, TextDocument>): JointPlanner | null {
  // (The graph's flattened text, made once per graph.)
  const flat = flatConfigOf(graph);
  if (!flat) return null;
  const reader = { readFile: (p: string) => open.get(p)?.getText() ?? ctx.workspace.readText(p), listDir: (p: string) => ctx.workspace.listDir(p) };
  // (By real path, as the files of the edit are told apart: a file included through a link is one file.)
  return new JointPlanner({ doc: flat.doc, real: flat.origins.map((o) => ({ path: diskLinks.realPath(o.path), line: o.line })) }, reader, diskLinks);
}

// ---- explain access --------------------------------------------------------------------

export const EXPLAIN_ACCESS = 'apacheconf.explainAccess';

/** What `apacheconf.explainAccess` answers: the service's result, each step with the uri of its file. */
export interface ExplainAccessResult extends ExplainResult {
  steps: Array<ExplainResult['steps'][number] & { uri: string }>;
  /** The `.htaccess` files read on the way to the file (uris), in the order httpd reads them. */
  htaccess: string[];
  /** The request that was explained. */
  request: { path: string; ip: string; credentials: CredentialsState; user?: string };
}

const CREDENTIALS: readonly CredentialsState[] = ['none', 'valid', 'wrong'];

function optionalString(named: Record<string, unknown>, key: string): string | undefined {
  const v = named[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new CommandError(`${EXPLAIN_ACCESS}: "${key}" must be a string`);
  return v.trim() || undefined;
}

function optionalStrings(named: Record<string, unknown>, key: string): string[] | undefined {
  const v = named[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new CommandError(`${EXPLAIN_ACCESS}: "${key}" must be a list of strings`);
  return v as string[];
}

/** The request asked about, from the named arguments (a CommandError, for invalid params, when one is missing or of the wrong type). */
export function explainQuery(named: Record<string, unknown>): ExplainQuery {
  const path = optionalString(named, 'path');
  if (!path) throw new CommandError(`${EXPLAIN_ACCESS} needs { path: "/url/path" } (and optionally ip, credentials, user, serverName)`);
  const credentials = (optionalString(named, 'credentials') ?? 'none') as CredentialsState;
  if (!CREDENTIALS.includes(credentials)) throw new CommandError(`${EXPLAIN_ACCESS}: "credentials" must be one of ${CREDENTIALS.join(', ')}`);
  const q: ExplainQuery = { path: path.startsWith('/') ? path : '/' + path, credentials };
  const ip = optionalString(named, 'ip');
  if (ip) {
    if (!parseClient(ip)) throw new CommandError(`${EXPLAIN_ACCESS}: "ip" must be an IPv4 or IPv6 address (such as 192.0.2.7 or ::1), not ${JSON.stringify(ip)}`);
    q.ip = ip;
  }
  const user = optionalString(named, 'user');
  if (user) q.user = user;
  const serverName = optionalString(named, 'serverName');
  if (serverName) q.serverName = serverName;
  const hostName = optionalString(named, 'hostName');
  if (hostName) q.hostName = hostName;
  const method = optionalString(named, 'method');
  if (method) q.method = method.toUpperCase();
  const groups = optionalStrings(named, 'groups');
  if (groups) q.groups = groups;
  // The names httpd is started with (-D): every <IfDefine> is then settled.
  const defines = optionalStrings(named, 'defines');
  if (defines) q.defines = defines.filter((g) => g.trim() !== '').map((g) => g.trim());
  const documentRoot = optionalString(named, 'documentRoot');
  if (documentRoot) {
    if (!nodePath.isAbsolute(documentRoot)) throw new CommandError(`${EXPLAIN_ACCESS}: "documentRoot" must be an absolute path`);
    q.documentRoot = documentRoot;
  }
  return q;
}

const explainAccess: ServerCommand = {
  id: EXPLAIN_ACCESS,
  description:
    'Explain who gets a URL path: the status, the decision and the lines that decided it, over the whole configuration (the include graph that holds the document, else the root file\'s), else over the document alone. ' +
    'In a trusted workspace the .htaccess files on the way to the file are read where AllowOverride lets them in: under documentRoot, else under the answering host\'s DocumentRoot when that directory exists here (the answer lists them). ' +
    'Arguments: { uri?, path, ip?, credentials?: none|valid|wrong, user?, serverName?, hostName?, method?, documentRoot?, defines? }.',
  async run(ctx, args) {
    const named = namedArguments(args);
    const query = explainQuery(named);
    const { uri, path } = pathArgument(args);
    const doc = uri ? ctx.document(uri) : undefined;
    // Nothing is read from disk in an untrusted workspace.
    const disk = ctx.trusted ? diskReader : undefined;
    // The configuration that includes this document; a document that no graph holds is explained on its own.
    let conf: FolderConfiguration | undefined = path ? ctx.workspace.fileOf(path)?.conf : undefined;
    if (!conf && !doc) conf = ctx.workspace.configurationFor(path);
    let result: ExplainResult & { htaccess: string[] };
    if (conf?.graph) {
      result = ctx.serviceFor(uri ?? pathToFileUri(conf.graph.root)).explain(query, { graph: graphWithOpenDocuments(ctx, conf.graph) }, disk);
    } else if (doc) {
      result = ctx.serviceFor(doc.uri).explain(query, { analysis: ctx.analysis(doc) }, disk);
    } else {
      throw new CommandError(`${EXPLAIN_ACCESS}: open an Apache config file, or set apacheconf.rootFile`);
    }
    const out: ExplainAccessResult = {
      ...result,
      steps: result.steps.map((s) => ({ ...s, uri: /^[a-z][a-z0-9+.-]*:/i.test(s.file) && !nodePath.isAbsolute(s.file) ? s.file : pathToFileUri(s.file) })),
      htaccess: result.htaccess.map(pathToFileUri),
      request: { path: query.path, ip: query.ip ?? '127.0.0.1', credentials: query.credentials ?? 'none', ...(query.user ? { user: query.user } : {}) },
    };
    ctx.log(`${EXPLAIN_ACCESS} ${query.path} from ${out.request.ip}: ${result.status ?? '?'} ${result.decision} (${result.scope}, ${result.steps.length} step(s))`);
    return out;
  },
};

// ---- check with httpd ------------------------------------------------------------------

export const CHECK_WITH_HTTPD = 'apacheconf.checkWithHttpd';

/** What `apacheconf.checkWithHttpd` answers. */
export interface CheckWithHttpdResult {
  binary: string;
  root: string;
  serverRoot: string;
  /** Where the root came from: the setting, the project file, a conventional name, or the file the command was run on. */
  rootFrom: 'setting' | 'project file' | 'found' | 'this file';
  exitCode: number | null;
  /** True when httpd said "Syntax OK". */
  ok: boolean;
  /** The number of httpd diagnostics published. */
  errors: number;
  /** The files that got httpd diagnostics. */
  files: string[];
  /** What httpd printed (at most 8,000 characters). */
  output: string;
}

/** The text of a file (open document, else as the include graph read it from disk), for the range of a diagnostic. */
function fileTextReader(ctx: CommandContext): (file: string) => string | undefined {
  const open = openByPath(ctx);
  return (file) => open.get(file)?.getText() ?? ctx.workspace.fileOf(file)?.file.doc.text;
}

const checkWithHttpd: ServerCommand = {
  id: CHECK_WITH_HTTPD,
  description:
    'Run the configured httpd as `httpd -t -f ROOT_FILE -d SERVER_ROOT` and publish its errors as diagnostics (source httpd) on their files and lines. ' +
    'Only in a trusted workspace. Arguments: a uri or { uri? } (the configuration that holds it; without a root file, that file itself).',
  async run(ctx, args) {
    if (!ctx.trusted) throw new CommandError(`${CHECK_WITH_HTTPD} runs a program, so it is off in an untrusted workspace`);
    const { uri, path } = pathArgument(args);
    const conf = ctx.workspace.configurationFor(path);
    let root = conf?.root;
    let serverRoot = conf?.serverRoot ?? conf?.graph?.serverRoot;
    let rootFrom: CheckWithHttpdResult['rootFrom'] | undefined = conf?.rootFrom;
    if (!root || !conf?.graph) {
      if (!path || !uri || !ctx.document(uri)) {
        throw new CommandError(`${CHECK_WITH_HTTPD}: no root file is known; set apacheconf.rootFile (or rootFile in .apacheconf.json), or run it on an open file`);
      }
      root = path;
      rootFrom = 'this file';
      const folder = ctx.workspace.folderOf(path);
      const s = ctx.settings().serverRoot;
      serverRoot = s ? nodePath.resolve(folder ?? nodePath.dirname(path), s) : ctx.workspace.projectFor(path)?.serverRoot ?? nodePath.dirname(path);
    }
    serverRoot ??= nodePath.dirname(root);
    const setting = ctx.settings().httpd.path;
    const binary = findHttpdBinary(setting);
    if (!binary) {
      throw new CommandError(
        setting ? `${CHECK_WITH_HTTPD}: apacheconf.httpd.path (${setting}) is not an executable file` : `${CHECK_WITH_HTTPD}: no apache2 or httpd binary found; set apacheconf.httpd.path`,
      );
    }
    const run: HttpdRun = await runHttpdCheck(binary, root, serverRoot);
    const byPath = httpdDiagnostics(run, root, fileTextReader(ctx));
    await ctx.publishHttpd(byPath);
    const errors = [...byPath.values()].reduce((n, l) => n + l.length, 0);
    const result: CheckWithHttpdResult = {
      binary,
      root,
      serverRoot,
      rootFrom: rootFrom ?? 'found',
      exitCode: run.exitCode,
      ok: run.exitCode === 0 && !run.timedOut,
      errors,
      files: [...byPath.keys()].map(pathToFileUri),
      output: run.output.length > 8000 ? run.output.slice(0, 8000) + '\n…' : run.output,
    };
    ctx.log(`${CHECK_WITH_HTTPD}: ${binary} ${run.args.join(' ')} → exit ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}, ${errors} diagnostic(s)`);
    return result;
  },
};

export const SERVER_COMMANDS: readonly ServerCommand[] = [migrateFile, migrateWorkspace, explainAccess, checkWithHttpd];

/** The ids the server announces in executeCommandProvider. */
export const SERVER_COMMAND_IDS: readonly string[] = SERVER_COMMANDS.map((c) => c.id);

export function findCommand(id: string): ServerCommand | undefined {
  return SERVER_COMMANDS.find((c) => c.id === id);
}
