// Headless Neovim as the LSP client: the way Neovim (and, by the same
// protocol, Helix or Emacs) users run the server. Skips when nvim is not
// installed, except under CI=true where it fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureServerBuilt, SERVER_JS, ROOT } from '../protocol/lsp-client';
import { getRule } from '../../server/src/rules';

const SCRIPT = path.join(__dirname, 'neovim.lua');

const UNCLOSED = '<Directory "/srv/www">\n    Require all granted\n    AllowOverr\n';
const ACCESS = '<Directory "/srv/private">\nOrder deny,allow\n      Deny from all\n</Directory>\n';
const ACCESS_AFTER = '<Directory "/srv/private">\n    Require all denied\n</Directory>\n';

interface NvimResult {
  failed?: string;
  detail?: unknown;
  unclosed?: { codes: string[] };
  hover?: unknown;
  completion?: string[];
  access?: { codes: string[] };
  actions?: string[];
  applied?: string;
  after_fix?: { codes: string[] };
  format_edits?: number;
  lines?: string[];
}

function nvimVersion(): string | undefined {
  const r = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout.split('\n')[0];
}

function runNvim(env: Record<string, string>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '-c', `luafile ${SCRIPT}`], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    p.stderr.on('data', (d) => (stderr += String(d)));
    p.on('error', reject);
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('Neovim as the LSP client (headless)', function () {
  let dir: string;
  let run: { code: number | null; stdout: string; stderr: string };
  let result: NvimResult;

  before(async function () {
    const version = nvimVersion();
    if (!version) {
      if (process.env.CI === 'true') throw new Error('nvim is not installed (apt-get install neovim)');
      console.log('      skipped: nvim is not installed (apt-get install neovim)');
      this.skip();
    }
    if (!getRule('legacy-access')) {
      console.log('      skipped: the legacy-access rule is not registered yet');
      this.skip();
    }
    ensureServerBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-nvim-'));
    fs.writeFileSync(path.join(dir, 'unclosed.conf'), UNCLOSED);
    fs.writeFileSync(path.join(dir, 'access.conf'), ACCESS);
    run = await runNvim({ SERVER: SERVER_JS, UNCLOSED: path.join(dir, 'unclosed.conf'), ACCESS: path.join(dir, 'access.conf') }, ROOT);
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, `no RESULT line from nvim (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    result = JSON.parse(line.slice('RESULT '.length));
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs every step and exits 0', () => {
    assert.equal(result.failed, undefined, `failed at ${result.failed}: ${JSON.stringify(result.detail)}\n${run.stderr}`);
    assert.equal(run.code, 0, run.stderr);
  });

  it('shows a syntax diagnostic for the unclosed section', () => {
    assert.ok(result.unclosed?.codes.includes('syntax'), JSON.stringify(result.unclosed));
  });

  it('hovers Require with its module', () => {
    assert.match(String(result.hover), /mod_authz_core/);
  });

  it('completes a half-typed directive', () => {
    assert.deepEqual(result.completion, ['AllowOverride', 'AllowOverrideList']);
  });

  it('shows legacy-access on the 2.2 block and offers a preferred quick fix', () => {
    assert.ok(result.access?.codes.includes('legacy-access'), JSON.stringify(result.access));
    assert.ok(result.applied && result.actions?.includes(result.applied), JSON.stringify(result.actions));
  });

  it('clears legacy-access after the fix', () => {
    assert.ok(!result.after_fix?.codes.includes('legacy-access'), JSON.stringify(result.after_fix));
  });

  it('formats, and writes the migrated file', () => {
    assert.deepEqual(result.lines, ACCESS_AFTER.replace(/\n$/, '').split('\n'));
    assert.equal(fs.readFileSync(path.join(dir, 'access.conf'), 'utf8'), ACCESS_AFTER);
  });
});
