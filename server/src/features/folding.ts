/**
 * Folding ranges: sections (the body folds, the closing tag stays visible),
 * runs of two or more comment lines, and logical lines that a backslash
 * continues over several physical lines.
 */
import { FoldingRange, FoldingRangeKind } from 'vscode-languageserver-types';
import type { ConfigDocument, LineNode } from '../syntax';
import { indexOfLine, lastLineOf, lastLineNodeOf } from './util';

export function foldingRanges(doc: ConfigDocument): FoldingRange[] {
  // One range per start line (editors keep only one); the longer one wins.
  const byStart = new Map<number, FoldingRange>();
  const add = (startLine: number, endLine: number, kind?: FoldingRangeKind): void => {
    if (endLine <= startLine) return;
    const prev = byStart.get(startLine);
    if (prev && prev.endLine >= endLine) return;
    const r: FoldingRange = { startLine, endLine };
    if (kind) r.kind = kind;
    byStart.set(startLine, r);
  };

  for (let ix = 0; ix < doc.sections.length; ix++) {

    const s = doc.sections[ix];
    const openLast = lastLineOf(doc, s.open);
    if (s.close) {
      // Fold down to the line before the closing tag, when there is at least one line between the tags.
      if (s.close.line - openLast >= 2) add(s.open.line, s.close.line - 1);
    } else {
      const last = lastNonBlank(doc, lastLineNodeOf(s), s.open);
      add(s.open.line, lastLineOf(doc, last));
    }
  }

  const lines = doc.lines;
  let runStart: LineNode | null = null;
  let runEnd: LineNode | null = null;
  const flush = (): void => {
    if (runStart && runEnd && runStart !== runEnd) add(runStart.line, lastLineOf(doc, runEnd), FoldingRangeKind.Comment);
    runStart = runEnd = null;
  };
  for (const n of lines) {
    if (n.type === 'comment') {
      if (!runStart) runStart = n;
      runEnd = n;
    } else flush();
    const last = lastLineOf(doc, n);
    if (last > n.line && n.type !== 'blank') {
      add(n.line, last, n.type === 'comment' ? FoldingRangeKind.Comment : undefined);
    }
  }
  flush();

  return [...byStart.values()].sort((a, b) => a.startLine - b.startLine);
}

/** Step back over trailing blank lines of an unclosed section (never before its open tag). */
function lastNonBlank(doc: ConfigDocument, node: LineNode, floor: LineNode): LineNode {
  if (node.type !== 'blank') return node;
  let i = indexOfLine(doc, node);
  while (i > 0 && doc.lines[i].type === 'blank' && doc.lines[i].lineStart > floor.lineStart) i--;
  return doc.lines[i];
}
