// The editor suite (test/vscode/suite) inside a real VS Code workbench: code-server on loopback,
// driven by Debian's chromium. The toolchain lives outside the repository (scripts/setup-code-server.sh);
// without it this test skips, except under CI=true where it fails.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findToolchain, repoRoot, runExtensionTests, type Toolchain } from './code-server/harness';

describe('editor suite inside code-server', function () {
  // Two slow cores: building, starting the workbench and the suite take a while. Waits are event-driven.
  this.timeout(15 * 60_000);

  let tc: Toolchain;
  let workspace: string;

  before(function () {
    const found = findToolchain();
    if ('missing' in found) {
      if (process.env.CI === 'true') throw new Error(found.missing);
      console.log(`      skipped: ${found.missing}`);
      this.skip();
    }
    tc = found as Toolchain;
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs'), '--tests'], { cwd: repoRoot, stdio: 'inherit' });
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-ws-'));
  });

  after(() => {
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('runs the mocha suite in the extension host and every test passes', async () => {
    const run = await runExtensionTests(tc, {
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'out', 'test', 'vscode', 'suite', 'index.js'),
      workspace,
      onLine: process.env.APACHECONF_VERBOSE ? (l) => console.log(`        | ${l}`) : undefined,
    });
    assert.strictEqual(run.code, 0, `the suite failed (exit ${run.code}):\n${run.output}`);
    const passing = /(\d+) passing/.exec(run.output);
    assert.ok(passing && Number(passing[1]) > 0, `no test ran in the extension host:\n${run.output}`);
    assert.doesNotMatch(run.output, /\d+ (failing|pending)/, run.output);
  });
});
