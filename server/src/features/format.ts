/**
 * Formatting: re-indent every line by the nesting depth of its section.
 *
 * Only white space at the start of physical lines changes, so no word, no
 * comment text and no line break is ever touched:
 *
 * - The first physical line of each logical line gets `depth` indentation
 *   units (a section's tags get the depth of the scope around them).
 * - Continuation lines (after a trailing backslash) keep their position
 *   relative to the first line: they move by the same number of columns.
 *   They are left alone when that could change what httpd reads: when their
 *   leading white space is part of a word (inside quotes, or glued to the end
 *   of the previous line), when it is empty (adding some would split a word),
 *   when the line is part of a comment (its text includes that white space),
 *   or when the first line does not move.
 * - Blank lines lose their spaces and tabs (line breaks stay).
 * - Line endings are never changed; CRLF files stay CRLF. A lone CR is a line
 *   break to the client (and so to the range asked for) but white space
 *   inside a line to httpd: the line after it moves with the line it
 *   belongs to, as a continuation line does.
 *
 * Edits are only produced where the text changes, so formatting twice gives
 * the same text as formatting once.
 */
import { TextEdit } from 'vscode-languageserver-types';
import type { Range } from 'vscode-languageserver-types';
import type { ConfigDocument, LineNode } from '../syntax';
import { positionAt, rangeOf, type OffsetEdit } from '../syntax';
import { lineAt, tokensOf } from './util';

export interface FormatOptions {
  tabSize: number;
  insertSpaces: boolean;
  /** LSP: trim white space at the end of lines (never white space before a continuation backslash). */
  trimTrailingWhitespace?: boolean;
  /** LSP: end the file with a line break (not when it ends in a backslash: that would join a line). */
  insertFinalNewline?: boolean;
  /** LSP: drop blank lines at the end of the file. */
  trimFinalNewlines?: boolean;
}

/** Indentation stops growing past this depth, so pathological nesting cannot blow up the output. */
export const MAX_INDENT_DEPTH = 100;

/**
 * Edits that format the document, or only the lines that `range` touches
 * (a range that ends at the very start of a line does not touch that line).
 */
export function format(doc: ConfigDocument, options: FormatOptions, range?: Range): TextEdit[] {
  let lines: LineRange | undefined;
  if (range) {
    let endLine = range.end.line;
    if (range.end.character === 0 && endLine > range.start.line) endLine--;
    lines = { startLine: range.start.line, endLine };
  }
  return formatEdits(doc, options, lines).map((e) => TextEdit.replace(rangeOf(doc, e.start, e.end), e.newText));
}

/**
 * Lines as the client counts them (0-based, inclusive): a line ends at LF, CRLF or a lone CR.
 * (httpd ends a line at LF only, so a lone CR sits inside one of its lines.)
 */
export interface LineRange {
  startLine: number;
  endLine: number;
}

function isBlankChar(c: number): boolean {
  return c === 32 || c === 9;
}

/** Width in columns of a run of spaces and tabs that starts at column 0. */
function widthOf(ws: string, tabSize: number): number {
  let w = 0;
  for (let i = 0; i < ws.length; i++) w = ws.charCodeAt(i) === 9 ? (Math.floor(w / tabSize) + 1) * tabSize : w + 1;
  return w;
}

function render(width: number, tabSize: number, insertSpaces: boolean): string {
  if (insertSpaces) return ' '.repeat(width);
  return '\t'.repeat(Math.floor(width / tabSize)) + ' '.repeat(width % tabSize);
}

/** The indentation depth of a line: the depth of the scope it sits in (a section's tags sit outside it). */
function depthOf(node: LineNode): number {
  switch (node.type) {
    case 'open':
      return node.section.depth - 1;
    case 'close':
      return node.section ? node.section.depth - 1 : node.parent ? node.parent.depth : 0;
    default:
      return node.parent ? node.parent.depth : 0;
  }
}

/** One line of a logical line, as the client counts lines. */
interface Segment {
  start: number;
  /** Before the line break (and the CR of a CRLF), and before the backslash of a continuation. */
  end: number;
  /** Ends in a continuation: a backslash right before the LF, and more of the logical line follows. */
  joined: boolean;
}

/**
 * The lines of a logical line: httpd's physical lines (ended by LF), each cut again at every lone
 * CR, which the client takes for a line break while httpd reads it as white space inside the line.
 */
function segmentsOf(text: string, lineStart: number, lineEnd: number): Segment[] {
  const out: Segment[] = [];
  let s = lineStart;
  for (let i = lineStart; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      let e = i;
      if (e > s && text.charCodeAt(e - 1) === 13) e--;
      const joined = i + 1 < lineEnd && e > s && text.charCodeAt(e - 1) === 92;
      out.push({ start: s, end: joined ? e - 1 : e, joined });
      s = i + 1;
    } else if (c === 13 && (i + 1 >= text.length || text.charCodeAt(i + 1) !== 10)) {
      out.push({ start: s, end: i, joined: false });
      s = i + 1;
    }
  }
  if (s < lineEnd || !out.length) out.push({ start: s, end: lineEnd, joined: false });
  return out;
}

