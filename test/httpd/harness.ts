// A real-httpd oracle for the test suite.
//
// It starts Apache httpd 2.4 on loopback with a generated, self-contained ServerRoot, one
// name-based <VirtualHost> per test case, and sends requests from chosen 127.x.y.z source
// addresses (Linux accepts any 127.0.0.0/8 address as a local address on loopback, so a client
// socket bound to 127.0.0.5 really reaches httpd as client 127.0.0.5: no mod_remoteip needed).
//
// The property it is built for (see ../shared/docs/access-semantics.md §0, §1, §2, §10):
// "for every request, httpd running the rewritten config WITHOUT mod_access_compat answers with the
// same status as httpd running the original WITH it, counting 200 and 404 as the same".
//
// This file is a library only (no test framework inside). Typical use:
//
//   const before = await startOracle(cases, { compat: true, users });
//   const after = await startOracle(rewrittenCases, { compat: false, users });
//   const a = await before.requestAll(requests), b = await after.requestAll(requests);
//   assert.deepEqual(mismatches(requests, a, b), []);
//   await before.stop(); await after.stop();
//
// What the harness adds around a case's `config`, and nothing more: ServerName, DocumentRoot (with
// an index.html), DirectoryIndex index.html, a text/html type for .html. It adds NO access rules
// (no <Directory />, no <Files ".ht*">) and sets no AllowOverride. Unset is not the same as None: httpd
// then still reads .htaccess and allows no class in it (every directive answers 500; explain-cli.test.ts
// shows it), while an explicit AllowOverride None stops the read. A case
// that ships a .htaccess must enable it itself, e.g.
//   <Directory "@DOCROOT@/sub">\n AllowOverride AuthConfig Limit\n</Directory>
// Requests for a host name that is not a case go to a catch-all first vhost that answers 410.
//
// Placeholders, replaced in `config`, `serverConfig` and in the contents of `files`:
//   @DOCROOT@    this case's document root (absolute, no trailing slash)
//   @USERS@      the htpasswd file built from opts.users ({SHA} hashes)
//   @GROUPS@     the AuthGroupFile built from opts.groups
//   @SERVERROOT@ the generated ServerRoot;  @PORT@ the port httpd listens on
//
// Host names and double reverse DNS (`Allow from <host>`, `Require host`), checked on the
// development machine (Debian, /etc/hosts = "127.0.0.1 localhost", "127.0.0.1 runsc",
// "127.0.0.1 vm", nothing for ::1 or 127.0.1.1; hosts: files dns) and by harness.test.ts.
// httpd accepts a host name only when the reverse lookup of the client address gives a name whose
// forward lookup gives back the same address; only the system resolver is involved, and the
// harness never edits /etc/hosts. What host-based cases can rely on:
//   * 127.0.0.1 ↔ "localhost". The reverse name is the first /etc/hosts entry for the address;
//     other names of 127.0.0.1 ("vm", "runsc" here) are not returned by the reverse lookup and
//     never match, so use only `localhost` (`Allow from localhost`, `Require host localhost`;
//     a suffix such as `host` does not match: the match must fall on a label boundary).
//   * Every other 127.x.y.z is a client WITHOUT a name: its PTR query goes to DNS and fails fast
//     (NXDOMAIN in ~15 ms here), no host token matches it, and authz_host logs AH01753
//     ("unable to get the remote host name").
//   * ::1 (opts.ipv6) has no name here; do not rely on "ip6-localhost".
// So host cases get exactly one named client (127.0.0.1 = localhost) and any number of unnamed
// ones. A CI machine with the usual "127.0.0.1 localhost" first line behaves the same.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

// ---------------------------------------------------------------------------------------------
// Public types

export interface OracleCase {
  /** Unique id. Becomes the host name `<id>.oracle.test` when it is a valid DNS label (otherwise a
   *  sanitised label is used, see Oracle.hostOf). */
  id: string;
  /** The body placed inside this case's <VirtualHost> (placeholders substituted). */
  config: string;
  /** Docroot-relative files to create, e.g. 'private/index.html', 'sub/.htaccess'. A key ending
   *  in '/' creates an empty directory. */
  files?: Record<string, string>;
  /** Optional text placed at server level (it applies to every case of this oracle). */
  serverConfig?: string;
}

