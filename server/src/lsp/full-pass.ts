/**
 * The full pass (the access engine's exact checks) off the main thread.
 *
 * The quick diagnostics are computed where requests are answered; the full pass can take
 * seconds on a large file, and run there it would hold up every keystroke, hover and completion
 * behind it. So it runs in a worker thread: the same bundle, started with a marker in
 * `workerData`, answering one job at a time. A job that a newer version of its document makes
 * stale is not finished: the worker is stopped and a fresh one takes the next job.
 *
 * Without a bundle to start (the sources run under tsx, or a host that cannot start workers)
 * the runner does the job inline, after the current event-loop turn, as before.
 */
import * as os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createService, type ReportedFinding, type ServiceSettings } from '../service';
import { htaccessUnder, viewWithHtaccess } from '../features/htaccess-context';
import type { ConfigurationView } from '../access';
import type { HtaccessUnder } from '../rules';
import { diskHost } from '../model/disk';
import type { FileContext } from '../model/context';
import { configurationView, type ConfigurationData } from './htaccess';

export const FULL_PASS_ROLE = 'apacheconf-full-pass';
/** The old-generation heap a full-pass worker may use (MB). */
export const FULL_PASS_HEAP_MB = 1024;

export interface FullPassJob {
  text: string;
  uri: string;
  context: FileContext;
  settings: ServiceSettings;
  /**
   * The AccessFileName names when the workspace is trusted and its server configuration is known:
   * the pass then reads the .htaccess files under the directories a rewrite depends on
   * (ServiceSettings.htaccessUnder, which cannot cross to the worker itself).
   */
  htaccessNames?: string[];
  /** The workspace configuration a server-config file is read in (its access rewrites are planned there). */
  configuration?: ConfigurationData;
  /** The disk's generation when the job was made (diskChanged): the worker drops what it kept of older ones. */
  diskEpoch?: number;
  /** Included by another file of a configuration that cannot be read whole (AnalyzeInput.included). */
  included?: boolean;
}

interface JobMessage {
  id: number;
  job: FullPassJob;
}

interface ReplyMessage {
  id: number;
  findings?: ReportedFinding[];
  error?: string;
}

/** True inside a worker started by FullPassRunner: the entry point then calls runFullPassWorker instead of its own main. */
export function isFullPassWorker(): boolean {
  return !isMainThread && (workerData as { role?: string } | null)?.role === FULL_PASS_ROLE;
}

/** What the .htaccess files under a folder said, kept a few seconds: a full pass runs after every pause in typing. */
const underCache = new Map<string, { at: number; r: HtaccessUnder }>();
const UNDER_TTL_MS = 5000;

function cachedUnder(dir: string, below: boolean, names: readonly string[]): HtaccessUnder {
  const key = `${below ? 1 : 0}${names.join('/')}\u0000${dir}`;
  const now = Date.now();
  const hit = underCache.get(key);
  if (hit && now - hit.at < UNDER_TTL_MS) return hit.r;
  const r = htaccessUnder(dir, diskHost, names, below);
  if (underCache.size > 256) underCache.clear();
  underCache.set(key, { at: now, r });
  return r;
}

/** Settings that read the .htaccess files of the disk (AccessFileName `names`), with what they said kept a few seconds. */
export function withDiskHtaccess(settings: ServiceSettings, names: readonly string[]): ServiceSettings {
  return { ...settings, htaccessUnder: (dir, below = false) => cachedUnder(dir, below, names) };
}

/**
 * `view` with the .htaccess files of the disk that httpd reads in it spliced in (viewWithHtaccess),
 * for a trusted workspace; the last one is kept a few seconds (a full pass runs after every pause in typing).
 */
let lastSpliced: { doc: object; at: number; view: ConfigurationView } | null = null;

/** The disk's generation the caches above hold (the server bumps it when files are saved or change on disk). */
let cachedEpoch = 0;

/** Files were saved or changed on disk (`epoch` counts those events): what was kept of the .htaccess files is read again. */
export function diskChanged(epoch: number): void {
  if (epoch === cachedEpoch) return;
  cachedEpoch = epoch;
  underCache.clear();
  lastSpliced = null;
}

export function splicedView(view: ConfigurationView): ConfigurationView {
  const now = Date.now();
  if (!lastSpliced || lastSpliced.doc !== view.doc || now - lastSpliced.at >= UNDER_TTL_MS) lastSpliced = { doc: view.doc, at: now, view: viewWithHtaccess(view, diskHost) };
  return { ...lastSpliced.view, path: view.path, root: view.root };
}

function analyzeJob(job: FullPassJob): ReportedFinding[] {
  if (job.diskEpoch !== undefined) diskChanged(job.diskEpoch);
  const names = job.htaccessNames;
  const settings: ServiceSettings = names ? withDiskHtaccess(job.settings, names) : job.settings;
  // A trusted workspace: the .htaccess files httpd reads in the configuration are read with it.
  let configuration = configurationView(job.configuration);
  if (configuration && names) configuration = splicedView(configuration);
  return createService(settings).analyze({ text: job.text, uri: job.uri, context: job.context, depth: 'full', configuration, included: job.included }).findings;
}

/** The worker's loop: one job per message, findings (plain data) back. */
let serving = false;

