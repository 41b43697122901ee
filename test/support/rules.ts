/** Shared helpers for rule tests: run the service on a text, pick one rule's findings, apply a fix and compare text. */
import { createService, type ReportedFinding } from '../../server/src/service';
import { applyEdits } from '../../server/src/syntax';
import type { FileContext } from '../../server/src/model/context';

export interface RunOptions {
  context?: FileContext;
  uri?: string;
}

export function findingsOf(text: string, rule: string, opts: RunOptions = {}): ReportedFinding[] {
  const service = createService();
  const a = service.analyze({ text, uri: opts.uri ?? 'file:///etc/apache2/apache2.conf', context: opts.context });
  return a.findings.filter((f) => f.rule === rule);
}

/** The text each finding covers, for compact assertions. */
export function covered(text: string, fs: ReportedFinding[]): string[] {
  return fs.map((f) => text.slice(f.start, f.end));
}

/** Apply the fix of the first finding of `rule` whose title matches (the preferred one by default). */
export function applyFix(text: string, rule: string, opts: RunOptions & { title?: RegExp; index?: number } = {}): string | undefined {
  const fs = findingsOf(text, rule, opts);
  const f = fs[opts.index ?? 0];
  if (!f?.fixes) return undefined;
  const fix = opts.title ? f.fixes.find((x) => opts.title!.test(x.title)) : f.fixes.find((x) => x.preferred);
  if (!fix) return undefined;
  return applyEdits(text, fix.edits);
}

/** Join lines with LF (tests of CRLF build their own). */
export function lines(...l: string[]): string {
  return l.join('\n') + '\n';
}