export interface OracleRequest {
  path: string;
  /** Client source address, 127.x.y.z (default 127.0.0.1); '::1' when the oracle has ipv6. */
  from?: string;
  /** HTTP method, default GET. */
  method?: string;
  auth?: { user: string; password: string };
  headers?: Record<string, string>;
  /** Send it to the main server (the oracle's `mainServer` port, which no virtual host takes) instead of the case's host. */
  main?: boolean;
}

export type OracleRequestFor = { caseId: string } & OracleRequest;

export interface OracleOptions {
  /** Load mod_access_compat (Order/Allow/Deny/Satisfy). */
  compat: boolean;
  /** user → password, written to @USERS@ with {SHA} hashes. */
  users?: Record<string, string>;
  /** group → members, written to @GROUPS@. */
  groups?: Record<string, string[]>;
  /** More modules, by short name ('rewrite', 'headers', 'remoteip') or 'mod_x'/'x_module'. */
  extraModules?: string[];
  /** LogLevel line (default 'warn authz_core:debug'); all messages carry their AH code. */
  logLevel?: string;
  /** MPM (default event). */
  mpm?: 'event' | 'prefork' | 'worker';
  /** Also listen on [::1]:PORT so that requests can come from '::1'. */
  ipv6?: boolean;
  /** Also listen on a second port that no <VirtualHost> takes: requests with `main` go there, to the main server. */
  mainServer?: boolean;
  /** Reuse connections per source address (default true; see timings in harness.test.ts). */
  keepAlive?: boolean;
  /** Concurrent requests in requestAll (default 32). */
  concurrency?: number;
  /** Per-request timeout in ms (default 15000). */
  requestTimeoutMs?: number;
  /** How long to wait for httpd to serve its first request (default 20000). */
  startTimeoutMs?: number;
}

export interface Oracle {
  readonly port: number;
  /** The generated ServerRoot (removed by stop() unless APACHECONF_KEEP_ORACLE is set). */
  readonly serverRoot: string;
  readonly confPath: string;
  /** The Host header used for a case. */
  hostOf(caseId: string): string;
  /** The absolute docroot of a case. */
  docrootOf(caseId: string): string;
  request(caseId: string, req: OracleRequest): Promise<number>;
  /** Statuses in the order of `list`; requests run concurrently (opts.concurrency). */
  requestAll(list: OracleRequestFor[]): Promise<number[]>;
  /** The error log; with `since` (a value of logMark(), a byte offset) only what came after. */
  errorLog(since?: number): string;
  logMark(): number;
  stop(): Promise<void>;
}

export interface ConfigCheck {
  ok: boolean;
  /** httpd's own output of `-t` (stdout + stderr). */
  output: string;
}

// ---------------------------------------------------------------------------------------------
// Outcomes

/** 200 and 404 both mean "authorization passed" (404: the file is missing, which is decided after
 *  the auth phases); every other status is its own class. */
export function outcomeOf(status: number): string {
  return status === 200 || status === 404 ? 'granted' : String(status);
}

export function sameOutcome(a: number, b: number): boolean {
  return outcomeOf(a) === outcomeOf(b);
}

export interface OutcomeMismatch {
  index: number;
  request: OracleRequestFor;
  a: number;
  b: number;
}

