/**
 * Offsets ⇄ LSP positions (0-based line, UTF-16 character).
 *
 * Two line models meet here. httpd ends a line at LF only (a lone CR is text to it), and the
 * tree's `lineStarts` and `line` fields follow httpd: configuration line numbers and the mapping
 * of an inlined file's lines (physicalLine). LSP ends a line at LF, CRLF or a lone CR, and a
 * Position must count lines as the client does, so positionAt, offsetAt and rangeOf use a table
 * with a line start after every lone CR too. Files without a lone CR (nearly all) share one table.
 */
import type { ConfigDocument } from './ast';

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

type Lines = Pick<ConfigDocument, 'lineStarts' | 'text'>;

/** The LSP line starts of each document, by its (httpd) line-start table. */
const LSP_STARTS = new WeakMap<Int32Array, Int32Array>();

function lspStarts(doc: Lines): Int32Array {
  const starts = doc.lineStarts;
  const known = LSP_STARTS.get(starts);
  if (known) return known;
  const text = doc.text;
  let cr = text.indexOf('\r');
  while (cr >= 0 && text.charCodeAt(cr + 1) === 10) cr = text.indexOf('\r', cr + 2);
  let out = starts;
  if (cr >= 0) {
    const all = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) all.push(i + 1);
    }
    out = Int32Array.from(all);
  }
  LSP_STARTS.set(starts, out);
  return out;
}

function lineIn(starts: Int32Array, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The 0-based line httpd counts an offset on (LF-ended lines): configuration line numbers, inlined files' lines. */
export function physicalLine(doc: Lines, offset: number): number {
  return lineIn(doc.lineStarts, Math.max(0, Math.min(offset, doc.text.length)));
}

export function positionAt(doc: Lines, offset: number): Position {
  const starts = lspStarts(doc);
  offset = Math.max(0, Math.min(offset, doc.text.length));
  const line = lineIn(starts, offset);
  // Between the CR and the LF of a CRLF there is no position: the one before the CR (as clients count it).
  const inBreak = offset > starts[line] && doc.text.charCodeAt(offset) === 10 && doc.text.charCodeAt(offset - 1) === 13;
  return { line, character: offset - starts[line] - (inBreak ? 1 : 0) };
}

export function offsetAt(doc: Lines, pos: Position): number {
  const starts = lspStarts(doc);
  if (pos.line < 0) return 0;
  if (pos.line >= starts.length) return doc.text.length;
  const lineStart = starts[pos.line];
  // A character past the line's end means the end of its text, not the next line (as the LSP
  // specification says, and as the clients' own text documents count it): the line break is not part of it.
  let end = pos.line + 1 < starts.length ? starts[pos.line + 1] : doc.text.length;
  if (end > lineStart && doc.text.charCodeAt(end - 1) === 10) end--;
  if (end > lineStart && doc.text.charCodeAt(end - 1) === 13) end--;
  return Math.max(lineStart, Math.min(lineStart + Math.max(0, pos.character), end));
}

export function rangeOf(doc: Lines, start: number, end: number): Range {
  return { start: positionAt(doc, start), end: positionAt(doc, end) };
}
