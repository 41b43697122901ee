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

/** Where a logical line sits in the text, and the section around it (see LineInfo). */
abstract class Line {
  constructor(
    readonly lineStart: number,
    readonly lineEnd: number,
    readonly start: number,
    readonly end: number,
    readonly line: number,
    public parent: SectionNode | null,
  ) {}
}

/** A comment line. Its text is cut out of the line when first asked for (few ever are). */
class Comment extends Line implements CommentNode {
  readonly type = 'comment' as const;
  constructor(
    lineStart: number,
    lineEnd: number,
    start: number,
    end: number,
    line: number,
    parent: SectionNode | null,
    /** The logical line's text (the file itself for a line without continuations) and the comment's part of it. */
    private readonly source: string,
    private readonly from: number,
    private readonly to: number,
  ) {
    super(lineStart, lineEnd, start, end, line, parent);
  }

  get text(): string {
    return this.source.slice(this.from, this.to);
  }
}

/**
 * A directive line. Its name token and its arguments are made the first time someone asks for
 * them: most directives of a file are never looked at beyond their key, and those objects would
 * only cost memory and garbage collection.
 */
class Directive extends Line implements DirectiveNode {
  readonly type = 'directive' as const;
  private words: Token[] | null = null;
  constructor(
    lineStart: number,
    lineEnd: number,
    start: number,
    end: number,
    line: number,
    parent: SectionNode | null,
    /** The name in lower case (shared between directives of the same name). */
    readonly key: string,
    /** The name token when it was made at once (a quoted name or one with a backslash), else null. */
    private nameToken: Token | null,
    /** The logical line, where the name starts in it, and the part of it after the name. */
    private readonly logical: Logical,
    private readonly nameFrom: number,
    private readonly argsFrom: number,
    private readonly argsTo: number,
  ) {
    super(lineStart, lineEnd, start, end, line, parent);
  }

  get name(): Token {
    return (this.nameToken ??= readWord(this.logical, this.nameFrom, this.argsTo));
  }

  get args(): Token[] {
    return (this.words ??= this.argsFrom < this.argsTo ? tokenize(this.logical, this.argsFrom, this.argsTo) : []);
  }
}