/** The requests whose statuses differ in outcome between two runs of the same list. */
export function mismatches(list: OracleRequestFor[], a: number[], b: number[]): OutcomeMismatch[] {
  if (a.length !== list.length || b.length !== list.length) {
    throw new Error(`mismatches: ${list.length} requests but ${a.length} and ${b.length} statuses`);
  }
  const out: OutcomeMismatch[] = [];
  list.forEach((request, index) => {
    if (!sameOutcome(a[index], b[index])) out.push({ index, request, a: a[index], b: b[index] });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Locating httpd

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The apache2/httpd binary: $APACHECONF_HTTPD, else /usr/sbin/apache2, /usr/sbin/httpd, else
 *  apache2 or httpd on PATH; null when none is found. A set but unusable $APACHECONF_HTTPD throws. */
export function findHttpd(): string | null {
  const fromEnv = process.env.APACHECONF_HTTPD;
  if (fromEnv) {
    if (isExecutableFile(fromEnv)) return fromEnv;
    throw new Error(`APACHECONF_HTTPD=${fromEnv} is not an executable file`);
  }
  for (const p of ['/usr/sbin/apache2', '/usr/sbin/httpd']) if (isExecutableFile(p)) return p;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ['apache2', 'httpd']) {
    for (const d of dirs) {
      const p = path.join(d, name);
      if (isExecutableFile(p)) return p;
    }
  }
  return null;
}

function requireHttpd(): string {
  const h = findHttpd();
  if (!h) throw new Error('Apache httpd not found (install apache2 or set APACHECONF_HTTPD)');
  return h;
}

interface HttpdInfo {
  modulesDir: string;
  builtIn: Set<string>; // e.g. 'unixd', 'log_config'
}

const infoCache = new Map<string, HttpdInfo>();

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

async function httpdInfo(httpd: string): Promise<HttpdInfo> {
  const cached = infoCache.get(httpd);
  if (cached) return cached;
  const builtIn = new Set<string>();
  const listed = await run(httpd, ['-l']);
  for (const m of listed.output.matchAll(/^\s*mod_(\w+)\.c\s*$/gm)) builtIn.add(m[1]);
  const candidates = [
    process.env.APACHECONF_HTTPD_MODULES,
    '/usr/lib/apache2/modules',
    '/usr/lib64/httpd/modules',
    '/usr/lib/httpd/modules',
    '/usr/lib64/apache2/modules',
    '/usr/libexec/apache2',
    '/usr/local/apache2/modules',
    path.resolve(path.dirname(httpd), '..', 'modules'),
    path.resolve(path.dirname(httpd), '..', 'lib', 'httpd', 'modules'),
    path.resolve(path.dirname(httpd), '..', 'libexec', 'apache2'),
  ].filter((d): d is string => !!d);
  const modulesDir = candidates.find((d) => fs.existsSync(path.join(d, 'mod_authz_core.so')));
  if (!modulesDir) {
    throw new Error(`no httpd modules directory with mod_authz_core.so (set APACHECONF_HTTPD_MODULES); looked in ${candidates.join(', ')}`);
  }
  const info = { modulesDir, builtIn };
  infoCache.set(httpd, info);
  return info;
}

function moduleShortName(name: string): string {
  return name.replace(/\.so$/, '').replace(/^mod_/, '').replace(/_module$/, '');
}

// ---------------------------------------------------------------------------------------------
// Writing the ServerRoot

const BASE_MODULES = [
  'authn_core', 'authn_file', 'auth_basic',
  'authz_core', 'authz_host', 'authz_user', 'authz_groupfile',
  'setenvif', 'env', 'mime', 'dir', 'alias', 'unixd',
];

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

interface Layout {
  root: string;
  conf: string;
  errorLog: string;
  stderrLog: string;
  port: number;
  /** The port only the main server answers (opts.mainServer), else 0. */
  mainPort: number;
  hosts: Map<string, string>; // case id → Host
  docroots: Map<string, string>; // case id → docroot
  /** [first line, last line, case id] of each case's text in httpd.conf (1-based). */
  regions: Array<[number, number, string]>;
  confLines: string[];
}

function caseLabels(cases: OracleCase[]): Map<string, string> {
  const labels = new Map<string, string>();
  const used = new Set<string>(['default']);
  cases.forEach((c, i) => {
    if (typeof c.id !== 'string' || c.id === '') throw new Error(`case #${i} has no id`);
    if (labels.has(c.id)) throw new Error(`duplicate case id ${JSON.stringify(c.id)}`);
    let label = c.id.toLowerCase();
    if (!LABEL.test(label) || used.has(label)) {
      const clean = label.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
      label = `c${i}${clean ? `-${clean}` : ''}`.replace(/-+$/, '');
      while (used.has(label)) label += 'x';
    }
    used.add(label);
    labels.set(c.id, label);
  });
  return labels;
}

/** Run account for the children: the current user, or when root a system user that exists. */
function runAccount(): { user: string; group: string } {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  if (uid !== 0) return { user: `#${uid}`, group: `#${gid}` };
  let passwd = '';
  try {
    passwd = fs.readFileSync('/etc/passwd', 'utf8');
  } catch {
    // fall through to nobody
  }
  for (const name of ['www-data', 'apache', 'daemon', 'nobody']) {
    const line = passwd.split('\n').find((l) => l.startsWith(`${name}:`));
    if (line) {
      const f = line.split(':');
      return { user: `#${f[2]}`, group: `#${f[3]}` };
    }
  }
  return { user: '#65534', group: '#65534' };
}

function subst(text: string, vars: Record<string, string>): string {
  let out = text;
  for (const [k, v] of Object.entries(vars)) out = out.split(k).join(v);
  return out;
}

function writeFile(p: string, content: string): void {
  fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o755 });
  fs.writeFileSync(p, content, { mode: 0o644 });
  fs.chmodSync(p, 0o644);
}

