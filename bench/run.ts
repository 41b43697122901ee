/**
 * Performance benchmark: `npm run bench` (bundled by scripts/build.mjs --bench into
 * out/bench/run.js, so it measures the code as it ships; `node --import tsx bench/run.ts` works too).
 *
 * Prints, in one run:
 *  (a) a bare baseline: split lines, join continuations, split words, in MB/s,
 *      over the corpus concatenated many times;
 *  (b) parse alone and parse+diagnose (service.analyze) throughput over the
 *      corpus and over a generated 100,000-line config, and the ratio of
 *      parse+diagnose to the baseline;
 *  (c) language-server latency from textDocument/didChange to the matching
 *      publishDiagnostics, through dist/server.js --stdio, for 1k, 10k and
 *      100k-line files (median of several runs; with the default debounce and
 *      with debounce 0);
 *      and for 10,000 lines of real files; and the latency of a stand-in server
 *      that sends the same diagnostics without any analysis (the transport's share);
 *  (d) memory: peak RSS of a child that parses+diagnoses the 100k-line input,
 *      minus one that does an empty file, per input byte (the memory map's high-water mark).
 * Then a table against the targets. When parse+diagnose is below half the
 * baseline it profiles a child with --cpu-prof and prints where the time goes.
 *
 * Heavy measurements run in child processes with a time limit (120 s, 30 s
 * with --quick), so a pathological slowdown shows up as "did not finish"
 * rather than a hung benchmark; the growth with file size is printed too.
 *
 * Options: --quick (fewer repetitions, shorter limits), --no-lsp, --no-profile; --latency LINES [DEBOUNCE]
 * measures only the typing latency on a generated file; --echo DIAGNOSTICS [LINES] only the stand-in's;
 * --generate LINES FILE writes the generated config of LINES lines to FILE.
 * Internal: --child-analyze FILE REPS [RULE] [quick], --child-steady FILE baseline|quick, --child-rules FILE, --child-mem FILE [RULE] [quick],
 * --child-rate KIND, --child-profile, --child-echo DIAGNOSTICS --stdio.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from '../server/src/syntax';
import { createService } from '../server/src/service';
import { RULES } from '../server/src/rules';
import { SERVER_NODE_FLAGS } from '../client/src/server-flags';
import { ReusedBufferEncoder } from '../server/src/lsp/transport';

/** The project folder: bench/ under tsx, out/bench/ when bundled (npm run bench). */
const repo = ((): string => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();
/** Children run this same file: the bundle directly, or the source through tsx. */
const selfArgs = __filename.endsWith('.js') ? [__filename] : ['--import', 'tsx', __filename];
const corpusDir = path.resolve(repo, '../shared/corpus');
const args = process.argv.slice(2);
const quick = args.includes('--quick');

// ---------------------------------------------------------------- inputs

function corpusTexts(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, ent.name);
      if (ent.isDirectory()) walk(full);
      else if (ent.isFile() && ent.name !== 'MANIFEST.tsv' && ent.name !== 'README.md') out.push(fs.readFileSync(full, 'latin1'));
    }
  };
  if (fs.existsSync(corpusDir)) walk(corpusDir);
  else walk(path.join(repo, 'examples'));
  return out;
}

/** A small deterministic PRNG (mulberry32), so every run generates the same config. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A realistic config of exactly `lines` lines: vhosts with directories and
 * auth, 2.2 access blocks (some continued over lines), dual-version blocks,
 * rewrite rules, comments and blank lines.
 */
/**
 * A file of `n` virtual hosts with no Listen line (one another file includes), each with a
 * directory of 2.2 host rules and, for every third, a password area with `Satisfy Any`.
 */
export function generateHosts(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(`<VirtualHost *:80>`, `    ServerName site${i}.example.com`, `    DocumentRoot /srv/site${i}`, `    <Directory /srv/site${i}>`, '        Order allow,deny', '        Allow from all', '    </Directory>');
    if (i % 3 === 0) out.push(`    <Directory /srv/site${i}/admin>`, '        AuthType Basic', '        AuthName "admin"', `        AuthUserFile /etc/apache2/site${i}.passwd`, '        Require valid-user', '        Order deny,allow', '        Deny from all', `        Allow from 10.${i % 256}.0.0/16`, '        Satisfy Any', '    </Directory>');
    out.push('</VirtualHost>', '');
  }
  return out.join('\n');
}

