/**
 * The server's view of each workspace folder as an httpd configuration: its
 * project file (`.apacheconf.json`), its root file and the include graph
 * from that root, with the configuration-wide findings (module-not-loaded,
 * compat-module) per file.
 *
 * Lazy: a folder's project file and graph are read the first time something
 * asks for them, and dropped when a file of the graph is saved or changes on
 * disk (the next question reads them again). Never a scan of the workspace:
 * only the root file and what its Include lines name are read, within the
 * include limits. Disabled in an untrusted workspace (nothing is read).
 * Files open in the editor are read from the editor, not from the disk.
 */
import * as fs from 'fs';
import * as nodePath from 'path';
import { trimEndChars, type ConfigDocument } from '../syntax';
import { diskHost } from '../model/disk';
import { findRootFile, loadConfigGraph, ROOT_CANDIDATES, type ConfigGraph, type WorkspaceFile, type WorkspaceHost } from '../model/workspace';
import { ProjectFiles, PROJECT_FILE, type ProjectConfig } from '../model/project';
import { checkConfiguration, notIncludedFiles, type WorkspaceFinding } from '../rules/workspace';
import { DEFAULT_SETTINGS, type LspSettings } from './settings';

// The disk readers live with the model, shared with the CLI; exported here for the server's callers.
export { diskHost, diskReader, MAX_CONFIG_FILE_BYTES } from '../model/disk';

