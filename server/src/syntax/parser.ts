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
  ConfigDocument,
  DirectiveNode,
  LineNode,
  SectionClose,
  SectionNode,
  SectionOpen,
  SyntaxError,
  Token,
} from './ast';

/** apr_isspace: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * A logical line: its joined content and how joined offsets map back to the
 * original text. `segs` holds triples [joinedStart, originalStart, length].
 */
interface Logical {
  joined: string;
  segs: number[];
}

function mapOffset(l: Logical, j: number): number {
  const s = l.segs;
  // Most logical lines have one segment; scan from the end otherwise.
  for (let i = s.length - 3; i >= 0; i -= 3) {
    if (j >= s[i]) return s[i + 1] + (j - s[i]);
  }
  return s[1] + j;
}

/** Map a joined [start, end) range to original offsets. */
function mapRange(l: Logical, start: number, end: number): [number, number] {
  if (end <= start) {
    const o = mapOffset(l, start);
    return [o, o];
  }
  return [mapOffset(l, start), mapOffset(l, end - 1) + 1];
}

/**
 * Split one logical line into words as ap_getword_conf does, from joined
 * offset `from` to `to`.
 */
export function tokenize(l: Logical, from: number, to: number): Token[] {
  const s = l.joined;
  const out: Token[] = [];
  let i = from;
  while (i < to && isSpace(s.charCodeAt(i))) i++;
  while (i < to) {
    const c = s[i];
    let j: number;
    let quote: '"' | "'" | null = null;
    let unterminated = false;
    let value: string;
    if (c === '"' || c === "'") {
      quote = c;
      j = i + 1;
      while (j < to && s[j] !== quote) {
        if (s[j] === '\\' && j + 1 < to && (s[j + 1] === quote || s[j + 1] === '\\')) j += 2;
        else j++;
      }
      value = unescape(s.slice(i + 1, j), quote);
      if (j < to) j++;
      else unterminated = true;
    } else {
      j = i;
      while (j < to && !isSpace(s.charCodeAt(j))) j++;
      value = unescape(s.slice(i, j), null);
    }
    const [start, end] = mapRange(l, i, j);
    out.push({ raw: s.slice(i, j), value, quote, unterminated, start, end });
    i = j;
    while (i < to && isSpace(s.charCodeAt(i))) i++;
  }
  return out;
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

export function parse(text: string): ConfigDocument {
  const lines: LineNode[] = [];
  const sections: SectionNode[] = [];
  const directives: DirectiveNode[] = [];
  const errors: SyntaxError[] = [];
  const children: ChildNode[] = [];
  const lineStarts: number[] = [0];
  const stack: SectionNode[] = [];
  const n = text.length;

  if (text.indexOf('\u0000') >= 0) {
    const at = text.indexOf('\u0000');
    errors.push({
      code: 'binary',
      message: 'The file contains NUL bytes; httpd cannot read it as a configuration file.',
      start: at,
      end: at + 1,
    });
  }

  const current = (): ChildNode[] => (stack.length ? stack[stack.length - 1].children : children);
  const parentOf = (): SectionNode | null => (stack.length ? stack[stack.length - 1] : null);

  let pos = 0;
  let physLine = 0;
  while (pos < n) {
    const lineStart = pos;
    const startLine = physLine;
    const segs: number[] = [];
    const parts: string[] = [];
    let joinedLen = 0;
    let lineEnd = n;
    // Gather physical lines while they end in a continuation backslash.
    for (;;) {
      const nl = text.indexOf('\n', pos);
      const physEnd = nl < 0 ? n : nl; // offset of '\n' or end of text
      let contentEnd = physEnd;
      let continued = false;
      if (nl >= 0) {
        let k = physEnd;
        if (k > pos && text.charCodeAt(k - 1) === 13) k--;
        if (k > pos && text.charCodeAt(k - 1) === 92) {
          continued = true;
          contentEnd = k - 1;
        }
      }
      segs.push(joinedLen, pos, contentEnd - pos);
      parts.push(text.slice(pos, continued ? contentEnd : physEnd));
      joinedLen += (continued ? contentEnd : physEnd) - pos;
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
    }
    const l: Logical = { joined: parts.length === 1 ? parts[0] : parts.join(''), segs };
    const s = l.joined;
    let a = 0;
    let b = s.length;
    while (a < b && isSpace(s.charCodeAt(a))) a++;
    while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
    const [start, end] = a < b ? mapRange(l, a, b) : [lineStart, lineStart];
    const base = { lineStart, lineEnd, start, end, line: startLine, parent: parentOf() };

    if (a >= b) {
      const node = { type: 'blank' as const, ...base };
      lines.push(node);
      current().push(node);
      continue;
    }
    const first = s.charCodeAt(a);
    if (first === 35 /* # */) {
      const node = { type: 'comment' as const, ...base, text: s.slice(a, b) };
      lines.push(node);
      current().push(node);
      continue;
    }
    if (first === 60 /* < */ && a + 1 < b && s.charCodeAt(a + 1) === 47 /* / */) {
      // Closing tag: </Name> (white space before '>' tolerated).
      let k = a + 2;
      while (k < b && s[k] !== '>' && !isSpace(s.charCodeAt(k))) k++;
      const [ns, ne] = mapRange(l, a + 2, k);
      const nameRaw = s.slice(a + 2, k);
      const name: Token = { raw: nameRaw, value: nameRaw, quote: null, unterminated: false, start: ns, end: ne };
      const gt = s.lastIndexOf('>', b - 1);
      const rest = gt >= k ? s.slice(k, gt).trim() : s.slice(k, b).trim();
      const key = nameRaw.toLowerCase();
      let target: SectionNode | null = null;
      let idx = -1;
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i].key === key) {
          idx = i;
          break;
        }
      }
      if (gt < k) {
        errors.push({ code: 'missing-gt', message: `The closing tag </${nameRaw}> has no closing '>'.`, start, end });
      } else if (rest.length > 0 || gt !== b - 1) {
        errors.push({
          code: 'close-has-arguments',
          message: `The closing tag </${nameRaw}> takes no arguments.`,
          start,
          end,
        });
      }
      if (idx < 0) {
        const top = stack.length ? stack[stack.length - 1] : null;
        errors.push({
          code: 'stray-close',
          message: top
            ? `</${nameRaw}> does not close any open section; <${top.name.raw}> (line ${top.open.line + 1}) is still open.`
            : `</${nameRaw}> closes a section that was never opened.`,
          start,
          end,
        });
        const node: SectionClose = { type: 'close', ...base, name, section: null };
        lines.push(node);
        current().push(node);
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
      target = stack.pop()!;
      const node: SectionClose = { type: 'close', ...base, parent: target, name, section: target };
      target.close = node;
      target.children.push(node);
      lines.push(node);
      continue;
    }
    if (first === 60 /* < */) {
      let k = a + 1;
      while (k < b && s[k] !== '>' && !isSpace(s.charCodeAt(k))) k++;
      if (k === a + 1) {
        errors.push({
          code: 'empty-section-name',
          message: "A '<' must be followed directly by a section name.",
          start,
          end,
        });
        // Keep it as a directive so nesting is not disturbed.
        addDirective(l, a, b, base);
        continue;
      }
      const gt = s.lastIndexOf('>', b - 1);
      let argsEnd = b;
      if (gt < k) {
        const nm = s.slice(a + 1, k);
        errors.push({
          code: 'missing-gt',
          message: `The section tag <${nm}> has no closing '>'.`,
          start,
          end,
        });
      } else argsEnd = gt;
      const [ns, ne] = mapRange(l, a + 1, k);
      const nameRaw = s.slice(a + 1, k);
      const name: Token = { raw: nameRaw, value: nameRaw, quote: null, unterminated: false, start: ns, end: ne };
      const args = k < argsEnd ? tokenize(l, k, argsEnd) : [];
      const parent = parentOf();
      const section = {
        type: 'section' as const,
        name,
        key: nameRaw.toLowerCase(),
        args,
        open: null as unknown as SectionOpen,
        close: null,
        children: [] as ChildNode[],
        parent,
        depth: stack.length + 1,
      } as SectionNode;
      const open: SectionOpen = { type: 'open', ...base, section };
      (section as { open: SectionOpen }).open = open;
      lines.push(open);
      current().push(section);
      sections.push(section);
      stack.push(section);
      continue;
    }
    addDirective(l, a, b, base);
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

  function addDirective(
    l: Logical,
    a: number,
    b: number,
    base: { lineStart: number; lineEnd: number; start: number; end: number; line: number; parent: SectionNode | null },
  ): void {
    const words = tokenize(l, a, b);
    const name = words[0];
    const node: DirectiveNode = {
      type: 'directive',
      ...base,
      name,
      key: name.value.toLowerCase(),
      args: words.slice(1),
    };
    lines.push(node);
    directives.push(node);
    current().push(node);
  }
}

/** Print a tree back to text. For an unmodified tree this is the input, byte for byte. */
export function print(doc: ConfigDocument): string {
  const out: string[] = new Array(doc.lines.length);
  for (let i = 0; i < doc.lines.length; i++) out[i] = doc.text.slice(doc.lines[i].lineStart, doc.lines[i].lineEnd);
  return out.join('');
}
