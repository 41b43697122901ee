/**
 * A lossless, error-tolerant parser for httpd configuration files.
 *
 * It follows httpd's own reader (server/util.c ap_cfg_getline, ap_getword_conf;
 * server/config.c ap_build_config): logical lines joined at a backslash right
 * before the line break, leading and trailing white space trimmed, `#` as the
 * first character makes a comment, `<Name …>` opens a section and `</Name>`
 * closes it. The parser never throws and runs in time linear in the input.
 */
import type {
  BlankNode,
  ChildNode,
  CommentNode,
  ConfigDocument,
  DirectiveNode,
  LineNode,
  SectionClose,
  SectionNode,
  SectionOpen,
  SyntaxError,
  Token,
} from './ast';
import { detached } from './strings';

/** apr_isspace: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * A logical line and how offsets in it map back to the original text. For a
 * line with no continuation (nearly all of them) `s` is the original text
 * itself and `segs` is null: offsets need no mapping at all. A continued line
 * is joined into `s`, and `segs` holds triples [joinedStart, originalStart,
 * length], one per physical line.
 */
interface Logical {
  s: string;
  segs: number[] | null;
  /** For a continued line, its first non-blank character and just after its last one, in `s`. */
  a: number;
  b: number;
}

function mapOffset(l: Logical, j: number): number {
  const segs = l.segs;
  if (segs === null) return j;
  // Binary search over the segments (a line may be continued thousands of times).
  let lo = 0;
  let hi = segs.length / 3 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segs[mid * 3] <= j) lo = mid;
    else hi = mid - 1;
  }
  return segs[lo * 3 + 1] + (j - segs[lo * 3]);
}

/** The original offset just after joined offset `end - 1` (the end of a range), or of `end` for an empty range. */
function mapEnd(l: Logical, start: number, end: number): number {
  if (l.segs === null) return end;
  return end <= start ? mapOffset(l, start) : mapOffset(l, end - 1) + 1;
}

/** Where the last readWord stopped (an offset of the logical line); a module variable, so no pair is allocated per word. */
let wordEnd = 0;

/** Read the word that starts at `i` (not a blank) up to `to`, as ap_getword_conf does; sets wordEnd. */
function readWord(l: Logical, i: number, to: number): Token {
  const s = l.s;
  const c = s.charCodeAt(i);
  let j: number;
  let raw: string;
  let value: string;
  if (c === 34 || c === 39) {
    const quote = c === 34 ? '"' : "'";
    let unterminated = false;
    j = i + 1;
    while (j < to && s.charCodeAt(j) !== c) {
      if (s.charCodeAt(j) === 92 && j + 1 < to && (s.charCodeAt(j + 1) === c || s.charCodeAt(j + 1) === 92)) j += 2;
      else j++;
    }
    value = unescape(s.slice(i + 1, j), quote);
    if (j < to) j++;
    else unterminated = true;
    raw = s.slice(i, j);
    wordEnd = j;
    return { raw, value, quote, unterminated, start: mapOffset(l, i), end: mapEnd(l, i, j) };
  }
  j = i;
  while (j < to && !isSpace(s.charCodeAt(j))) j++;
  raw = s.slice(i, j);
  value = unescape(raw, null);
  wordEnd = j;
  return { raw, value, quote: null, unterminated: false, start: mapOffset(l, i), end: mapEnd(l, i, j) };
}

/**
 * Split one logical line into words as ap_getword_conf does, from offset
 * `from` to `to` of the logical line.
 */
export function tokenize(l: Logical, from: number, to: number): Token[] {
  const s = l.s;
  // The words are gathered in a scratch array and copied out at their exact number: an array
  // grown by push keeps room for 17 or more, and trees keep hundreds of thousands of these.
  const out = scratch;
  let n = 0;
  let i = from;
  while (i < to && isSpace(s.charCodeAt(i))) i++;
  while (i < to) {
    out[n++] = readWord(l, i, to);
    i = wordEnd;
    while (i < to && isSpace(s.charCodeAt(i))) i++;
  }
  const words = out.slice(0, n);
  out.length = 0;
  return words;
}
const scratch: Token[] = [];

/**
 * Where each logical line of a document sits, one column per field of LineInfo, with its kind,
 * its section and what it refers to. A file of 100,000 lines would otherwise hold as many objects
 * of a dozen fields each, and making those objects (and the garbage collector copying them while
 * they are young) was most of what parsing a large file cost. Line nodes are made from the table
 * when someone asks for them (see Doc.lineAt) and are then kept, one per line.
 */
/** Up to this many lines, a table's columns share one buffer, under the 128 KB of a mapping of its own. */
const SHARED_BUFFER_LINES = 4096;
/** Where parse writes a small file's line starts before its tree has a buffer for them. */
const STARTS_SCRATCH = new Int32Array(SHARED_BUFFER_LINES);

