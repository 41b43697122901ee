/** Text edits by offsets into a document's text, and applying them. */

export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/** Apply non-overlapping edits (any order) to a text. Throws on overlap, which is a bug in the caller. */
export function applyEdits(text: string, edits: readonly OffsetEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error(`overlapping edits at offset ${e.start}`);
    out += text.slice(at, e.start) + e.newText;
    at = e.end;
  }
  return out + text.slice(at);
}

/** The line break a file uses (CRLF when its first line break is CRLF). */
export function eolOf(text: string): '\n' | '\r\n' {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

/** The leading blanks of the physical line that contains `offset`. */
export function indentAt(text: string, offset: number): string {
  let s = offset;
  while (s > 0 && text[s - 1] !== '\n') s--;
  let e = s;
  while (e < text.length && (text[e] === ' ' || text[e] === '\t')) e++;
  return text.slice(s, e);
}
