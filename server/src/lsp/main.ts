/**
 * Entry of dist/server.js. vscode-languageserver/node picks the transport
 * from the command line: IPC when VS Code forks it, `--stdio` for Neovim,
 * Helix, Emacs and the other editors. `apacheconf serve --stdio` calls
 * startServer() too.
 */
import * as path from 'path';
import { createConnection, ProposedFeatures, type Connection } from 'vscode-languageserver/node';
import { ApacheConfServer } from './server';
import { isFullPassWorker, runFullPassWorker } from './full-pass';

/** The bundle this code runs from (dist/server.js or dist/cli.js), which can start the full-pass worker; null under tsx. */
function bundleFile(): string | null {
  return __filename.endsWith('.js') ? __filename : null;
}

let running: ApacheConfServer | undefined;

/** Starts the server once per process; later calls return the running one. */
export function startServer(connection?: Connection): ApacheConfServer {
  if (running) return running;
  const server = new ApacheConfServer(connection ?? createConnection(ProposedFeatures.all), { fullPassScript: bundleFile() });
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