/** Lines per block of the node cache (LineTable.node). */
const NODE_BLOCK_BITS = 12;
const NODE_BLOCK = 1 << NODE_BLOCK_BITS;

/** Line kinds in the `kind` column. */
const BLANK = 0;
const COMMENT = 1;
const DIRECTIVE = 2;
const OPEN = 3;
const CLOSE = 4;
const TYPES: readonly LineNode['type'][] = ['blank', 'comment', 'directive', 'open', 'close'];

class LineTable {
  /** Offset where each logical line starts. */
  readonly lineStart: Int32Array;
  /** Offset of its first non-blank character, and just after its last one. */
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** 0-based physical line where it starts. */
  readonly line: Int32Array;
  /**
   * For a directive, where its arguments start (just after the name); for a comment, where its
   * `#` is; for a tag, just after its name. Counted in the line's own text: the file for a line
   * without continuations, the joined text for a continued one.
   */
  readonly from: Int32Array;
  /** The index in `sections` of the section the line is a child of (the section a closing tag closes), or -1 at the top level. */
  readonly parent: Int32Array;
  /** A directive's key (its index in `keys`); an opening tag's section, a closing tag's (-1 for a stray one), by index in `sections`. */
  readonly ref: Int32Array;
  /** BLANK, COMMENT, DIRECTIVE, OPEN or CLOSE. */
  readonly kind: Uint8Array;
  /** The continued lines' joined text, by line index (most files have none). */
  readonly joined = new Map<number, Logical>();
  /** Name tokens made while parsing (a quoted name or one with a backslash), by line index. */
  readonly names = new Map<number, Token>();
  /** Logical lines written so far. */
  count = 0;
  /** A line without continuations is read straight from the file. */
  readonly single: Logical;
  /** Where each physical line starts, for a small file: a view of the columns' buffer (see parse). */
  readonly physicalStarts: Int32Array | null = null;
  /** The directives' distinct keys, in order of first appearance. */
  readonly keys: string[] = [];
  /** Every section in document order (filled by parse). */
  readonly sections: Section[] = [];
  /**
   * The nodes made so far, by line index, in blocks of NODE_BLOCK lines made on first use: an
   * array for every line of a large file would be a large object, which V8 maps and unmaps on
   * its own on every parse.
   */
  private readonly blocks: Array<Array<LineNode | undefined> | undefined> = [];

  constructor(
    readonly text: string,
    readonly capacity: number,
    /** The physical lines' starts found by parse (`capacity` of them), copied into the buffer of a small file. */
    starts?: Int32Array,
  ) {
    if (capacity <= SHARED_BUFFER_LINES) {
      // A small file's columns, and the starts of its physical lines, are views of one buffer:
      // one allocation (with its tracking by the garbage collector) instead of nine.
      const buf = new ArrayBuffer(33 * capacity);
      this.lineStart = new Int32Array(buf, 0, capacity);
      this.start = new Int32Array(buf, 4 * capacity, capacity);
      this.end = new Int32Array(buf, 8 * capacity, capacity);
      this.line = new Int32Array(buf, 12 * capacity, capacity);
      this.from = new Int32Array(buf, 16 * capacity, capacity);
      this.parent = new Int32Array(buf, 20 * capacity, capacity);
      this.ref = new Int32Array(buf, 24 * capacity, capacity);
      if (starts) (this.physicalStarts = new Int32Array(buf, 28 * capacity, capacity)).set(starts.subarray(0, capacity));
      this.kind = new Uint8Array(buf, 32 * capacity, capacity);
    } else {
      // Arrays of their own rather than one buffer eight times as large: below the C allocator's
      // threshold for a mapping of its own (128 KB), memory freed by the previous tree is used
      // again, where a new mapping would have to be given to the process page by page on every
      // keystroke.
      this.lineStart = new Int32Array(capacity);
      this.start = new Int32Array(capacity);
      this.end = new Int32Array(capacity);
      this.line = new Int32Array(capacity);
      this.from = new Int32Array(capacity);
      this.parent = new Int32Array(capacity);
      this.ref = new Int32Array(capacity);
      this.kind = new Uint8Array(capacity);
    }
    this.single = { s: text, segs: null, a: 0, b: 0 };
  }

  add(kind: number, lineStart: number, start: number, end: number, line: number, from: number, l: Logical, parent: number, ref: number): number {
    const i = this.count++;
    this.lineStart[i] = lineStart;
    this.start[i] = start;
    this.end[i] = end;
    this.line[i] = line;
    this.from[i] = from;
    this.parent[i] = parent;
    this.ref[i] = ref;
    this.kind[i] = kind;
    if (l !== this.single) this.joined.set(i, l);
    return i;
  }

  logical(i: number): Logical {
    return this.joined.size === 0 ? this.single : (this.joined.get(i) ?? this.single);
  }

