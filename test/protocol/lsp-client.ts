/**
 * A small LSP client for the protocol tests: spawns the bundled
 * dist/server.js over stdio and talks JSON-RPC to it. Everything waits on
 * messages (a notification, a response), never on timers; mocha's timeout
 * is the only clock.
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'child_process';
import { PassThrough } from 'stream';
import * as fs from 'fs';
import * as path from 'path';
import { fileURLToPath, pathToFileURL } from 'url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SERVER_JS = path.join(ROOT, 'dist', 'server.js');

/** Newest modification time of the files under `dir` (recursive). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the bundles when dist/server.js is missing or older than the server sources. */
export function ensureServerBuilt(): void {
  const sources = Math.max(newestMtime(path.join(ROOT, 'server', 'src')), fs.statSync(path.join(ROOT, 'package.json')).mtimeMs);
  if (fs.existsSync(SERVER_JS) && fs.statSync(SERVER_JS).mtimeMs >= sources) return;
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'pipe' });
  } catch (e) {
    // The client or CLI bundle may fail while the server bundle was still written: only the server matters here.
    const fresh = fs.existsSync(SERVER_JS) && fs.statSync(SERVER_JS).mtimeMs >= sources;
    if (!fresh) throw new Error('building dist/server.js failed: ' + String((e as { stderr?: Buffer }).stderr ?? e));
  }
}

export interface StartOptions {
  /** What workspace/configuration answers for the `apacheconf` section; undefined: the client does not support it. */
  settings?: Record<string, unknown>;
  initializationOptions?: unknown;
  /** Answers workspace/applyEdit; default: applied. */
  applyEdit?: (edit: WorkspaceEdit, label?: string) => boolean;
  capabilities?: ClientCapabilities;
  workspaceFolder?: string;
}

interface Transport {
  /** What the server writes. */
  input: NodeJS.ReadableStream;
  /** What the server reads. */
  output: NodeJS.WritableStream;
  exited: Promise<number | null>;
  running(): boolean;
  kill(): void;
  stderr(): string;
  inProcess: boolean;
}

type Waiter = { uri: string; pred: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void };

export class TestClient {
  readonly connection: ProtocolConnection;
  readonly logs: string[] = [];
  readonly applied: Array<{ label?: string; edit: WorkspaceEdit; metadata?: { isRefactoring?: boolean } }> = [];
  /** Every workspace/configuration request, in order. */
  readonly configurationRequests: unknown[] = [];
  initializeResult!: InitializeResult;
  private readonly published = new Map<string, PublishDiagnosticsParams[]>();
  private waiters: Waiter[] = [];
  private readonly docs = new Map<string, TextDocument>();
  settings: Record<string, unknown> | undefined;

