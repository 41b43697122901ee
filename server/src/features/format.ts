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
 * - Line endings are never changed; CRLF files stay CRLF.
 *
 * Edits are only produced where the text changes, so formatting twice gives
 * the same text as formatting once.
 */
import { TextEdit } from 'vscode-languageserver-types';
import type { Range } from 'vscode-languageserver-types';
import type { ConfigDocument, LineNode } from '../syntax';
import { rangeOf, type OffsetEdit } from '../syntax';
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

/** Physical lines (0-based, inclusive). */
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

/**
 * The physical lines of a logical line as [start, contentEnd): contentEnd is
 * before the line break (and its CR), and before the backslash on every
 * physical line but the last.
 */
function physicalLines(text: string, lineStart: number, lineEnd: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let s = lineStart;
  for (;;) {
    const nl = text.indexOf('\n', s);
    if (nl < 0 || nl >= lineEnd) {
      out.push([s, lineEnd]);
      break;
    }
    const last = nl + 1 >= lineEnd;
    let e = nl;
    if (e > s && text.charCodeAt(e - 1) === 13) e--;
    if (!last && e > s && text.charCodeAt(e - 1) === 92) e--;
    out.push([s, e]);
    if (last) break;
    s = nl + 1;
  }
  return out;
}

export function formatEdits(doc: ConfigDocument, options: FormatOptions, range?: LineRange): OffsetEdit[] {
  const text = doc.text;
  const tabSize = Math.max(1, Math.floor(options.tabSize) || 4);
  const unit = options.insertSpaces ? ' '.repeat(tabSize) : '\t';
  const edits: OffsetEdit[] = [];
  const inRange = (line: number): boolean => !range || (line >= range.startLine && line <= range.endLine);

  for (let ix = 0; ix < doc.lines.length; ix++) {

    const node = doc.lines[ix];
    const phys = physicalLines(text, node.lineStart, node.lineEnd);

    if (node.type === 'blank') {
      // A single physical line of spaces and tabs: empty it. Continued blank lines are left alone.
      if (phys.length === 1 && inRange(node.line)) {
        const [s, e] = phys[0];
        let k = s;
        while (k < e && isBlankChar(text.charCodeAt(k))) k++;
        if (k === e && e > s) edits.push({ start: s, end: e, newText: '' });
      }
      continue;
    }

    const [firstStart, firstEnd] = phys[0];
    const lastLine = node.line + phys.length - 1;

    if (options.trimTrailingWhitespace && inRange(lastLine)) {
      const [s, e] = phys[phys.length - 1];
      let k = e;
      while (k > s && isBlankChar(text.charCodeAt(k - 1))) k--;
      // White space after a backslash stays: without it the backslash would join the next line to this one.
      if (k < e && k >= node.end && !(k > s && text.charCodeAt(k - 1) === 92)) edits.push({ start: k, end: e, newText: '' });
    }

    // The first line's indentation must be spaces and tabs before content on that same physical line.
    if (node.start < firstStart || node.start > firstEnd) continue;
    const current = text.slice(firstStart, node.start);
    if (!/^[ \t]*$/.test(current)) continue;
    const wanted = unit.repeat(Math.min(depthOf(node), MAX_INDENT_DEPTH));
    if (!inRange(node.line) || current === wanted) continue;
    edits.push({ start: firstStart, end: node.start, newText: wanted });

    // Continuation lines move by as many columns as the first line (and take the chosen style of white space).
    const delta = widthOf(wanted, tabSize) - widthOf(current, tabSize);
    if (phys.length === 1 || node.type === 'comment') continue;
    const tokens = tokensOf(node);
    for (let i = 1; i < phys.length; i++) {
      const [s, e] = phys[i];
      let k = s;
      while (k < e && isBlankChar(text.charCodeAt(k))) k++;
      if (k === s) continue; // no white space: adding some would split a word
      if (k === e && i === phys.length - 1) continue; // nothing but trailing white space
      if (tokens.some((t) => t.start < k && t.end > s)) continue; // the white space is inside a word
      const ws = text.slice(s, k);
      const next = render(Math.max(1, widthOf(ws, tabSize) + delta), tabSize, options.insertSpaces);
      if (next !== ws) edits.push({ start: s, end: k, newText: next });
    }
  }

  if (!range || range.endLine >= doc.lineStarts.length - 1) return finalNewlines(doc, options, edits);
  return edits.sort((a, b) => a.start - b.start || a.end - b.end);
}

function finalNewlines(doc: ConfigDocument, options: FormatOptions, edits: OffsetEdit[]): OffsetEdit[] {
  const text = doc.text;
  let out = edits;
  let end = text.length; // where the text will end
  if (options.trimFinalNewlines) {
    let i = doc.lines.length - 1;
    while (i >= 0 && doc.lines[i].type === 'blank') i--;
    const from = i >= 0 ? doc.lines[i].lineEnd : 0;
    if (i >= 0 && from < text.length && /^[ \t\r\n]*$/.test(text.slice(from))) {
      out = out.filter((e) => e.end <= from);
      out.push({ start: from, end: text.length, newText: '' });
      end = from;
    }
  }
  const lastChar = end > 0 ? text[end - 1] : '';
  if (options.insertFinalNewline && end > 0 && lastChar !== '\n' && lastChar !== '\\') {
    const firstBreak = text.indexOf('\n');
    const eol = firstBreak > 0 && text[firstBreak - 1] === '\r' ? '\r\n' : '\n';
    out.push({ start: text.length, end: text.length, newText: eol });
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
  const line = node.line;
  return formatEdits(doc, { tabSize: options.tabSize, insertSpaces: options.insertSpaces }, { startLine: line, endLine: line }).map((e) =>
    TextEdit.replace(rangeOf(doc, e.start, e.end), e.newText),
  );
}
