/**
 * A `.htaccess` file open in the editor, read in the workspace's server configuration (its root
 * file and what it includes): its rewrite checked there (features/htaccess-context.ts) and, when
 * exact, offered as the preferred fix of its `legacy-access` findings and applied by "Migrate
 * access control in this file".
 */
import * as nodePath from 'node:path';
import { parse, type ConfigDocument, type DirectiveNode, type OffsetEdit } from '../syntax';
import type { Analysis, ApacheConfService } from '../service';
import type { FileContext } from '../model/context';
import type { ConfigGraph } from '../model/workspace';
import { flattenGraph, type FlatConfig } from '../features/explain';
import { migrateHtaccessInContext, NO_HOST_RULES } from '../features/htaccess-context';
import { allAccessFileNames } from '../features/explain-disk';
import { freshDiskLinks } from '../model/disk';
import { openDirectories, type ConfigurationView } from '../access';
import { fileUriToPath } from '../features/paths';
import type { ConfigWorkspace } from './workspace';

/** The flattened configuration of each graph (null when the graph was cut at the limits: nothing is exact then). */
const flats = new WeakMap<ConfigGraph, FlatConfig | null>();

export function flatConfigOf(graph: ConfigGraph): FlatConfig | null {
  let f = flats.get(graph);
  if (f === undefined) {
    const flat = flattenGraph(graph);
    f = flat.truncated || graph.truncated ? null : flat;
    flats.set(graph, f);
  }
  return f;
}

function flatOf(graph: ConfigGraph): ConfigDocument | null {
  return flatConfigOf(graph)?.doc ?? null;
}

/**
 * The AccessFileName names of the server configuration a file belongs to, when the workspace is
 * trusted and knows it (the full pass then reads the .htaccess files a rewrite depends on).
 */
export function configurationFactsFor(workspace: ConfigWorkspace, uri: string): { htaccessNames: string[]; openDirs: string[] } | undefined {
  const path = fileUriToPath(uri);
  if (!path) return undefined;
  const conf = workspace.configurationFor(path);
  if (!conf?.graph || !conf.root) return undefined;
  let f = facts.get(conf.graph);
  if (f === undefined) {
    const doc = flatOf(conf.graph);
    f = doc ? { htaccessNames: allAccessFileNames(doc), openDirs: openDirectories(doc) } : null;
    facts.set(conf.graph, f);
  }
  return f ?? undefined;
}

const facts = new WeakMap<ConfigGraph, { htaccessNames: string[]; openDirs: string[] } | null>();

export interface InContext {
  /** The rewrite, when it is exact in the configuration; else null and why. */
  text: string | null;
  edits: OffsetEdit[];
  why?: string;
  /** The root file's name, for titles and messages. */
  root: string;
}

/** A .htaccess text in the workspace configuration: its exact rewrite there, or why there is none; null when there is no configuration to read it in (or no host rules). */
export function htaccessInContext(workspace: ConfigWorkspace, uri: string, text: string, context: FileContext): InContext | null {
  if (context !== 'htaccess') return null;
  const path = fileUriToPath(uri);
  if (!path) return null;
  const conf = workspace.configurationFor(path);
  if (!conf?.graph || !conf.root) return null;
  const doc = flatOf(conf.graph);
  if (!doc) return null;
  // Opened through a symbolic link to its folder: httpd applies the sections of the path it maps
  // URLs to, which the plan finds from the disk's links (features/served-paths.ts): the one such
  // path, whichever way the file was opened, or none when there are several.
  // The engine reads the whole configuration: answers are kept per graph, directory and text.
  let memo = answers.get(conf.graph);
  if (!memo) answers.set(conf.graph, (memo = new Map()));
  // What the .htaccess files of the parent directories and of the subdirectories say counts too
  // (they are not in the graph): an answer is reused only while every file and folder it read is
  // as it was then.
  const key = `${path}\u0000${text}`;
  let hit: InContext | null | undefined;
  const kept = memo.get(key);
  if (kept && kept.reads.every(([p, v]) => (p.endsWith('/') ? (workspace.listDir(p)?.join('\u0000') ?? null) : (workspace.readText(p) ?? null)) === v)) hit = kept.answer;
  if (hit === undefined) {
    const reads: Array<[string, string | null]> = [];
    const reader = {
      readFile: (p: string) => {
        const v = workspace.readText(p);
        reads.push([p, v ?? null]);
        return v;
      },
      listDir: (p: string) => {
        const v = workspace.listDir(p);
        reads.push([p.endsWith('/') ? p : p + '/', v?.join('\u0000') ?? null]);
        return v;
      },
    };
    const r = migrateHtaccessInContext(doc, nodePath.dirname(path), text, undefined, reader, recentDiskLinks());
    const root = nodePath.basename(conf.root);
    hit =
      r.text !== null && r.edits
        ? { text: r.text, edits: r.edits, root }
        : r.why && r.why !== NO_HOST_RULES
          ? { text: null, edits: [], why: r.why, root }
          : null;
    if (memo.size >= 64) memo.clear();
    memo.set(key, { answer: hit, reads });
  }
  return hit;
}

/**
 * The disk's links as read in the last few seconds: the walk of the served trees they are kept
 * with (features/served-paths.ts) is made again at most that often, not on every keystroke of a
 * .htaccess file (commands read the disk afresh).
 */
