/** The `apacheconf` executable (bundled to dist/cli.js): argv in, exit code out. */
import { runCli } from './cli';
import { runReportWorker } from './parallel';
import { isFullPassWorker, runFullPassWorker } from '../lsp/full-pass';

// A closed pipe (`apacheconf check . | head`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

// The same bundle runs the worker threads of `check --report`.
// And the full-pass worker of `apacheconf serve`.
if (isFullPassWorker()) runFullPassWorker();
else if (!runReportWorker()) startCli();

function startCli(): void {
runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`apacheconf: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 2;
  },
);
}
