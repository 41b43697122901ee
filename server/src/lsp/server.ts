/**
 * The language server: handed a connection, it translates LSP requests into
 * calls on the service facade and back. No analysis happens here; the
 * transport-free layers below do it. One analysis per document version,
 * debounced validation on change, immediate on open.
 */
import {
  CodeActionKind,
  ResponseError,
  ErrorCodes,
  TextDocumentEdit,
  TextDocuments,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { inspect } from 'util';
import { version as SERVER_VERSION } from '../../../package.json';
import { diskChanged, FullPassRunner, splicedView, withDiskHtaccess, type FullPassJob } from './full-pass';
import { createService, FIX_ALL_KIND, type Analysis, type ApacheConfService, type ReportedFinding } from '../service';
import { defaultContextFor, type FileContext } from '../model/context';
import type { ConfigurationView } from '../access';
import { modelineContext } from '../model/workspace';
import { contextFromProject } from '../model/project';
import type { Finding } from '../rules/types';
import type { Catalog } from '../features/completion';
import { fileUriToPath, pathToFileUri } from '../features/paths';
import { configurationDataFor, configurationFactsFor, configurationView, dropRecentDiskLinks, withInContextFix, type ConfigurationData } from './htaccess';
import { versionFindings } from '../features/version';
import { catalog as directiveCatalog } from '../facts';
import { CatalogFeatures } from './adapters';
import { CommandError, fileMigration, findCommand, SERVER_COMMAND_IDS, type CommandContext } from './commands';
import { AnalysisCache, ValidationScheduler } from './documents';
import { candidatePaths, DEFAULT_SETTINGS, FileContextMatcher, normalizeSettings, SECTION, type LspSettings } from './settings';
import { ConfigWorkspace } from './workspace';
import { clampToText } from './httpd';

export interface ApacheConfServerOptions {
  /** The directive catalog for completion and signature help (default: the httpd 2.4 catalog of server/src/facts). */
  catalog?: Catalog;
  service?: ApacheConfService;
  /**
   * The bundle to start as the full-pass worker (the file this code was bundled into); absent or
   * null, the full pass runs on the main thread after the quick diagnostics are out.
   */
  fullPassScript?: string | null;
}

/** What a client may pass as initializationOptions (besides the settings themselves). */
export interface InitializationOptions {
  /**
   * False in an untrusted workspace: the server then reads nothing from disk
   * (no include graph, no project file, no file links) and runs no program.
   */
  trusted?: boolean;
  /** Settings for clients without workspace/configuration (same shape as the `apacheconf` section). */
  settings?: unknown;
}

export const COMPLETION_TRIGGERS = ['<', ' ', '/', '$'];

/**
 * Files up to this many lines get the full analysis (the access engine's exact checks) after the
 * quick diagnostics; longer ones keep the quick ones, and their code actions still get the exact
 * fixes on request.
 */
export const FULL_PASS_MAX_LINES = 3000;
/** The same limit when the full pass runs in its worker thread, where it holds nothing up. */
export const FULL_PASS_MAX_LINES_IN_WORKER = 20000;
/** The full pass starts after this pause in changes (ms): while the user types, only the quick pass runs. */
export const FULL_PASS_PAUSE_MS = 250;

export class ApacheConfServer {
  readonly documents = new TextDocuments(TextDocument);
  private readonly service: ApacheConfService;
  private readonly features: CatalogFeatures;
  private readonly cache: AnalysisCache;
  private readonly validation: ValidationScheduler;
  private settings: LspSettings = DEFAULT_SETTINGS;
  private matcher = new FileContextMatcher({});
  private clientCapabilities: ClientCapabilities = {};
  private pullConfiguration = false;
  private workspaceFolders: string[] = [];
  /** Whether features may read the disk (false in an untrusted workspace). */
  private readonly fsAccess = { enabled: true };
  /** Resolves when the latest settings are in; validation waits for it so the first diagnostics already follow the user's settings. */
  private settingsReady: Promise<void> = Promise.resolve();
  /** Version each document was opened at (its first validation is immediate, not debounced). */
  private readonly openedAt = new Map<string, number>();
  private disposed = false;
  /** Validations started per document; a full pass publishes only if it is still the latest. */
  private readonly validationSeq = new Map<string, number>();
  /** Per document, what ends the pause a validation is waiting in before its full pass. */
  private readonly pauses = new Map<string, () => void>();
  /** Runs the full passes (in a worker thread when there is a bundle to start). */
  private readonly fullPass: FullPassRunner;
  /** The latest full analysis per document, with the quick one it completes (code actions reuse it). */
  private readonly fullAnalyses = new Map<string, { quick: Analysis; full: Analysis }>();
  /** Counts the saves and changes on disk the server was told of (see filesChanged). */
  private diskEpoch = 0;
  /** The include graphs and project files of the workspace folders (read lazily, only when trusted). */
  readonly workspace: ConfigWorkspace;
  /** Services for project files with rule severities of their own, and the workspace generation they were made for. */
  private readonly projectServices = new Map<string, ApacheConfService>();
  private projectServicesGeneration = -1;
  /** The last "check with httpd" diagnostics, by file path. */
  private httpd = new Map<string, Diagnostic[]>();

  constructor(
    private readonly connection: Connection,
    options: ApacheConfServerOptions = {},
  ) {
    this.service = options.service ?? createService();
    this.fullPass = new FullPassRunner(options.fullPassScript ?? null, (m) => this.connection.console.warn(m));
    this.features = new CatalogFeatures(options.catalog ?? directiveCatalog, this.fsAccess);
    this.workspace = new ConfigWorkspace(
      () => this.fsAccess.enabled,
      (m) => this.connection.console.info(m),
      (path) => this.openDocumentAt(path)?.getText(),
    );
    this.cache = new AnalysisCache((doc, previous) =>
      // The quick pass: requests (hover, completion…) never wait for the access engine; code
      // actions get the engine's fixes from the service, which runs the full rules for them.
      this.withConfigurationFindings(
        this.serviceFor(doc.uri).analyze({ text: doc.getText(), uri: doc.uri, context: this.contextFor(doc.uri, doc.getText()), depth: 'quick' }, previous),
      ),
    );
    this.validation = new ValidationScheduler(
      (uri) => void this.validate(uri),
      () => this.settings.validate.debounceMs,
    );
    this.register();
  }

  /** Starts listening on the connection (documents first, so they see the open/change notifications). */
  listen(): void {
    this.documents.listen(this.connection);
    this.connection.listen();
  }

  // ---- lifecycle and settings -------------------------------------------------

  private register(): void {
    const c = this.connection;
    c.onInitialize((p) => this.initialize(p));
    c.onInitialized(() => this.initialized());
    c.onShutdown(() => this.dispose());
    c.onDidChangeConfiguration((p) => {
      this.settingsReady = this.loadSettings(p.settings);
      void this.settingsReady.then(() => this.revalidateAll());
    });

    this.documents.onDidOpen((e) => {
      this.openedAt.set(e.document.uri, e.document.version);
      this.validation.now(e.document.uri);
    });
    this.documents.onDidChangeContent((e) => {
      if (this.openedAt.get(e.document.uri) === e.document.version) return; // the open itself
      // httpd's lines were those of the saved file: after an edit they may point anywhere.
      const path = fileUriToPath(e.document.uri);
      if (path) this.httpd.delete(path);
      this.validation.schedule(e.document.uri);
    });
    this.documents.onDidClose((e) => {
      const uri = e.document.uri;
      this.openedAt.delete(uri);
      this.pauses.get(uri)?.();
      this.validation.forget(uri);
      this.cache.delete(uri);
      this.fullAnalyses.delete(uri);
      // What httpd said about the file stays listed (as for any file that is not open).
      void this.send(() => c.sendDiagnostics({ uri, diagnostics: this.httpdFor(uri) }));
    });
    this.documents.onDidSave((e) => this.filesChanged([e.document.uri]));
    c.onDidChangeWatchedFiles((p) => this.filesChanged(p.changes.map((x) => x.uri)));

    c.onHover(this.onDocument('hover', null, (a, p) => this.service.hover(a, p.position)));
    c.onCompletion(this.onDocument('completion', [], (a, p) => this.features.completion(a, p.position)));
    c.onCompletionResolve((item) => this.guard('completionItem/resolve', item, () => this.features.resolveCompletion(item)));
    c.onSignatureHelp(this.onDocument('signatureHelp', null, (a, p) => this.features.signatureHelp(a, p.position)));
    c.onDocumentSymbol(this.onDocument('documentSymbol', [], (a) => this.service.documentSymbols(a)));
    c.onFoldingRanges(this.onDocument('foldingRange', [], (a) => this.service.foldingRanges(a)));
    c.onSelectionRanges(this.onDocument('selectionRange', [], (a, p) => this.service.selectionRanges(a, p.positions)));
    c.onDocumentFormatting(this.onDocument('formatting', [], (a, p) => this.service.format(a, p.options)));
    c.onDocumentRangeFormatting(this.onDocument('rangeFormatting', [], (a, p) => this.service.format(a, p.options, p.range)));
    c.onDocumentOnTypeFormatting(this.onDocument('onTypeFormatting', [], (a, p) => this.service.formatOnType(a, p.position, p.ch, p.options)));
    c.onDefinition(this.onDocument('definition', [], (a, p) => this.service.definition(a, p.position, this.otherAnalyses(a.uri))));
    c.onReferences(
      this.onDocument('references', [], (a, p) => this.service.references(a, p.position, p.context.includeDeclaration, this.otherAnalyses(a.uri))),
    );
    c.onDocumentLinks(this.onDocument('documentLink', [], (a) => this.service.documentLinks(a, this.features.linkOptions())));
    c.onCodeAction((p) =>
      this.guardAsync('codeAction', [], async () => {
        const uri = p.textDocument.uri;
        const version = this.documents.get(uri)?.version;
        const a = this.analysis(uri);
        if (!a || version === undefined) return [];
        // Fixes of the access engine exist only in a full analysis.
        const full = await this.fullAnalysisOf(a, version);
        // Edits for a version the user has since changed would land in the wrong place. (The same
        // version analysed again, after a settings change, keeps its text and so its edits.)
        if (!full || this.documents.get(uri)?.version !== version) return [];
        // Fix-all applies what "Migrate access control in this file" does: planned in the configuration, as the quick fixes are.
        const doc = this.documents.get(uri);
        const fixedText = doc ? () => fileMigration(this.commandContext(), doc).text : undefined;
        return this.serviceFor(a.uri).codeActions(full, p.range, { diagnostics: p.context.diagnostics, only: p.context.only }, fixedText);
      }),
    );
    c.onExecuteCommand((p) => this.executeCommand(p.command, p.arguments ?? []));
  }

  private initialize(params: InitializeParams): InitializeResult {
    this.clientCapabilities = params.capabilities;
    this.pullConfiguration = params.capabilities.workspace?.configuration === true;
    this.workspaceFolders = (params.workspaceFolders ?? [])
      .map((f) => fileUriToPath(f.uri))
      .filter((p): p is string => !!p);
    if (!this.workspaceFolders.length && params.rootUri) {
      const root = fileUriToPath(params.rootUri);
      if (root) this.workspaceFolders = [root];
    }
    const init = (params.initializationOptions ?? {}) as InitializationOptions & Record<string, unknown>;
    this.fsAccess.enabled = init.trusted !== false;
    this.workspace.setFolders(this.workspaceFolders);
    // Settings in initializationOptions: under `settings`, under `apacheconf`, or the section itself.
    this.applySettings(normalizeSettings(init.settings ?? init, (m) => this.connection.console.warn(m)));

    const capabilities: ServerCapabilities = {
      // Saves drop the include graph of the configuration the file belongs to (read again when next needed).
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
      hoverProvider: true,
      completionProvider: { triggerCharacters: COMPLETION_TRIGGERS, resolveProvider: true },
      signatureHelpProvider: { triggerCharacters: [' '], retriggerCharacters: [' '] },
      documentSymbolProvider: { label: 'Apache Config' },
      foldingRangeProvider: true,
      selectionRangeProvider: true,
      documentFormattingProvider: true,
      documentRangeFormattingProvider: true,
      documentOnTypeFormattingProvider: { firstTriggerCharacter: '>' },
      documentLinkProvider: { resolveProvider: false },
      definitionProvider: true,
      referencesProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND], resolveProvider: false },
      executeCommandProvider: { commands: [...SERVER_COMMAND_IDS] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    };
    return { capabilities, serverInfo: { name: 'apacheconf', version: SERVER_VERSION } };
  }

  private initialized(): void {
    const caps = this.clientCapabilities;
    // No dynamic registration for didChangeConfiguration: the VS Code client already sends it for the
    // `apacheconf` section (synchronize.configurationSection), and a second registration would double it.
    if (caps.workspace?.workspaceFolders) {
      this.connection.workspace.onDidChangeWorkspaceFolders((e) => {
        const removed = new Set(e.removed.map((f) => fileUriToPath(f.uri)));
        this.workspaceFolders = this.workspaceFolders.filter((p) => !removed.has(p));
        for (const f of e.added) {
          const p = fileUriToPath(f.uri);
          if (p) this.workspaceFolders.push(p);
        }
        this.workspace.setFolders(this.workspaceFolders);
        this.cache.invalidate();
        this.revalidateAll();
      });
    }
    if (this.pullConfiguration) {
      this.settingsReady = this.loadSettings(undefined);
      void this.settingsReady.then(() => this.revalidateAll());
    }
  }

  /** Pulls the `apacheconf` section when the client can answer workspace/configuration, else takes `pushed`. */
  private async loadSettings(pushed: unknown): Promise<void> {
    let raw: unknown = pushed;
    if (this.pullConfiguration) {
      try {
        raw = await this.connection.workspace.getConfiguration({ section: SECTION });
      } catch (e) {
        this.logError('workspace/configuration', e);
        return;
      }
    } else if (pushed === undefined || pushed === null) {
      return; // nothing pushed: keep what initializationOptions gave
    }
    if (this.disposed) return;
    this.applySettings(normalizeSettings(raw, (m) => this.connection.console.warn(m)));
  }

  private applySettings(s: LspSettings): void {
    this.settings = s;
    this.matcher = new FileContextMatcher(s.fileContexts);
    this.service.updateSettings({ ...this.service.getSettings(), rules: s.rules });
    this.workspace.setSettings(s);
    this.projectServices.clear();
    this.cache.invalidate();
  }

  /** The current settings (for tests and for commands). */
  getSettings(): LspSettings {
    return this.settings;
  }

  /**
   * The context of a document's top level, from the first of: a modeline
   * (`# apacheconf: context=vhost`), the first `fileContexts` glob of the
   * settings that matches, the project file's globs, where the include graph
   * puts the file (inside `<VirtualHost>`: vhost), the file name.
   */
  contextFor(uri: string, text?: string): FileContext {
    if (text !== undefined) {
      const declared = modelineContext(text);
      if (declared) return declared;
    }
    const file = fileUriToPath(uri);
    if (this.matcher.size) {
      const path = file ?? uriPath(uri);
      if (path) {
        const hit = this.matcher.match(candidatePaths(path, this.workspaceFolders));
        if (hit) return hit;
      }
    }
    if (file) {
      const project = this.workspace.projectFor(file);
      const fromProject = project ? contextFromProject(project, file) : undefined;
      if (fromProject) return fromProject;
      const included = this.workspace.fileOf(file);
      if (included) return included.file.context;
    }
    return defaultContextFor(file ?? uriPath(uri) ?? uri);
  }

  /** The httpd release diagnostics are for: the setting, else the project file's, else the newest 2.4. */
  targetVersion(uri: string): string {
    return this.settings.httpdVersion || this.workspace.projectFor(fileUriToPath(uri))?.httpdVersion || '2.4';
  }

  /**
   * The service for a command on a document: as serviceFor, and in a trusted workspace that knows
   * the document's server configuration, with what the full pass reads too (the AllowOverride of
   * the whole configuration, the .htaccess files under it), so a command applies the fixes the
   * editor shows as preferred.
   */
  private serviceWithConfiguration(uri: string): ApacheConfService {
    const base = this.serviceFor(uri);
    const facts = configurationFactsFor(this.workspace, uri);
    if (!facts) return base;
    return createService(withDiskHtaccess({ ...base.getSettings(), openDirs: facts.openDirs }, facts.htaccessNames));
  }

  /** The service for a document: the shared one, or one with its project file's rule severities under the settings'. */
  private serviceFor(uri: string): ApacheConfService {
    if (this.projectServicesGeneration !== this.workspace.generation) {
      this.projectServices.clear();
      this.projectServicesGeneration = this.workspace.generation;
    }
    const project = this.workspace.projectFor(fileUriToPath(uri));
    if (!project || !Object.keys(project.rules).length) return this.service;
    let s = this.projectServices.get(project.file);
    if (!s) {
      s = createService({ ...this.service.getSettings(), rules: { ...project.rules, ...this.settings.rules } });
      this.projectServices.set(project.file, s);
    }
    return s;
  }

  /**
   * The analysis with what one file cannot tell on its own: the
   * configuration-wide findings of the include graph that holds it
   * (module-not-loaded, compat-module) and the directives newer than the
   * target httpd release.
   */
  private withConfigurationFindings(a: Analysis): Analysis {
    const path = fileUriToPath(a.uri);
    const extra: Finding[] = path ? [...this.workspace.findingsFor(path, a.doc)] : [];
    extra.push(...versionFindings(a.doc, this.targetVersion(a.uri)));
    // A .htaccess file read in the workspace's configuration: its rewrite checked there.
    const inContext = this.fsAccess.enabled ? withInContextFix(a, this.workspace, this.serviceFor(a.uri)) : a;
    return this.serviceFor(a.uri).addFindings(inContext, extra);
  }

  /** The open document of a file path, if any. */
  private openDocumentAt(path: string): TextDocument | undefined {
    for (const d of this.documents.all()) if (fileUriToPath(d.uri) === path) return d;
    return undefined;
  }

  private httpdFor(uri: string): Diagnostic[] {
    const path = fileUriToPath(uri);
    return (path && this.httpd.get(path)) || [];
  }

  /** Files were saved or changed on disk: drop the configurations they belong to, and check the open files again. */
  private filesChanged(uris: string[]): void {
    const folders = new Set<string>();
    for (const uri of uris) {
      const path = fileUriToPath(uri);
      if (path) for (const f of this.workspace.concerns(path)) folders.add(f);
    }
    for (const f of folders) this.workspace.invalidate(f);
    // Any file may be a .htaccess file a rewrite was checked with (no graph holds those): what was
    // read of the disk and the analyses made with it are dropped, so a quick fix is planned on the
    // files as they are now (a black-box run of the editor, helper-39: a .htaccess saved in the
    // editor, and a server config's quick fix still the one checked with its old text).
    diskChanged(++this.diskEpoch);
    dropRecentDiskLinks();
    this.fullAnalyses.clear();
    this.cache.invalidate();
    this.revalidateAll();
  }

  private dispose(): void {
    this.disposed = true;
    for (const wake of [...this.pauses.values()]) wake();
    this.validation.dispose();
    this.fullPass.dispose();
  }

  // ---- diagnostics -------------------------------------------------------------

  private async validate(uri: string): Promise<void> {
    try {
      await this.validateNow(uri);
    } catch (e) {
      // A validation that fails is logged; it must not end the server (the scheduler does not wait for it).
      this.logError('validate', e);
    }
  }

  private async validateNow(uri: string): Promise<void> {
    try {
      await this.settingsReady;
    } catch {
      // loadSettings logs its own failures.
    }
    if (this.disposed) return;
    const doc = this.documents.get(uri);
    if (!doc) return;
    if (this.validation.pending(uri)) return; // a newer change is waiting; it will publish
    // First the quick pass (everything but the access engine's request-point checks), at once.
    const started = performance.now();
    const quick = this.cache.get(doc);
    const version = doc.version;
    // Any later validation of this document (a change, new settings) makes this full pass stale.
    const seq = (this.validationSeq.get(uri) ?? 0) + 1;
    this.validationSeq.set(uri, seq);
    // An earlier validation waiting for a pause is stale now: wake it so it ends at once and lets
    // go of its analysis (while the user types, those would pile up and slow every collection).
    this.pauses.get(uri)?.();
    // httpd read the file from disk: its lines may lie past the end of this buffer.
    const httpd = clampToText(this.httpdFor(uri), doc.getText());
    const first = [...this.service.diagnostics(quick), ...httpd];
    const sent = this.send(() => this.connection.sendDiagnostics({ uri, version, diagnostics: first }));
    this.validation.cost(uri, performance.now() - started);
    await sent;
    // Then the full pass (in its worker when there is one), when the file is small enough; it
    // replaces the quick diagnostics unless the document changed meanwhile.
    const limit = this.fullPass.usesWorker ? FULL_PASS_MAX_LINES_IN_WORKER : FULL_PASS_MAX_LINES;
    if (quick.doc.lineStarts.length > limit) return;
    const stale = () =>
      this.disposed || this.validation.pending(uri) || this.documents.get(uri)?.version !== version || this.validationSeq.get(uri) !== seq;
    // A document just opened gets it at once; after a change it waits for a pause in changes.
    if (this.openedAt.get(uri) !== version) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          if (this.pauses.get(uri) === wake) this.pauses.delete(uri);
          resolve();
        };
        const timer = setTimeout(wake, FULL_PASS_PAUSE_MS);
        this.pauses.set(uri, wake);
      });
      if (stale()) return;
    }
    // A pass can give way to another request's for the same document (a code action asks for the
    // fixes while the validation's pass waits): as long as this version is current, ask again, and
    // share whichever pass is under way, so that its findings are published all the same.
    let findings: ReportedFinding[] | null = null;
    for (let attempt = 0; attempt < 3 && !findings && !stale(); attempt++) findings = await this.fullPass.share(uri, this.fullPassJob(quick), () => !stale());
    if (!findings || stale()) return;
    await this.send(() => {
      const full = this.completed(quick, findings);
      const diagnostics = [...this.service.diagnostics(full), ...httpd];
      // Publish again only when the full pass says more (or says it differently).
      if (JSON.stringify(diagnostics) === JSON.stringify(first)) return;
      return this.connection.sendDiagnostics({ uri, version, diagnostics });
    });
  }

  private revalidateAll(): void {
    for (const doc of this.documents.all()) this.validation.now(doc.uri);
  }

  private async send(fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.logError('publishDiagnostics', e);
    }
  }

  /** Analysis of an open document's current version (parsed once per version). */
  analysis(uri: string): Analysis | undefined {
    const doc = this.documents.get(uri);
    return doc ? this.cache.get(doc) : undefined;
  }

  /**
   * The other open documents, as the rest of "the configuration" for
   * definition and references. Bounded by what the user has open; files
   * reached only through Include are not read here.
   */
  private otherAnalyses(uri: string): Analysis[] {
    const out: Analysis[] = [];
    for (const doc of this.documents.all()) {
      // Whatever the client routes here is a config file, whatever its language id (`apache` in Vim).
      if (doc.uri !== uri) out.push(this.cache.get(doc));
    }
    return out;
  }

  // ---- requests ------------------------------------------------------------------

  /** A request handler for one open document; an unknown or closed document, or a failure, gives `fallback`. */
  private onDocument<P extends { textDocument: { uri: string } }, R>(name: string, fallback: R, fn: (a: Analysis, params: P) => R) {
    return (params: P): R =>
      this.guard(name, fallback, () => {
        const a = this.analysis(params.textDocument.uri);
        return a ? fn(a, params) : fallback;
      });
  }

  private async guardAsync<R>(name: string, fallback: R, fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (e) {
      this.logError(name, e);
      return fallback;
    }
  }

  /**
   * The full analysis (the access engine's fixes, plus the configuration-wide findings) that
   * completes a quick one: the validation's when it is done; else from the worker, sharing the
   * validation's pass when one is under way for this version (the main thread stays free for
   * other requests meanwhile); else, without a worker, computed here. Null when the document
   * left `version` while the worker's pass was under way (nobody wants the old version's fixes).
   * A pass that gave way while the version stayed (a settings change restarts validation) is
   * asked for again.
   */
  private async fullAnalysisOf(a: Analysis, version: number): Promise<Analysis | null> {
    if (a.depth !== 'quick') return a;
    const done = this.fullAnalyses.get(a.uri);
    if (done?.quick === a) return done.full;
    if (this.fullPass.usesWorker) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const findings = await this.fullPass.share(a.uri, this.fullPassJob(a));
        if (findings) return this.completed(a, findings);
        if (this.documents.get(a.uri)?.version !== version) return null;
      }
    }
    const configuration = this.readConfiguration(a.uri, a.doc.text, a.context);
    const included = this.includedAlone(a.uri, a.context, configuration);
    return this.withConfigurationFindings(this.serviceFor(a.uri).analyze({ text: a.doc.text, uri: a.uri, context: a.context, configuration, included }, a.doc));
  }

  /**
   * The configuration a file is read in, as the full pass reads it: in a trusted workspace with the
   * .htaccess files httpd reads in it spliced in, so that the commands apply what the fix menu shows.
   */
  private readConfiguration(uri: string, text: string, context: FileContext): ConfigurationView | undefined {
    const view = configurationView(this.configurationOf(uri, text, context));
    return view && this.fsAccess.enabled && configurationFactsFor(this.workspace, uri) ? splicedView(view) : view;
  }

  /** The full pass of a quick analysis's text, context and settings, as the runner takes it. */
  private fullPassJob(quick: Analysis): FullPassJob {
    const facts = quick.context === 'htaccess' ? undefined : configurationFactsFor(this.workspace, quick.uri);
    const settings = this.serviceFor(quick.uri).getSettings();
    const configuration = this.configurationOf(quick.uri, quick.doc.text, quick.context);
    const included = this.includedAlone(quick.uri, quick.context, configuration);
    if (!facts) return { text: quick.doc.text, uri: quick.uri, context: quick.context, settings, configuration, included };
    return { text: quick.doc.text, uri: quick.uri, context: quick.context, settings: { ...settings, openDirs: facts.openDirs }, htaccessNames: facts.htaccessNames, configuration, diskEpoch: this.diskEpoch, included };
  }

  /**
   * A server-config file that an include graph of the workspace holds, included by another, whose
   * configuration cannot be read whole (the graph cut at its limits, an unsaved Include line), or
   * one of the folder of a graph cut at its limits (it may be in the part not read): it is
   * planned as a file another includes, not as a whole configuration (a black-box run of the editor,
   * helper-39: with the graph cut, a file of it was planned alone and its rewrite let everyone
   * past a password the root file asks for).
   */
  includedAlone(uri: string, context: FileContext, configuration: unknown): boolean {
    if (configuration || !this.fsAccess.enabled || (context !== 'server' && context !== 'vhost' && context !== 'directory')) return false;
    const path = fileUriToPath(uri);
    if (!path) return false;
    const hit = this.workspace.fileOf(path);
    if (hit) return !!hit.conf.root && this.workspace.realPath(hit.file.path) !== this.workspace.realPath(hit.conf.root);
    // A graph cut at its limits may include it in the part not read.
    const conf = this.workspace.configurationFor(path);
    return !!conf?.graph?.truncated && !!conf.root && this.workspace.realPath(path) !== this.workspace.realPath(conf.root);
  }

  /** The workspace configuration a server-config file is read in, when the workspace is trusted and a graph holds it. */
  configurationOf(uri: string, text: string, context: FileContext): ConfigurationData | undefined {
    return this.fsAccess.enabled ? configurationDataFor(this.workspace, uri, text, context) : undefined;
  }

  /** The full analysis from a full pass's findings, remembered for the quick one while that is still current. */
  private completed(quick: Analysis, findings: ReportedFinding[]): Analysis {
    const full = this.withConfigurationFindings({ uri: quick.uri, doc: quick.doc, context: quick.context, findings, depth: 'full' });
    if (this.cache.current(quick.uri) === quick) this.fullAnalyses.set(quick.uri, { quick, full });
    return full;
  }

  private guard<R>(name: string, fallback: R, fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      this.logError(name, e);
      return fallback;
    }
  }

  private async executeCommand(id: string, args: unknown[]): Promise<unknown> {
    const command = findCommand(id);
    if (!command) return new ResponseError(ErrorCodes.InvalidParams, `unknown command ${id}`);
    try {
      // Commands read settings (the httpd binary, the root file): the latest ones.
      await this.settingsReady;
    } catch {
      // loadSettings logs its own failures.
    }
    // A command plans on the disk as it is now: what was read of the .htaccess files is read again
    // (a file changed outside the editor, with no event from the client, was kept for a few seconds).
    diskChanged(++this.diskEpoch);
    dropRecentDiskLinks();
    try {
      return await command.run(this.commandContext(), args);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // Bad arguments are the caller's mistake: said in the answer (and the log) in plain words.
      if (e instanceof CommandError) {
        this.connection.console.warn(`[${id}] ${message}`);
        return new ResponseError(ErrorCodes.InvalidParams, message);
      }
      this.logError(id, e);
      return new ResponseError(ErrorCodes.InternalError, message);
    }
  }

  private commandContext(): CommandContext {
    const workspaceEdit = this.clientCapabilities.workspace?.workspaceEdit;
    const documentChanges = workspaceEdit?.documentChanges === true;
    return {
      serviceFor: (uri) => this.serviceWithConfiguration(uri),
      document: (uri) => this.documents.get(uri),
      documents: () => this.documents.all(),
      analysis: (doc) => this.cache.get(doc),
      contextFor: (uri, text) => this.contextFor(uri, text),
      edits: { documentChanges, changeAnnotations: documentChanges && !!workspaceEdit?.changeAnnotationSupport },
      trusted: this.fsAccess.enabled,
      workspace: this.workspace,
      configuration: (uri, text, context) => this.readConfiguration(uri, text, context),
      includedAlone: (uri, context, configuration) => this.includedAlone(uri, context, configuration),
      settings: () => this.settings,
      publishHttpd: (byPath) => this.publishHttpd(byPath),
      applyEdit: async (label, edit, refactoring) => {
        const applied = (await this.connection.workspace.applyEdit({ label, edit, ...(refactoring ? { metadata: { isRefactoring: true } } : {}) })).applied;
        // The files it changed are read again: a client may write files that are not open without
        // telling the server (no save, no watched-file event), and a graph read before the edit would
        // plan the next command on the text before it (a black-box run: the same edit sent twice).
        if (applied) this.filesChanged(editedUris(edit));
        return applied;
      },
      documentEdit: (doc: TextDocument, edits: TextEdit[]): WorkspaceEdit =>
        documentChanges
          ? { documentChanges: [TextDocumentEdit.create({ uri: doc.uri, version: doc.version }, edits)] }
          : { changes: { [doc.uri]: edits } },
      log: (m) => this.connection.console.info(m),
    };
  }

  /** Replaces the httpd diagnostics: open files are validated again (they merge them in), the others get them alone. */
  private async publishHttpd(byPath: Map<string, Diagnostic[]>): Promise<void> {
    const before = this.httpd;
    this.httpd = byPath;
    for (const path of new Set([...before.keys(), ...byPath.keys()])) {
      const doc = this.openDocumentAt(path);
      if (doc) this.validation.now(doc.uri);
      else await this.send(() => this.connection.sendDiagnostics({ uri: pathToFileUri(path), diagnostics: byPath.get(path) ?? [] }));
    }
  }

  /** Something went wrong outside every request and notification handler: logged, not fatal. */
  reportUnexpected(e: unknown): void {
    this.logError('unexpected', e);
  }

  /** Logs a failure to the client: what failed and why, never a stack trace (the client shows its log to users). */
  private logError(where: string, e: unknown): void {
    const text = errorText(e);
    try {
      this.connection.console.error(`[${where}] ${text}`);
    } catch {
      // The connection is gone; nothing else to tell.
    }
  }
}

/** An error as one plain line for the client's log: its name and message, without the stack. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === 'string' ? e : inspect(e, { depth: 2 });
}

/** The path part of a non-file uri (`untitled:Untitled-1` → `Untitled-1`), for glob matching. */
function uriPath(uri: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:(?:\/\/[^/]*)?(.*)$/i.exec(uri);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/** The documents a workspace edit changes. */
function editedUris(edit: WorkspaceEdit): string[] {
  const out = new Set<string>(Object.keys(edit.changes ?? {}));
  for (const c of edit.documentChanges ?? []) if ('textDocument' in c) out.add(c.textDocument.uri);
  return [...out];
}
