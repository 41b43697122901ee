/**
 * The `apacheconf` command line: `check`, `fix`, `explain` and `serve`.
 *
 * `runCli(argv, io)` does all the work and returns the exit code, so tests
 * can call it in-process with their own output streams and directory.
 * Exit codes: 0 nothing at warning or above, 1 something is, 2 a usage error
 * or a path that could not be read (reported after the others are done).
 */
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { version as packageVersion } from '../../../package.json';
import { createService, RULES, severityAtLeast, type ApacheConfService, type Analysis, type ReportedFinding, type ServiceSettings, INHERITED_DECLARATIONS, type InheritedDeclaration } from '../service';
import { decode, encode, parse, type ConfigDocument, type DecodedFile, type OffsetEdit, type SectionNode } from '../syntax';
import { flattenGraph } from '../features/explain';
import { hasHostRules, htaccessUnder, migrateHtaccessInContext, NO_HOST_RULES, type HtaccessReader } from '../features/htaccess-context';
import { allAccessFileNames, overridesFor, virtualHosts } from '../features/explain-disk';
import { diskHost, diskLinks } from '../model/disk';
import { JointPlanner } from '../features/joint-htaccess';
import type { HtaccessUnder } from '../rules';
import { openDirectories, type ConfigurationView } from '../access';
import { FILE_CONTEXTS, defaultContextFor, type FileContext } from '../model/context';
import { SEVERITY_SETTINGS, type Finding, type SeveritySetting } from '../rules/types';
import { ALL_RULE_IDS, CONFIGURATION_RULES, getRuleInfo } from '../rules';
import { parseHttpdVersion } from '../model/project';
import { accessFileNamesIn, collectFiles, describeError, notHttpdReason, type FoundFile, type WalkResult } from './files';
import { ProjectFiles, contextFromProject, PROJECT_FILE, type ProjectConfig } from './project';
import { formatJson, formatSarif, formatText, textLine, OUTPUT_FORMATS, type FileReport, type OutputFormat } from './report';
import { unifiedDiff } from './diff';
import { checkFilesParallel } from './parallel';
import { formatHtml, formatMarkdown } from './upgrade-report';
import { loadConfigGraph, type ConfigGraph } from '../model/workspace';
import { checkConfiguration, notIncludedFiles } from '../rules/workspace';
import * as nodePath from 'node:path';
import { EXPLAIN_HELP, ExplainUsageError, runExplain } from './explain';

export const VERSION: string = packageVersion;

export interface OutputStream {
  write(chunk: string | Uint8Array): unknown;
}

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  /** The directory relative paths are resolved against (default: process.cwd()). */
  cwd?: string;
}

export const FIX_MODES = ['preserve', 'intent'] as const;
export type FixMode = (typeof FIX_MODES)[number];

/** The settings the CLI hands the service: the lead's ServiceSettings plus the fix mode. */
export type CliServiceSettings = ServiceSettings & { mode?: FixMode };

export const HELP = `apacheconf ${packageVersion}: check and migrate Apache httpd configuration files

Usage:
  apacheconf check [options] PATH...     report problems
  apacheconf fix [options] PATH...       apply the exact fixes
  apacheconf explain FILE --url PATH [options]
                                         who gets a path: the status httpd
                                         answers and the lines that decide it
  apacheconf serve --stdio               run the language server
  apacheconf --help | --version

A PATH may be a file or a directory; a directory takes every file below it
that looks like an httpd config (httpd.conf, apache2.conf, .htaccess,
htaccess.txt, *.htaccess, *.conf, *.conf.in, apache2/sites-available/* …),
skipping node_modules and .git.

check options:
  --format text|json|sarif   output format (default: text)
  --context CONTEXT          server | vhost | directory | htaccess for every file
                             (default: htaccess for .htaccess files, else server)
  --rule ID=SEVERITY         set a rule's severity: ignore | hint | information |
                             warning | error (repeatable)
  --exit-zero                exit 0 even when problems are found
  --report                   print an upgrade report of every file instead:
                             per file and per rule, which findings have an
                             exact fix and which need a human (Markdown, or
                             one HTML page with --format html); files are
                             checked in parallel on all cores
  --root FILE                the configuration's root file: follow its Include
                             lines, check the included files in the context
                             they are included in, and check what needs the
                             whole configuration (modules not loaded)
  --httpd-version VERSION    the 2.4 release the files are meant for (2.4.6…):
                             report what arrived later (newer-than-target);
                             else "httpdVersion" of the project file

fix options:
  --diff                     print a unified diff of the fixes (default)
  --write                    rewrite the files in place (encoding and line
                             breaks are kept; a byte order mark, which httpd
                             refuses, is removed)
  --stdout                   print the fixed text of exactly one file
  --mode preserve|intent     preserve: keep what httpd does today (default);
                             intent: what the configuration evidently meant
  --root FILE                the server configuration the .htaccess files given
                             are read in (Include lines followed): each one's
                             rewrite is checked there, as a <Directory> after
                             the others of each virtual host that reads it,
                             and applied when it is exact
  --inherited require|none   declare what the directories of .htaccess files
                             inherit: a 2.4 Require, or no Require and no
                             AuthType; and that no later section of the server
                             config sets access for them and AllowOverride
                             allows AuthConfig. The .htaccess rewrites exact on
                             those terms are then applied (check shows them
                             as preferred fixes)
  --context, --rule, --exit-zero as for check

${EXPLAIN_HELP}
Settings may also come from ${PROJECT_FILE} in the file's folder or a parent:
  { "rules": { "RULE": "warning" }, "fileContexts": { "GLOB": "vhost" },
    "httpdVersion": "2.4.6" }

Exit status: 0 nothing at warning or above, 1 problems found (or left after
fixing), 2 usage error or unreadable path.
`;