  /** Line `i`'s first non-blank offset in its own text (see `from`). */
  first(i: number): number {
    const l = this.joined.size === 0 ? undefined : this.joined.get(i);
    return l ? l.a : this.start[i];
  }

  /** Just after line `i`'s last non-blank character, in its own text. */
  last(i: number): number {
    const l = this.joined.size === 0 ? undefined : this.joined.get(i);
    return l ? l.b : this.end[i];
  }

  sectionAt(ix: number): SectionNode | null {
    return ix < 0 ? null : this.sections[ix];
  }

  /** The node of line `i`, made on first request. */
  node(i: number): LineNode {
    const b = i >> NODE_BLOCK_BITS;
    while (this.blocks.length <= b) this.blocks.push(undefined);
    // (A block no longer than the lines it can hold: a small file's is a small array.)
    const nodes = (this.blocks[b] ??= new Array<LineNode | undefined>(Math.max(1, Math.min(NODE_BLOCK, this.capacity - (b << NODE_BLOCK_BITS)))));
    const j = i & (NODE_BLOCK - 1);
    let n = nodes[j];
    if (n === undefined) {
      switch (this.kind[i]) {
        case BLANK:
          n = new Blank(this, i);
          break;
        case COMMENT:
          n = new Comment(this, i);
          break;
        case DIRECTIVE:
          n = new Directive(this, i);
          break;
        case OPEN:
          n = new Open(this, i);
          break;
        default:
          n = new Close(this, i);
      }
      nodes[j] = n;
    }
    return n;
  }

  /**
   * The children of the section at index `owner` (-1: the top level), whose lines lie in
   * [from, to): its own lines, and each nested section in place of its lines.
   */
  childrenOf(owner: number, from: number, to: number): ChildNode[] {
    const out: ChildNode[] = [];
    const parent = this.parent;
    const kind = this.kind;
    for (let i = from; i < to; ) {
      if (parent[i] !== owner) {
        i++;
        continue;
      }
      if (kind[i] === OPEN) {
        const sec = this.sections[this.ref[i]];
        out.push(sec);
        i = sec.endIx;
      } else {
        out.push(this.node(i) as ChildNode);
        i++;
      }
    }
    return out;
  }
}

/** Where a logical line sits in the text, and the section around it (see LineInfo), read from the document's table. */
abstract class Line {
  constructor(
    protected readonly table: LineTable,
    protected readonly index: number,
  ) {}

  get parent(): SectionNode | null {
    return this.table.sectionAt(this.table.parent[this.index]);
  }

  get lineStart(): number {
    return this.table.lineStart[this.index];
  }

  get lineEnd(): number {
    const t = this.table;
    return this.index + 1 < t.count ? t.lineStart[this.index + 1] : t.text.length;
  }

  get start(): number {
    return this.table.start[this.index];
  }

  get end(): number {
    return this.table.end[this.index];
  }

  get line(): number {
    return this.table.line[this.index];
  }

  get lineIndex(): number {
    return this.index;
  }
}

/** A blank line. */
class Blank extends Line implements BlankNode {
  declare readonly type: 'blank';

  override get start(): number {
    return this.table.lineStart[this.index];
  }

  override get end(): number {
    return this.table.lineStart[this.index];
  }
}

/** A comment line. Its text is cut out of the line when first asked for (few ever are). */
class Comment extends Line implements CommentNode {
  declare readonly type: 'comment';

  get text(): string {
    return this.table.logical(this.index).s.slice(this.table.from[this.index], this.table.last(this.index));
  }
}

/**
 * A directive line. Its name token and its arguments are made the first time someone asks for
 * them: most directives of a file are never looked at beyond their key, and those objects would
 * only cost memory and garbage collection.
 */
class Directive extends Line implements DirectiveNode {
  declare readonly type: 'directive';
  private words: Token[] | null = null;
  private nameToken: Token | null = null;

  /** The name in lower case (shared between directives of the same name). */
  get key(): string {
    return this.table.keys[this.table.ref[this.index]];
  }

  get name(): Token {
    if (this.nameToken === null) {
      const t = this.table;
      this.nameToken = (t.names.size ? t.names.get(this.index) : undefined) ?? readWord(t.logical(this.index), t.first(this.index), t.from[this.index]);
    }
    return this.nameToken;
  }

  get args(): Token[] {
    if (this.words === null) {
      const from = this.table.from[this.index];
      const to = this.table.last(this.index);
      this.words = from < to ? tokenize(this.table.logical(this.index), from, to) : [];
    }
    return this.words;
  }
}

/** A section's opening tag. */
class Open extends Line implements SectionOpen {
  declare readonly type: 'open';

  get section(): SectionNode {
    return this.table.sections[this.table.ref[this.index]];
  }
}

