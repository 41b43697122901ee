/** `syntax`: what the parser could not place. A file that does not parse is never reported clean. */
import type { ChildNode } from '../syntax';
import { MAX_ANALYSED_NESTING } from '../access/model';
import type { Finding, Rule } from './types';

/** The first section nested deeper than `limit` (found without recursion), or undefined. */
function tooDeep(children: readonly ChildNode[], limit: number): ChildNode | undefined {
  const stack: Array<{ nodes: readonly ChildNode[]; depth: number }> = [{ nodes: children, depth: 0 }];
  while (stack.length) {
    const { nodes, depth } = stack.pop()!;
    for (const n of nodes) {
      if (n.type !== 'section') continue;
      if (depth > limit) return n;
      if (n.children.length) stack.push({ nodes: n.children, depth: depth + 1 });
    }
  }
  return undefined;
}

export const syntaxRule: Rule = {
  id: 'syntax',
  defaultSeverity: 'error',
  summary: 'Section tags that are unclosed, mismatched or stray, a tag without its closing `>`, NUL bytes.',
  check({ doc }) {
    const out: Finding[] = doc.errors.map((e) => ({
      rule: 'syntax',
      message: e.message,
      start: e.start,
      end: e.end,
      data: { kind: e.code },
    }));
    const deep = tooDeep(doc.children, MAX_ANALYSED_NESTING);
    if (deep && deep.type === 'section') {
      out.push({
        rule: 'syntax',
        message: `Sections are nested more than ${MAX_ANALYSED_NESTING} levels deep here; apacheconf does not check access control below this depth.`,
        start: deep.open.start,
        end: deep.open.end,
        severity: 'warning',
        data: { kind: 'too-deep' },
      });
    }
    return out;
  },
};
