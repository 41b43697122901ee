/**
 * Checking a large tree on all cores for `check --report`: a pool of worker
 * threads, each running the same bundle (`dist/cli.js`), takes files one at a
 * time and sends back a small summary (rule, severity, line, message, exact
 * fix title), so memory stays flat whatever the tree's size. Without a
 * bundle to start workers from (tests run the sources), or for small trees,
 * the files are checked in this thread.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createService, type ServiceSettings } from '../service';
import { decode } from '../syntax';
import type { FileContext } from '../model/context';
import type { ReportFile } from './upgrade-report';

export interface ReportJob {
  /** Path as shown in the report. */
  path: string;
  /** Path to read. */
  absolute: string;
  context: FileContext;
}

export const WORKER_FLAG = 'apacheconfReportWorker';

/** Check one file and keep only what the report needs. Never throws. */
export function summarizeFile(service: ReturnType<typeof createService>, job: ReportJob): ReportFile {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(job.absolute);
  } catch (e) {
    return { path: job.path, context: job.context, findings: [], error: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
  const { text } = decode(bytes);
  const a = service.analyze({ text, uri: 'file://' + job.absolute.split('/').map(encodeURIComponent).join('/'), context: job.context });
  const starts = a.doc.lineStarts;
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return {
    path: job.path,
    context: job.context,
    findings: a.findings.map((f) => ({
      rule: f.rule,
      severity: f.severity,
      line: lineOf(f.start),
      message: f.message,
      ...(f.fixes?.find((x) => x.preferred) ? { exactFix: f.fixes.find((x) => x.preferred)!.title } : {}),
    })),
  };
}

/** The body of a worker thread: summarize each job it is sent until told to stop. */
export function runReportWorker(): boolean {
  if (isMainThread || !workerData?.[WORKER_FLAG] || !parentPort) return false;
  const service = createService(workerData.settings as ServiceSettings);
  const port = parentPort;
  port.on('message', (msg: { job?: ReportJob; index?: number; stop?: boolean }) => {
    if (msg.stop) {
      port.close();
      return;
    }
    if (msg.job) port.postMessage({ index: msg.index, file: summarizeFile(service, msg.job) });
  });
  return true;
}

export interface ParallelOptions {
  settings?: ServiceSettings;
  /** The script workers run (the bundled CLI). Without it, everything runs in this thread. */
  workerScript?: string;
  /** Number of workers; default: the machine's available parallelism. */
  workers?: number;
}

/** Summaries of every job, in the order of `jobs`. */
export async function checkFilesParallel(jobs: readonly ReportJob[], opts: ParallelOptions = {}): Promise<ReportFile[]> {
  const n = Math.max(1, Math.min(opts.workers ?? os.availableParallelism(), jobs.length));
  if (!opts.workerScript || n === 1 || jobs.length < 64) {
    const service = createService(opts.settings);
    return jobs.map((j) => summarizeFile(service, j));
  }
  const results: ReportFile[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(opts.workerScript!, { workerData: { [WORKER_FLAG]: true, settings: opts.settings ?? {} } });
        const feed = () => {
          if (next >= jobs.length) {
            w.postMessage({ stop: true });
            return;
          }
          const index = next++;
          w.postMessage({ index, job: jobs[index] });
        };
        w.on('message', (m: { index: number; file: ReportFile }) => {
          results[m.index] = m.file;
          feed();
        });
        w.on('error', reject);
        w.on('exit', () => resolve());
        feed();
      }),
    ),
  );
  return results;
}
