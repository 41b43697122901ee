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
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { version as SERVER_VERSION } from '../../../package.json';
import { createService, FIX_ALL_KIND, type Analysis, type ApacheConfService } from '../service';
import { defaultContextFor, type FileContext } from '../model/context';
import type { Catalog } from '../features/completion';
import { fileUriToPath } from '../features/paths';
import { catalog as directiveCatalog } from '../facts';
import { CatalogFeatures } from './adapters';
import { CommandError, findCommand, SERVER_COMMAND_IDS, type CommandContext } from './commands';
import { AnalysisCache, ValidationScheduler } from './documents';
import { candidatePaths, DEFAULT_SETTINGS, FileContextMatcher, normalizeSettings, SECTION, type LspSettings } from './settings';

export interface ApacheConfServerOptions {
  /** The directive catalog for completion and signature help (default: the httpd 2.4 catalog of server/src/facts). */
  catalog?: Catalog;
  service?: ApacheConfService;
}

/** What a client may pass as initializationOptions (besides the settings themselves). */
export interface InitializationOptions {
  /** False in an untrusted workspace: the server then reads nothing from disk. */
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

  constructor(
    private readonly connection: Connection,
    options: ApacheConfServerOptions = {},
  ) {
    this.service = options.service ?? createService();
    this.features = new CatalogFeatures(options.catalog ?? directiveCatalog, this.fsAccess);
    this.cache = new AnalysisCache((doc, previous) =>
      // The quick pass: requests (hover, completion…) never wait for the access engine; code
      // actions get the engine's fixes from the service, which runs the full rules for them.
      this.service.analyze({ text: doc.getText(), uri: doc.uri, context: this.contextFor(doc.uri), depth: 'quick' }, previous),
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
      this.validation.schedule(e.document.uri);
    });
    this.documents.onDidClose((e) => {
      const uri = e.document.uri;
      this.openedAt.delete(uri);
      this.validation.cancel(uri);
      this.cache.delete(uri);
      void this.send(() => c.sendDiagnostics({ uri, diagnostics: [] }));
    });

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
    c.onCodeAction(
      this.onDocument('codeAction', [], (a, p) =>
        this.service.codeActions(a, p.range, { diagnostics: p.context.diagnostics, only: p.context.only }),
      ),
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
    // Settings in initializationOptions: under `settings`, under `apacheconf`, or the section itself.
    this.applySettings(normalizeSettings(init.settings ?? init, (m) => this.connection.console.warn(m)));

    const capabilities: ServerCapabilities = {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
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
    this.cache.invalidate();
  }

  /** The current settings (for tests and for commands). */
  getSettings(): LspSettings {
    return this.settings;
  }

  /** The context of a document's top level: the first `fileContexts` glob that matches, else by file name. */
  contextFor(uri: string): FileContext {
    if (this.matcher.size) {
      const path = fileUriToPath(uri) ?? uriPath(uri);
      if (path) {
        const hit = this.matcher.match(candidatePaths(path, this.workspaceFolders));
        if (hit) return hit;
      }
    }
    return defaultContextFor(fileUriToPath(uri) ?? uriPath(uri) ?? uri);
  }

  private dispose(): void {
    this.disposed = true;
    this.validation.dispose();
  }

  // ---- diagnostics -------------------------------------------------------------

  private async validate(uri: string): Promise<void> {
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
    const quick = this.cache.get(doc);
    const version = doc.version;
    // Any later validation of this document (a change, new settings) makes this full pass stale.
    const seq = (this.validationSeq.get(uri) ?? 0) + 1;
    this.validationSeq.set(uri, seq);
    const first = this.service.diagnostics(quick);
    await this.send(() => this.connection.sendDiagnostics({ uri, version, diagnostics: first }));
    // Then the full pass, when the file is small enough for it not to hold the server up; it
    // replaces the quick diagnostics unless the document changed meanwhile.
    if (quick.doc.lineStarts.length > FULL_PASS_MAX_LINES) return;
    setTimeout(() => {
      if (this.disposed || this.validation.pending(uri)) return;
      const now = this.documents.get(uri);
      if (!now || now.version !== version || this.validationSeq.get(uri) !== seq) return;
      void this.send(() => {
        const full = this.service.analyze({ text: quick.doc.text, uri, context: quick.context }, quick.doc);
        if (this.documents.get(uri)?.version !== version || this.validation.pending(uri) || this.validationSeq.get(uri) !== seq) return;
        const diagnostics = this.service.diagnostics(full);
        // Publish again only when the full pass says more (or says it differently).
        if (JSON.stringify(diagnostics) === JSON.stringify(first)) return;
        return this.connection.sendDiagnostics({ uri, version, diagnostics });
      });
    }, 0);
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
      return await command.run(this.commandContext(), args);
    } catch (e) {
      this.logError(id, e);
      const message = e instanceof Error ? e.message : String(e);
      return new ResponseError(e instanceof CommandError ? ErrorCodes.InvalidParams : ErrorCodes.InternalError, message);
    }
  }

  private commandContext(): CommandContext {
    const documentChanges = this.clientCapabilities.workspace?.workspaceEdit?.documentChanges === true;
    return {
      service: this.service,
      document: (uri) => this.documents.get(uri),
      analysis: (doc) => this.cache.get(doc),
      applyEdit: async (label, edit) => (await this.connection.workspace.applyEdit({ label, edit })).applied,
      documentEdit: (doc: TextDocument, edits: TextEdit[]): WorkspaceEdit =>
        documentChanges
          ? { documentChanges: [TextDocumentEdit.create({ uri: doc.uri, version: doc.version }, edits)] }
          : { changes: { [doc.uri]: edits } },
      log: (m) => this.connection.console.info(m),
    };
  }

  private logError(where: string, e: unknown): void {
    const text = e instanceof Error ? e.stack ?? e.message : String(e);
    try {
      this.connection.console.error(`[${where}] ${text}`);
    } catch {
      // The connection is gone; nothing else to tell.
    }
  }
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