let links: { at: number; host: ReturnType<typeof freshDiskLinks> } | null = null;
const LINKS_KEPT_MS = 5000;
function recentDiskLinks(): ReturnType<typeof freshDiskLinks> {
  const now = Date.now();
  if (!links || now - links.at > LINKS_KEPT_MS) links = { at: now, host: freshDiskLinks() };
  return links.host;
}

/** Files changed on disk, or a command is about to plan: the links are read again. */
export function dropRecentDiskLinks(): void {
  links = null;
}

const answers = new WeakMap<ConfigGraph, Map<string, { answer: InContext | null; reads: Array<[string, string | null]> }>>();

/** A full analysis of a .htaccess file with its in-context rewrite as the preferred fix (see the service). */
export function withInContextFix(a: Analysis, workspace: ConfigWorkspace, service: ApacheConfService): Analysis {
  if (a.depth === 'quick' || a.context !== 'htaccess' || !a.findings.some((f) => f.rule === 'legacy-access')) return a;
  const r = htaccessInContext(workspace, a.uri, a.doc.text, a.context);
  if (!r) return a;
  return r.text !== null ? service.withRewriteInConfiguration(a, r) : service.withRefusalInConfiguration(a, r.why ?? 'no rewrite form applies.', r.root);
}

/** A server-config file's configuration as plain data (it crosses to the full-pass worker). */
export interface ConfigurationData {
  text: string;
  origins: Array<{ path: string; line: number }>;
  path: string;
  root: string;
}

/**
 * The workspace configuration a server-config file is read in, with `text` (the editor's, saved or
 * not) in the file's place, so its access rewrites are planned there; undefined when no graph of
 * the workspace holds the file, the graph was cut at the limits, or an unsaved text has Include
 * lines of its own (what they bring in is only known once saved).
 */
export function configurationDataFor(workspace: ConfigWorkspace, uri: string, text: string, context: FileContext): ConfigurationData | undefined {
  if (context !== 'server' && context !== 'vhost' && context !== 'directory') return undefined;
  const path = fileUriToPath(uri);
  if (!path) return undefined;
  const hit = workspace.fileOf(path);
  const graph = hit?.conf.graph;
  if (!hit || !graph || !hit.conf.root) return undefined;
  // The text the graph read: its flattened configuration, made once per graph (a full pass runs
  // after every pause in typing); an unsaved text: flattened with it in the file's place.
  // The other files of the graph open with unsaved changes count as the editor has them: a rewrite
  // planned on what the disk holds of them would not be what the user saves (a black-box run of the
  // editor, helper-39: a root file changed but not saved, and a rewrite of a file it includes
  // planned on the root as it was).
  const unsaved = new Map<ConfigGraph['files'][number], string>();
  if (hit.file.doc.text !== text) unsaved.set(hit.file, text);
  for (const f of graph.files) {
    if (f === hit.file) continue;
    const open = workspace.openTextOf(f.path);
    if (open !== undefined && open !== f.doc.text) unsaved.set(f, open);
  }
  let flat: FlatConfig | null;
  if (!unsaved.size) flat = flatConfigOf(graph);
  else {
    const docs = new Map<ConfigGraph['files'][number], ConfigDocument>();
    /** The Include lines of the texts read, each standing for the same line of the graph's (the graph's edges name them). */
    const same = new Map<DirectiveNode, DirectiveNode>();
    for (const [f, t] of unsaved) {
      const doc = parse(t);
      // What an Include line changed brings in is only known once saved.
      if (includeLines(doc) !== includeLines(f.doc)) return undefined;
      const before = includesOf(f.doc);
      includesOf(doc).forEach((d, i) => same.set(before[i], d));
      docs.set(f, doc);
    }
    const g: ConfigGraph = {
      ...graph,
      files: graph.files.map((f) => (docs.has(f) ? { ...f, doc: docs.get(f)! } : f)),
      edges: graph.edges.map((e) => (same.has(e.directive) ? { ...e, directive: same.get(e.directive)! } : e)),
    };
    const made = flattenGraph(g);
    flat = made.truncated || g.truncated ? null : made;
  }
  if (!flat) return undefined;
  return { text: flat.doc.text, origins: flat.origins, path: hit.file.path, root: nodePath.basename(hit.conf.root) };
}

/** A file's Include lines, in order. */
function includesOf(doc: ConfigDocument): DirectiveNode[] {
  return doc.directives.filter((d) => d.key === 'include' || d.key === 'includeoptional');
}

/** A file's lines that decide what its Include lines bring in (those, ServerRoot, Define, UnDefine) as written, in order. */
function includeLines(doc: ConfigDocument): string {
  return doc.directives
    .filter((d) => d.key === 'include' || d.key === 'includeoptional' || d.key === 'serverroot' || d.key === 'define' || d.key === 'undefine')
    .map((d) => doc.text.slice(d.start, d.end))
    .join('\n');
}

/** The view the rules take, from the plain data (parsed once per text). */
export function configurationView(data: ConfigurationData | undefined): ConfigurationView | undefined {
  if (!data) return undefined;
  if (lastView?.text !== data.text) lastView = { text: data.text, doc: parse(data.text) };
  return { doc: lastView.doc, origins: data.origins, path: data.path, root: data.root };
}

let lastView: { text: string; doc: ConfigDocument } | undefined;