export function runFullPassWorker(): void {
  const port = parentPort;
  // Once per thread, whichever entry point of the bundle asks first.
  if (!port || serving) return;
  serving = true;
  // Below the thread that answers the editor: on Linux a priority set for "process 0" applies to
  // the calling thread alone (elsewhere it would slow the whole server, so it is left as is).
  if (process.platform === 'linux') {
    try {
      os.setPriority(10);
    } catch {
      // Not allowed here: the pass simply runs at the normal priority.
    }
  }
  port.on('message', (m: JobMessage) => {
    let reply: ReplyMessage;
    try {
      reply = { id: m.id, findings: analyzeJob(m.job) };
    } catch (e) {
      reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
}

interface Pending {
  id: number;
  key: string;
  job: FullPassJob;
  resolve: (findings: ReportedFinding[] | null) => void;
  /** Asked before the job starts: false drops it (its document changed meanwhile). */
  wanted: () => boolean;
}

/**
 * Runs full passes one at a time, the newest per document. `run` resolves with the findings, or
 * with null when the job was replaced by a newer one for the same key (or failed).
 */
export class FullPassRunner {
  private worker: Worker | null = null;
  private running: Pending | null = null;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private disposed = false;
  /** How many workers were started (a stale job costs one). */
  started = 0;

  /**
   * @param script the bundle to start as the worker (dist/server.js or dist/cli.js); null runs
   *   every job inline.
   * @param log where worker failures are reported.
   * @param heapMb the old-generation heap each worker may use.
   */
  constructor(
    private readonly script: string | null,
    private readonly log: (message: string) => void = () => undefined,
    private readonly heapMb: number = FULL_PASS_HEAP_MB,
  ) {}

  get usesWorker(): boolean {
    return this.script !== null;
  }

  run(key: string, job: FullPassJob, wanted: () => boolean = () => true): Promise<ReportedFinding[] | null> {
    return new Promise((resolve) => {
      if (this.disposed) return resolve(null);
      // An older job for the same document is stale: drop it from the queue, or stop it.
      for (let i = this.queue.length - 1; i >= 0; i--) {
        if (this.queue[i].key === key) this.queue.splice(i, 1)[0].resolve(null);
      }
      const p: Pending = { id: this.nextId++, key, job, resolve, wanted };
      this.queue.push(p);
      if (this.running?.key === key) this.stopRunning();
      this.pump();
    });
  }

  /**
   * The findings of `job`, from a pass already running or waiting for the same document, text,
   * context and settings when there is one (its result serves both callers), else from a new
   * pass as `run` starts it. A code action and the validation of the same version then share one
   * pass instead of the second stopping the first.
   */
  share(key: string, job: FullPassJob, wanted: () => boolean = () => true): Promise<ReportedFinding[] | null> {
    const settings = JSON.stringify([job.settings, job.htaccessNames]);
    const same = (p: Pending | null | undefined): p is Pending =>
      !!p && p.key === key && p.job.text === job.text && p.job.context === job.context && JSON.stringify([p.job.settings, p.job.htaccessNames]) === settings;
    const p = same(this.running) ? this.running : this.queue.find(same);
    if (!p) return this.run(key, job, wanted);
    return new Promise((resolve) => {
      const first = p.resolve;
      p.resolve = (findings) => {
        first(findings);
        resolve(findings);
      };
    });
  }

  /** Stop the running job (its result would be stale) and the worker with it. */
  private stopRunning(): void {
    const r = this.running;
    this.running = null;
    r?.resolve(null);
    const w = this.worker;
    this.worker = null;
    if (w) void w.terminate();
  }

  private pump(): void {
    if (this.running || this.disposed) return;
    let next = this.queue.shift();
    while (next && !next.wanted()) {
      next.resolve(null);
      next = this.queue.shift();
    }
    if (!next) return;
    this.running = next;
    if (!this.script) {
      setTimeout(() => {
        if (this.running !== next) return;
        if (!next.wanted()) return this.finish(next, null);
        let findings: ReportedFinding[] | null = null;
        try {
          findings = analyzeJob(next.job);
        } catch (e) {
          this.log(`full pass failed: ${(e as Error).message}`);
        }
        this.finish(next, findings);
      }, 0);
      return;
    }
    const w = this.ensureWorker();
    if (!w) {
      this.finish(next, null);
      return;
    }
    try {
      w.postMessage({ id: next.id, job: next.job } satisfies JobMessage);
    } catch (e) {
      this.log(`cannot hand the full pass to its worker: ${(e as Error).message}`);
      this.finish(next, null);
    }
  }

  private finish(p: Pending, findings: ReportedFinding[] | null): void {
    if (this.running !== p) return;
    this.running = null;
    p.resolve(findings);
    this.pump();
  }

  private ensureWorker(): Worker | null {
    if (this.worker) return this.worker;
    let w: Worker;
    try {
      // A pass that runs out of memory ends its worker (reported, and the next job gets a new one)
      // instead of taking the whole server down.
      w = new Worker(this.script!, {
        workerData: { role: FULL_PASS_ROLE },
        stdout: true,
        stderr: false,
        resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
      });
    } catch (e) {
      this.log(`cannot start the full-pass worker: ${(e as Error).message}`);
      return null;
    }
    this.started++;
    w.unref();
    w.on('message', (m: ReplyMessage) => {
      const p = this.running;
      if (!p || p.id !== m.id) return;
      if (m.error) this.log(`full pass failed: ${m.error}`);
      this.finish(p, m.findings ?? null);
    });
    const lost = (why: string) => {
      if (this.worker !== w) return; // stopped on purpose
      this.worker = null;
      this.log(`the full-pass worker stopped: ${why}`);
      const p = this.running;
      if (p) this.finish(p, null);
    };
    w.on('error', (e) => lost(e.message));
    w.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = w;
    return w;
  }

  dispose(): void {
    this.disposed = true;
    for (const p of this.queue.splice(0)) p.resolve(null);
    this.stopRunning();
  }
}