function htpasswdLine(user: string, password: string): string {
  if (/[:\r\n]/.test(user) || user === '') throw new Error(`invalid user name ${JSON.stringify(user)}`);
  if (/[\r\n]/.test(password)) throw new Error(`password of ${user} contains a newline`);
  const hash = createHash('sha1').update(password, 'utf8').digest('base64');
  return `${user}:{SHA}${hash}\n`;
}

function quote(p: string): string {
  if (p.includes('"')) throw new Error(`path contains a quote: ${p}`);
  return `"${p}"`;
}

/** Make every directory under root (and root) world-traversable, so that the run user can read. */
function openUp(root: string): void {
  fs.chmodSync(root, 0o755);
  for (const e of fs.readdirSync(root, { withFileTypes: true })) {
    if (e.isDirectory()) openUp(path.join(root, e.name));
  }
}

async function writeServerRoot(cases: OracleCase[], opts: OracleOptions, port: number, httpd: string, mainPort = 0): Promise<Layout> {
  const info = await httpdInfo(httpd);
  const labels = caseLabels(cases);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-oracle-'));
  try {
    if (process.getuid?.() === 0) {
      // The children run as another user: every directory above the ServerRoot must let it pass,
      // or every request fails with 403 ("search permissions are missing").
      for (let d = path.dirname(root); ; d = path.dirname(d)) {
        if ((fs.statSync(d).mode & 0o001) === 0) {
          throw new Error(`${d} is not world-searchable; point TMPDIR at a directory that is (e.g. the system temp dir)`);
        }
        if (path.dirname(d) === d) break;
      }
    }
    const confDir = path.join(root, 'conf');
    const logs = path.join(root, 'logs');
    const runDir = path.join(root, 'run');
    for (const d of [confDir, logs, runDir, path.join(root, 'htdocs', '_default')]) fs.mkdirSync(d, { recursive: true });
    const usersFile = path.join(confDir, 'users');
    const groupsFile = path.join(confDir, 'groups');
    writeFile(usersFile, Object.entries(opts.users ?? {}).map(([u, p]) => htpasswdLine(u, p)).join(''));
    writeFile(groupsFile, Object.entries(opts.groups ?? {}).map(([g, m]) => {
      if (!/^[^\s:]+$/.test(g)) throw new Error(`invalid group name ${JSON.stringify(g)}`);
      return `${g}: ${m.join(' ')}\n`;
    }).join(''));
    writeFile(path.join(confDir, 'mime.types'), '');
    writeFile(path.join(root, 'htdocs', '_default', 'index.html'), 'not a case\n');

    const modules = [...BASE_MODULES, `mpm_${opts.mpm ?? 'event'}`];
    if (opts.compat) modules.push('access_compat');
    for (const m of opts.extraModules ?? []) modules.push(moduleShortName(m));
    const loads: string[] = [];
    const seen = new Set<string>();
    for (const m of modules) {
      if (seen.has(m) || info.builtIn.has(m)) continue;
      seen.add(m);
      const so = path.join(info.modulesDir, `mod_${m}.so`);
      if (!fs.existsSync(so)) throw new Error(`module mod_${m}.so not found in ${info.modulesDir}`);
      loads.push(`LoadModule ${m}_module ${quote(so)}`);
    }

    const account = runAccount();
    const lines: string[] = [];
    const regions: Array<[number, number, string]> = [];
    const push = (text: string) => lines.push(...text.split('\n'));
    const docroots = new Map<string, string>();
    const hosts = new Map<string, string>();
    const varsFor = (docroot: string): Record<string, string> => ({
      '@DOCROOT@': docroot,
      '@USERS@': usersFile,
      '@GROUPS@': groupsFile,
      '@SERVERROOT@': root,
      '@PORT@': String(port),
    });

    push(`# Generated by test/httpd/harness.ts (compat: ${opts.compat})
ServerRoot ${quote(root)}
DefaultRuntimeDir ${quote(runDir)}
PidFile ${quote(path.join(runDir, 'httpd.pid'))}
${loads.join('\n')}
Listen 127.0.0.1:${port}${opts.ipv6 ? `\nListen [::1]:${port}` : ''}${mainPort ? `\nListen 127.0.0.1:${mainPort}` : ''}
ServerName localhost
User ${account.user}
Group ${account.group}
ErrorLog ${quote(path.join(logs, 'error.log'))}
LogLevel ${opts.logLevel ?? 'warn authz_core:debug'}
TypesConfig ${quote(path.join(confDir, 'mime.types'))}
AddType text/html .html
DirectoryIndex index.html
Timeout 30
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 60
# Idle children are never retired (MaxSpareThreads = MaxRequestWorkers): retiring one closes
# the kept-alive connections it holds. event counts idle kept-alive connections against
# ThreadsPerChild + idle workers * AsyncRequestWorkerFactor and stops accepting above that until
# the once-a-second maintenance forks a child (measured: ~1 s stalls once ~150 connections from
# many source addresses were open with the defaults).
<IfModule mpm_event_module>
  StartServers 2
  ServerLimit 8
  ThreadsPerChild 50
  MinSpareThreads 25
  MaxSpareThreads 400
  MaxRequestWorkers 400
  AsyncRequestWorkerFactor 16
</IfModule>
<IfModule mpm_worker_module>
  StartServers 2
  ServerLimit 8
  ThreadsPerChild 50
  MinSpareThreads 25
  MaxSpareThreads 400
  MaxRequestWorkers 400
</IfModule>
<IfModule mpm_prefork_module>
  StartServers 8
  MinSpareServers 8
  MaxSpareServers 32
  MaxRequestWorkers 64
</IfModule>
DocumentRoot ${quote(path.join(root, 'htdocs', '_default'))}`);

    cases.forEach((c) => {
      const label = labels.get(c.id) as string;
      const docroot = path.join(root, 'htdocs', label);
      docroots.set(c.id, docroot);
      hosts.set(c.id, `${label}.oracle.test`);
      fs.mkdirSync(docroot, { recursive: true });
      writeFile(path.join(docroot, 'index.html'), `${c.id}\n`);
      for (const [rel, content] of Object.entries(c.files ?? {})) {
        const target = path.resolve(docroot, rel);
        if (path.isAbsolute(rel) || !target.startsWith(docroot + path.sep)) {
          throw new Error(`case ${c.id}: file ${rel} is not inside the docroot`);
        }
        if (rel.endsWith('/')) fs.mkdirSync(target, { recursive: true });
        else writeFile(target, subst(content, varsFor(docroot)));
      }
      if (c.serverConfig) {
        push(`# server-level config of case ${c.id}`);
        const start = lines.length + 1;
        push(subst(c.serverConfig, varsFor(docroot)));
        regions.push([start, lines.length, c.id]);
      }
    });

    push(`
# Catch-all: a Host that is no case gets 410.
<VirtualHost *:${port}>
  ServerName default.oracle.invalid
  Redirect gone /
</VirtualHost>`);

    for (const c of cases) {
      const docroot = docroots.get(c.id) as string;
      push(`
# case ${c.id}
<VirtualHost *:${port}>
  ServerName ${hosts.get(c.id)}
  DocumentRoot ${quote(docroot)}`);
      const start = lines.length + 1;
      push(subst(c.config, varsFor(docroot)));
      regions.push([start, lines.length, c.id]);
      push('</VirtualHost>');
    }

    const conf = path.join(confDir, 'httpd.conf');
    writeFile(conf, lines.join('\n') + '\n');
    openUp(root);
    return {
      root, conf, port, mainPort, hosts, docroots, regions, confLines: lines,
      errorLog: path.join(logs, 'error.log'),
      stderrLog: path.join(logs, 'stderr.log'),
    };
  } catch (e) {
    fs.rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

/** httpd's message plus, for "line N of …httpd.conf", the case and text of that line. */
function explain(output: string, layout: Layout): string {
  const notes: string[] = [];
  for (const m of output.matchAll(/line (\d+) of ([^:\s]+)/g)) {
    if (m[2] !== layout.conf) continue;
    const n = Number(m[1]);
    const region = layout.regions.find(([a, b]) => n >= a && n <= b);
    const where = region ? `case ${region[2]}, line ${n - region[0] + 1} of its config` : 'harness text';
    notes.push(`  (line ${n} is in ${where}: ${JSON.stringify((layout.confLines[n - 1] ?? '').trim())})`);
  }
  return notes.length ? `${output.trimEnd()}\n${notes.join('\n')}` : output.trimEnd();
}

async function testConfig(httpd: string, layout: Layout): Promise<ConfigCheck> {
  const r = await run(httpd, ['-t', '-d', layout.root, '-f', layout.conf]);
  const ok = r.code === 0 && /Syntax OK/.test(r.output);
  return { ok, output: ok ? r.output : explain(r.output, layout) };
}

/** Write the server for `cases` and run `httpd -t` on it (nothing is started). */
export async function checkConfig(cases: OracleCase[], opts: OracleOptions): Promise<ConfigCheck> {
  const httpd = requireHttpd();
  const layout = await writeServerRoot(cases, opts, await freePort(), httpd);
  try {
    return await testConfig(httpd, layout);
  } finally {
    removeRoot(layout.root);
  }
}

// ---------------------------------------------------------------------------------------------
// Running httpd

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function removeRoot(root: string): void {
  if (process.env.APACHECONF_KEEP_ORACLE) return;
  fs.rmSync(root, { recursive: true, force: true });
}

function readIfExists(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

const live = new Set<OracleImpl>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test that forgets stop() must not leave httpd running or the temp dir behind.
  const killAll = () => {
    for (const o of live) o.killNow();
  };
  process.on('exit', killAll);
  // httpd runs in its own process group, so a Ctrl-C in the terminal does not reach it. When
  // nobody else handles the signal, clean up and die of it as usual. (A SIGKILLed test process
  // leaves httpd behind: its pid is in <serverRoot>/run/httpd.pid.)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    if (process.listenerCount(sig) > 0) continue;
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig);
    });
  }
}

