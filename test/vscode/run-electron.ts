// `npm run test:vscode`: the editor suite (test/vscode/suite) under @vscode/test-electron, which downloads
// VS Code into .vscode-test/ (or uses VSCODE_EXECUTABLE_PATH when set). Machines without that download
// run the same suite inside code-server: test/editors/code-server.test.ts.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const extensionTestsPath = path.join(root, 'out', 'test', 'vscode', 'suite', 'index.js');
  if (!fs.existsSync(extensionTestsPath)) throw new Error(`${extensionTestsPath} is missing: run node scripts/build.mjs --tests first`);
  // A throwaway workspace and user-data folder, so a developer's own settings and extensions stay out.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-vscode-'));
  const workspace = path.join(tmp, 'workspace');
  fs.mkdirSync(workspace);
  try {
    const code = await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath,
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH || undefined,
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--user-data-dir', path.join(tmp, 'user-data')],
    });
    if (code !== 0) throw new Error(`the editor suite exited with ${code}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