export function generateConfig(lines: number, seed = 42): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const ip = (): string => `10.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}`;
  const words = ['shop', 'blog', 'wiki', 'api', 'static', 'intranet', 'mail', 'docs', 'status', 'admin'];
  const out: string[] = [];
  let n = 0;
  const blocks: Array<() => string[]> = [
    () => ['# ' + pick(['Managed by the config tool.', 'Do not edit by hand.', 'Access for the office network.', 'Legacy 2.2 block, migrate me.']), ''],
    () => {
      const site = `${pick(words)}${Math.floor(rnd() * 1000)}.example.com`;
      const root = `/srv/www/${site}`;
      const b = [
        `<VirtualHost *:${pick(['80', '443', '8080'])}>`,
        `    ServerName ${site}`,
        `    ServerAdmin webmaster@${site}`,
        `    DocumentRoot ${root}`,
        `    <Directory ${root}>`,
        `        Options ${pick(['Indexes FollowSymLinks', '-Indexes +FollowSymLinks', 'None'])}`,
        `        AllowOverride ${pick(['None', 'All', 'AuthConfig'])}`,
        '        Order allow,deny',
        '        Allow from all',
        '    </Directory>',
      ];
      if (rnd() < 0.4) {
        b.push(
          '    <Location /private>',
          '        AuthType Basic',
          '        AuthName "Private area"',
          `        AuthUserFile /etc/apache2/htpasswd.${pick(words)}`,
          '        Require valid-user',
          '    </Location>',
        );
      }
      if (rnd() < 0.3) b.push('    RewriteEngine On', '    RewriteCond %{HTTPS} off', '    RewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]');
      b.push(`    ErrorLog \${APACHE_LOG_DIR}/${site}-error.log`, `    CustomLog \${APACHE_LOG_DIR}/${site}-access.log combined`, '</VirtualHost>', '');
      return b;
    },
    () => [
      `<Directory /srv/data/${pick(words)}${Math.floor(rnd() * 100)}>`,
      '    Order deny,allow',
      '    Deny from all',
      `    Allow from ${ip()} \\`,
      `               ${ip()} ${ip()}`,
      '</Directory>',
      '',
    ],
    () => [
      `<Location /${pick(words)}-status>`,
      '    SetHandler server-status',
      '    <IfModule mod_authz_core.c>',
      '        Require local',
      '    </IfModule>',
      '    <IfModule !mod_authz_core.c>',
      '        Order deny,allow',
      '        Deny from all',
      '        Allow from 127.0.0.1',
      '    </IfModule>',
      '</Location>',
      '',
    ],
    () => [`<Files ~ "\\.(${pick(['ini', 'log', 'bak'])}|sql)$">`, '    Order allow,deny', '    Deny from all', '    Satisfy All', '</Files>', ''],
  ];
  while (n < lines) {
    const b = pick(blocks)();
    if (n + b.length > lines) {
      while (n < lines) {
        out.push('# padding');
        n++;
      }
      break;
    }
    out.push(...b);
    n += b.length;
  }
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------- measuring

/** The baseline: the least work any config reader must do. Returns a word count so nothing is optimised away. */
function baseline(text: string): number {
  let words = 0;
  let pending = '';
  for (let line of text.split('\n')) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1);
      continue;
    }
    const logical = (pending + line).trim();
    pending = '';
    if (logical) words += logical.split(/\s+/).length;
  }
  return words;
}

let sink = 0;

/** MB/s of `work` over `bytes`, the median of `reps` timed runs after a warm-up run. */
function throughput(bytes: number, reps: number, work: () => number): number {
  sink += work();
  const rates: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    sink += work();
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    rates.push(bytes / 1e6 / s);
  }
  return median(rates);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// ---------------------------------------------------------------- children

/** Settings that switch one rule off (to show what the rest of the pipeline costs). */
function serviceWithout(ignore: string | undefined) {
  return createService(ignore ? { rules: { [ignore]: 'ignore' } } : {});
}

/**
 * `--child-analyze FILE REPS [RULE] [quick]`: parse+diagnose FILE REPS times after one run that is
 * not counted (the JIT's warm-up, as the baselines have theirs); prints the median MB/s and the
 * first run's time.
 */
function childAnalyze(file: string, reps: number, ignore?: string, depth: 'quick' | 'full' = 'full'): void {
  const text = fs.readFileSync(file, 'latin1');
  const service = serviceWithout(ignore);
  const t0 = process.hrtime.bigint();
  sink += service.analyze({ text, uri: 'file:///bench/input.conf', depth }).findings.length;
  const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    sink += service.analyze({ text, uri: 'file:///bench/input.conf', depth }).findings.length;
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const m = median(ms);
  process.stdout.write(JSON.stringify({ ms: m, mbps: text.length / 1e6 / (m / 1000), firstMs }) + '\n');
}

/**
 * `--child-steady FILE baseline|quick [--quick]`: the time of one pass over FILE once the JIT has
 * settled, as --child-rate measures the corpus: a warm-up (three passes and 0.5 s at least), then
 * passes until at least 3 s (1.5 s with --quick, and at least 3 passes) have gone by; the median
 * pass. An editor's server analyses a file on every change, so that is the state it answers in;
 * the first (cold) pass and the warm-up's passes are printed too.
 */
