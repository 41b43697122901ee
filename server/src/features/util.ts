/** Small tree helpers shared by the editor features. Pure functions over the syntax tree. */
import type { ConfigDocument, LineNode, SectionNode, Token } from '../syntax';
import { positionAt } from '../syntax';

/** The line node whose logical line contains `offset` (the last one when offset is the end of the text). */
export function lineAt(doc: ConfigDocument, offset: number): LineNode | undefined {
  const lines = doc.lines;
  if (!lines.length) return undefined;
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid].lineStart <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lines[lo];
}

/** The words of a line node: directive name and arguments, section name and arguments, closing tag name. */
export function tokensOf(node: LineNode): Token[] {
  switch (node.type) {
    case 'directive':
      return [node.name, ...node.args];
    case 'open':
      return [node.section.name, ...node.section.args];
    case 'close':
      return [node.name];
    default:
      return [];
  }
}

/** 0-based number of the last physical line of a logical line. */
export function lastLineOf(doc: ConfigDocument, node: { lineStart: number; lineEnd: number }): number {
  const endsWithBreak = node.lineEnd > node.lineStart && doc.text.charCodeAt(node.lineEnd - 1) === 10;
  return positionAt(doc, node.lineEnd).line - (endsWithBreak ? 1 : 0);
}

/** The last line of each unclosed section, once found (the walk below would otherwise repeat for every ancestor). */
const UNCLOSED_END = new WeakMap<SectionNode, LineNode>();

/** The last line node that belongs to a section (its closing tag, or the deepest last child when unclosed). */
export function lastLineNodeOf(section: SectionNode): LineNode {
  // Unclosed sections inside unclosed sections (100,000 deep in a broken file): every section on
  // the way down ends where the deepest one does, so one walk answers for all of them.
  const path: SectionNode[] = [];
  let s = section;
  let end: LineNode;
  for (;;) {
    if (s.close) {
      end = s.close;
      break;
    }
    const known = UNCLOSED_END.get(s);
    if (known) {
      end = known;
      break;
    }
    path.push(s);
    const last = s.children[s.children.length - 1];
    if (!last) {
      end = s.open;
      break;
    }
    if (last.type !== 'section') {
      end = last;
      break;
    }
    s = last;
  }
  for (const p of path) UNCLOSED_END.set(p, end);
  return end;
}

/** Index of a line node in doc.lines. */
export function indexOfLine(doc: ConfigDocument, node: LineNode): number {
  const lines = doc.lines;
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid].lineStart <= node.lineStart) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Offset just after the last non-blank character of a section: the end of its
 * closing tag, or of its last non-blank line when it is never closed.
 */
export function sectionEnd(doc: ConfigDocument, section: SectionNode): number {
  if (section.close) return section.close.end;
  const last = lastLineNodeOf(section);
  if (last.type !== 'blank') return last.end;
  let i = indexOfLine(doc, last);
  while (i > 0 && doc.lines[i].type === 'blank' && doc.lines[i] !== section.open) i--;
  return Math.max(section.open.end, doc.lines[i].end);
}

/** The section names that only test a condition; their bodies belong to the enclosing scope. */
export const CONDITIONAL_SECTIONS = new Set([
  'ifmodule',
  'ifdefine',
  'ifversion',
  'iffile',
  'ifdirective',
  'ifsection',
  'if',
  'elseif',
  'else',
]);

/** The text of the arguments of a section as written, for labels. */
export function argsText(tokens: readonly Token[], max = 80): string {
  return clip(tokens.map((t) => t.raw).join(' '), max);
}

/** Shorten a label to `max` characters with an ellipsis. */
export function clip(s: string, max = 80): string {
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}