  private constructor(
    private readonly transport: Transport,
    private readonly options: StartOptions,
  ) {
    this.settings = options.settings;
    this.connection = createProtocolConnection(new StreamMessageReader(transport.input), new StreamMessageWriter(transport.output));
    this.connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => this.onDiagnostics(p));
    this.connection.onNotification('window/logMessage', (p: { message: string }) => {
      this.logs.push(p.message);
    });
    this.connection.onRequest('workspace/configuration', (p: { items: Array<{ section?: string }> }) => {
      this.configurationRequests.push(p);
      return p.items.map((i) => (i.section === 'apacheconf' ? this.settings ?? {} : null));
    });
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('workspace/applyEdit', (p: { label?: string; edit: WorkspaceEdit; metadata?: { isRefactoring?: boolean } }) => {
      const ok = this.options.applyEdit ? this.options.applyEdit(p.edit, p.label) : true;
      this.applied.push(p);
      if (ok) this.applyWorkspaceEdit(p.edit);
      return { applied: ok };
    });
    this.connection.listen();
  }

  /** Spawns `node dist/server.js --stdio` (building it first when stale). */
  static async start(options: StartOptions = {}): Promise<TestClient> {
    ensureServerBuilt();
    const proc = spawn(process.execPath, [SERVER_JS, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const transport: Transport = {
      input: proc.stdout!,
      output: proc.stdin!,
      exited,
      running: () => proc.exitCode === null && proc.signalCode === null,
      kill: () => void proc.kill(),
      stderr: () => stderr,
      inProcess: false,
    };
    return TestClient.initialize(new TestClient(transport, options), options);
  }

  /** Talks to a server in this process over a pair of streams (`serve` gets the server's ends). */
  static async connect(serve: (input: NodeJS.ReadableStream, output: NodeJS.WritableStream, exit: () => void) => void, options: StartOptions = {}): Promise<TestClient> {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    let done = false;
    let resolveExit!: (code: number | null) => void;
    const exited = new Promise<number | null>((resolve) => (resolveExit = resolve));
    const exit = () => {
      done = true;
      toServer.end();
      toClient.end();
      resolveExit(0);
    };
    serve(toServer, toClient, exit);
    const transport: Transport = { input: toClient, output: toServer, exited, running: () => !done, kill: exit, stderr: () => '', inProcess: true };
    return TestClient.initialize(new TestClient(transport, options), options);
  }

  private static async initialize(client: TestClient, options: StartOptions): Promise<TestClient> {
    const folder = options.workspaceFolder ?? ROOT;
    const capabilities: ClientCapabilities = options.capabilities ?? defaultCapabilities(options.settings !== undefined);
    try {
      client.initializeResult = await client.connection.sendRequest('initialize', {
        // A server in this process must not watch its "parent" (that timer would keep mocha alive).
        processId: client.transport.inProcess ? null : process.pid,
        rootUri: fileUri(folder),
        workspaceFolders: [{ uri: fileUri(folder), name: path.basename(folder) }],
        capabilities,
        initializationOptions: options.initializationOptions,
      });
    } catch (e) {
      throw new Error(`initialize failed: ${String(e)}\n${client.transport.stderr()}`);
    }
    await client.connection.sendNotification('initialized', {});
    return client;
  }

  private onDiagnostics(p: PublishDiagnosticsParams): void {
    const list = this.published.get(p.uri) ?? [];
    list.push(p);
    this.published.set(p.uri, list);
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.uri === p.uri && w.pred(p)) w.resolve(p);
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Every publishDiagnostics seen for `uri`, oldest first. */
  publishedFor(uri: string): readonly PublishDiagnosticsParams[] {
    return this.published.get(uri) ?? [];
  }

  /**
   * The first publishDiagnostics for `uri` that satisfies `pred`, counting
   * from the `after`-th one (so a test can wait for one that comes after an
   * action it took).
   */
  waitForDiagnostics(uri: string, pred: (p: PublishDiagnosticsParams) => boolean, after = 0): Promise<PublishDiagnosticsParams> {
    const seen = (this.published.get(uri) ?? []).slice(after).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ uri, pred, resolve }));
  }

  /** The diagnostics published for this exact version of the document. */
  diagnosticsFor(uri: string, version: number): Promise<Diagnostic[]> {
    return this.waitForDiagnostics(uri, (p) => p.version === version).then((p) => p.diagnostics);
  }

  async open(uri: string, text: string, languageId = 'apacheconf'): Promise<TextDocument> {
    const doc = TextDocument.create(uri, languageId, 1, text);
    this.docs.set(uri, doc);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return doc;
  }

  /** Sends incremental (or full) changes and returns the new version. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const doc = this.doc(uri);
    const version = doc.version + 1;
    TextDocument.update(doc, changes, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  /** Replaces the whole text (as one incremental change covering the document). */
  async setText(uri: string, text: string): Promise<number> {
    const doc = this.doc(uri);
    return this.change(uri, [{ range: { start: doc.positionAt(0), end: doc.positionAt(doc.getText().length) }, text }]);
  }

  /** Writes the document's text to its file and sends didSave, as an editor does on save. */
  async save(uri: string): Promise<void> {
    fs.writeFileSync(fileURLToPath(uri), this.text(uri));
    await this.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
  }

  async close(uri: string): Promise<void> {
    this.docs.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  doc(uri: string): TextDocument {
    const d = this.docs.get(uri);
    if (!d) throw new Error(`${uri} is not open in the test client`);
    return d;
  }

  text(uri: string): string {
    return this.doc(uri).getText();
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  /**
   * Applies a workspace edit to the client's copies of open documents (and
   * sends didChange, as an editor would), and to the files of documents that
   * are not open (an edit with version null is for the file as it is on disk).
   */
  applyWorkspaceEdit(edit: WorkspaceEdit): void {
    const perUri = new Map<string, Array<{ range: import('vscode-languageserver-protocol').Range; newText: string }>>();
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) perUri.set(uri, [...edits]);
    for (const dc of edit.documentChanges ?? []) {
      if (!('textDocument' in dc)) throw new Error('only text document edits are expected');
      const doc = this.docs.get(dc.textDocument.uri);
      if (!doc && dc.textDocument.version !== null) throw new Error(`edit for version ${dc.textDocument.version} of ${dc.textDocument.uri}, which is not open`);
      if (doc && dc.textDocument.version !== null && dc.textDocument.version !== doc.version) {
        throw new Error(`edit for version ${dc.textDocument.version}, document is at ${doc.version}`);
      }
      perUri.set(dc.textDocument.uri, [...(perUri.get(dc.textDocument.uri) ?? []), ...(dc.edits as Array<{ range: import('vscode-languageserver-protocol').Range; newText: string }>)]);
    }
    for (const [uri, edits] of perUri) {
      const doc = this.docs.get(uri);
      if (doc) {
        void this.setText(uri, TextDocument.applyEdits(doc, edits));
        continue;
      }
      const file = fileURLToPath(uri);
      const onDisk = TextDocument.create(uri, 'apacheconf', 0, fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, TextDocument.applyEdits(onDisk, edits));
    }
  }

  /** shutdown + exit; resolves to the exit code. */
  async stop(): Promise<number | null> {
    try {
      await this.connection.sendRequest('shutdown');
      // A server in this process would call process.exit() on `exit`: just hang up instead.
      if (this.transport.inProcess) this.transport.kill();
      else await this.connection.sendNotification('exit');
    } catch {
      this.transport.kill();
    }
    const code = await this.transport.exited;
    this.connection.dispose();
    return code;
  }

  /** For after-hooks: stop politely if still running. */
  async dispose(): Promise<void> {
    if (!this.transport.running()) return;
    await this.stop();
  }
}

