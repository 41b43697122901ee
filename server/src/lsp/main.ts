/**
 * Entry of dist/server.js. vscode-languageserver/node picks the transport
 * from the command line: IPC when VS Code forks it, `--stdio` for Neovim,
 * Helix, Emacs and the other editors. `apacheconf serve --stdio` calls
 * startServer() too.
 */
import * as path from 'path';
import { Console } from 'console';
import { inspect } from 'util';
import { createConnection, ProposedFeatures, StreamMessageWriter, type Connection } from 'vscode-languageserver/node';
import { ApacheConfServer, errorText } from './server';
import { ReusedBufferEncoder } from './transport';
import { isFullPassWorker, runFullPassWorker } from './full-pass';

/** The bundle this code runs from (dist/server.js or dist/cli.js), which can start the full-pass worker; null under tsx. */
function bundleFile(): string | null {
  return __filename.endsWith('.js') ? __filename : null;
}

let running: ApacheConfServer | undefined;

/**
 * The connection the command line asks for. With `--stdio` the messages are written by our own
 * encoder (transport.ts), as vscode-languageserver would write them otherwise; it still reads
 * stdin (and ends the process when stdin closes). Since stdout carries the protocol, what the
 * code prints with console goes to the client's log instead, as vscode-languageserver does.
 */
function defaultConnection(): Connection {
  if (!process.argv.slice(2).includes('--stdio')) return createConnection(ProposedFeatures.all);
  const writer = new StreamMessageWriter(process.stdout, { charset: 'utf-8', contentTypeEncoder: new ReusedBufferEncoder() });
  // The library takes a stream on one side and a writer on the other (stdin keeps its handling of
  // end and close); its typings list only matching pairs.
  const mixed = createConnection as unknown as (f: typeof ProposedFeatures.all, input: NodeJS.ReadableStream, output: StreamMessageWriter) => Connection;
  const connection = mixed(ProposedFeatures.all, process.stdin, writer);
  // Every console method writes to stderr (never into the protocol's stdout), and the usual ones
  // to the client's log.
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const methods = console as unknown as Record<string, unknown>;
  for (const [name, fn] of Object.entries(toStderr)) if (typeof fn === 'function') methods[name] = fn.bind(toStderr);
  const say = (how: 'log' | 'info' | 'warn' | 'error') => (...args: unknown[]) =>
    connection.console[how](args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? errorText(a) : inspect(a))).join(' '));
  console.log = say('log');
  console.info = say('info');
  console.debug = say('log');
  console.warn = say('warn');
  console.error = say('error');
  return connection;
}

/** Starts the server once per process; later calls return the running one. */
export function startServer(connection?: Connection): ApacheConfServer {
  if (running) return running;
  const server = new ApacheConfServer(connection ?? defaultConnection(), { fullPassScript: bundleFile() });
  running = server;
  // A promise nobody waits for that fails is a bug to log, not a reason to stop answering the editor.
  process.on('unhandledRejection', (reason) => server.reportUnexpected(reason));
  server.listen();
  return running;
}

/**
 * True when this file is the program itself (node dist/server.js, tsx main.ts).
 * Bundled into the CLI, `require.main === module` holds as well, so the CLI's
 * own script name is ruled out: the CLI starts the server when it is asked to.
 */
function isProgram(): boolean {
  if (require.main !== module) return false;
  const script = path.basename(process.argv[1] ?? '');
  return !/^(cli|apacheconf)(\.[cm]?[jt]s)?$/i.test(script);
}

if (isFullPassWorker()) runFullPassWorker();
else if (isProgram()) startServer();