/** A project file's text, or undefined. */
function readProjectText(p: string): string | undefined {
  try {
    return fs.statSync(p).isFile() ? fs.readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

export interface FolderConfiguration {
  folder: string;
  project: ProjectConfig | null;
  /** The root file, when one is set or found. */
  root?: string;
  /** Where the root came from, for logs and command answers. */
  rootFrom?: 'setting' | 'project file' | 'found';
  /** The ServerRoot the setting or the project file gives (else the graph's: the root's ServerRoot line or folder). */
  serverRoot?: string;
  graph?: ConfigGraph;
  /** Configuration-wide findings by file path. */
  findings: Map<string, WorkspaceFinding[]>;
  /** Graph files by path and by real path. */
  files: Map<string, WorkspaceFile>;
}

export class ConfigWorkspace {
  private folders: string[] = [];
  private settings: LspSettings = DEFAULT_SETTINGS;
  private readonly cache = new Map<string, FolderConfiguration>();
  private readonly projects = new ProjectFiles(process.cwd(), readProjectText);
  private readonly host: WorkspaceHost;
  /** Bumped whenever a folder's configuration is dropped; lets callers notice a rebuild. */
  generation = 0;

  constructor(
    private readonly enabled: () => boolean,
    private readonly log: (message: string) => void = () => {},
    /** The text of a file open in the editor (it wins over the disk), or undefined. */
    private readonly openText: (path: string) => string | undefined = () => undefined,
    disk: WorkspaceHost = diskHost,
  ) {
    this.host = {
      readFile: (p) => this.openText(p) ?? disk.readFile(p),
      listDir: (p) => disk.listDir(p),
      realPath: disk.realPath ? (p) => disk.realPath!(p) : undefined,
    };
  }

  setFolders(folders: readonly string[]): void {
    this.folders = folders.map((f) => trimEndChars(f, '\\/') || '/');
    this.invalidate();
  }

  setSettings(settings: LspSettings): void {
    this.settings = settings;
    this.invalidate();
  }

  /** Drops everything read (or one folder's), to be read again on the next question. */
  invalidate(folder?: string): void {
    if (folder === undefined) this.cache.clear();
    else this.cache.delete(folder);
    this.projects.clear();
    this.generation++;
  }

  /** The workspace folder that holds `path` (the innermost), if any. */
  folderOf(path: string): string | undefined {
    let best: string | undefined;
    for (const f of this.folders) {
      if ((path === f || path.startsWith(f === '/' ? '/' : f + '/')) && (!best || f.length > best.length)) best = f;
    }
    return best;
  }

  /** The configuration of a workspace folder (read on first use). Undefined when disabled. */
  folder(folder: string): FolderConfiguration | undefined {
    if (!this.enabled()) return undefined;
    const have = this.cache.get(folder);
    if (have) return have;
    const conf = this.load(folder);
    this.cache.set(folder, conf);
    return conf;
  }

  /** Every folder's configuration (each read on first use). */
  all(): FolderConfiguration[] {
    if (!this.enabled()) return [];
    return this.folders.map((f) => this.folder(f)).filter((c): c is FolderConfiguration => !!c);
  }

  /** The project file that applies to a path: its workspace folder's, else that of the configuration holding it. */
  projectFor(path: string | undefined): ProjectConfig | null {
    if (!path || !this.enabled()) return null;
    const f = this.folderOf(path);
    const own = f ? this.folder(f)?.project : undefined;
    if (own) return own;
    return this.fileOf(path)?.conf.project ?? null;
  }

  /** The graph file for `path` and the configuration it belongs to, if any graph holds it. */
  fileOf(path: string): { conf: FolderConfiguration; file: WorkspaceFile } | undefined {
    const all = this.all();
    if (!all.length) return undefined;
    const real = this.realPath(path);
    const own = this.folderOf(path);
    const order = all.sort((a, b) => Number(b.folder === own) - Number(a.folder === own));
    for (const conf of order) {
      const file = conf.files.get(path) ?? conf.files.get(real);
      if (file) return { conf, file };
    }
    return undefined;
  }

  /** The configuration whose graph holds `path`, else the one of its folder, else the first folder's that has a root. */
  /** The editor's text of a file that is open, or undefined (the disk is not read). */
  openTextOf(path: string): string | undefined {
    return this.openText(path);
  }

  /** A file's text as the workspace reads it (the editor's when it is open), or undefined. */
  readText(path: string): string | undefined {
    return this.host.readFile(path);
  }

  /** A folder's entries (folders end in '/'), or undefined. */
  listDir(path: string): string[] | undefined {
    return this.host.listDir(path);
  }

  configurationFor(path: string | undefined): FolderConfiguration | undefined {
    if (path) {
      const hit = this.fileOf(path);
      if (hit) return hit.conf;
      const f = this.folderOf(path);
      const conf = f ? this.folder(f) : undefined;
      if (conf?.graph) return conf;
    }
    return this.all().find((c) => c.graph);
  }

  /**
   * The configuration-wide findings for one file of a graph, given the
   * file's current tree: the ones computed with the graph when the text is
   * what the graph read, else the configuration rules run again with this
   * tree in the file's place (an unsaved edit; the other files keep theirs
   * until the next save).
   */
  /** What notIncludedFiles found for each graph (its folders are listed once per graph, not per keystroke). */
  private readonly unreadOf = new WeakMap<ConfigGraph, WorkspaceFinding[]>();

  findingsFor(path: string, doc: ConfigDocument): WorkspaceFinding[] {
    const hit = this.fileOf(path);
    const read = hit?.conf.graph;
    if (!hit) {
      // Not part of any configuration: perhaps enabled under a name the Include pattern does not take.
      const conf = this.configurationFor(path);
      if (!conf?.graph || !conf.root) return [];
      const real = this.realPath(path);
      // Once per graph: its folders are listed again when a change on disk makes a new graph (concerns()).
      let unread = this.unreadOf.get(conf.graph);
      if (!unread) {
        const list = (dir: string) => (this.host.listDir(dir) ?? []).filter((n) => !n.endsWith('/'));
        this.unreadOf.set(conf.graph, (unread = notIncludedFiles(conf.graph, list, nodePath.basename(conf.root))));
      }
      return unread.filter((f) => this.realPath(f.path) === real);
    }
    if (!read) return [];
    const { conf, file } = hit;
    if (file.doc.text === doc.text) return conf.findings.get(file.path) ?? [];
    const graph: ConfigGraph = { ...read, files: read.files.map((f) => (f === file ? { ...f, doc } : f)) };
    return checkConfiguration(graph).filter((f) => f.path === file.path);
  }

  /** The folders whose configuration a change of `path` on disk may concern (a graph file, a project file, a file in a folder an Include reads). */
  concerns(path: string): string[] {
    const out = new Set<string>();
    if (nodePath.basename(path) === PROJECT_FILE) {
      const f = this.folderOf(path);
      if (f) out.add(f);
    }
    for (const [folder, conf] of this.cache) {
      if (conf.files.has(path) || conf.files.has(this.realPath(path))) out.add(folder);
      else if (conf.graph) {
        // A new file in a folder an Include reads (sites-enabled/*.conf) joins the graph.
        const dir = nodePath.dirname(path);
        const serverRoot = conf.graph.serverRoot;
        if (conf.graph.edges.some((e) => e.targets.some((t) => nodePath.dirname(t) === dir) || includeDirs(e.directive.args[0]?.value, serverRoot).includes(dir))) out.add(folder);
      } else if (this.couldBeRoot(folder, conf, path)) {
        // No root yet: this may be the root file, just created.
        out.add(folder);
      }
    }
    return [...out];
  }

  /** Whether `path` is where the root file of a folder without one would be (the setting, the project file, a conventional name). */
  private couldBeRoot(folder: string, conf: FolderConfiguration, path: string): boolean {
    const wanted = [
      this.settings.rootFile ? this.resolve(folder, this.settings.rootFile) : undefined,
      conf.project?.rootFile,
      ...[folder, conf.serverRoot].flatMap((base) => (base ? ROOT_CANDIDATES.map((c) => nodePath.join(base, c)) : [])),
    ];
    return wanted.includes(path);
  }

  realPath(p: string): string {
    try {
      return this.host.realPath ? this.host.realPath(p) : p;
    } catch {
      return p;
    }
  }

  private resolve(folder: string, p: string): string {
    return nodePath.isAbsolute(p) ? nodePath.normalize(p) : nodePath.resolve(folder, p);
  }

  private load(folder: string): FolderConfiguration {
    const s = this.settings;
    const project = this.projects.inFolder(folder);
    if (project?.problems.length) this.log(`${project.file}: ${project.problems.join('; ')}`);
    const conf: FolderConfiguration = { folder, project, findings: new Map(), files: new Map() };
    conf.serverRoot = s.serverRoot ? this.resolve(folder, s.serverRoot) : project?.serverRoot;
    if (s.rootFile) {
      conf.root = this.resolve(folder, s.rootFile);
      conf.rootFrom = 'setting';
    } else if (project?.rootFile) {
      conf.root = project.rootFile;
      conf.rootFrom = 'project file';
    } else {
      conf.root = findRootFile(this.host, folder) ?? (conf.serverRoot ? findRootFile(this.host, conf.serverRoot) : undefined);
      if (conf.root) conf.rootFrom = 'found';
    }
    if (!conf.root) return conf;
    if (this.host.readFile(conf.root) === undefined) {
      this.log(`root file ${conf.root} (${conf.rootFrom}) cannot be read`);
      conf.root = undefined;
      return conf;
    }
    const graph = loadConfigGraph(this.host, conf.root, { maxFiles: s.includes.maxFiles, maxDepth: s.includes.maxDepth, serverRoot: conf.serverRoot });
    conf.graph = graph;
    for (const f of graph.files) {
      conf.files.set(f.path, f);
      const real = this.realPath(f.path);
      if (real !== f.path) conf.files.set(real, f);
    }
    for (const finding of checkConfiguration(graph)) {
      const list = conf.findings.get(finding.path) ?? [];
      list.push(finding);
      conf.findings.set(finding.path, list);
    }
    this.log(
      `configuration of ${folder}: root ${conf.root} (${conf.rootFrom}), ${graph.files.length} file(s)` +
        (graph.truncated ? `, cut at the include limits (${s.includes.maxFiles} files, depth ${s.includes.maxDepth})` : ''),
    );
    return conf;
  }
}

/** The folder a (possibly wildcard) Include path reads files from, when its folder part has no wildcard. */
function includeDirs(arg: string | undefined, serverRoot: string): string[] {
  if (!arg) return [];
  const full = nodePath.isAbsolute(arg) ? arg : nodePath.join(serverRoot, arg);
  const dir = nodePath.dirname(full);
  if (/[*?[]/.test(dir)) return [];
  return /[*?[]/.test(nodePath.basename(full)) ? [dir] : [dir, full];
}
