/**
 * Selection ranges (expand / shrink selection): the inside of a quoted word,
 * the word, the whole directive or tag line, the section body, the section,
 * each enclosing section, the document.
 */
import { SelectionRange } from 'vscode-languageserver-types';
import type { ConfigDocument, SectionNode } from '../syntax';
import { rangeOf } from '../syntax';
import { lineAt, sectionEnd, tokensOf } from './util';

/** Enclosing sections listed before jumping to the whole document (bounds the work and the nesting of the result). */
export const MAX_SECTION_LEVELS = 64;

export function selectionRanges(doc: ConfigDocument, offsets: readonly number[]): SelectionRange[] {
  return offsets.map((o) => selectionRangeAt(doc, o));
}

export function selectionRangeAt(doc: ConfigDocument, offset: number): SelectionRange {
  // Innermost first; each span must contain the cursor (LSP asks that of every range of the
  // chain), and each later span the one before it. So in a line's indentation, or on a blank
  // line, the words and the line (and a body that starts after the cursor) are left out.
  const spans: Array<[number, number]> = [];
  const push = (start: number, end: number): void => {
    if (offset < start || offset > end) return;
    const prev = spans[spans.length - 1];
    if (prev && prev[0] === start && prev[1] === end) return;
    if (prev && (start > prev[0] || end < prev[1])) return;
    spans.push([start, end]);
  };

  const node = lineAt(doc, offset);
  let section: SectionNode | null = null;
  if (node) {
    const onLine = offset >= node.start && offset <= node.end;
    if (onLine && node.type !== 'blank') {
      const tok = tokensOf(node).find((t) => offset >= t.start && offset <= t.end);
      if (tok) {
        if (tok.quote && tok.end - tok.start >= 2 && offset > tok.start && offset < tok.end) {
          push(tok.start + 1, tok.unterminated ? tok.end : tok.end - 1);
        }
        push(tok.start, tok.end);
      }
      push(node.start, node.end);
    }
    if (node.type === 'open') section = node.section;
    else if (node.type === 'close') section = node.section ?? node.parent;
    else section = node.parent;
  }

  let levels = 0;
  for (let s = section; s && levels < MAX_SECTION_LEVELS; s = s.parent, levels++) {
    // The body (first to last content line between the tags), unless the cursor is on this section's own tags.
    if (node && node !== s.open && node !== s.close) {
      const body = bodyOf(doc, s);
      if (body) push(body[0], body[1]);
    }
    push(s.open.start, sectionEnd(doc, s));
  }
  push(0, doc.text.length);

  let result: SelectionRange | undefined;
  for (let i = spans.length - 1; i >= 0; i--) {
    result = { range: rangeOf(doc, spans[i][0], spans[i][1]), parent: result };
    if (!result.parent) delete result.parent;
  }
  return result!;
}

function bodyOf(doc: ConfigDocument, s: SectionNode): [number, number] | undefined {
  let first: number | undefined;
  let last: number | undefined;
  for (const c of s.children) {
    if (c.type === 'blank' || c === s.close) continue;
    const start = c.type === 'section' ? c.open.start : c.start;
    const end = c.type === 'section' ? sectionEnd(doc, c) : c.end;
    if (first === undefined) first = start;
    last = end;
  }
  return first !== undefined && last !== undefined ? [first, last] : undefined;
}