function childSteady(file: string, kind: string): void {
  const text = fs.readFileSync(file, 'latin1');
  const service = createService();
  const pass = (): number => (kind === 'baseline' ? baseline(text) : service.analyze({ text, uri: 'file:///bench/input.conf', depth: 'quick' }).findings.length);
  const timed = (): number => {
    const t = process.hrtime.bigint();
    sink += pass();
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const warm: number[] = [];
  const w0 = Date.now();
  while (warm.length < 4 || Date.now() - w0 < 500) warm.push(timed());
  const minMs = quick ? 1500 : 3000;
  const ms: number[] = [];
  const t0 = Date.now();
  while (ms.length < 3 || Date.now() - t0 < minMs) ms.push(timed());
  const m = median(ms);
  process.stdout.write(JSON.stringify({ ms: m, mbps: text.length / 1e6 / (m / 1000), firstMs: warm[0], warmMs: warm.slice(1), passes: ms.length }) + '\n');
}

/** `--child-rules FILE`: time each rule's check over FILE, parsed once. */
function childRules(file: string): void {
  const doc = parse(fs.readFileSync(file, 'latin1'));
  const out: Record<string, number> = {};
  for (const rule of RULES) {
    const t = process.hrtime.bigint();
    rule.check({ doc, fileContext: 'server' });
    out[rule.id] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

function childMem(file: string, ignore?: string, depth: 'quick' | 'full' = 'full'): void {
  const text = file ? fs.readFileSync(file, 'latin1') : '';
  const service = serviceWithout(ignore || undefined);
  const a = service.analyze({ text, uri: 'file:///bench/input.conf', depth });
  sink += a.findings.length + service.diagnostics(a).length;
  process.stdout.write(JSON.stringify({ maxRssBytes: peakRss(), findings: a.findings.length }) + '\n');
}

/**
 * This process's peak resident memory in bytes. On Linux it is the memory map's high-water mark
 * (VmHWM): getrusage's ru_maxrss in a child also counts the parent's resident memory at the fork,
 * so a bench process holding a large corpus would hide the child's own peak behind its own.
 */
export function peakRss(): number {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // Not Linux: fall back to getrusage.
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * `--child-rate baseline|parse|quick|full [--quick]`: MB/s of one kind of work over the corpus,
 * in a process of its own (no heap left over from another measurement): a warm-up (three passes
 * and 0.5 s at least), then whole passes until at least 3 s (1.5 s with --quick, and at least 3
 * passes) have gone by.
 */
function childRate(kind: string): void {
  const texts = corpusTexts();
  const bytes = texts.reduce((n, t) => n + t.length, 0);
  const service = createService();
  const pass = (): number => {
    let n = 0;
    for (const text of texts) {
      if (kind === 'baseline') n += baseline(text);
      else if (kind === 'parse') n += parse(text).lines.length;
      else n += service.analyze({ text, uri: 'file:///bench/x.conf', depth: kind === 'quick' ? 'quick' : 'full' }).findings.length;
    }
    return n;
  };
  // Warm up until the JIT has settled: three passes and half a second at least.
  const w0 = Date.now();
  for (let i = 0; i < 3 || Date.now() - w0 < 500; i++) sink += pass();
  const minMs = quick ? 1500 : 3000;
  // Wall time is the rate; CPU time (all threads, garbage collection included) is printed too.
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let passes = 0;
  let ms = 0;
  while (passes < 3 || ms < minMs) {
    sink += pass();
    passes++;
    ms = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const cpu = process.cpuUsage(c0);
  const cpuSec = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(JSON.stringify({ mbps: (bytes * passes) / 1e6 / (ms / 1000), cpuMbps: (bytes * passes) / 1e6 / cpuSec, passes }) + '\n');
}

/** `--child-profile analyze|parse`: loop over the corpus for a few seconds (run under --cpu-prof). */
function childProfile(what: string): void {
  const texts = corpusTexts();
  const service = createService();
  const end = Date.now() + (quick ? 3000 : 6000);
  while (Date.now() < end) {
    for (const text of texts) {
      sink += what === 'parse' ? parse(text).lines.length : service.analyze({ text, uri: 'file:///bench/x.conf' }).findings.length;
    }
  }
}

/**
 * `--child-echo DIAGNOSTICS --stdio`: a stand-in language server that does no analysis. It answers
 * initialize and shutdown, and every didOpen and didChange with a publishDiagnostics of the
 * diagnostics in the JSON file DIAGNOSTICS (fresh objects each time, as a server makes them).
 * Its latency is what sending that list costs on this machine: the floor under the real server's.
 */
function childEcho(file: string): void {
  const list = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ range: { start: object; end: object } }>;
  // The server's own encoder (the same bytes as JSON.stringify, written as the server writes them).
  const encoder = new ReusedBufferEncoder();
  const write = (m: object): void => {
    const body = encoder.bytesOf(m);
    process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
    // The kept buffer is written as is: the bench sends the next change only once this publish has arrived.
    process.stdout.write(body);
  };
  let chunks: Buffer[] = [];
  let have = 0;
  process.stdin.on('data', (d: Buffer) => {
    chunks.push(d);
    have += d.length;
    for (;;) {
      const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
      chunks = [buf];
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString('ascii'))?.[1] ?? 0);
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString('utf8')) as {
        id?: number;
        method?: string;
        params?: { textDocument?: { uri: string; version: number } };
      };
      chunks = [buf.subarray(head + 4 + len)];
      have = chunks[0].length;
      if (msg.method === 'initialize') write({ jsonrpc: '2.0', id: msg.id, result: { capabilities: {} } });
      else if (msg.method === 'shutdown') write({ jsonrpc: '2.0', id: msg.id, result: null });
      else if (msg.method === 'exit') process.exit(0);
      else if ((msg.method === 'textDocument/didOpen' || msg.method === 'textDocument/didChange') && msg.params?.textDocument) {
        const { uri, version } = msg.params.textDocument;
        const diagnostics = list.map((d) => ({ ...d, range: { start: { ...d.range.start }, end: { ...d.range.end } } }));
        write({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri, version, diagnostics } });
      }
    }
  });
}

/**
 * About `lines` lines of real configuration: the corpus files one after another (each whole, in
 * name order, repeated when the corpus is smaller), so the density of findings is that of real
 * files, unlike the generated config, which is a 2.2 access block every few lines.
 */
function realLines(lines: number): string {
  const texts = corpusTexts().map((t) => (t.endsWith('\n') ? t.slice(0, -1) : t));
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < lines && texts.length; i = (i + 1) % texts.length) {
    out.push(texts[i]);
    n += texts[i].split('\n').length;
  }
  return out.join('\n') + '\n';
}

