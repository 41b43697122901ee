/**
 * A small line diff and its unified-diff rendering, for `apacheconf fix --diff`.
 *
 * Lines keep their own terminators, so a CRLF file diffs as CRLF and a last
 * line without a newline is marked the way `diff -u` marks it. The alignment
 * first pins lines that occur exactly once on each side (in increasing order
 * on both), then runs Myers' greedy O(ND) search in the gaps between those
 * pins; a gap whose search would grow too large is emitted as a plain
 * delete-then-insert, which is still a correct (if longer) diff.
 */

/** One step of an edit script: keep a line of both, delete one of `a`, insert one of `b`. */
export type DiffOp = { kind: 'keep'; a: number; b: number } | { kind: 'del'; a: number } | { kind: 'ins'; b: number };

/** Split text into lines, each with its terminator ('\n' or '\r\n'); the last may have none. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) {
      out.push(text.slice(at));
      break;
    }
    out.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
  return out;
}

/** Above this much work (diagonals × steps) in one gap, give up on a minimal script for it. */
const MYERS_BUDGET = 40_000_000;

/** The edit script turning lines `a` into lines `b`, in order. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffOp[] {
  // Work on integer ids: equal lines get equal ids.
  const ids = new Map<string, number>();
  const idOf = (s: string): number => {
    let v = ids.get(s);
    if (v === undefined) {
      v = ids.size;
      ids.set(s, v);
    }
    return v;
  };
  const A = Int32Array.from(a, idOf);
  const B = Int32Array.from(b, idOf);
  const ops: DiffOp[] = [];
  alignRange(A, 0, A.length, B, 0, B.length, ops);
  return ops;
}

function alignRange(A: Int32Array, a0: number, a1: number, B: Int32Array, b0: number, b1: number, ops: DiffOp[]): void {
  // Common head and tail first: the usual case is a few changed lines in a long file.
  while (a0 < a1 && b0 < b1 && A[a0] === B[b0]) ops.push({ kind: 'keep', a: a0++, b: b0++ });
  const tail: DiffOp[] = [];
  while (a1 > a0 && b1 > b0 && A[a1 - 1] === B[b1 - 1]) tail.push({ kind: 'keep', a: --a1, b: --b1 });
  if (a0 === a1 || b0 === b1) {
    for (let i = a0; i < a1; i++) ops.push({ kind: 'del', a: i });
    for (let j = b0; j < b1; j++) ops.push({ kind: 'ins', b: j });
  } else {
    const pins = uniquePins(A, a0, a1, B, b0, b1);
    if (pins.length === 0) {
      myers(A, a0, a1, B, b0, b1, ops);
    } else {
      let pa = a0;
      let pb = b0;
      for (const [i, j] of pins) {
        alignRange(A, pa, i, B, pb, j, ops);
        ops.push({ kind: 'keep', a: i, b: j });
        pa = i + 1;
        pb = j + 1;
      }
      alignRange(A, pa, a1, B, pb, b1, ops);
    }
  }
  for (let k = tail.length - 1; k >= 0; k--) ops.push(tail[k]);
}

/**
 * Lines that occur once in A[a0,a1) and once in B[b0,b1), reduced to the
 * longest run whose positions increase on both sides (patience sorting).
 */
function uniquePins(A: Int32Array, a0: number, a1: number, B: Int32Array, b0: number, b1: number): Array<[number, number]> {
  const countA = new Map<number, number>();
  const countB = new Map<number, number>();
  for (let i = a0; i < a1; i++) countA.set(A[i], countA.has(A[i]) ? -1 : i);
  for (let j = b0; j < b1; j++) countB.set(B[j], countB.has(B[j]) ? -1 : j);
  const pairs: Array<[number, number]> = [];
  for (let i = a0; i < a1; i++) {
    const ia = countA.get(A[i])!;
    if (ia < 0) continue;
    const jb = countB.get(A[i]);
    if (jb !== undefined && jb >= 0) pairs.push([i, jb]);
  }
  if (pairs.length === 0) return pairs;
  // Longest increasing subsequence on the B positions (pairs are in A order).
  const tops: number[] = []; // index into pairs of the smallest tail of each pile
  const prev = new Int32Array(pairs.length).fill(-1);
  for (let p = 0; p < pairs.length; p++) {
    const jb = pairs[p][1];
    let lo = 0;
    let hi = tops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tops[mid]][1] < jb) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[p] = tops[lo - 1];
    tops[lo] = p;
  }
  const out: Array<[number, number]> = [];
  for (let p = tops[tops.length - 1]; p >= 0; p = prev[p]) out.push(pairs[p]);
  return out.reverse();
}