class StartError extends Error {
  constructor(message: string, readonly bindFailure: boolean) {
    super(message);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** One raw request; resolves with the status after the body has been read. */
function httpStatus(
  port: number, host: string, req: OracleRequest, agent: http.Agent | false, timeoutMs: number,
): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const from = req.from ?? '127.0.0.1';
    const headers: Record<string, string> = { Host: host };
    if (req.auth) {
      headers.Authorization = `Basic ${Buffer.from(`${req.auth.user}:${req.auth.password}`, 'utf8').toString('base64')}`;
    }
    Object.assign(headers, req.headers ?? {});
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && !Object.keys(headers).some((h) => /^content-length$/i.test(h))) {
      headers['Content-Length'] = '0';
    }
    const r = http.request({
      host: from.includes(':') ? '::1' : '127.0.0.1',
      port,
      method,
      path: req.path,
      headers,
      localAddress: from,
      agent,
    }, (res) => {
      const status = res.statusCode ?? 0;
      res.on('error', reject);
      res.on('end', () => resolve({ status, reused: r.reusedSocket }));
      res.resume();
    });
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    r.on('error', (e: NodeJS.ErrnoException) => {
      (e as NodeJS.ErrnoException & { reused?: boolean }).reused = r.reusedSocket;
      reject(e);
    });
    r.end();
  });
}