/** A section's closing tag. Its name token is cut out of it when first asked for. */
class Close extends Line implements SectionClose {
  declare readonly type: 'close';
  private nameToken: Token | null = null;

  get section(): SectionNode | null {
    return this.table.sectionAt(this.table.ref[this.index]);
  }

  get name(): Token {
    const t = this.table;
    return (this.nameToken ??= nameToken(t.logical(this.index), t.first(this.index) + 2, t.from[this.index]));
  }
}

/** A section. Its name token, arguments, tags and children are made from the table when first asked for. */
class Section implements SectionNode {
  declare readonly type: 'section';
  /** The closing tag's line, or -1 when the section is never closed. */
  closeIx = -1;
  /** Just after the section's last line (its closing tag's, or the last line it holds when never closed). */
  endIx = -1;
  private nameToken: Token | null = null;
  private words: Token[] | null = null;
  private kids: ChildNode[] | null = null;
  readersMemo: unknown = undefined;
  constructor(
    private readonly table: LineTable,
    /** The opening tag's line. */
    readonly openIx: number,
    /** Its index in `sections`. */
    readonly ix: number,
    readonly key: string,
    readonly parent: SectionNode | null,
    readonly depth: number,
  ) {}

  get lineIndex(): number {
    return this.openIx;
  }

  get index(): number {
    return this.ix;
  }

  get open(): SectionOpen {
    return this.table.node(this.openIx) as SectionOpen;
  }

  get openStart(): number {
    return this.table.start[this.openIx];
  }

  get openEnd(): number {
    return this.table.end[this.openIx];
  }

  get fileText(): string {
    return this.table.text;
  }

  get close(): SectionClose | null {
    return this.closeIx < 0 ? null : (this.table.node(this.closeIx) as SectionClose);
  }

  get children(): ChildNode[] {
    return (this.kids ??= this.table.childrenOf(this.ix, this.openIx + 1, this.endIx));
  }

  get name(): Token {
    const t = this.table;
    return (this.nameToken ??= nameToken(t.logical(this.openIx), t.first(this.openIx) + 1, t.from[this.openIx]));
  }

  get args(): Token[] {
    if (this.words === null) {
      const t = this.table;
      const l = t.logical(this.openIx);
      const e = t.from[this.openIx];
      const b = t.last(this.openIx);
      // The arguments end at the last '>' of the tag, or at the end of a tag that has none.
      const gt = l.s.lastIndexOf('>', b - 1);
      const argsEnd = gt < e ? b : gt;
      this.words = e < argsEnd ? tokenize(l, e, argsEnd) : [];
    }
    return this.words;
  }
}

// The node kind is the same for every node of a class: one property on the prototype, not one per node.
for (const [cls, type] of [[Blank, 'blank'], [Comment, 'comment'], [Directive, 'directive'], [Open, 'open'], [Close, 'close'], [Section, 'section']] as const) {
  Object.defineProperty(cls.prototype, 'type', { value: type, enumerable: true });
}

const NO_DIRECTIVES: readonly DirectiveNode[] = Object.freeze([]);

/** A parsed file: its table, and the lists of nodes made from it when asked for. */
class Doc implements ConfigDocument {
  private allLines: LineNode[] | null = null;
  private allDirectives: DirectiveNode[] | null = null;
  private top: ChildNode[] | null = null;
  /** The directives' line indices grouped by key: `byKey[keyStart[k] .. keyStart[k + 1])` for key k. */
  private byKey: Int32Array | null = null;
  private keyStart: Int32Array | null = null;
  private keyIds: Map<string, number> | null = null;
  private keyLists: (readonly DirectiveNode[] | undefined)[] | null = null;
  /** linesWithKeys's answers, by the keys asked for. */
  private keyLines: Map<string, Int32Array> | null = null;
  /** directivesWithKeys's answers, by the keys asked for. */
  private keyNodes: Map<string, readonly DirectiveNode[]> | null = null;

  constructor(
    readonly text: string,
    readonly errors: SyntaxError[],
    readonly lineStarts: Int32Array,
    private readonly table: LineTable,
    /** How many of the lines are directives. */
    private readonly directiveCount: number,
  ) {}

  get sections(): SectionNode[] {
    return this.table.sections;
  }

  get lineCount(): number {
    return this.table.count;
  }

  get directiveKeys(): readonly string[] {
    return this.table.keys;
  }

  lineType(i: number): LineNode['type'] {
    return TYPES[this.table.kind[i]];
  }

  lineAt(i: number): LineNode {
    return this.table.node(i);
  }

  lineIndexAt(offset: number): number {
    const starts = this.table.lineStart;
    let lo = 0;
    let hi = this.table.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return hi;
  }

  get lines(): LineNode[] {
    if (this.allLines === null) {
      const t = this.table;
      const out = new Array<LineNode>(t.count);
      for (let i = 0; i < t.count; i++) out[i] = t.node(i);
      this.allLines = out;
    }
    return this.allLines;
  }

