/**
 * A copy of `s` that keeps nothing else alive. V8 makes a substring of 13 characters or more a
 * view into the string it was cut from, so a name or word of a document kept in a long-lived
 * cache keeps that whole version of the document in memory, and an editor that checks a file on
 * every keystroke adds a version per keystroke. Caches that outlive a document store their keys
 * (and any text in their values) through this.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * A constant table looked up by words from a user's file (directive and section names, module
 * ids). It has no prototype, so a word such as `constructor` or `__proto__` finds nothing instead
 * of one of Object's own members.
 */
export function wordTable<T>(entries: Record<string, T>): Readonly<Record<string, T | undefined>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/**
 * `s` without the characters of `chars` at its end. A loop, not `/\/+$/`: V8 tries such a pattern
 * at every position of a run of those characters that does not end the string, which is time
 * quadratic in the run (a 200 KB path of slashes took 39 s).
 */
export function trimEndChars(s: string, chars: string): string {
  let e = s.length;
  while (e > 0 && chars.includes(s[e - 1])) e--;
  return e === s.length ? s : s.slice(0, e);
}

/**
 * Values by a stretch of a text, found without cutting the stretch out: a file repeats a few
 * lines (`Order allow,deny`, `Allow from all`) thousands of times, and a string cut out and hashed
 * for each would be garbage the editor waits for on every keystroke. A hash of the characters
 * picks a pair of slots; a stretch found in neither is simply not found, so the caller works its
 * value out and stores it (in the pair's free slot, else in place of the one stored longer ago).
 * The keys are kept as copies (see detached).
 */
export class SpanCache<V> {
  private readonly keys: string[];
  private readonly values: Array<V | undefined>;
  private readonly mask: number;

  /** Which slot of each pair was written last (1 for the odd one). */
  private readonly newer: Uint8Array;

  /** `size`: a power of two, 2 at least. */
  constructor(size = 1024) {
    this.mask = size - 2;
    this.keys = new Array<string>(size).fill('');
    this.values = new Array<V | undefined>(size).fill(undefined);
    this.newer = new Uint8Array(size >> 1);
  }

  /** The first slot of the pair for s[a, e). */
  private pairOf(s: string, a: number, e: number): number {
    let h = e - a;
    for (let i = a; i < e; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
    // Mixed so that texts differing only at their end (addresses) spread over the pairs.
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) & this.mask;
  }

  private holds(slot: number, s: string, a: number, len: number): boolean {
    const k = this.keys[slot];
    if (k.length !== len) return false;
    for (let i = 0; i < len; i++) if (k.charCodeAt(i) !== s.charCodeAt(a + i)) return false;
    return true;
  }

  /** The value stored for s[a, e), or undefined. */
  get(s: string, a: number, e: number): V | undefined {
    const len = e - a;
    if (len <= 0) return undefined;
    const slot = this.pairOf(s, a, e);
    if (this.holds(slot, s, a, len)) return this.values[slot];
    if (this.holds(slot + 1, s, a, len)) return this.values[slot + 1];
    return undefined;
  }

  /** Store the value of s[a, e). */
  set(s: string, a: number, e: number, value: V): void {
    if (e <= a) return;
    const pair = this.pairOf(s, a, e);
    const len = e - a;
    // The slot that already holds the text, else a free one, else the one written longer ago.
    let slot: number;
    if (this.holds(pair, s, a, len)) slot = pair;
    else if (this.holds(pair + 1, s, a, len)) slot = pair + 1;
    else if (this.keys[pair] === '') slot = pair;
    else if (this.keys[pair + 1] === '') slot = pair + 1;
    else slot = pair + (this.newer[pair >> 1] === 1 ? 0 : 1);
    this.keys[slot] = detached(s.slice(a, e));
    this.values[slot] = value;
    this.newer[pair >> 1] = slot - pair;
  }
}

/**
 * Numbers for texts: the same stretch of text gets the same number while the table holds it. The
 * table is bounded: a text pushed out and met again gets a new number, so a number never stands
 * for two texts, and a cache kept by number only misses.
 */
export class TextIds {
  private readonly table: SpanCache<number>;
  private next = 1;

  constructor(size = 16384) {
    this.table = new SpanCache<number>(size);
  }

  /** The number of s[a, e) (0 for an empty stretch). */
  idOf(s: string, a: number, e: number): number {
    if (e <= a) return 0;
    let id = this.table.get(s, a, e);
    if (id === undefined) {
      id = this.next++;
      this.table.set(s, a, e, id);
    }
    return id;
  }
}

/** The numbers of lines' texts, shared by every caller. */
const LINE_TEXTS = new TextIds(16384);
/** The numbers of each list of lines, by the list (a document keeps one list per set of keys). */
const LINE_TEXT_IDS = new WeakMap<Int32Array, Float64Array>();

/**
 * The number of each line's text (from its first non-blank character to its last), for a list of
 * a document's line indices such as ConfigDocument.linesWithKeys returns: a rule that keeps what it
 * worked out for a line by its text (the thousands of `Allow from all` of a large file) looks the
 * text up once per document, however many rules ask. Lines with the same text get the same number.
 */
export function lineTextIds(doc: { readonly text: string; startOf(i: number): number; endOf(i: number): number }, lines: Int32Array): Float64Array {
  let ids = LINE_TEXT_IDS.get(lines);
  if (ids === undefined) {
    // (Doubles: numbers only grow, and a long-running server may hand out more than 2^31.)
    ids = new Float64Array(lines.length);
    const text = doc.text;
    for (let ix = 0; ix < lines.length; ix++) ids[ix] = LINE_TEXTS.idOf(text, doc.startOf(lines[ix]), doc.endOf(lines[ix]));
    LINE_TEXT_IDS.set(lines, ids);
  }
  return ids;
}

/**
 * Values by text number (see TextIds), bounded: when it holds `size` values it starts again empty.
 * (Numbers of texts pushed out of their table are never asked again; this keeps them from piling up.)
 */
export class IdCache<V> {
  private map = new Map<number, V>();

  constructor(private readonly size = 16384) {}

  get(id: number): V | undefined {
    return this.map.get(id);
  }

  set(id: number, value: V): void {
    if (this.map.size >= this.size) this.map = new Map();
    this.map.set(id, value);
  }
}