class OracleImpl implements Oracle {
  private agents = new Map<string, http.Agent>();
  private stopped: Promise<void> | null = null;
  private exited = false;

  constructor(
    private readonly layout: Layout,
    private readonly proc: ChildProcess,
    private readonly opts: OracleOptions,
  ) {
    proc.on('exit', () => {
      this.exited = true;
    });
  }

  get port(): number {
    return this.layout.port;
  }

  get serverRoot(): string {
    return this.layout.root;
  }

  get confPath(): string {
    return this.layout.conf;
  }

  hostOf(caseId: string): string {
    const h = this.layout.hosts.get(caseId);
    if (!h) throw new Error(`unknown case id ${JSON.stringify(caseId)}`);
    return h;
  }

  docrootOf(caseId: string): string {
    const d = this.layout.docroots.get(caseId);
    if (!d) throw new Error(`unknown case id ${JSON.stringify(caseId)}`);
    return d;
  }

  private agentFor(from: string): http.Agent | false {
    // prefork: each kept-alive connection pins a whole process, so the first batch waits for
    // prefork to fork more (measured: 100-250 requests/s instead of 2500-5000).
    if (!(this.opts.keepAlive ?? this.opts.mpm !== 'prefork')) return false;
    let a = this.agents.get(from);
    if (!a) {
      a = new http.Agent({ keepAlive: true, maxSockets: this.opts.concurrency ?? 32, maxFreeSockets: 8 });
      this.agents.set(from, a);
    }
    return a;
  }

