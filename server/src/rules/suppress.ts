/**
 * `# apacheconf-disable-next-line RULE[,RULE]` silences the listed rules (all
 * rules when none is listed) on the next directive or section tag: the next
 * line node that is not a comment or a blank line.
 */
import type { CommentNode, ConfigDocument } from '../syntax';

const MARK = /^#\s*apacheconf-disable-next-line\b(.*)$/i;

/** For each silenced line node, the rule ids it silences ('*' for all). Keyed by the node's start offset range. */
export interface Suppressions {
  /** Returns true when a finding of `rule` starting at `offset` is silenced. */
  silenced(rule: string, offset: number): boolean;
}

const MARK_WORD = 'apacheconf-disable-next-line';

/** Whether `text` at `i` starts with the mark's word, in any case (a letter's case bit aside, the codes must match). */
function startsMark(text: string, i: number): boolean {
  for (let k = 0; k < MARK_WORD.length; k++) {
    const c = text.charCodeAt(i + k);
    const w = MARK_WORD.charCodeAt(k);
    if (c !== w && (w < 0x61 || w > 0x7a || c !== w - 0x20)) return false;
  }
  return true;
}

export function collectSuppressions(doc: ConfigDocument): Suppressions {
  const spans: Array<{ start: number; end: number; rules: Set<string> | null }> = [];
  let pending: Set<string> | null | undefined;
  const text = doc.text;
  // Lines are looked at by their kind; a node is made only for comments and the line after a mark.
  for (let ix = 0; ix < doc.lineCount; ix++) {
    const type = doc.lineType(ix);
    if (type === 'comment') {
      // Only a comment whose first word is the mark's, in any case, can be a mark: the others are
      // not read (and need no node).
      let i = doc.startOf(ix) + 1;
      while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
      if (!startsMark(text, i)) continue;
      const node = doc.lineAt(ix) as CommentNode;
      const m = MARK.exec(node.text);
      if (m) {
        const ids = m[1].split(/[\s,]+/).filter(Boolean);
        const set = ids.length ? new Set(ids.map((s) => s.toLowerCase())) : null;
        if (pending === undefined) pending = set;
        else if (pending && set) set.forEach((r) => pending!.add(r));
        else pending = null;
      }
      continue;
    }
    if (type === 'blank') continue;
    if (pending !== undefined) {
      const node = doc.lineAt(ix);
      spans.push({ start: node.lineStart, end: node.lineEnd, rules: pending });
      pending = undefined;
    }
  }
  if (!spans.length) return { silenced: () => false };
  return {
    silenced(rule, offset) {
      // Binary search over spans sorted by start.
      let lo = 0;
      let hi = spans.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const s = spans[mid];
        if (offset < s.start) hi = mid - 1;
        else if (offset >= s.end) lo = mid + 1;
        else return s.rules === null || s.rules.has(rule.toLowerCase());
      }
      return false;
    },
  };
}
