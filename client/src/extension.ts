/**
 * The VS Code side: starts dist/server.js over IPC and hands it every
 * `apacheconf` document. Everything the user sees (diagnostics, fixes,
 * hover, completion, outline, formatting) comes from the server.
 */
import * as path from 'path';
import { commands, Uri, window, workspace, type ExtensionContext, type LogOutputChannel } from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { CLIENT_COMMANDS, DOCUMENT_COMMANDS, LANGUAGE_ID, OUTPUT_CHANNEL_NAME, SERVER_COMMANDS } from './commands';

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
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
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
    synchronize: { configurationSection: LANGUAGE_ID },
    initializationOptions: () => ({ trusted: workspace.isTrusted }),
    outputChannel: output,
    middleware: {
      // Server commands run from the palette arrive without arguments: give them the active editor's document.
      executeCommand: async (command, args, next) => {
        let forwarded = args;
        if (DOCUMENT_COMMANDS.has(command)) {
          const uri = documentArgument(args);
          if (!uri) {
            void window.showInformationMessage('Open an Apache config file first.');
            return undefined;
          }
          forwarded = [getClient().code2ProtocolConverter.asUri(uri), ...args.slice(1)];
        }
        const result = await next(command, forwarded);
        if (command === SERVER_COMMANDS.migrateFile) reportMigration(result, output);
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