  async request(caseId: string, req: OracleRequest): Promise<number> {
    if (this.stopped) throw new Error('oracle stopped');
    const host = this.hostOf(caseId);
    const timeout = this.opts.requestTimeoutMs ?? 15_000;
    const from = req.from ?? '127.0.0.1';
    for (let attempt = 0; ; attempt++) {
      try {
        // A kept-alive socket that the server closed just as it was reused (e.g. httpd retiring an
        // idle child) fails with ECONNRESET: the retry goes over a fresh connection.
        if (req.main && !this.layout.mainPort) throw new Error('a request for the main server, and the oracle has no mainServer port');
        const [port, to] = req.main ? [this.layout.mainPort, 'localhost'] : [this.layout.port, host];
        return (await httpStatus(port, to, req, attempt ? false : this.agentFor(from), timeout)).status;
      } catch (e) {
        const err = e as NodeJS.ErrnoException & { reused?: boolean };
        if (err.reused && attempt === 0) continue;
        const where = `${req.method ?? 'GET'} ${req.path} from ${from} to case ${caseId}`;
        throw new Error(`${where}: ${err.message}${this.exited ? ' (httpd has exited)' : ''}\n${this.errorLog().slice(-2000)}`);
      }
    }
  }

  async requestAll(list: OracleRequestFor[]): Promise<number[]> {
    const out: number[] = new Array(list.length);
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const i = next++;
        const { caseId, ...req } = list[i];
        out[i] = await this.request(caseId, req);
      }
    };
    const n = Math.max(1, Math.min(this.opts.concurrency ?? 32, list.length));
    await Promise.all(Array.from({ length: n }, worker));
    return out;
  }

  errorLog(since = 0): string {
    try {
      return fs.readFileSync(this.layout.errorLog).subarray(since).toString('utf8');
    } catch {
      return '';
    }
  }

  logMark(): number {
    try {
      return fs.statSync(this.layout.errorLog).size;
    } catch {
      return 0;
    }
  }

  /** Synchronous last-resort cleanup (process exit). */
  killNow(): void {
    live.delete(this);
    for (const a of this.agents.values()) a.destroy();
    if (!this.exited && this.proc.pid) {
      try {
        process.kill(-this.proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      removeRoot(this.layout.root);
    } catch {
      // best effort
    }
  }

  stop(): Promise<void> {
    if (!this.stopped) this.stopped = this.doStop();
    return this.stopped;
  }

  private async doStop(): Promise<void> {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
    const pid = this.proc.pid;
    if (!this.exited && pid) {
      const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const t = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await gone;
      clearTimeout(t);
      // Children in the group that outlived the parent (should not happen): make sure.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // none left
      }
    }
    live.delete(this);
    removeRoot(this.layout.root);
  }
}