/** Myers' greedy shortest edit script for A[a0,a1) → B[b0,b1), appended to `ops`. */
function myers(A: Int32Array, a0: number, a1: number, B: Int32Array, b0: number, b1: number, ops: DiffOp[]): void {
  const n = a1 - a0;
  const m = b1 - b0;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  let work = 0;
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) x = v[offset + k + 1];
      else x = v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && A[a0 + x] === B[b0 + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
    work += 2 * d + 1;
    if (work > MYERS_BUDGET) {
      for (let i = a0; i < a1; i++) ops.push({ kind: 'del', a: i });
      for (let j = b0; j < b1; j++) ops.push({ kind: 'ins', b: j });
      return;
    }
  }
  // Walk the trace backwards from (n, m) to (0, 0).
  const rev: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const t = trace[d]; // v as it was before step d, covering diagonals -d-1 … d+1
    const at = (k: number): number => t[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const pk = down ? k + 1 : k - 1;
    const px = at(pk);
    const py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) {
      x--;
      y--;
      rev.push({ kind: 'keep', a: a0 + x, b: b0 + y });
    }
    if (down) {
      y--;
      rev.push({ kind: 'ins', b: b0 + y });
    } else {
      x--;
      rev.push({ kind: 'del', a: a0 + x });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    rev.push({ kind: 'keep', a: a0 + x, b: b0 + y });
  }
  for (let k = rev.length - 1; k >= 0; k--) ops.push(rev[k]);
}

const NO_NEWLINE = '\\ No newline at end of file\n';

function emit(prefix: string, line: string): string {
  return line.endsWith('\n') ? prefix + line : prefix + line + '\n' + NO_NEWLINE;
}

function rangeHeader(start: number, count: number): string {
  // diff -u: a 1-based start; an empty range names the line before it; ",1" is implied.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/**
 * A unified diff of two texts with `context` lines around each change, or ''
 * when they are equal. `oldName`/`newName` go on the `---`/`+++` lines as given.
 */
export function unifiedDiff(oldText: string, newText: string, oldName: string, newName: string, context = 3): string {
  if (oldText === newText) return '';
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const ops = diffLines(a, b);
  let out = `--- ${oldName}\n+++ ${newName}\n`;
  // Group changes into hunks: a run of keeps longer than 2×context splits them.
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i].kind === 'keep') i++;
    if (i >= ops.length) break;
    let start = i;
    let lead = 0;
    while (start > 0 && ops[start - 1].kind === 'keep' && lead < context) {
      start--;
      lead++;
    }
    let end = i; // exclusive
    for (;;) {
      while (end < ops.length && ops[end].kind !== 'keep') end++;
      let keeps = 0;
      while (end + keeps < ops.length && ops[end + keeps].kind === 'keep') keeps++;
      if (end + keeps >= ops.length) {
        end += Math.min(keeps, context);
        break;
      }
      if (keeps > 2 * context) {
        end += context;
        break;
      }
      end += keeps;
    }
    // Line numbers where the hunk starts on each side.
    let aStart = -1;
    let bStart = -1;
    let aCount = 0;
    let bCount = 0;
    let body = '';
    for (let k = start; k < end; k++) {
      const op = ops[k];
      if (op.kind === 'keep') {
        if (aStart < 0) aStart = op.a;
        if (bStart < 0) bStart = op.b;
        aCount++;
        bCount++;
        body += emit(' ', a[op.a]);
      } else if (op.kind === 'del') {
        if (aStart < 0) aStart = op.a;
        aCount++;
        body += emit('-', a[op.a]);
      } else {
        if (bStart < 0) bStart = op.b;
        bCount++;
        body += emit('+', b[op.b]);
      }
    }
    if (aStart < 0) aStart = positionBefore(ops, start, 'a');
    if (bStart < 0) bStart = positionBefore(ops, start, 'b');
    out += `@@ -${rangeHeader(aStart, aCount)} +${rangeHeader(bStart, bCount)} @@\n` + body;
    i = end;
  }
  return out;
}

/** For a hunk that has no line of one side: how many lines of that side come before it. */
function positionBefore(ops: DiffOp[], index: number, side: 'a' | 'b'): number {
  for (let k = index - 1; k >= 0; k--) {
    const op = ops[k];
    if (side === 'a' && op.kind !== 'ins') return op.a + 1;
    if (side === 'b' && op.kind !== 'del') return op.b + 1;
  }
  return 0;
}
