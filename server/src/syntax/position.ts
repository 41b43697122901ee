/** Offsets ⇄ LSP positions (0-based line, UTF-16 character), from a document's line starts. */
import type { ConfigDocument } from './ast';

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export function positionAt(doc: Pick<ConfigDocument, 'lineStarts' | 'text'>, offset: number): Position {
  const starts = doc.lineStarts;
  offset = Math.max(0, Math.min(offset, doc.text.length));
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

export function offsetAt(doc: Pick<ConfigDocument, 'lineStarts' | 'text'>, pos: Position): number {
  const starts = doc.lineStarts;
  if (pos.line < 0) return 0;
  if (pos.line >= starts.length) return doc.text.length;
  const lineStart = starts[pos.line];
  const next = pos.line + 1 < starts.length ? starts[pos.line + 1] : doc.text.length;
  return Math.max(lineStart, Math.min(lineStart + pos.character, next));
}

export function rangeOf(doc: Pick<ConfigDocument, 'lineStarts' | 'text'>, start: number, end: number): Range {
  return { start: positionAt(doc, start), end: positionAt(doc, end) };
}