async function launch(httpd: string, layout: Layout, opts: OracleOptions): Promise<OracleImpl> {
  const check = await testConfig(httpd, layout);
  if (!check.ok) throw new StartError(`httpd refused the configuration:\n${check.output}`, false);

  const errFd = fs.openSync(layout.stderrLog, 'a');
  let proc: ChildProcess;
  try {
    proc = spawn(httpd, ['-d', layout.root, '-f', layout.conf, '-DFOREGROUND'], {
      detached: true, // own process group: stop() signals the group
      stdio: ['ignore', errFd, errFd],
    });
  } finally {
    fs.closeSync(errFd);
  }
  proc.unref();
  const oracle = new OracleImpl(layout, proc, opts);
  live.add(oracle);
  installExitHook();

  let exitCode: number | null | undefined;
  let spawnError: Error | undefined;
  proc.on('exit', (code, signal) => {
    exitCode = code ?? (signal ? -1 : null);
  });
  proc.on('error', (e) => {
    spawnError = e;
  });

  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  const probe: OracleRequest = { path: '/' };
  let lastError = '';
  for (;;) {
    if (spawnError || exitCode !== undefined) {
      const logs = `${readIfExists(layout.stderrLog)}${readIfExists(layout.errorLog)}`;
      oracle.killNow();
      const why = spawnError ? spawnError.message : `httpd exited (${exitCode}) during start-up`;
      throw new StartError(`${why}:\n${explain(logs, layout)}`, /AH00072|could not bind|Address already in use/.test(logs));
    }
    try {
      const { status } = await httpStatus(layout.port, 'default.oracle.invalid', probe, false, 2000);
      if (status === 410) return oracle;
      lastError = `the catch-all vhost answered ${status}, not 410 (another server on port ${layout.port}?)`;
    } catch (e) {
      lastError = (e as Error).message;
    }
    if (Date.now() > deadline) {
      const logs = `${readIfExists(layout.stderrLog)}${readIfExists(layout.errorLog)}`;
      oracle.killNow();
      throw new StartError(`httpd did not serve within ${opts.startTimeoutMs ?? 20_000} ms (${lastError}):\n${logs}`, false);
    }
    await sleep(25);
  }
}

/** Start httpd with one <VirtualHost> per case. Throws with httpd's own text if the config is
 *  refused (`httpd -t`) or if httpd fails to start. */
export async function startOracle(cases: OracleCase[], opts: OracleOptions): Promise<Oracle> {
  const httpd = requireHttpd();
  for (let attempt = 0; ; attempt++) {
    const layout = await writeServerRoot(cases, opts, await freePort(), httpd, opts.mainServer ? await freePort() : 0);
    try {
      return await launch(httpd, layout, opts);
    } catch (e) {
      removeRoot(layout.root);
      // Another process took the port between freePort() and httpd's bind: try another one.
      if (e instanceof StartError && e.bindFailure && attempt < 3) continue;
      throw e instanceof StartError ? new Error(e.message) : e;
    }
  }
}
