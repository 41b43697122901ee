// `npm run test:vscode`: the editor suite under @vscode/test-electron, for machines that can download VS Code.
// (This sandbox cannot; CI here runs the same suite inside code-server instead.)
import * as path from 'path';
import * as fs from 'fs';
import * as os from 'os';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-vscode-'));
  try {
    await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, 'out', 'test', 'vscode', 'suite', 'index.js'),
      launchArgs: [workspace, '--disable-extensions'],
    });
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