  get directives(): DirectiveNode[] {
    if (this.allDirectives === null) {
      const t = this.table;
      const out = new Array<DirectiveNode>(this.directiveCount);
      let k = 0;
      for (let i = 0; i < t.count; i++) if (t.kind[i] === DIRECTIVE) out[k++] = t.node(i) as DirectiveNode;
      this.allDirectives = out;
    }
    return this.allDirectives;
  }

  get children(): ChildNode[] {
    return (this.top ??= this.table.childrenOf(-1, 0, this.table.count));
  }

  directivesWithKeys(keys: readonly string[]): readonly DirectiveNode[] {
    const id = keys.join(' ');
    let known = (this.keyNodes ??= new Map()).get(id);
    if (known === undefined) {
      const at = this.linesWithKeys(keys);
      const out = new Array<DirectiveNode>(at.length);
      for (let j = 0; j < at.length; j++) out[j] = this.table.node(at[j]) as DirectiveNode;
      this.keyNodes.set(id, (known = out));
    }
    return known;
  }

  linesWithKeys(keys: readonly string[]): Int32Array {
    // Several rules ask for the same keys (the host rules): each set is looked up once per tree.
    const id = keys.length === 1 ? keys[0] : keys.join(' ');
    let known = (this.keyLines ??= new Map()).get(id);
    if (known === undefined) {
      // One key: a view of the grouping by key (see keyIdOf); several: a scan of the columns.
      const k = keys.length === 1 ? this.keyIdOf(keys[0]) : -1;
      known = keys.length === 1 ? (k < 0 ? new Int32Array(0) : this.linesOfKey(k)) : this.scanKeys(keys);
      this.keyLines.set(id, known);
    }
    return known;
  }

  /**
   * The lines of several keys in document order: their lists in the grouping by key (see
   * keyIdOf), merged. (A scan of every line's kind and key, twice, cost more than the merge of
   * the few lists a rule asks for.)
   */
  private scanKeys(keys: readonly string[]): Int32Array {
    const lists: Int32Array[] = [];
    const ids: number[] = [];
    let total = 0;
    for (let j = 0; j < keys.length; j++) {
      const k = this.keyIdOf(keys[j]);
      // (A key named twice is taken once.)
      if (k < 0 || ids.includes(k)) continue;
      ids.push(k);
      const l = this.linesOfKey(k);
      if (!l.length) continue;
      lists.push(l);
      total += l.length;
    }
    if (lists.length === 0) return new Int32Array(0);
    if (lists.length === 1) return lists[0];
    const out = new Int32Array(total);
    // Each list's next line: the smallest of them is the next one out (a few lists, so a scan of
    // their heads is cheaper than a heap).
    const at = new Int32Array(lists.length);
    for (let n = 0; n < total; n++) {
      let best = -1;
      let min = 0;
      for (let j = 0; j < lists.length; j++) {
        if (at[j] < lists[j].length && (best < 0 || lists[j][at[j]] < min)) {
          best = j;
          min = lists[j][at[j]];
        }
      }
      out[n] = min;
      at[best]++;
    }
    return out;
  }

  startOf(i: number): number {
    return this.table.start[i];
  }

  endOf(i: number): number {
    return this.table.end[i];
  }

  parentOf(i: number): SectionNode | null {
    return this.table.sectionAt(this.table.parent[i]);
  }

  keyOf(i: number): string {
    return this.table.kind[i] === DIRECTIVE ? this.table.keys[this.table.ref[i]] : '';
  }

  /** The index of a key in `keys` (-1 for a key the file lacks), the directives' lines grouped by key on first use. */
  private keyIdOf(key: string): number {
    const t = this.table;
    if (this.keyIds === null) {
      // Grouped once, by counting: no list per key until one is asked for.
      const ids = new Map<string, number>();
      for (let k = 0; k < t.keys.length; k++) ids.set(t.keys[k], k);
      const starts = new Int32Array(t.keys.length + 1);
      for (let i = 0; i < t.count; i++) if (t.kind[i] === DIRECTIVE) starts[t.ref[i] + 1]++;
      for (let k = 0; k < t.keys.length; k++) starts[k + 1] += starts[k];
      const fill = starts.slice(0, t.keys.length);
      const byKey = new Int32Array(this.directiveCount);
      for (let i = 0; i < t.count; i++) if (t.kind[i] === DIRECTIVE) byKey[fill[t.ref[i]]++] = i;
      this.keyIds = ids;
      this.keyStart = starts;
      this.byKey = byKey;
      this.keyLists = new Array(t.keys.length);
    }
    return this.keyIds.get(key) ?? -1;
  }

  /** The lines of the directives with key `k` (an index in `keys`), in document order: a view of the grouping. */
  private linesOfKey(k: number): Int32Array {
    return this.byKey!.subarray(this.keyStart![k], this.keyStart![k + 1]);
  }