class UsageError extends Error {}

interface CommonOptions {
  context?: FileContext;
  /** `--inherited`: what the directories of .htaccess files inherit (ServiceSettings.inherited). */
  inherited?: InheritedDeclaration;
  rules: Record<string, SeveritySetting>;
  exitZero: boolean;
  paths: string[];
}

interface CheckOptions extends CommonOptions {
  format: OutputFormat | 'markdown' | 'html';
  /** `--report`: the upgrade report of the whole tree (Markdown or HTML) instead of the findings. */
  report: boolean;
  /** `--root FILE`: follow Include lines from this file; included files are checked in their context. */
  root?: string;
  /** `--httpd-version`: the 2.4 release the configuration is meant for (newer-than-target); else the project file's. */
  httpdVersion?: string;
}

interface FixOptions extends CommonOptions {
  output: 'diff' | 'write' | 'stdout';
  mode: FixMode;
  /** `--root`: the server configuration the .htaccess files given are read in. */
  root?: string;
}

/** Run the CLI with `argv` (without `node` and the script). Resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    const [command, ...rest] = argv;
    if (command === undefined) {
      io.stderr.write(HELP);
      return 2;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(HELP);
      return 0;
    }
    if (command === '--version' || command === '-v' || command === '-V') {
      io.stdout.write(packageVersion + '\n');
      return 0;
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(HELP);
      return 0;
    }
    switch (command) {
      case 'check':
        return await runCheck(parseCheck(rest), io, cwd);
      case 'fix':
        return runFix(parseFix(rest), io, cwd);
      case 'explain':
        return runExplain(rest, { stdout: io.stdout, stderr: io.stderr }, cwd);
      case 'serve':
        return await runServe(rest, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ExplainUsageError) {
      io.stderr.write(`apacheconf: ${e.message}\nRun 'apacheconf --help' for usage.\n`);
      return 2;
    }
    throw e;
  }
}

// ---------------------------------------------------------------- arguments

/** Walks argv: `--name value`, `--name=value`, flags, `--` and positional paths. */
class ArgReader {
  private i = 0;
  readonly paths: string[] = [];
  constructor(private readonly args: readonly string[]) {}

  /** The next option name (with its inline value split off), or undefined at the end. */
  next(): { name: string; inline?: string } | undefined {
    while (this.i < this.args.length) {
      const a = this.args[this.i++];
      if (a === '--') {
        this.paths.push(...this.args.slice(this.i));
        this.i = this.args.length;
        return undefined;
      }
      if (a.startsWith('-') && a !== '-') {
        const eq = a.indexOf('=');
        return eq > 0 ? { name: a.slice(0, eq), inline: a.slice(eq + 1) } : { name: a };
      }
      this.paths.push(a);
    }
    return undefined;
  }

  value(opt: { name: string; inline?: string }): string {
    if (opt.inline !== undefined) return opt.inline;
    if (this.i >= this.args.length) throw new UsageError(`${opt.name} needs a value`);
    return this.args[this.i++];
  }

  noValue(opt: { name: string; inline?: string }): void {
    if (opt.inline !== undefined) throw new UsageError(`${opt.name} takes no value`);
  }
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
}