export function formatEdits(doc: ConfigDocument, options: FormatOptions, range?: LineRange): OffsetEdit[] {
  const text = doc.text;
  const tabSize = Math.max(1, Math.floor(options.tabSize) || 4);
  const unit = options.insertSpaces ? ' '.repeat(tabSize) : '\t';
  const edits: OffsetEdit[] = [];
  // Whether the line that starts at this offset is in the range (lines counted as the client does).
  const inRange = (offset: number): boolean => {
    if (!range) return true;
    const line = positionAt(doc, offset).line;
    return line >= range.startLine && line <= range.endLine;
  };

  for (let ix = 0; ix < doc.lines.length; ix++) {
    const node = doc.lines[ix];
    const segs = segmentsOf(text, node.lineStart, node.lineEnd);

    if (node.type === 'blank') {
      // Lines of spaces and tabs: empty them. Continued blank lines are left alone.
      if (segs.some((g) => g.joined)) continue;
      for (const { start: s, end: e } of segs) {
        let k = s;
        while (k < e && isBlankChar(text.charCodeAt(k))) k++;
        if (k === e && e > s && inRange(s)) edits.push({ start: s, end: e, newText: '' });
      }
      continue;
    }

    const tokens = tokensOf(node);
    if (options.trimTrailingWhitespace) {
      for (let i = 0; i < segs.length; i++) {
        const { start: s, end: e, joined } = segs[i];
        if (joined || !inRange(s)) continue; // white space before a continuation backslash is part of the line
        let k = e;
        while (k > s && isBlankChar(text.charCodeAt(k - 1))) k--;
        if (k === e) continue;
        // White space after a backslash stays: without it the backslash could join the next line to this one.
        if (k > s && text.charCodeAt(k - 1) === 92) continue;
        if (i === segs.length - 1) {
          if (k >= node.end) edits.push({ start: k, end: e, newText: '' });
        } else if (!tokens.some((t) => t.start < e && t.end > k)) {
          // Before a lone CR: white space between words to httpd, unless a quoted word holds it.
          edits.push({ start: k, end: e, newText: '' });
        }
      }
    }

    // The first line's indentation must be spaces and tabs before content on that same line.
    const { start: firstStart, end: firstEnd } = segs[0];
    if (node.start < firstStart || node.start > firstEnd) continue;
    const current = text.slice(firstStart, node.start);
    if (!/^[ \t]*$/.test(current)) continue;
    const wanted = unit.repeat(Math.min(depthOf(node), MAX_INDENT_DEPTH));
    if (current === wanted || !inRange(firstStart)) continue;
    edits.push({ start: firstStart, end: node.start, newText: wanted });

    // The other lines of the logical line (after a continuation, or a lone CR) move by as many
    // columns as the first one (and take the chosen style of white space).
    const delta = widthOf(wanted, tabSize) - widthOf(current, tabSize);
    if (segs.length === 1 || node.type === 'comment') continue;
    for (let i = 1; i < segs.length; i++) {
      const { start: s, end: e, joined } = segs[i];
      let k = s;
      while (k < e && isBlankChar(text.charCodeAt(k))) k++;
      if (k === s) continue; // no white space: adding some would split a word
      if (k === e && !joined) continue; // nothing but trailing white space
      if (tokens.some((t) => t.start < k && t.end > s)) continue; // the white space is inside a word
      const ws = text.slice(s, k);
      const next = render(Math.max(1, widthOf(ws, tabSize) + delta), tabSize, options.insertSpaces);
      if (next !== ws) edits.push({ start: s, end: k, newText: next });
    }
  }

  if (!range || range.endLine >= positionAt(doc, text.length).line) return finalNewlines(doc, options, edits);
  return edits.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The line break a text uses first: CRLF, LF or a lone CR (LF when it has none). */
function firstBreak(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return '\n';
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
  }
  return '\n';
}

function finalNewlines(doc: ConfigDocument, options: FormatOptions, edits: OffsetEdit[]): OffsetEdit[] {
  const text = doc.text;
  let out = edits;
  let end = text.length; // where the text will end
  if (options.trimFinalNewlines) {
    let i = doc.lines.length - 1;
    while (i >= 0 && doc.lines[i].type === 'blank') i--;
    let from = i >= 0 ? doc.lines[i].lineEnd : 0;
    if (i >= 0 && from === text.length) {
      // No LF after the last line: blank lines after a lone CR belong to it. They start after its first line break.
      let k = doc.lines[i].end;
      while (k < text.length && isBlankChar(text.charCodeAt(k))) k++;
      const c = text.charCodeAt(k);
      from = c === 13 ? k + (text.charCodeAt(k + 1) === 10 ? 2 : 1) : c === 10 ? k + 1 : text.length;
    }
    if (i >= 0 && from < text.length && /^[ \t\r\n]*$/.test(text.slice(from))) {
      out = out.filter((e) => e.end <= from);
      out.push({ start: from, end: text.length, newText: '' });
      end = from;
    }
  }
  const lastChar = end > 0 ? text[end - 1] : '';
  if (options.insertFinalNewline && end > 0 && lastChar !== '\n' && lastChar !== '\r' && lastChar !== '\\') {
    out.push({ start: text.length, end: text.length, newText: firstBreak(text) });
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * On-type formatting: when `>` completes a section tag, put that line at its
 * depth (so `</Directory>` typed inside a body steps back out). Nothing else
 * is touched; in particular the blank line an editor just indented is left.
 */
export function formatOnType(doc: ConfigDocument, offset: number, ch: string, options: FormatOptions): TextEdit[] {
  if (ch !== '>') return [];
  const node = lineAt(doc, Math.max(0, offset - 1));
  if (!node || (node.type !== 'close' && node.type !== 'open')) return [];
  const line = positionAt(doc, node.lineStart).line;
  return formatEdits(doc, { tabSize: options.tabSize, insertSpaces: options.insertSpaces }, { startLine: line, endLine: line }).map((e) =>
    TextEdit.replace(rangeOf(doc, e.start, e.end), e.newText),
  );
}
