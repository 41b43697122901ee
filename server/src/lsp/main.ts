/**
 * Entry of dist/server.js. vscode-languageserver/node picks the transport
 * from the command line: IPC when VS Code forks it, `--stdio` for Neovim,
 * Helix, Emacs and the other editors. `apacheconf serve --stdio` calls
 * startServer() too.
 */
import { createConnection, ProposedFeatures, type Connection } from 'vscode-languageserver/node';
import { ApacheConfServer } from './server';
import { EMPTY_CATALOG } from './adapters';

export function startServer(connection: Connection = createConnection(ProposedFeatures.all)): ApacheConfServer {
  const server = new ApacheConfServer(connection, { catalog: EMPTY_CATALOG });
  server.listen();
  return server;
}

// Started directly (node dist/server.js), not imported by the CLI bundle.
if (require.main === module) startServer();