  directivesWithKey(key: string): readonly DirectiveNode[] {
    const k = this.keyIdOf(key);
    if (k < 0) return NO_DIRECTIVES;
    let list = this.keyLists![k];
    if (list === undefined) {
      const at = this.linesOfKey(k);
      const out = new Array<DirectiveNode>(at.length);
      for (let j = 0; j < at.length; j++) out[j] = this.table.node(at[j]) as DirectiveNode;
      this.keyLists![k] = list = out;
    }
    return list;
  }
}

/** Directive keys by name as written: a file repeats a few dozen names thousands of times. */
const KEYS = new Map<string, string>();
const KEYS_LIMIT = 20000;

/**
 * The key of the name at s[a, e), without cutting it out when it was seen lately: a small table,
 * indexed by the name's first and last characters and length, remembers the last name written at
 * each slot, and a name equal to it (compared in place) has its key at once. Most lines of a file
 * repeat a few dozen names, so most lookups end here, with no string made and none hashed.
 */
const RECENT_RAW: string[] = new Array(1024).fill('');
const RECENT_KEY: string[] = new Array(1024).fill('');
/** The key's index in the document being parsed (`keys`), valid when the slot's generation is the parse's. */
const RECENT_ID = new Int32Array(1024);
const RECENT_GEN = new Int32Array(1024);
/** A number for each parse, so that RECENT_ID answers only for the document it was written for. */
let generation = 0;

function slotAt(s: string, a: number, e: number): number {
  const len = e - a;
  const slot = (s.charCodeAt(a) * 7 + s.charCodeAt(e - 1) * 13 + len * 31) & 1023;
  const raw = RECENT_RAW[slot];
  if (raw.length === len) {
    // Compared a character at a time: names are short, and startsWith at an offset is a call into the runtime.
    let i = 0;
    while (i < len && raw.charCodeAt(i) === s.charCodeAt(a + i)) i++;
    if (i === len) return slot;
  }
  const name = s.slice(a, e);
  RECENT_RAW[slot] = detached(name);
  RECENT_KEY[slot] = keyOf(name);
  RECENT_GEN[slot] = 0;
  return slot;
}

function keyAt(s: string, a: number, e: number): string {
  return RECENT_KEY[slotAt(s, a, e)];
}

function keyOf(name: string): string {
  let k = KEYS.get(name);
  if (k === undefined) {
    // Copied: the cache outlives the document the name was cut from.
    const own = detached(name);
    k = own.toLowerCase();
    if (KEYS.size >= KEYS_LIMIT) KEYS.clear();
    KEYS.set(own, k);
  }
  return k;
}

/** substring_conf: a backslash before a backslash (or the quote) is dropped. */
function unescape(v: string, quote: string | null): string {
  if (v.indexOf('\\') < 0) return v;
  let r = '';
  for (let k = 0; k < v.length; k++) {
    const ch = v[k];
    if (ch === '\\' && k + 1 < v.length && (v[k + 1] === '\\' || (quote !== null && v[k + 1] === quote))) {
      r += v[k + 1];
      k++;
    } else r += ch;
  }
  return r;
}

function nameToken(l: Logical, a: number, b: number): Token {
  const raw = l.s.slice(a, b);
  return { raw, value: raw, quote: null, unterminated: false, start: mapOffset(l, a), end: mapEnd(l, a, b) };
}