/** What the test client announces unless a test passes its own capabilities. */
export function defaultCapabilities(pullConfiguration: boolean): ClientCapabilities {
  return {
    workspace: {
      configuration: pullConfiguration,
      didChangeConfiguration: { dynamicRegistration: pullConfiguration },
      applyEdit: true,
      workspaceEdit: { documentChanges: true },
      workspaceFolders: true,
    },
    textDocument: {
      publishDiagnostics: { versionSupport: true, relatedInformation: true, tagSupport: { valueSet: [1, 2] } },
      codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
      completion: { completionItem: { snippetSupport: true } },
      hover: { contentFormat: ['markdown', 'plaintext'] },
      documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    },
  };
}

export function fileUri(p: string): string {
  return pathToFileURL(p).href;
}

/** Splits `text` at the `|` cursor marker: the text without it and the marker's offset. */
export function cursor(text: string): { text: string; offset: number } {
  const offset = text.indexOf('|');
  if (offset < 0) throw new Error('no | marker in ' + JSON.stringify(text));
  return { text: text.slice(0, offset) + text.slice(offset + 1), offset };
}

/** Applies a code action's edit (changes or documentChanges) to `doc`. */
export function applyTo(doc: TextDocument, edit: WorkspaceEdit): string {
  const edits: TextEdit[] = [];
  for (const [uri, list] of Object.entries(edit.changes ?? {})) {
    assert.equal(uri, doc.uri);
    edits.push(...list);
  }
  for (const dc of edit.documentChanges ?? []) {
    assert.ok('textDocument' in dc);
    assert.equal(dc.textDocument.uri, doc.uri);
    edits.push(...(dc.edits as TextEdit[]));
  }
  return TextDocument.applyEdits(doc, edits);
}