/** Directive keys by name as written: a file repeats a few dozen names thousands of times. */
const KEYS = new Map<string, string>();
const KEYS_LIMIT = 20000;

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
  const lines: LineNode[] = [];
  const sections: SectionNode[] = [];
  const directives: DirectiveNode[] = [];
  const errors: SyntaxError[] = [];
  const children: ChildNode[] = [];
  const lineStarts: number[] = [0];
  const stack: SectionNode[] = [];
  const n = text.length;

  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    errors.push({
      code: 'binary',
      message: 'The file contains NUL bytes; httpd cannot read it as a configuration file.',
      start: nul,
      end: nul + 1,
    });
  }

  let top: SectionNode | null = null;
  let into: ChildNode[] = children;
  const single: Logical = { s: text, segs: null };

  let pos = 0;
  let physLine = 0;
  while (pos < n) {
    const lineStart = pos;
    const startLine = physLine;
    let l: Logical;
    let a: number;
    let b: number;
    let lineEnd: number;
    // The first physical line; most logical lines end here.
    let nl = text.indexOf('\n', pos);
    let physEnd = nl < 0 ? n : nl;
    let k = physEnd;
    if (nl >= 0 && k > pos && text.charCodeAt(k - 1) === 13) k--;
    if (nl < 0 || k === pos || text.charCodeAt(k - 1) !== 92) {
      // No continuation: work on the original text directly.
      l = single;
      a = pos;
      b = physEnd;
      if (nl < 0) {
        pos = n;
        lineEnd = n;
      } else {
        pos = nl + 1;
        physLine++;
        lineStarts.push(pos);
        lineEnd = pos;
      }
    } else {
      // Gather physical lines while they end in a continuation backslash.
      const segs: number[] = [];
      const parts: string[] = [];
      let joinedLen = 0;
      lineEnd = n;
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
          lineEnd = n;
          break;
        }
        pos = nl + 1;
        physLine++;
        lineStarts.push(pos);
        if (!continued || pos >= n) {
          lineEnd = pos;
          break;
        }
        nl = text.indexOf('\n', pos);
        physEnd = nl < 0 ? n : nl;
      }
      l = { s: parts.join(''), segs };
      a = 0;
      b = joinedLen;
    }
    const s = l.s;
    while (a < b && isSpace(s.charCodeAt(a))) a++;
    while (b > a && isSpace(s.charCodeAt(b - 1))) b--;

    if (a >= b) {
      const node: LineNode = { type: 'blank', lineStart, lineEnd, start: lineStart, end: lineStart, line: startLine, parent: top };
      lines.push(node);
      into.push(node);
      continue;
    }
    const start = mapOffset(l, a);
    const end = mapEnd(l, a, b);
    const first = s.charCodeAt(a);
    if (first === 35 /* # */) {
      const node: LineNode = new Comment(lineStart, lineEnd, start, end, startLine, top, s, a, b);
      lines.push(node);
      into.push(node);
      continue;
    }
    if (first === 60 /* < */ && a + 1 < b && s.charCodeAt(a + 1) === 47 /* / */) {
      // Closing tag: </Name> (white space before '>' tolerated).
      let e = a + 2;
      while (e < b && s.charCodeAt(e) !== 62 && !isSpace(s.charCodeAt(e))) e++;
      const name = nameToken(l, a + 2, e);
      const nameRaw = name.raw;
      const gt = s.lastIndexOf('>', b - 1);
      const restEmpty = gt >= e ? s.slice(e, gt).trim().length === 0 : s.slice(e, b).trim().length === 0;
      const key = nameRaw.toLowerCase();
      let idx = -1;
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i].key === key) {
          idx = i;
          break;
        }
      }
      if (gt < e) {
        errors.push({ code: 'missing-gt', message: `The closing tag </${nameRaw}> has no closing '>'.`, start, end });
      } else if (!restEmpty || gt !== b - 1) {
        errors.push({ code: 'close-has-arguments', message: `The closing tag </${nameRaw}> takes no arguments.`, start, end });
      }
      if (idx < 0) {
        errors.push({
          code: 'stray-close',
          message: top
            ? `</${nameRaw}> does not close any open section; <${top.name.raw}> (line ${top.open.line + 1}) is still open.`
            : `</${nameRaw}> closes a section that was never opened.`,
          start,
          end,
        });
        const node: SectionClose = { type: 'close', lineStart, lineEnd, start, end, line: startLine, parent: top, name, section: null };
        lines.push(node);
        into.push(node);
        continue;
      }
      // Sections opened after the matching one were never closed.
      while (stack.length - 1 > idx) {
        const lost = stack.pop()!;
        errors.push({
          code: 'mismatched-close',
          message: `<${lost.name.raw}> (line ${lost.open.line + 1}) is not closed before </${nameRaw}>.`,
          start: lost.open.start,
          end: lost.open.end,
        });
      }
      const target = stack.pop()!;
      const node: SectionClose = { type: 'close', lineStart, lineEnd, start, end, line: startLine, parent: target, name, section: target };
      target.close = node;
      target.children.push(node);
      // Its children are all in: keep them in an array of their exact size (see tokenize).
      (target as { children: ChildNode[] }).children = target.children.slice();
      lines.push(node);
      top = stack.length ? stack[stack.length - 1] : null;
      into = top ? top.children : children;
      continue;
    }
    if (first === 60 /* < */) {
      let e = a + 1;
      while (e < b && s.charCodeAt(e) !== 62 && !isSpace(s.charCodeAt(e))) e++;
      if (e === a + 1) {
        errors.push({ code: 'empty-section-name', message: "A '<' must be followed directly by a section name.", start, end });
        // Keep it as a directive so nesting is not disturbed.
        addDirective(l, a, b, lineStart, lineEnd, start, end, startLine);
        continue;
      }
      const gt = s.lastIndexOf('>', b - 1);
      let argsEnd = b;
      if (gt < e) {
        errors.push({ code: 'missing-gt', message: `The section tag <${s.slice(a + 1, e)}> has no closing '>'.`, start, end });
      } else argsEnd = gt;
      const name = nameToken(l, a + 1, e);
      const args = e < argsEnd ? tokenize(l, e, argsEnd) : [];
      const section = {
        type: 'section' as const,
        name,
        key: name.raw.toLowerCase(),
        args,
        open: null as unknown as SectionOpen,
        close: null,
        children: [] as ChildNode[],
        parent: top,
        depth: stack.length + 1,
      } as SectionNode;
      const open: SectionOpen = { type: 'open', lineStart, lineEnd, start, end, line: startLine, parent: top, section };
      (section as { open: SectionOpen }).open = open;
      lines.push(open);
      into.push(section);
      sections.push(section);
      stack.push(section);
      top = section;
      into = section.children;
      continue;
    }
    addDirective(l, a, b, lineStart, lineEnd, start, end, startLine);
  }

  for (let i = stack.length - 1; i >= 0; i--) {
    const lost = stack[i];
    errors.push({
      code: 'unclosed-section',
      message: `<${lost.name.raw}> (line ${lost.open.line + 1}) is never closed.`,
      start: lost.open.start,
      end: lost.open.end,
    });
  }
  errors.sort((x, y) => x.start - y.start);

  return { text, children, lines, sections, directives, errors, lineStarts };

  function addDirective(l: Logical, a: number, b: number, lineStart: number, lineEnd: number, start: number, end: number, line: number): void {
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
    let node: DirectiveNode;
    if (plain) {
      node = new Directive(lineStart, lineEnd, start, end, line, top, keyOf(s.slice(a, e)), null, l, a, e, b);
    } else {
      const name = readWord(l, a, b);
      node = new Directive(lineStart, lineEnd, start, end, line, top, keyOf(name.value), name, l, a, wordEnd, b);
    }
    lines.push(node);
    directives.push(node);
    into.push(node);
  }
}

/** Print a tree back to text. For an unmodified tree this is the input, byte for byte. */
export function print(doc: ConfigDocument): string {
  const out: string[] = new Array(doc.lines.length);
  for (let i = 0; i < doc.lines.length; i++) out[i] = doc.text.slice(doc.lines[i].lineStart, doc.lines[i].lineEnd);
  return out.join('');
}
