/**
 * The VS Code side: starts dist/server.js over IPC and hands it every
 * `apacheconf` document. Everything the user sees (diagnostics, fixes,
 * hover, completion, outline, formatting) comes from the server.
 */
import * as path from 'path';
import { commands, Range, Uri, window, workspace, type ExtensionContext, type LogOutputChannel, type QuickPickItem } from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { SERVER_NODE_FLAGS } from './server-flags';
import { CLIENT_COMMANDS, CONFIGURATION_COMMANDS, DOCUMENT_COMMANDS, LANGUAGE_ID, OUTPUT_CHANNEL_NAME, SERVER_COMMANDS } from './commands';

/** What activate() returns: the editor tests reach the client through it. */
export interface ApacheConfApi {
  readonly client: LanguageClient;
}

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<ApacheConfApi> {
  const output = window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  context.subscriptions.push(output);

  const module = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_NODE_FLAGS] } },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_NODE_FLAGS, '--nolazy', '--inspect=6009'] } },
  };

  const lc: LanguageClient = new LanguageClient(LANGUAGE_ID, 'Apache Config Language Server', serverOptions, clientOptions(output, () => lc));
  client = lc;

  context.subscriptions.push(
    commands.registerCommand(CLIENT_COMMANDS.restartServer, async () => {
      output.info('Restarting the language server…');
      await lc.restart();
    }),
    commands.registerCommand(CLIENT_COMMANDS.showOutput, () => output.show(true)),
    // Untrusted workspaces get a server that reads nothing from disk; trust granted later restarts it with full features.
    workspace.onDidGrantWorkspaceTrust(() => void lc.restart()),
  );

  await lc.start();
  return { client: lc };
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}

function clientOptions(output: LogOutputChannel, getClient: () => LanguageClient): LanguageClientOptions {
  return {
    documentSelector: [
      { scheme: 'file', language: LANGUAGE_ID },
      { scheme: 'untitled', language: LANGUAGE_ID },
    ],
    // Saved files and project files changed on disk make the server read the include graph again.
    synchronize: { configurationSection: LANGUAGE_ID, fileEvents: workspace.createFileSystemWatcher('**/{.apacheconf.json,*.conf,*.load,.htaccess}') },
    initializationOptions: () => ({ trusted: workspace.isTrusted }),
    outputChannel: output,
    middleware: {
      // Server commands run from the palette arrive without arguments: give them the active editor's document.
      executeCommand: async (command, args, next) => {
        let forwarded = args;
        let asked = false;
        if (DOCUMENT_COMMANDS.has(command)) {
          const uri = documentArgument(args);
          if (!uri) {
            void window.showInformationMessage('Open an Apache config file first.');
            return undefined;
          }
          forwarded = [getClient().code2ProtocolConverter.asUri(uri), ...args.slice(1)];
        } else if (CONFIGURATION_COMMANDS.has(command)) {
          const named = namedArgument(args, getClient());
          if (command === SERVER_COMMANDS.explainAccess && typeof named.path !== 'string') {
            const query = await askExplainQuery();
            if (!query) return undefined;
            Object.assign(named, query);
            asked = true;
          }
          forwarded = [named, ...args.slice(1)];
        }
        const result = await next(command, forwarded);
        if (command === SERVER_COMMANDS.migrateFile) reportMigration(result, output);
        else if (command === SERVER_COMMANDS.migrateWorkspace) reportWorkspaceMigration(result, output);
        else if (command === SERVER_COMMANDS.explainAccess) reportExplanation(result, output, asked);
        else if (command === SERVER_COMMANDS.checkWithHttpd) reportHttpdCheck(result, output);
        return result;
      },
    },
  };
}

/** The document a document command is about: its first argument (a Uri or uri string), else the active apacheconf editor. */
function documentArgument(args: unknown[]): Uri | undefined {
  const a = args[0];
  if (a instanceof Uri) return a;
  if (typeof a === 'string') return Uri.parse(a);
  const editor = window.activeTextEditor;
  if (editor && editor.document.languageId === LANGUAGE_ID) return editor.document.uri;
  return undefined;
}

/**
 * The named arguments of a configuration command (a copy), with `uri` as a
 * protocol string: the one given (a Uri or a string, alone or in the
 * object), else the active Apache config editor's document.
 */
function namedArgument(args: unknown[], lc: LanguageClient): Record<string, unknown> {
  const a = args[0];
  const named: Record<string, unknown> = a && typeof a === 'object' && !(a instanceof Uri) && !Array.isArray(a) ? { ...(a as Record<string, unknown>) } : {};
  const given = a instanceof Uri || typeof a === 'string' ? a : named.uri;
  const uri = given instanceof Uri ? given : typeof given === 'string' ? Uri.parse(given) : documentArgument([]);
  if (uri) named.uri = lc.code2ProtocolConverter.asUri(uri);
  else delete named.uri;
  return named;
}