function parseRule(spec: string, into: Record<string, SeveritySetting>): void {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--rule expects ID=SEVERITY (got "${spec}")`);
  const id = spec.slice(0, eq);
  const sev = oneOf('the severity in --rule', spec.slice(eq + 1), SEVERITY_SETTINGS);
  if (!getRuleInfo(id)) throw new UsageError(`unknown rule "${id}"; known rules: ${ALL_RULE_IDS.join(', ')}`);
  into[id] = sev;
}

/** Options both commands share; returns false for an option it does not know. */
function commonOption(opt: { name: string; inline?: string }, r: ArgReader, o: CommonOptions): boolean {
  switch (opt.name) {
    case '--context':
      o.context = oneOf('--context', r.value(opt), FILE_CONTEXTS);
      return true;
    case '--rule':
      parseRule(r.value(opt), o.rules);
      return true;
    case '--exit-zero':
      r.noValue(opt);
      o.exitZero = true;
      return true;
    case '--inherited':
      o.inherited = oneOf('--inherited', r.value(opt), INHERITED_DECLARATIONS);
      return true;
    default:
      return false;
  }
}

function parseCheck(args: readonly string[]): CheckOptions {
  const o: CheckOptions = { format: 'text', report: false, rules: {}, exitZero: false, paths: [] };
  const r = new ArgReader(args);
  let format: string | undefined;
  for (let opt = r.next(); opt; opt = r.next()) {
    if (commonOption(opt, r, o)) continue;
    if (opt.name === '--format' || opt.name === '-f') format = r.value(opt);
    else if (opt.name === '--report') {
      r.noValue(opt);
      o.report = true;
    } else if (opt.name === '--root') o.root = r.value(opt);
    else if (opt.name === '--httpd-version') {
      const v = r.value(opt).trim();
      const parsed = parseHttpdVersion(v);
      if (!parsed || parsed[0] !== 2 || parsed[1] !== 4) throw new UsageError(`--httpd-version must be "2.4" or a 2.4 release such as "2.4.6" (got "${v}")`);
      o.httpdVersion = v;
    } else throw new UsageError(`unknown option ${opt.name} for check`);
  }
  if (o.report) o.format = oneOf('--format with --report', format ?? 'markdown', ['markdown', 'html'] as const);
  else if (format !== undefined) o.format = oneOf('--format', format, OUTPUT_FORMATS);
  o.paths = r.paths;
  if (o.root && !o.paths.length) o.paths = [o.root];
  if (!o.paths.length) throw new UsageError('check needs at least one PATH');
  return o;
}

function parseFix(args: readonly string[]): FixOptions {
  const o: FixOptions = { output: 'diff', mode: 'preserve', rules: {}, exitZero: false, paths: [] };
  const r = new ArgReader(args);
  const outputs = new Set<FixOptions['output']>();
  for (let opt = r.next(); opt; opt = r.next()) {
    if (commonOption(opt, r, o)) continue;
    switch (opt.name) {
      case '--diff':
      case '--write':
      case '--stdout':
        r.noValue(opt);
        outputs.add(opt.name.slice(2) as FixOptions['output']);
        break;
      case '--mode':
        o.mode = oneOf('--mode', r.value(opt), FIX_MODES);
        break;
      case '--root':
        o.root = r.value(opt);
        break;
      default:
        throw new UsageError(`unknown option ${opt.name} for fix`);
    }
  }
  if (outputs.size > 1) throw new UsageError('choose one of --diff, --write and --stdout');
  if (outputs.size === 1) o.output = [...outputs][0];
  o.paths = r.paths;
  if (!o.paths.length) throw new UsageError('fix needs at least one PATH');
  return o;
}

// ---------------------------------------------------------------- shared work

interface Loaded {
  file: FoundFile;
  bytes: Buffer;
  decoded: DecodedFile;
  context: FileContext;
  service: ApacheConfService;
  /** The project file that applies to it, if any. */
  project: ProjectConfig | null;
}

/** Reads files and picks settings for each; collects every problem on the way. */
class Session {
  readonly projects: ProjectFiles;
  private services = new Map<string, ApacheConfService>();
  /** Lines for stderr about paths that could not be read. */
  ioErrors = 0;

  constructor(
    private readonly opts: CommonOptions,
    private readonly io: CliIO,
    cwd: string,
    private extra: Partial<CliServiceSettings> = {},
  ) {
    this.projects = new ProjectFiles(cwd);
  }

  /** More settings for the services made from now on (before any file is loaded). */
  addSettings(more: Partial<CliServiceSettings>): void {
    this.extra = { ...this.extra, ...more };
    this.services.clear();
  }

  reportIoError(path: string, message: string): void {
    this.ioErrors++;
    this.io.stderr.write(`${path}: error: cannot read: ${message}\n`);
  }

  /** Files a directory walk took for their extension that do not look like httpd configuration, with why. */
  readonly skipped: string[] = [];

  /** Say which files were passed over (on stderr: the report itself stays the files checked). */
  reportSkipped(): void {
    if (!this.skipped.length) return;
    const shown = this.skipped.slice(0, 5).join(', ') + (this.skipped.length > 5 ? ` and ${this.skipped.length - 5} more` : '');
    this.io.stderr.write(`apacheconf: skipped ${this.skipped.length} *.conf file${this.skipped.length === 1 ? '' : 's'} that do${this.skipped.length === 1 ? 'es' : ''} not look like httpd configuration: ${shown}. Name a file to check it anyway.\n`);
  }

  /** How a file is read (server, vhost, htaccess), as load() decides it, without reading it. */
  contextOf(file: FoundFile): FileContext {
    return contextForFile(file.absolute, this.opts.context, this.projects.forFile(file.absolute), file.accessFile);
  }

  load(file: FoundFile): Loaded | null {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file.absolute);
    } catch (e) {
      this.reportIoError(file.display, describeError(e));
      return null;
    }
    const decoded = decode(bytes);
    if (file.byExtension && !file.explicit) {
      const why = notHttpdReason(parse(decoded.text));
      if (why) {
        this.skipped.push(`${file.display} (${why})`);
        return null;
      }
    }
    const project = this.projects.forFile(file.absolute);
    const context = contextForFile(file.absolute, this.opts.context, project, file.accessFile);
    return { file, bytes, decoded, context, service: this.serviceFor(project), project };
  }

  private serviceFor(project: ProjectConfig | null): ApacheConfService {
    const key = project?.file ?? '';
    let s = this.services.get(key);
    if (!s) {
      const settings: CliServiceSettings = {
        ...this.extra,
        ...(this.opts.inherited ? { inherited: this.opts.inherited } : {}),
        rules: { ...(project?.rules ?? {}), ...this.opts.rules },
      };
      s = createService(settings);
      this.services.set(key, s);
    }
    return s;
  }

  /** Report problems in the project files that were read; true when there were any. */
  reportProjectProblems(): boolean {
    let any = false;
    for (const p of this.projects.all()) {
      for (const problem of p.problems) {
        any = true;
        this.io.stderr.write(`${p.file}: error: ${problem}\n`);
      }
    }
    return any;
  }
}

/**
 * The files to check: the paths' walk, plus, when a server configuration among them (or the
 * --root configuration's files) names per-directory files of its own (`AccessFileName .acl`), the
 * files of those names under the directories given, read as .htaccess files.
 */
function collectWithAccessFiles(paths: readonly string[], cwd: string, cliContext: FileContext | undefined, more: readonly string[] = []): WalkResult {
  const walked = collectFiles(paths, cwd);
  const texts = function* (): Generator<{ text: string; context: string }> {
    for (const f of walked.files) {
      if (f.accessFile) continue;
      try {
        yield { text: decode(fs.readFileSync(f.absolute)).text, context: cliContext ?? defaultContextFor(f.absolute) };
      } catch {
        // Reported when the file is loaded.
      }
    }
    for (const p of more) {
      try {
        yield { text: decode(fs.readFileSync(p)).text, context: 'server' };
      } catch {
        // The configuration's reader reports it.
      }
    }
  };
  const names = accessFileNamesIn(texts(), parse);
  if (!names.size) return walked;
  const again = collectFiles(paths, cwd, names);
  const known = new Set(walked.files.map((f) => f.absolute));
  return { files: [...walked.files, ...again.files.filter((f) => f.accessFile && !known.has(f.absolute))], errors: walked.errors };
}

/** A file's context: `--context` first, then the project file's globs, then the name (.htaccess or not). */
export function contextForFile(absolute: string, cli: FileContext | undefined, project: ProjectConfig | null, accessFile = false): FileContext {
  return cli ?? (project ? contextFromProject(project, absolute) : undefined) ?? (accessFile ? 'htaccess' : defaultContextFor(absolute));
}

/** The analysis's findings, plus a `binary` syntax finding when the settings hid it: binary input is never clean. */
function findingsOf(a: Analysis): ReportedFinding[] {
  const bin = a.doc.errors.find((e) => e.code === 'binary');
  if (!bin || a.findings.some((f) => f.rule === 'syntax' && f.data?.kind === 'binary')) return a.findings;
  const forced: ReportedFinding = { rule: 'syntax', message: bin.message, start: bin.start, end: bin.end, severity: 'error', data: { kind: 'binary' } };
  return [forced, ...a.findings].sort((x, y) => x.start - y.start || x.end - y.end);
}

/** Checking nothing is most likely a wrong path: say so (the exit code stays that of the other paths). */
function warnIfEmpty(paths: readonly string[], files: readonly FoundFile[], errors: readonly unknown[], io: CliIO): void {
  if (files.length === 0 && errors.length === 0) {
    io.stderr.write(`apacheconf: warning: no configuration files found in ${paths.join(', ')}\n`);
  }
}

function toReport(file: FoundFile, service: ApacheConfService, a: Analysis): FileReport {
  return {
    path: file.display,
    absolute: file.absolute,
    context: a.context,
    diagnostics: findingsOf(a).map((f) => ({ severity: f.severity, diagnostic: service.toDiagnostic(a, f) })),
  };
}

function uriOf(file: FoundFile): string {
  return pathToFileURL(file.absolute).href;
}

// ---------------------------------------------------------------- check

/** The include graph of `--root`, read from disk. */
/**
 * The whole configuration as one document (includes inlined) with where each line comes from
 * (paths relative to `cwd`), or null when it was read only in part: a section left out could
 * change what a .htaccess rewrite does, so none is exact then.
 */

/**
 * What the .htaccess files under a directory say about access, read from the disk (AccessFileName
 * of the root configuration), once per directory in a run.
 */
function diskHtaccessUnder(config: ConfigDocument | null, reader: HtaccessReader): (dir: string, below?: boolean) => HtaccessUnder {
  const names = config ? allAccessFileNames(config) : ['.htaccess'];
  const seen = new Map<string, HtaccessUnder>();
  // A folder whose AllowOverride is None for the main server and every virtual host: httpd reads no file there.
  const hosts: Array<SectionNode | null> = config ? [null, ...virtualHosts(config)] : [];
  const reads = (folder: string) => !config || hosts.some((h) => overridesFor(config, h, folder) !== null);
  return (dir, below = false) => {
    // Without --root the directories of a server config may be another machine's: only the
    // subdirectories of a .htaccess file given (which is here) are read.
    if (!config && !below) return { kind: 'unknown', why: 'the directories of the server config are read only with --root' };
    const key = `${below ? 1 : 0}${dir}`;
    let r = seen.get(key);
    if (!r) seen.set(key, (r = htaccessUnder(dir, reader, names, below, reads)));
    return r;
  };
}

/** A file the root file led to, as the report names it: relative to the working directory when under it, else its absolute path (not `../../etc/…`). */
function displayPath(cwd: string, p: string): string {
  const r = nodePath.relative(cwd, p);
  return r && !r.startsWith('..') && !nodePath.isAbsolute(r) ? r : p;
}

function configurationDoc(
  graph: ConfigGraph,
  cwd: string,
): { doc: ConfigDocument; origins: Array<{ path: string; line: number }>; real: Array<{ path: string; line: number }> } | null {
  const flat = flattenGraph(graph);
  if (flat.truncated || graph.truncated) return null;
  return {
    doc: flat.doc,
    origins: flat.origins.map((x) => ({ path: displayPath(cwd, x.path), line: x.line })),
    // By real path, so a file given as conf-available/x.conf is known where conf-enabled/x.conf (a link to it) is included.
    real: flat.origins.map((x) => ({ path: realPath(x.path), line: x.line })),
  };
}

const realPaths = new Map<string, string>();
function realPath(p: string): string {
  let r = realPaths.get(p);
  if (r === undefined) {
    try {
      r = fs.realpathSync(p);
    } catch {
      r = p;
    }
    realPaths.set(p, r);
  }
  return r;
}

/**
 * The configuration a server-config file given with `--root` is read in (its access rewrites are
 * planned there), or undefined when the file is not part of it.
 */
function configurationFor(
  c: { doc: ConfigDocument; real: Array<{ path: string; line: number }> } | null,
  file: FoundFile,
  root: string,
  together: ReadonlySet<string>,
  reader: HtaccessReader = diskHost,
): ConfigurationView | undefined {
  if (!c) return undefined;
  const path = realPath(file.absolute);
  if (!c.real.some((o) => o.path === path)) return undefined;
  return plannerOf(c, reader).view(path, root, together);
}

/**
 * The joint plans of a --root configuration (features/joint-htaccess.ts): the .htaccess files httpd
 * reads in it are spliced in, those of the run that may be are planned with the server config, and
 * each file makes its part of a rewrite of the two. Made once per configuration (the first reader
 * given is the one the .htaccess files are read with: as they were before the run).
 */
function plannerOf(c: { doc: ConfigDocument; real: Array<{ path: string; line: number }> }, reader: HtaccessReader): JointPlanner {
  let p = planners.get(c);
  if (!p) planners.set(c, (p = new JointPlanner(c, reader, diskLinks)));
  return p;
}
const planners = new WeakMap<object, JointPlanner>();

/** A .htaccess file's part of the rewrites planned with the server config (see JointPlanner.part). */
function jointHtaccessPart(
  c: { doc: ConfigDocument; real: Array<{ path: string; line: number }> },
  file: FoundFile,
  text: string,
  root: string,
  together: ReadonlySet<string>,
  reader: HtaccessReader,
  /** The rewrites whose parts in the server config's files the run made (fixText's rewrites; for check, their preferred fixes). */
  made: ReadonlySet<string>,
): { text: string; applied: number; edits: OffsetEdit[] } | null {
  return plannerOf(c, reader).part(realPath(file.absolute), text, root, together, made);
}

/** The files of a run by real path: they are rewritten together, so a rewrite spanning several of them gives each its part. */
function runPaths(files: readonly FoundFile[]): ReadonlySet<string> {
  return new Set(files.map((f) => realPath(f.absolute)));
}

/** The configuration graph from `root`; `overlay` holds texts that stand in for files on disk (by real path: what a fix made of them). */
function graphFrom(root: string, cwd: string, overlay?: ReadonlyMap<string, string>): ConfigGraph {
  const abs = nodePath.resolve(cwd, root);
  return loadConfigGraph(
    {
      readFile: (p) => {
        const over = overlay?.get(realPath(p));
        if (over !== undefined) return over;
        try {
          const st = fs.statSync(p);
          return st.isFile() ? decode(fs.readFileSync(p)).text : undefined;
        } catch {
          return undefined;
        }
      },
      listDir: (p) => {
        try {
          return fs.readdirSync(p, { withFileTypes: true }).map((e) => (e.isDirectory() ? e.name + '/' : e.name));
        } catch {
          return undefined;
        }
      },
      realPath: (p) => fs.realpathSync(p),
    },
    abs,
  );
}

async function runReport(o: CheckOptions, io: CliIO, cwd: string, session: Session, files: FoundFile[]): Promise<number> {
  const jobs = files.map((f) => {
    const project = session.projects.forFile(f.absolute);
    return { path: f.display, absolute: f.absolute, context: contextForFile(f.absolute, o.context, project) };
  });
  // Workers run this same bundle; from the sources (tests) everything runs in this thread.
  const script = process.argv[1] ?? '';
  const workerScript = /cli\.js$/.test(script) ? script : undefined;
  const summaries = await checkFilesParallel(jobs, { settings: { rules: o.rules, ...(o.inherited ? { inherited: o.inherited } : {}) }, workerScript });
  io.stdout.write(o.format === 'html' ? formatHtml(summaries) : formatMarkdown(summaries) + '\n');
  const unreadable = summaries.some((f) => f.error);
  if (unreadable || session.ioErrors > 0) return 2;
  const serious = summaries.some((f) => f.findings.some((x) => severityAtLeast(x.severity, 'warning')));
  return serious && !o.exitZero ? 1 : 0;
}

async function runCheck(o: CheckOptions, io: CliIO, cwd: string): Promise<number> {
  const session = new Session(o, io, cwd);
  const graph: ConfigGraph | undefined = o.root ? graphFrom(o.root, cwd) : undefined;
  const { files, errors } = collectWithAccessFiles(o.paths, cwd, o.context, graph?.files.map((f) => f.path));
  if (o.root && graph) {
    if (!graph.files.length) {
      session.reportIoError(o.root, 'the root file cannot be read');
    } else {
      // By real path: a file the walk found in mods-available/ is the one the root file reaches
      // through its mods-enabled/ link, and is reported once, under the name the walk gave it.
      const known = new Set(files.map((f) => realPath(f.absolute)));
      for (const gf of graph.files) {
        const real = realPath(gf.path);
        if (known.has(real)) continue;
        known.add(real);
        files.push({ display: displayPath(cwd, gf.path), absolute: gf.path, explicit: false });
      }
      if (graph.truncated) io.stderr.write(`apacheconf: warning: stopped following includes at the limit of files or depth\n`);
    }
  }
  warnIfEmpty(o.paths, files, errors, io);
  if (o.report) {
    for (const e of errors) session.reportIoError(e.path, e.message);
    return runReport(o, io, cwd, session, files);
  }
  const graphContext = new Map(graph?.files.map((f) => [realPath(f.path), f.context]) ?? []);
  const graphPaths = new Set(graphContext.keys());
  const unread = graph ? notIncludedFiles(graph, (d) => (diskHost.listDir(d) ?? []).filter((n) => !n.endsWith('/')), nodePath.basename(o.root!)) : [];
  const wide = graph ? checkConfiguration(graph) : [];
  const root = graph?.files.length ? configurationDoc(graph, cwd) : null;
  if (root) session.addSettings({ htaccessUnder: diskHtaccessUnder(root.doc, diskHost), openDirs: openDirectories(root.doc) });
  else if (o.inherited) session.addSettings({ htaccessUnder: diskHtaccessUnder(null, diskHost) });
  const reports: Array<{ at: number; report: FileReport }> = [];
  const together = runPaths(files);
  /** The rewrites whose parts in the server config's files are preferred fixes there (fix would make them), for the .htaccess files' parts. */
  const made = new Set<string>();
  // With --root, the server config's files first (as fix runs them); the reports keep the order given.
  const order = root ? files.map((f, at) => ({ f, at, h: session.contextOf(f) === 'htaccess' ? 1 : 0 })).sort((a, b) => a.h - b.h || a.at - b.at) : files.map((f, at) => ({ f, at, h: 0 }));
  for (const { f: file, at } of order) {
    const l = session.load(file);
    if (!l) continue;
    const context = o.context ?? graphContext.get(realPath(file.absolute)) ?? l.context;
    const configuration = context === 'server' || context === 'vhost' || context === 'directory' ? configurationFor(root, file, o.root ?? '', together) : undefined;
    // A server-config file the root file's configuration does not include (not-included says so).
    const outsideOf = root && !configuration && (context === 'server' || context === 'vhost') && !graphPaths.has(realPath(file.absolute)) ? nodePath.basename(o.root!) : undefined;
    let a = l.service.analyze({ text: l.decoded.text, uri: uriOf(file), context, configuration, ...(outsideOf ? { outsideOf } : {}) });
    // A .htaccess file given with --root: its rewrite checked in that configuration, as fix --root does.
    // One rewritten with the server config (fix --root over both) has its part of that rewrite.
    const joint = root && context === 'htaccess' ? jointHtaccessPart(root, file, l.decoded.text, o.root ?? '', together, diskHost, made) : null;
    if (joint) a = l.service.withRewriteInConfiguration(a, { edits: joint.edits, root: nodePath.basename(o.root!) });
    else if (root && context === 'htaccess') {
      const r = migrateHtaccessInContext(root.doc, nodePath.dirname(file.absolute), l.decoded.text, root.origins, diskHost, diskLinks);
      if (r.text !== null && r.edits) a = l.service.withRewriteInConfiguration(a, { edits: r.edits, root: nodePath.basename(o.root!) });
      else if (r.why && r.why !== NO_HOST_RULES) a = l.service.withRefusalInConfiguration(a, r.why, nodePath.basename(o.root!));
    }
    // The configuration's findings and the target release's, under the same settings (command
    // line, project file) and disable comments as the file's own.
    const extra: Finding[] = wide.filter((w) => realPath(w.path) === realPath(file.absolute)).map(({ path: _path, ...f }) => f);
    // A server-config file enabled in a folder the configuration reads by a pattern its name does not match.
    if (context !== 'htaccess' && !graphPaths.has(realPath(file.absolute))) {
      for (const { path: p, ...f } of unread) if (realPath(p) === realPath(file.absolute)) extra.push(f);
    }
    const target = o.httpdVersion ?? l.project?.httpdVersion;
    if (target) extra.push(...l.service.versionFindings(a, target));
    a = l.service.addFindings(a, extra);
    if (context !== 'htaccess') for (const f of a.findings) for (const x of f.fixes ?? []) if (x.preferred && x.rewriteKey) made.add(x.rewriteKey);
    reports.push({ at, report: toReport(file, l.service, a) });
  }
  for (const e of errors) session.reportIoError(e.path, e.message);
  session.reportSkipped();
  const badProject = session.reportProjectProblems();

  const ordered = reports.sort((x, y) => x.at - y.at).map((r) => r.report);
  if (o.format === 'json') io.stdout.write(formatJson(ordered));
  else if (o.format === 'sarif') io.stdout.write(formatSarif(ordered, [...RULES, ...CONFIGURATION_RULES], packageVersion));
  else io.stdout.write(formatText(ordered));

  if (session.ioErrors > 0 || badProject) return 2;
  const serious = ordered.some((r) => r.diagnostics.some((d) => severityAtLeast(d.severity, 'warning')));
  return serious && !o.exitZero ? 1 : 0;
}

// ---------------------------------------------------------------- fix

/** `a/` + the path with forward slashes, no leading `./` or `/`. */
function diffName(prefix: string, display: string): string {
  return prefix + display.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '');
}

/** True when `text` can be written in `encoding` and read back unchanged. */
function encodable(text: string, encoding: DecodedFile['encoding']): boolean {
  if (encoding === 'utf8') return true; // JS strings from decode() and fixes are well-formed
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

function runFix(o: FixOptions, io: CliIO, cwd: string): number {
  const session = new Session(o, io, cwd, { mode: o.mode });
  const rootGraph = o.root ? graphFrom(o.root, cwd) : undefined;
  const { files, errors } = collectWithAccessFiles(o.paths, cwd, o.context, rootGraph?.files.map((f) => f.path));
  if (o.output === 'stdout' && files.length + errors.length !== 1) {
    throw new UsageError(`--stdout needs exactly one file (got ${files.length + errors.length})`);
  }
  for (const e of errors) session.reportIoError(e.path, e.message);
  warnIfEmpty(o.paths, files, errors, io);
  let rootDoc: ConfigDocument | null = null;
  let rootOrigins: ReadonlyArray<{ path: string; line: number }> | undefined;
  let rootConfig: ReturnType<typeof configurationDoc> = null;
  if (o.root && rootGraph) {
    const graph = rootGraph;
    if (!graph.files.length) session.reportIoError(o.root, 'the root file cannot be read');
    else {
      if (graph.truncated) io.stderr.write(`apacheconf: warning: stopped following includes at the limit of files or depth\n`);
      const c = configurationDoc(graph, cwd);
      if (c) {
        rootDoc = c.doc;
        rootOrigins = c.origins;
        rootConfig = c;
      }
    }
  }
  let applied = 0;
  let changedFiles = 0;
  let refused = 0;
  const remaining: FileReport[] = [];
  /** What is needed to read a file's remaining findings again (see below). */
  const redo = new Map<FileReport, { file: FoundFile; text: string; context: FileContext; service: ApacheConfService }>();
  const fixedByReal = new Map<string, string>();
  // With --root, a .htaccess file is read under its parents' files: those given are fixed first
  // (shallower paths first), and their fixed text is what the deeper ones inherit, written or not.
  const fixedTexts = new Map<string, string>();
  const parents = { readFile: (p: string) => fixedTexts.get(p) ?? diskHost.readFile(p), listDir: (p: string) => diskHost.listDir(p) };
  if (rootDoc) session.addSettings({ htaccessUnder: diskHtaccessUnder(rootDoc, parents), openDirs: openDirectories(rootDoc) });
  else if (o.inherited) session.addSettings({ htaccessUnder: diskHtaccessUnder(null, parents) });
  const depth = (f: { absolute: string }) => f.absolute.split(nodePath.sep).length;
  const together = runPaths(files);
  // The server config's files first: a .htaccess file is read under what they become in the run
  // (its host rules may be what kept theirs from a rewrite, and theirs what keeps its own).
  const isHtaccess = (f: FoundFile) => session.contextOf(f) === 'htaccess';
  const ordered = rootDoc ? files.map((f, i) => ({ f, i, h: isHtaccess(f) ? 1 : 0 })).sort((a, b) => a.h - b.h || depth(a.f) - depth(b.f) || a.i - b.i).map((x) => x.f) : files;
  let serverDone = false;
  /** Rewrites planned with the server config whose parts in its files were made (a .htaccess file then makes its own). */
  const made = new Set<string>();
  for (const file of ordered) {
    const l = session.load(file);
    if (!l) continue;
    const { decoded } = l;
    // A .htaccess file read in the --root configuration: its exact rewrite there comes first.
    let start = decoded.text;
    let inContext = 0;
    let service = l.service;
    if (rootDoc && l.context === 'htaccess' && !serverDone) {
      serverDone = true;
      // The server config as the run's fixes leave it.
      if (fixedByReal.size) {
        const after = configurationDoc(graphFrom(o.root!, cwd, fixedByReal), cwd);
        if (after) {
          rootDoc = after.doc;
          rootOrigins = after.origins;
        }
      }
    }
    // Its part of a rewrite planned with the server config, whose files made theirs above.
    const joint = rootConfig && l.context === 'htaccess' ? jointHtaccessPart(rootConfig, file, decoded.text, o.root ?? '', together, parents, made) : null;
    if (joint) {
      start = joint.text;
      inContext = joint.applied;
    } else if (rootDoc && l.context === 'htaccess') {
      const r = migrateHtaccessInContext(rootDoc, nodePath.dirname(file.absolute), decoded.text, rootOrigins, parents, diskLinks);
      if (r.text !== null) {
        start = r.text;
        inContext = 1;
      } else if (r.why !== NO_HOST_RULES) {
        io.stderr.write(`${file.display}: no exact rewrite in the configuration of ${o.root}: ${r.why}\n`);
        // The configuration says the rewrite is not exact: a declaration (--inherited) does not overrule it.
        if (o.inherited) service = createService({ ...l.service.getSettings(), inherited: undefined });
      }
    }
    // A server-config file of the --root configuration: its rewrites are planned in that configuration.
    const configuration = l.context === 'server' || l.context === 'vhost' || l.context === 'directory' ? configurationFor(rootConfig, file, o.root ?? '', together, parents) : undefined;
    const outsideOf = rootConfig && !configuration && (l.context === 'server' || l.context === 'vhost') && !rootConfig.real.some((x) => x.path === realPath(file.absolute)) ? nodePath.basename(o.root!) : undefined;
    const fixed = service.fixText({ text: start, uri: uriOf(file), context: l.context, configuration, ...(outsideOf ? { outsideOf } : {}) });
    fixed.applied += inContext;
    const changed = fixed.text !== decoded.text;
    const isBinary = fixed.analysis.doc.errors.some((e) => e.code === 'binary');
    const report = toReport(file, l.service, fixed.analysis);
    report.diagnostics = report.diagnostics.filter((d) => severityAtLeast(d.severity, 'warning'));
    if (changed) {
      applied += fixed.applied;
      changedFiles++;
    }
    if (o.output === 'stdout') {
      io.stdout.write(encode(fixed.text, decoded.encoding));
    } else if (changed && o.output === 'diff') {
      const diff = unifiedDiff(decoded.text, fixed.text, diffName('a/', file.display), diffName('b/', file.display));
      // Headers in UTF-8, the body in the file's own encoding, so patch(1) applies it byte for byte.
      const cut = diff.indexOf('\n', diff.indexOf('\n') + 1) + 1;
      io.stdout.write(Buffer.concat([Buffer.from(diff.slice(0, cut), 'utf8'), encode(diff.slice(cut), decoded.encoding)]));
    } else if (changed && o.output === 'write') {
      const lossless = encode(decoded.text, decoded.encoding).equals(l.bytes);
      if (!lossless || isBinary || !encodable(fixed.text, decoded.encoding)) {
        refused++;
        const why = isBinary
          ? 'it contains binary data'
          : !lossless
            ? 'its bytes do not survive decoding'
            : 'the fixed text has characters that Latin-1 cannot hold';
        io.stderr.write(`${file.display}: error: not rewritten: ${why}\n`);
        // It still counts as unfixed: keep its original findings.
        const before = toReport(file, l.service, l.service.analyze({ text: decoded.text, uri: uriOf(file), context: l.context }));
        before.diagnostics = before.diagnostics.filter((d) => severityAtLeast(d.severity, 'warning'));
        if (before.diagnostics.length) remaining.push(before);
        continue;
      }
      try {
        fs.writeFileSync(file.absolute, encode(fixed.text, decoded.encoding));
      } catch (e) {
        refused++;
        io.stderr.write(`${file.display}: error: cannot write: ${describeError(e)}\n`);
        continue;
      }
    }
    // What the deeper .htaccess files given inherit from this one (not reached when it was not written).
    if (l.context === 'htaccess') fixedTexts.set(file.absolute, fixed.text);
    else for (const k of fixed.rewrites) made.add(k);
    if (changed) fixedByReal.set(realPath(file.absolute), fixed.text);
    if (report.diagnostics.length) {
      remaining.push(report);
      redo.set(report, { file, text: fixed.text, context: l.context, service: l.service });
    }
  }
  // With --root, each file's findings were worked out in the configuration as it was before the
  // files after it were fixed: what remains is read again in the configuration they all make.
  if (o.root && rootConfig && fixedByReal.size && remaining.length) {
    const after = configurationDoc(graphFrom(o.root, cwd, fixedByReal), cwd);
    if (after) {
      for (let i = remaining.length - 1; i >= 0; i--) {
        const r = redo.get(remaining[i]);
        if (!r || (r.context !== 'server' && r.context !== 'vhost' && r.context !== 'directory')) continue;
        const configuration = configurationFor(after, r.file, o.root, together, parents);
        if (!configuration) continue;
        const again = toReport(r.file, r.service, r.service.analyze({ text: r.text, uri: uriOf(r.file), context: r.context, configuration }));
        again.diagnostics = again.diagnostics.filter((d) => severityAtLeast(d.severity, 'warning'));
        if (again.diagnostics.length) remaining[i] = again;
        else remaining.splice(i, 1);
      }
    }
  }
  session.reportSkipped();
  const badProject = session.reportProjectProblems();
  // The .htaccess files with host rules the server config was planned with, that this run leaves alone.
  if (rootConfig) {
    const view = planners.get(rootConfig)?.withHtaccess();
    const given = new Set(files.map((f) => realPath(f.absolute)));
    const left = [...(view?.kept ?? [])].filter((p) => !given.has(realPath(p)) && hasHostRules(diskHost.readFile(p) ?? ''));
    if (left.length) {
      io.stderr.write(
        `apacheconf fix: note: ${left.length === 1 ? 'a .htaccess file' : `${left.length} .htaccess files`} that httpd reads in this configuration still ${left.length === 1 ? 'has' : 'have'} host rules, which need mod_access_compat: ${left.slice(0, 5).join(', ')}${left.length > 5 ? ` and ${left.length - 5} more` : ''}. Give ${left.length === 1 ? 'it' : 'them'} to the same command to migrate ${left.length === 1 ? 'it' : 'them'} too.\n`,
      );
    }
  }

  // What is left, on stderr so that --diff and --stdout output stays clean.
  const left = remaining.reduce((n, r) => n + r.diagnostics.length, 0);
  if (left > 0) {
    for (const r of remaining) {
      for (const { severity, diagnostic: d } of r.diagnostics) {
        io.stderr.write(textLine(r.path, severity, d));
      }
    }
  }
  const verb = o.output === 'write' ? 'applied' : 'would apply';
  io.stderr.write(
    `apacheconf fix: ${verb} ${applied} fix${applied === 1 ? '' : 'es'} in ${changedFiles} of ${files.length} file${files.length === 1 ? '' : 's'}` +
      (left ? `; ${left} problem${left === 1 ? '' : 's'} at warning or above remain${left === 1 ? 's' : ''}` : '; nothing at warning or above remains') +
      '.\n',
  );
  if (session.ioErrors > 0 || refused > 0 || badProject) return 2;
  return left > 0 && !o.exitZero ? 1 : 0;
}

// ---------------------------------------------------------------- serve

interface LspModule {
  startServer?: (...args: unknown[]) => unknown;
}

function loadLsp(): LspModule | Error {
  try {
    // A plain require inside try: esbuild bundles it when server/src/lsp exists and leaves a
    // runtime require (that fails here) when it does not; tsc does not resolve it either way.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('../lsp/main') as LspModule;
  } catch (e) {
    return e as Error;
  }
}

async function runServe(args: readonly string[], io: CliIO): Promise<number> {
  const known = /^--(stdio|node-ipc|socket(=\d+)?|pipe(=.+)?|clientProcessId(=\d+)?)$/;
  for (const a of args) if (!known.test(a)) throw new UsageError(`unknown option ${a} for serve`);
  if (!args.some((a) => /^--(stdio|node-ipc|socket|pipe)/.test(a))) throw new UsageError('serve needs --stdio');
  const lsp = loadLsp();
  if (lsp instanceof Error || typeof lsp.startServer !== 'function') {
    const why = lsp instanceof Error ? lsp.message.split('\n')[0] : 'it does not export startServer';
    io.stderr.write(`apacheconf: the language server is not available in this build (${why}).\n`);
    return 2;
  }
  await lsp.startServer();
  return 0;
}