/** Run this script as a child; its stdout, or null when it ran out of time. */
function runChild(extra: string[], timeoutMs: number, nodeFlags: string[] = []): string | null {
  const r = spawnSync(process.execPath, [...nodeFlags, ...selfArgs, ...extra], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return null;
  if (r.signal === 'SIGKILL') return null;
  if (r.status !== 0) throw new Error(`child ${extra.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** Self time by function from a .cpuprofile, top `n`. */
function summarizeProfile(file: string, n: number): Array<{ fn: string; where: string; ms: number; pct: number }> {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((x) => [x.id, x]));
  const self = new Map<string, { fn: string; where: string; us: number }>();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = prof.timeDeltas[i] ?? 0;
    total += dt;
    const cf = node.callFrame;
    // Line numbers are those of tsx's transformed output, so only the file is shown.
    const where = cf.url ? path.relative(repo, cf.url.replace(/^file:\/\//, '')) : '(native)';
    const key = `${cf.functionName}@${where}`;
    const e = self.get(key) ?? { fn: cf.functionName || '(anonymous)', where, us: 0 };
    e.us += dt;
    self.set(key, e);
  });
  return [...self.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, n)
    .map((e) => ({ fn: e.fn, where: e.where, ms: e.us / 1000, pct: (100 * e.us) / total }));
}

// ---------------------------------------------------------------- LSP client

class LspClient {
  /** Chunks read and not yet parsed (joined only once a whole message is in, as editors' clients do). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The body length of the message being read, once its header is in. */
  private bodyLength = -1;
  private nextId = 1;
  private pending = new Map<number, (r: unknown) => void>();
  private diagWaiters: Array<{ uri: string; version: number; resolve: () => void }> = [];
  readonly child;

  /** `server` is the script and its arguments before `--stdio`. */
  constructor(server: readonly string[], nodeFlags: readonly string[]) {
    this.child = spawn(process.execPath, [...nodeFlags, ...server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout.on('data', (d: Buffer) => this.onData(d));
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    for (;;) {
      if (this.bodyLength < 0) {
        const buf = this.take();
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const m = /Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString('ascii'));
        if (!m) throw new Error('bad header from the server');
        this.bodyLength = Number(m[1]);
        this.chunks = [buf.subarray(head + 4)];
        this.buffered = buf.length - head - 4;
      }
      // A large message arrives in many chunks: wait for all of them before joining.
      if (this.buffered < this.bodyLength) return;
      const buf = this.take();
      const msg = JSON.parse(buf.subarray(0, this.bodyLength).toString('utf8'));
      this.chunks = [buf.subarray(this.bodyLength)];
      this.buffered = buf.length - this.bodyLength;
      this.bodyLength = -1;
      this.onMessage(msg);
    }
  }

  /** The buffered chunks as one buffer. */
  private take(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0];
  }

  private onMessage(msg: { id?: number; method?: string; params?: { uri: string; version?: number }; result?: unknown }): void {
    if (msg.id !== undefined && msg.method === undefined) {
      this.pending.get(msg.id)?.(msg.result);
      this.pending.delete(msg.id);
    } else if (msg.id !== undefined && msg.method) {
      // A request from the server (configuration, registration…): answer with nothing.
      this.write({ jsonrpc: '2.0', id: msg.id, result: null });
    } else if (msg.method === 'textDocument/publishDiagnostics' && msg.params) {
      const { uri, version } = msg.params;
      this.diagWaiters = this.diagWaiters.filter((w) => {
        if (w.uri === uri && (version === undefined || version >= w.version)) {
          w.resolve();
          return false;
        }
        return true;
      });
    }
  }

  private write(msg: object): void {
    const s = JSON.stringify(msg);
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`);
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  diagnosticsFor(uri: string, version: number): Promise<void> {
    return new Promise((resolve) => this.diagWaiters.push({ uri, version, resolve }));
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.on('exit', r));
    await this.request('shutdown', null);
    this.notify('exit', null);
    await exited;
  }
}

/** Typing latency is measured after a warm-up of this long (ms) and this many changes. */
const WARM_UP_MS = 3000;
const WARM_UP_CHANGES = 5;

