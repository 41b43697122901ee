/**
 * Per-document state of the server: one analysis per document version
 * (parsed and checked once, shared by every request on that version) and
 * the debounce timers of validation.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis } from '../service';
import type { ConfigDocument } from '../syntax';

interface Entry {
  version: number;
  /** Settings generation the analysis was made under. */
  generation: number;
  analysis: Analysis;
}

/**
 * Analyses keyed by uri, valid for one document version and one settings
 * generation. A settings change bumps the generation: the next request
 * re-runs the rules but hands the old tree back when the text is the same.
 */
export class AnalysisCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  constructor(private readonly compute: (doc: TextDocument, previous: ConfigDocument | undefined) => Analysis) {}

  get(doc: TextDocument): Analysis {
    const e = this.entries.get(doc.uri);
    if (e && e.version === doc.version && e.generation === this.generation) return e.analysis;
    const analysis = this.compute(doc, e?.analysis.doc);
    this.entries.set(doc.uri, { version: doc.version, generation: this.generation, analysis });
    return analysis;
  }

  /** The analysis held for a uri, whatever its version (null when none). */
  current(uri: string): Analysis | null {
    return this.entries.get(uri)?.analysis ?? null;
  }

  /** True when `doc`'s current version is analysed under the current settings. */
  has(doc: TextDocument): boolean {
    const e = this.entries.get(doc.uri);
    return !!e && e.version === doc.version && e.generation === this.generation;
  }

  delete(uri: string): void {
    this.entries.delete(uri);
  }

  /** Settings changed: every analysis is stale (the trees are kept for reuse). */
  invalidate(): void {
    this.generation++;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A document validated in under 1/CHEAP_FACTOR of the debounce delay is validated on every change. */
export const CHEAP_FACTOR = 5;

/** One pending validation per uri; a new change restarts that document's timer. */
export class ValidationScheduler {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** When each document was last validated (ms). */
  private readonly lastRun = new Map<string, number>();
  /** How long each document's last three validations took (ms), as reported by `cost`. */
  private readonly lastCost = new Map<string, number[]>();

  constructor(
    private readonly run: (uri: string) => void,
    private readonly delayMs: () => number,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Leading and trailing: a change after a quiet spell (no validation within the delay, none
   * waiting) is validated at once, so a single edit shows its diagnostics without waiting; the
   * changes of a burst of typing wait for a pause of `delay` ms and are validated once. A
   * document validated in under a fifth of the delay (the least of its last three runs) is cheap
   * to validate on every change, so it never waits: waiting would only make its diagnostics late,
   * and at typing speed (a change every 100 ms or more) it keeps the server busy a small part of
   * the time.
   */
  schedule(uri: string): void {
    const waiting = this.timers.has(uri);
    this.cancel(uri);
    const delay = this.delayMs();
    const now = this.clock();
    const last = this.lastRun.get(uri);
    // The least of the last three: one slow run (a cold start, a garbage collection) is not the document's cost.
    const costs = this.lastCost.get(uri);
    const cheap = costs !== undefined && Math.min(...costs) * CHEAP_FACTOR < delay;
    if (delay <= 0 || cheap || (!waiting && (last === undefined || now - last >= delay))) {
      this.runNow(uri);
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(uri);
      this.runNow(uri);
    }, delay);
    this.timers.set(uri, t);
  }

  /** Runs now, dropping a pending timer for the same document. */
  now(uri: string): void {
    this.cancel(uri);
    this.runNow(uri);
  }

  private runNow(uri: string): void {
    this.lastRun.set(uri, this.clock());
    this.run(uri);
  }

  /** Records how long a validation of the document took (the work done at once, in ms). */
  cost(uri: string, ms: number): void {
    const list = this.lastCost.get(uri) ?? [];
    list.push(ms);
    if (list.length > 3) list.shift();
    this.lastCost.set(uri, list);
  }

  /** Forget a closed document. */
  forget(uri: string): void {
    this.cancel(uri);
    this.lastRun.delete(uri);
    this.lastCost.delete(uri);
  }

  cancel(uri: string): void {
    const t = this.timers.get(uri);
    if (t !== undefined) {
      clearTimeout(t);
      this.timers.delete(uri);
    }
  }

  pending(uri: string): boolean {
    return this.timers.has(uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.lastRun.clear();
    this.lastCost.clear();
  }
}