export function parse(text: string): ConfigDocument {
  const errors: SyntaxError[] = [];
  const stack: Section[] = [];
  const n = text.length;
  const gen = (generation = (generation + 1) | 0 || 1);
  // Where every physical line starts, found once: the loop below reads each line's end here. (A
  // typed array: filled faster than an array of numbers, and outside the heap the collector copies.
  // Made for lines of 16 characters on average and doubled when short; the document keeps a view
  // of its exact length.)
  // A small file's starts are found in a buffer kept from one parse to the next and copied into
  // the tree's own buffer (see LineTable); past its size, in an array of their own.
  let starts = STARTS_SCRATCH;
  let cap = starts.length;
  let physical = 1;
  starts[0] = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (physical === cap) {
      const grown = new Int32Array(starts === STARTS_SCRATCH ? Math.max((n >> 4) + 16, 2 * cap) : 2 * cap);
      grown.set(starts);
      starts = grown;
      cap = grown.length;
    }
    starts[physical++] = i + 1;
  }
  const table = new LineTable(text, physical, starts === STARTS_SCRATCH ? starts : undefined);
  const lineStarts = table.physicalStarts ?? (physical === cap ? starts : starts.subarray(0, physical));
  const sections = table.sections;
  const keys = table.keys;
  /** Key index by key, for keys not found through RECENT_ID. */
  const keyIds = new Map<string, number>();
  let directiveCount = 0;

  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    errors.push({
      code: 'binary',
      message: 'The file contains NUL bytes; httpd cannot read it as a configuration file.',
      start: nul,
      end: nul + 1,
    });
  }

  // A byte order mark: httpd reads it as the first characters of the first line (so that line is
  // a command it does not know, and it refuses the file). The tree reads the line as written after
  // the mark, and the mark is an error of its own (rules/syntax.ts offers to delete it).
  // Every mark at the start (an editor that adds one to a file that has one makes two), in either form.
  let bom = 0;
  for (;;) {
    if (text.charCodeAt(bom) === 0xfeff) bom++;
    else if (text.startsWith('\u00ef\u00bb\u00bf', bom)) bom += 3;
    else break;
  }
  if (bom) {
    errors.push({
      code: 'bom',
      message:
        'The file starts with a byte order mark. httpd does not skip it: it takes the mark for the start of the first line\'s command, which it does not know, and refuses the file ("Invalid command"; a .htaccess file answers 500). Save the file as UTF-8 without a BOM.',
      start: 0,
      end: bom,
    });
  }

  let top: Section | null = null;
  /** The index of `top` in `sections`, -1 at the top level. */
  let topIx = -1;
  const single = table.single;

  let pos = 0;
  let physLine = 0;
  while (pos < n) {
    const lineStart = pos;
    const startLine = physLine;
    let l: Logical;
    let a: number;
    let b: number;
    // The first physical line; most logical lines end here.
    let nl = physLine + 1 < physical ? lineStarts[physLine + 1] - 1 : -1;
    let physEnd = nl < 0 ? n : nl;
    let k = physEnd;
    if (nl >= 0 && k > pos && text.charCodeAt(k - 1) === 13) k--;
    if (nl < 0 || k === pos || text.charCodeAt(k - 1) !== 92) {
      // No continuation: work on the original text directly.
      l = single;
      a = pos;
      b = physEnd;
      if (nl < 0) pos = n;
      else {
        pos = nl + 1;
        physLine++;
      }
    } else {
      // Gather physical lines while they end in a continuation backslash.
      const segs: number[] = [];
      const parts: string[] = [];
      let joinedLen = 0;
      for (;;) {
        let contentEnd = physEnd;
        let continued = false;
        if (nl >= 0) {
          k = physEnd;
          if (k > pos && text.charCodeAt(k - 1) === 13) k--;
          if (k > pos && text.charCodeAt(k - 1) === 92) {
            continued = true;
            contentEnd = k - 1;
          }
        }
        segs.push(joinedLen, pos, contentEnd - pos);
        parts.push(text.slice(pos, contentEnd));
        joinedLen += contentEnd - pos;
        if (nl < 0) {
          pos = n;
          break;
        }
        pos = nl + 1;
        physLine++;
        if (!continued || pos >= n) break;
        nl = physLine + 1 < physical ? lineStarts[physLine + 1] - 1 : -1;
        physEnd = nl < 0 ? n : nl;
      }
      l = { s: parts.join(''), segs, a: 0, b: 0 };
      a = 0;
      b = joinedLen;
    }
    const s = l.s;
    if (lineStart === 0 && bom) a += bom;
    while (a < b && isSpace(s.charCodeAt(a))) a++;
    while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
    if (l !== single) {
      l.a = a;
      l.b = b;
    }

    if (a >= b) {
      table.add(BLANK, lineStart, lineStart, lineStart, startLine, 0, single, topIx, -1);
      continue;
    }
    const start = mapOffset(l, a);
    const end = mapEnd(l, a, b);
    const first = s.charCodeAt(a);
    if (first === 35 /* # */) {
      table.add(COMMENT, lineStart, start, end, startLine, a, l, topIx, -1);
      continue;
    }
    if (first === 60 /* < */ && a + 1 < b && s.charCodeAt(a + 1) === 47 /* / */) {
      // Closing tag: </Name> (white space before '>' tolerated).
      let e = a + 2;
      while (e < b && s.charCodeAt(e) !== 62 && !isSpace(s.charCodeAt(e))) e++;
      const gt = s.lastIndexOf('>', b - 1);
      // Only blanks between the name and the '>' (or the end of a tag that has none).
      let r = e;
      const restEnd = gt >= e ? gt : b;
      while (r < restEnd && isSpace(s.charCodeAt(r))) r++;
      const restEmpty = r === restEnd;
      const key = e > a + 2 ? keyAt(s, a + 2, e) : '';
      let idx = -1;
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i].key === key) {
          idx = i;
          break;
        }
      }
      if (gt < e) {
        errors.push({ code: 'missing-gt', message: `The closing tag </${s.slice(a + 2, e)}> has no closing '>'.`, start, end });
      } else if (!restEmpty || gt !== b - 1) {
        errors.push({ code: 'close-has-arguments', message: `The closing tag </${s.slice(a + 2, e)}> takes no arguments.`, start, end });
      }
      if (idx < 0) {
        errors.push({
          code: 'stray-close',
          message: top
            ? `</${s.slice(a + 2, e)}> does not close any open section; <${top.name.raw}> (line ${table.line[top.openIx] + 1}) is still open.`
            : `</${s.slice(a + 2, e)}> closes a section that was never opened.`,
          start,
          end,
        });
        table.add(CLOSE, lineStart, start, end, startLine, e, l, topIx, -1);
        continue;
      }
      // Sections opened after the matching one were never closed: they end before this line.
      while (stack.length - 1 > idx) {
        const lost = stack.pop()!;
        lost.endIx = table.count;
        errors.push({
          code: 'mismatched-close',
          message: `<${lost.name.raw}> (line ${table.line[lost.openIx] + 1}) is not closed before </${s.slice(a + 2, e)}>.`,
          start: table.start[lost.openIx],
          end: table.end[lost.openIx],
        });
      }
      const target = stack.pop()!;
      const index = table.add(CLOSE, lineStart, start, end, startLine, e, l, target.ix, target.ix);
      target.closeIx = index;
      target.endIx = index + 1;
      top = stack.length ? stack[stack.length - 1] : null;
      topIx = top ? top.ix : -1;
      continue;
    }
    if (first === 60 /* < */) {
      let e = a + 1;
      while (e < b && s.charCodeAt(e) !== 62 && !isSpace(s.charCodeAt(e))) e++;
      if (e === a + 1) {
        errors.push({ code: 'empty-section-name', message: "A '<' must be followed directly by a section name.", start, end });
        // Keep it as a directive so nesting is not disturbed.
        addDirective(l, a, b, lineStart, start, end, startLine);
        continue;
      }
      if (s.lastIndexOf('>', b - 1) < e) {
        errors.push({ code: 'missing-gt', message: `The section tag <${s.slice(a + 1, e)}> has no closing '>'.`, start, end });
      }
      const index = table.add(OPEN, lineStart, start, end, startLine, e, l, topIx, sections.length);
      const section = new Section(table, index, sections.length, keyAt(s, a + 1, e), top, stack.length + 1);
      sections.push(section);
      stack.push(section);
      top = section;
      topIx = section.ix;
      continue;
    }
    addDirective(l, a, b, lineStart, start, end, startLine);
  }

  for (let i = stack.length - 1; i >= 0; i--) {
    const lost = stack[i];
    lost.endIx = table.count;
    errors.push({
      code: 'unclosed-section',
      message: `<${lost.name.raw}> (line ${table.line[lost.openIx] + 1}) is never closed.`,
      start: table.start[lost.openIx],
      end: table.end[lost.openIx],
    });
  }
  errors.sort((x, y) => x.start - y.start);
  return new Doc(text, errors, lineStarts, table, directiveCount);

  /** The index in `keys` of the key of the name at s[a, e). */
  function keyIdAt(s: string, a: number, e: number): number {
    const slot = slotAt(s, a, e);
    if (RECENT_GEN[slot] === gen) return RECENT_ID[slot];
    const id = keyId(RECENT_KEY[slot]);
    RECENT_GEN[slot] = gen;
    RECENT_ID[slot] = id;
    return id;
  }

  function keyId(key: string): number {
    let id = keyIds.get(key);
    if (id === undefined) {
      id = keys.length;
      keys.push(key);
      keyIds.set(key, id);
    }
    return id;
  }

  function addDirective(l: Logical, a: number, b: number, lineStart: number, start: number, end: number, line: number): void {
    // `a` is the first non-blank character of the line, so the name starts there. A plain name
    // (no quote, no backslash: nearly all) needs no token yet, only its key.
    const s = l.s;
    const c = s.charCodeAt(a);
    let e = a;
    let plain = c !== 34 && c !== 39;
    while (e < b) {
      const ch = s.charCodeAt(e);
      if (isSpace(ch)) break;
      if (ch === 92) plain = false;
      e++;
    }
    if (plain) {
      table.add(DIRECTIVE, lineStart, start, end, line, e, l, topIx, keyIdAt(s, a, e));
    } else {
      const name = readWord(l, a, b);
      const index = table.add(DIRECTIVE, lineStart, start, end, line, wordEnd, l, topIx, keyId(keyOf(name.value)));
      table.names.set(index, name);
    }
    directiveCount++;
  }
}

/** Print a tree back to text. For an unmodified tree this is the input, byte for byte. */
export function print(doc: ConfigDocument): string {
  const out: string[] = new Array(doc.lineCount);
  for (let i = 0; i < doc.lineCount; i++) {
    const node = doc.lineAt(i);
    out[i] = doc.text.slice(node.lineStart, node.lineEnd);
  }
  return out.join('');
}