/** Asks for the request to explain: path, client address, credentials (and the user for valid ones). Undefined when cancelled. */
async function askExplainQuery(): Promise<Record<string, string> | undefined> {
  const title = 'Explain access';
  const urlPath = await window.showInputBox({
    title: `${title} (1/3)`,
    prompt: 'The URL path of the request',
    value: '/',
    validateInput: (v) => (v.trim() ? undefined : 'A path such as /admin/index.html'),
  });
  if (urlPath === undefined) return undefined;
  const ip = await window.showInputBox({ title: `${title} (2/3)`, prompt: 'The client address (IPv4 or IPv6)', value: '127.0.0.1' });
  if (ip === undefined) return undefined;
  const choices: Array<QuickPickItem & { value: string }> = [
    { label: 'No credentials', description: 'an anonymous request', value: 'none' },
    { label: 'Valid credentials', description: 'a user who logs in successfully', value: 'valid' },
    { label: 'Wrong credentials', description: 'a failed login', value: 'wrong' },
  ];
  const credentials = await window.showQuickPick(choices, { title: `${title} (3/3)`, placeHolder: 'Credentials sent with the request' });
  if (!credentials) return undefined;
  const query: Record<string, string> = { path: urlPath.trim(), ip: ip.trim() || '127.0.0.1', credentials: credentials.value };
  if (credentials.value === 'valid') {
    const user = await window.showInputBox({ title, prompt: 'The user name (for Require user; empty: any user)', value: '' });
    if (user === undefined) return undefined;
    if (user.trim()) query.user = user.trim();
  }
  return query;
}

interface ExplainAnswer {
  status: number | null;
  decision: string;
  scope: string;
  root?: string;
  note?: string;
  steps: Array<{ uri: string; file: string; line: number; directive: string; effect: string }>;
  /** The .htaccess files the server read on the way to the file (uris). */
  htaccess?: string[];
  request: { path: string; ip: string; credentials: string; user?: string };
}

/** The answer in the output channel (file:line links), and, when the user asked through the prompts, a list whose entries open their line. */
function reportExplanation(result: unknown, output: LogOutputChannel, interactive: boolean): void {
  const r = result as ExplainAnswer | undefined;
  if (!r || !Array.isArray(r.steps)) return;
  const who = `${r.request.path} from ${r.request.ip}${r.request.credentials === 'none' ? '' : ` with ${r.request.credentials} credentials`}`;
  const headline = `${r.status ?? '?'} ${r.decision}: ${who}`;
  output.info(`explainAccess: ${headline} (${r.scope === 'configuration' ? `configuration of ${r.root}` : 'this file alone'})`);
  for (const s of r.steps) output.info(`  ${s.file}:${s.line + 1}  ${s.directive}  ${s.effect}`);
  if (r.note) output.info(`  note: ${r.note}`);
  for (const h of r.htaccess ?? []) output.info(`  read: ${Uri.parse(h).fsPath}`);
  if (!interactive) return;
  if (!r.steps.length) {
    void window.showInformationMessage(`${headline}. No line of the configuration decided it.`);
    return;
  }
  const items = r.steps.map((s) => ({
    label: s.directive,
    description: `${path.basename(s.file)}:${s.line + 1}`,
    detail: s.effect,
    step: s,
  }));
  void window.showQuickPick(items, { title: headline, placeHolder: 'The lines that decided it, in order: pick one to open it', matchOnDetail: true }).then((pick) => {
    if (!pick) return;
    const line = pick.step.line;
    void window.showTextDocument(Uri.parse(pick.step.uri), { selection: new Range(line, 0, line, 0) });
  });
}

function reportWorkspaceMigration(result: unknown, output: LogOutputChannel): void {
  const r = result as { files?: Array<{ uri: string; fixes: number }>; fixes?: number; applied?: boolean; scope?: string } | undefined;
  if (!r || !Array.isArray(r.files)) return;
  const n = r.files.length;
  const message = !n
    ? `Nothing to migrate in the ${r.scope === 'configuration' ? 'configuration' : 'open files'}.`
    : r.applied
      ? `Applied ${r.fixes} fix${r.fixes === 1 ? '' : 'es'} in ${n} file${n === 1 ? '' : 's'}.`
      : 'The migration was not applied.';
  output.info(`migrateWorkspace: ${message}`);
  for (const f of r.files) output.info(`  ${f.uri}: ${f.fixes} fix${f.fixes === 1 ? '' : 'es'}`);
  void window.showInformationMessage(message);
}

function reportHttpdCheck(result: unknown, output: LogOutputChannel): void {
  const r = result as { ok?: boolean; errors?: number; binary?: string; root?: string; serverRoot?: string; output?: string } | undefined;
  if (!r || typeof r.ok !== 'boolean') return;
  output.info(`checkWithHttpd: ${r.binary} -t -f ${r.root} -d ${r.serverRoot}`);
  for (const l of (r.output ?? '').split(/\r?\n/)) if (l.trim()) output.info(`  ${l}`);
  if (r.ok) void window.showInformationMessage(`httpd -t: Syntax OK (${r.root}).`);
  else void window.showWarningMessage(`httpd -t refused the configuration: ${r.errors} error${r.errors === 1 ? '' : 's'}, shown in the Problems panel.`);
}

function reportMigration(result: unknown, output: LogOutputChannel): void {
  const r = result as { fixes?: number; applied?: boolean } | undefined;
  if (!r || typeof r.fixes !== 'number') return;
  const message = r.applied
    ? `Applied ${r.fixes} fix${r.fixes === 1 ? '' : 'es'}.`
    : r.fixes === 0
      ? 'Nothing to migrate in this file.'
      : 'The editor did not apply the migration edit (the file changed meanwhile?).';
  output.info(`migrateFile: ${message}`);
  void window.showInformationMessage(message);
}