/** Median ms from didChange to the publishDiagnostics of that version after a warm-up, or null past `deadlineMs`. */
export async function lspLatency(
  server: readonly string[],
  text: string,
  runs: number,
  debounceMs: number | undefined,
  deadlineMs: number,
  nodeFlags: readonly string[] = SERVER_NODE_FLAGS,
): Promise<number | null> {
  const client = new LspClient(server, nodeFlags);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      client.child.kill('SIGKILL');
      resolve(null);
    }, deadlineMs);
  });
  const measure = async (): Promise<number> => {
    const initializationOptions = debounceMs === undefined ? {} : { settings: { validate: { debounceMs } } };
    await client.request('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions });
    client.notify('initialized', {});
    const uri = `file:///bench/generated-${text.length}.conf`;
    let version = 1;
    const opened = client.diagnosticsFor(uri, version);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'apacheconf', version, text } });
    await opened;
    // Insert, then remove, a space at the start of the first line: the structure stays the same.
    let changes = 0;
    const change = async (): Promise<number> => {
      version++;
      const done = client.diagnosticsFor(uri, version);
      const t = process.hrtime.bigint();
      const edit =
        changes++ % 2 === 0
          ? { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' }
          : { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: '' };
      client.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [edit] });
      await done;
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    // Warm-up, not counted: changes for WARM_UP_MS and WARM_UP_CHANGES at least. The JIT compiles
    // the change path, the full pass of the opened version ends in its worker, and the scheduler
    // learns the file's cost (the first changes after a cold start wait for the debounce).
    const warmUntil = Date.now() + WARM_UP_MS;
    while (changes < WARM_UP_CHANGES || Date.now() < warmUntil) await change();
    const times: number[] = [];
    for (let r = 0; r < runs; r++) times.push(await change());
    await client.close();
    return median(times);
  };
  try {
    return await Promise.race([measure(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------- main

interface Row {
  name: string;
  value: string;
  target?: string;
  ok?: boolean;
}

const fmtMB = (bytes: number): string => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;

async function main(): Promise<void> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const texts = corpusTexts();
  const corpusBytes = texts.reduce((n, t) => n + t.length, 0);
  const budget = quick ? 30_000 : 120_000; // per heavy measurement, in ms
  console.log(`apacheconf bench: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}${quick ? ' (quick)' : ''}`);
  console.log(`corpus: ${texts.length} files, ${fmtMB(corpusBytes)}${fs.existsSync(corpusDir) ? '' : ' (examples/: ../shared/corpus is absent)'}`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-bench-'));
  try {
    // (a) baseline over the corpus concatenated many times.
    const copies = Math.max(1, Math.ceil((quick ? 8e6 : 32e6) / corpusBytes));
    const big = Array.from({ length: copies }, () => texts.join('\n')).join('\n');
    const base = throughput(big.length, quick ? 3 : 7, () => baseline(big));
    rows.push({ name: `(a) baseline: split, join, words (corpus ×${copies}, ${fmtMB(big.length)})`, value: `${base.toFixed(1)} MB/s` });

    // (b) parse alone and parse+diagnose, per file over the corpus, each in a fresh child process
    // (as is the baseline beside them, so the ratios compare like with like).
    const rate = (kind: string): number | null => {
      const out = runChild(['--child-rate', kind, ...(quick ? ['--quick'] : [])], budget);
      return out ? (JSON.parse(out) as { mbps: number }).mbps : null;
    };
    // Each rate is paired with a baseline run just before it, and the ratio of each pair counted:
    // on a machine whose speed drifts (a shared VM), pairs compare like with like.
    const paired = (kind: string, pairs: number): { rate: number; base: number; ratio: number; ratios: number[] } => {
      const rs: number[] = [];
      const bs: number[] = [];
      const ratios: number[] = [];
      for (let i = 0; i < pairs; i++) {
        const b = rate('baseline') ?? base;
        const r = rate(kind) ?? 0;
        bs.push(b);
        rs.push(r);
        ratios.push(r / b);
      }
      return { rate: median(rs), base: median(bs), ratio: median(ratios), ratios };
    };
    const pairsNote = (p: { ratios: number[] }) => (p.ratios.length > 1 ? `, median of ${p.ratios.length} pairs: ${p.ratios.map((x) => x.toFixed(2)).join(', ')}` : '');
    const parseP = paired('parse', 1);
    const corpusBase = parseP.base;
    rows.push({ name: '(a) baseline over the corpus, per file (child process)', value: `${corpusBase.toFixed(1)} MB/s` });
    const parseRate = parseP.rate;
    rows.push({ name: '(b) parse only, corpus (per file)', value: `${parseRate.toFixed(1)} MB/s = ${parseP.ratio.toFixed(2)}× baseline` });
    const fullP = paired('full', 1);
    const analyzeRate = fullP.rate;
    rows.push({
      name: '(b) parse+diagnose, full pass (CLI, editor worker), corpus',
      value: `${analyzeRate.toFixed(2)} MB/s = ${fullP.ratio.toFixed(3)}× baseline`,
      target: '≥ 0.5× baseline',
      ok: fullP.ratio >= 0.5,
    });
    // The quick pass: what the editor publishes at once (no access-engine request points or exact rewrites).
    const quickP = paired('quick', quick ? 3 : 5);
    rows.push({
      name: '(b) parse+diagnose, quick pass (editor, first publish), corpus',
      value: `${quickP.rate.toFixed(2)} MB/s = ${quickP.ratio.toFixed(3)}× baseline${pairsNote(quickP)}`,
      target: '≥ 0.5× baseline',
      ok: quickP.ratio >= 0.5,
    });
    const service = createService();

    // (b) the generated 100k-line config, in a child with a time limit.
    const gen = generateConfig(100_000);
    const genFile = path.join(tmp, 'gen-100k.conf');
    fs.writeFileSync(genFile, gen, 'latin1');
    const genBase = throughput(gen.length, quick ? 3 : 7, () => baseline(gen));
    // The quick pass in a process of its own, timed once the JIT has settled as the corpus's rates
    // are (the editor's server has analysed the file on earlier changes), each run paired with one
    // of the baseline over the same file, timed the same way just before it; the median of the
    // pairs' ratios. The cold first pass and the warm-up's passes are printed beside it.
    const genPairs: Array<{ ratio: number; r: { ms: number; mbps: number; firstMs: number; warmMs: number[]; passes: number }; base: number }> = [];
    for (let i = 0; i < (quick ? 3 : 5); i++) {
      const b = runChild(['--child-steady', genFile, 'baseline', ...(quick ? ['--quick'] : [])], budget);
      const q = runChild(['--child-steady', genFile, 'quick', ...(quick ? ['--quick'] : [])], budget);
      if (!b || !q) break;
      const base = (JSON.parse(b) as { mbps: number }).mbps;
      const r = JSON.parse(q) as { ms: number; mbps: number; firstMs: number; warmMs: number[]; passes: number };
      genPairs.push({ ratio: r.mbps / base, r, base });
    }
    if (genPairs.length) {
      const ratio = median(genPairs.map((p) => p.ratio));
      const mid = [...genPairs].sort((x, y) => x.ratio - y.ratio)[(genPairs.length - 1) >> 1];
      rows.push({
        name: `(b) parse+diagnose, quick pass, generated 100k lines (${fmtMB(gen.length)})`,
        value:
          `${mid.r.mbps.toFixed(2)} MB/s = ${ratio.toFixed(3)}× its baseline (${mid.base.toFixed(0)} MB/s), ${mid.r.ms.toFixed(0)} ms a pass once warm ` +
          `(median of ${genPairs.length} pairs: ${genPairs.map((p) => p.ratio.toFixed(2)).join(', ')}; the cold first pass ${mid.r.firstMs.toFixed(0)} ms, then the warm-up's ${mid.r.warmMs.map((x) => x.toFixed(0)).join(', ')} ms)`,
        target: '≥ 0.5× baseline',
        ok: ratio >= 0.5,
      });
    } else {
      rows.push({ name: `(b) parse+diagnose, quick pass, generated 100k lines (${fmtMB(gen.length)})`, value: `did not finish in ${budget / 1000} s`, target: '≥ 0.5× baseline', ok: false });
    }
    const genOut = runChild(['--child-analyze', genFile, quick ? '1' : '3'], budget);
    if (genOut) {
      const r = JSON.parse(genOut) as { mbps: number; ms: number; firstMs: number };
      rows.push({
        name: `(b) parse+diagnose, full pass, generated 100k lines (${fmtMB(gen.length)})`,
        value: `${r.mbps.toFixed(2)} MB/s = ${(r.mbps / genBase).toFixed(3)}× its baseline (${genBase.toFixed(0)} MB/s), ${r.ms.toFixed(0)} ms (the first run: ${r.firstMs.toFixed(0)} ms)`,
        target: '≥ 0.5× baseline',
        ok: r.mbps >= 0.5 * genBase,
      });
    } else {
      rows.push({
        name: `(b) parse+diagnose, generated 100k lines (${fmtMB(gen.length)})`,
        value: `did not finish in ${budget / 1000} s`,
        target: '≥ 0.5× baseline',
        ok: false,
      });
    }

    // How parse+diagnose grows with the size of one file, and which rule it is.
    const scaling: string[] = [];
    let slowest: { id: string; ms: number } | undefined;
    for (const lines of [1_000, 2_000, 4_000, 8_000]) {
      const f = path.join(tmp, `gen-${lines}.conf`);
      const text = generateConfig(lines);
      fs.writeFileSync(f, text, 'latin1');
      const out = runChild(['--child-analyze', f, '1'], budget / 2);
      if (!out) {
        scaling.push(`${lines} lines: > ${budget / 2000} s`);
        break;
      }
      const r = JSON.parse(out) as { ms: number; mbps: number };
      scaling.push(`${lines} lines: ${r.ms.toFixed(0)} ms (${r.mbps.toFixed(2)} MB/s)`);
      if (lines === 1_000) {
        const per = JSON.parse(runChild(['--child-rules', f], budget) ?? '{}') as Record<string, number>;
        const top = Object.entries(per).sort((x, y) => y[1] - x[1])[0];
        if (top) slowest = { id: top[0], ms: top[1] };
        notes.push(`per rule on the generated 1k-line file: ${Object.entries(per).sort((x, y) => y[1] - x[1]).slice(0, 5).map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ')}`);
      }
    }
    notes.push(`parse+diagnose of one generated file by size: ${scaling.join('; ')}`);
    // A file of virtual hosts that another file includes (no Listen line: a hosting panel's file
    // of sites): each section's rewrite is checked under several main files, which must cost the
    // same per host however many hosts the file has.
    const hostScaling: string[] = [];
    for (const hosts of [250, 500, 1_000, 2_000]) {
      const f = path.join(tmp, `hosts-${hosts}.conf`);
      fs.writeFileSync(f, generateHosts(hosts), 'latin1');
      const out = runChild(['--child-analyze', f, '1'], budget / 2);
      if (!out) {
        hostScaling.push(`${hosts} hosts: > ${budget / 2000} s`);
        break;
      }
      const r = JSON.parse(out) as { ms: number };
      hostScaling.push(`${hosts} hosts: ${r.ms.toFixed(0)} ms (${(r.ms / hosts).toFixed(2)} ms a host)`);
    }
    notes.push(`full pass of a file of virtual hosts another file includes, by hosts: ${hostScaling.join('; ')}`);
    if (slowest && slowest.ms > 50) {
      const out = runChild(['--child-analyze', genFile, '1', slowest.id], budget);
      rows.push({
        name: `(b) parse+diagnose, 100k lines, without ${slowest.id}`,
        value: out
          ? (() => {
              const r = JSON.parse(out) as { mbps: number; ms: number };
              return `${r.mbps.toFixed(1)} MB/s = ${(r.mbps / genBase).toFixed(2)}× its baseline, ${r.ms.toFixed(0)} ms`;
            })()
          : `did not finish in ${budget / 1000} s`,
      });
    }

    // (c) LSP latency through dist/server.js --stdio, started with the Node flags the VS Code
    // extension starts it with (and once without them, as another editor may start it).
    const serverJs = path.join(repo, 'dist/server.js');
    const server = [serverJs];
    if (args.includes('--no-lsp')) {
      rows.push({ name: '(c) LSP latency', value: 'skipped (--no-lsp)' });
    } else if (!fs.existsSync(serverJs)) {
      rows.push({ name: '(c) LSP latency', value: 'skipped: dist/server.js is missing (run npm run build)' });
    } else {
      let gaveUp = false;
      for (const lines of [1_000, 10_000, 100_000]) {
        const text = generateConfig(lines, lines);
        const runs = lines >= 100_000 ? (quick ? 3 : 5) : quick ? 11 : 31;
        const variants: Array<{ debounce: number | undefined; flags: readonly string[] }> = [
          { debounce: undefined, flags: SERVER_NODE_FLAGS },
          { debounce: 0, flags: SERVER_NODE_FLAGS },
          ...(lines === 10_000 ? [{ debounce: undefined, flags: [] }] : []),
        ];
        for (const { debounce, flags } of variants) {
          const how = flags.length ? '' : ', node without flags';
          const label = `(c) didChange → diagnostics, ${lines / 1000}k lines, ${debounce === undefined ? 'default debounce' : 'debounce 0'}${how}`;
          const row: Row = { name: label, value: '' };
          if (lines === 10_000 && flags.length) row.target = '< 20 ms';
          if (gaveUp) {
            row.value = 'skipped: a smaller file already timed out';
            row.ok = false;
          } else {
            const ms = await lspLatency(server, text, runs, debounce, budget, flags);
            if (ms === null) {
              gaveUp = true;
              row.value = `no diagnostics within ${budget / 1000} s`;
              row.ok = false;
            } else {
              row.value = `${ms.toFixed(1)} ms (median of ${runs})`;
              if (row.target) row.ok = ms < 20;
            }
          }
          rows.push(row);
        }
      }
      // 10,000 lines of real files, and what sending each 10k file's diagnostics costs by itself.
      const real = realLines(10_000);
      const realLineCount = real.split('\n').length - 1;
      const tenK: Array<{ what: string; text: string }> = [
        { what: `${realLineCount} lines of real files (corpus, whole files in order)`, text: real },
        { what: '10k generated lines', text: generateConfig(10_000, 10_000) },
      ];
      for (const { what, text } of tenK) {
        const a = service.analyze({ text, uri: 'file:///bench/x.conf', depth: 'quick' });
        const diagnostics = service.diagnostics(a);
        const bytes = Buffer.byteLength(JSON.stringify(diagnostics));
        const size = `${diagnostics.length} diagnostics, ${fmtMB(bytes)}`;
        if (text === real && !gaveUp) {
          const ms = await lspLatency(server, text, quick ? 11 : 31, undefined, budget);
          rows.push({
            name: `(c) didChange → diagnostics, ${what}, default debounce`,
            value: ms === null ? `no diagnostics within ${budget / 1000} s` : `${ms.toFixed(1)} ms (median of ${quick ? 11 : 31}; ${size})`,
            target: '< 20 ms',
            ok: ms !== null && ms < 20,
          });
        }
        const file = path.join(tmp, `diagnostics-${rows.length}.json`);
        fs.writeFileSync(file, JSON.stringify(diagnostics));
        const floor = await lspLatency([...selfArgs, '--child-echo', file], text, quick ? 11 : 31, undefined, budget, []);
        rows.push({
          name: `(c) the same publish from a stand-in server that does no analysis, ${what}`,
          value: floor === null ? `no answer within ${budget / 1000} s` : `${floor.toFixed(1)} ms (median; ${size})`,
        });
      }
      notes.push('the default debounce is the server\'s apacheconf.validate.debounceMs (150 ms); "debounce 0" shows the processing time alone');
      notes.push(`latencies are medians of changes made one after another once the server is warm: changes for ${WARM_UP_MS / 1000} s and ${WARM_UP_CHANGES} at least go first and are not counted`);
      notes.push('the stand-in server answers each change with the same diagnostics and does nothing else: its latency is the cost of sending that list (JSON on both sides, the pipe), a floor under the real server\'s');
      notes.push(`the server is started as the VS Code extension starts it: node ${SERVER_NODE_FLAGS.join(' ')} dist/server.js (client/src/server-flags.ts)`);
    }

    // (d) memory per input byte: peak RSS of a child on the 100k-line file minus one on an empty file.
    const emptyOut = runChild(['--child-mem', ''], budget);
    const emptyRss = emptyOut ? (JSON.parse(emptyOut) as { maxRssBytes: number }).maxRssBytes : null;
    /** Peak RSS over the empty file's, per input byte, of a `--child-mem` run's output. */
    const memRow = (name: string, out: string | null, target: boolean): void => {
      if (out === null || emptyRss === null) {
        rows.push({ name, value: `did not finish in ${budget / 1000} s`, ...(target ? { target: '< 10 B/B', ok: false } : {}) });
        return;
      }
      const extra = (JSON.parse(out) as { maxRssBytes: number }).maxRssBytes - emptyRss;
      const perByte = extra / gen.length;
      rows.push({ name, value: `${perByte.toFixed(1)} B/B (${fmtMB(extra)} for ${fmtMB(gen.length)})`, ...(target ? { target: '< 10 B/B', ok: perByte < 10 } : {}) });
    };
    const fullOut = runChild(['--child-mem', genFile], budget);
    memRow('(d) peak RSS over an empty file, per input byte, full pass', fullOut, true);
    // What the editor's main thread holds for a file this size (its full pass is off for > 20,000 lines).
    memRow('(d) the same, quick pass (editor)', runChild(['--child-mem', genFile, '', 'quick'], budget), true);
    if (fullOut === null && slowest) memRow(`(d) the same without ${slowest.id}`, runChild(['--child-mem', genFile, slowest.id], budget), false);

    printTable(rows);
    if (notes.length) {
      console.log('');
      for (const n of notes) console.log(`note: ${n}`);
    }

    // Where the time goes, when parse+diagnose is too slow.
    if (analyzeRate < 0.5 * corpusBase && !args.includes('--no-profile')) {
      for (const what of ['analyze', 'parse']) {
        if (what === 'parse' && parseRate >= 0.5 * corpusBase) continue;
        console.log(`\n${what === 'parse' ? 'parse alone is' : 'parse+diagnose is'} below half the baseline: --cpu-prof of a child looping ${what} over the corpus, top self time:`);
        const profDir = path.join(tmp, `prof-${what}`);
        runChild(['--child-profile', what, ...(quick ? ['--quick'] : [])], budget, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
        const prof = fs.existsSync(profDir) ? fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile')) : undefined;
        if (!prof) continue;
        for (const e of summarizeProfile(path.join(profDir, prof), 12)) {
          console.log(`  ${e.pct.toFixed(1).padStart(5)}%  ${e.ms.toFixed(0).padStart(7)} ms  ${e.fn}  ${e.where}`);
        }
      }
      console.log('\ntime per rule over the corpus (parsed once):');
      const docs = texts.map((t) => parse(t));
      const perRule = RULES.map((rule) => {
        const t = process.hrtime.bigint();
        for (const doc of docs) rule.check({ doc, fileContext: 'server' });
        return { id: rule.id, ms: Number(process.hrtime.bigint() - t) / 1e6 };
      }).sort((x, y) => y.ms - x.ms);
      for (const r of perRule) console.log(`  ${r.ms.toFixed(0).padStart(7)} ms  ${r.id}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (sink === -1) console.log('');
}

function printTable(rows: Row[]): void {
  const w0 = Math.max(...rows.map((r) => r.name.length));
  const w1 = Math.max(...rows.map((r) => r.value.length));
  console.log('');
  console.log(`${'measure'.padEnd(w0)}  ${'value'.padEnd(w1)}  target`);
  console.log(`${'-'.repeat(w0)}  ${'-'.repeat(w1)}  ${'-'.repeat(24)}`);
  for (const r of rows) {
    const verdict = r.target ? `${r.target}  ${r.ok ? 'ok' : 'MISSED'}` : '';
    console.log(`${r.name.padEnd(w0)}  ${r.value.padEnd(w1)}  ${verdict}`);
  }
}

if (require.main !== module || process.env.NO_BENCH_MAIN) {
  // Imported (for generateConfig, lspLatency), or bundled into a probe that sets NO_BENCH_MAIN: run nothing.
} else if (args[0] === '--child-mem') childMem(args[1] ?? '', args[2], args[3] === 'quick' ? 'quick' : 'full');
else if (args[0] === '--child-steady') childSteady(args[1], args[2] ?? 'quick');
else if (args[0] === '--child-analyze') childAnalyze(args[1], Number(args[2] ?? '1'), args[3] || undefined, args[4] === 'quick' ? 'quick' : 'full');
else if (args[0] === '--child-rules') childRules(args[1]);
else if (args[0] === '--child-profile') childProfile(args[1] ?? 'analyze');
else if (args[0] === '--child-rate') childRate(args[1] ?? 'quick');
else if (args[0] === '--child-echo') childEcho(args[1]);
else if (args[0] === '--generate') fs.writeFileSync(args[2], generateConfig(Number(args[1] ?? '100000')), 'latin1');
else if (args[0] === '--latency') {
  // `--latency LINES [DEBOUNCE]`: only the typing latency on a generated file of LINES lines.
  const lines = Number(args[1] ?? '10000');
  const debounce = args[2] === undefined ? undefined : Number(args[2]);
  // APACHECONF_BENCH_SERVER_FLAGS: more Node flags for the server (`--cpu-prof --cpu-prof-dir=DIR` to see where its time goes).
  const extra = (process.env.APACHECONF_BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  lspLatency([path.join(repo, 'dist/server.js')], generateConfig(lines, lines), 31, debounce, 120_000, [...SERVER_NODE_FLAGS, ...extra]).then((ms) => console.log(`${lines} lines, ${debounce === undefined ? 'default debounce' : `debounce ${debounce}`}: ${ms === null ? 'no answer' : ms.toFixed(1) + ' ms'}`));
} else if (args[0] === '--echo') {
  // `--echo DIAGNOSTICS [LINES]`: the stand-in server's latency for a JSON list of diagnostics.
  const lines = Number(args[2] ?? '10000');
  lspLatency([...selfArgs, '--child-echo', args[1]], generateConfig(lines, lines), 31, undefined, 120_000, []).then((ms) =>
    console.log(`stand-in publish of ${args[1]}: ${ms === null ? 'no answer' : ms.toFixed(1) + ' ms'}`),
  );
} else
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
