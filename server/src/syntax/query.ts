/**
 * Lookups over a parsed file that many rules make: the directives by (lower-case) name. Built
 * once per tree, on first use (for the last tree asked about); a tree does not change once parsed.
 */
import type { ConfigDocument, DirectiveNode, SectionNode } from './ast';

// The index of the last tree asked about: the rules of one analysis ask one after another. (A
// WeakMap over every tree costs more: V8 keeps weakly held trees around for longer.)
let lastDoc: ConfigDocument | null = null;
let lastIndex: Map<string, DirectiveNode[]> | null = null;
/** directivesNamed's answers for several keys, for the same last tree. */
let lastNamed = new Map<string, readonly DirectiveNode[]>();
const NONE: readonly DirectiveNode[] = Object.freeze([]);

/** Every directive of the file by its key (the name in lower case), each list in document order. */
export function directivesByKey(doc: ConfigDocument): ReadonlyMap<string, readonly DirectiveNode[]> {
  if (lastDoc === doc && lastIndex) return lastIndex;
  const m = new Map<string, DirectiveNode[]>();
  for (let ix = 0; ix < doc.directives.length; ix++) {
    const d = doc.directives[ix];
    const list = m.get(d.key);
    if (list) list.push(d);
    else m.set(d.key, [d]);
  }
  lastDoc = doc;
  lastIndex = m;
  lastNamed = new Map();
  return m;
}

/** The directives with any of these keys (lower case), in document order. */
export function directivesNamed(doc: ConfigDocument, ...keys: string[]): readonly DirectiveNode[] {
  const m = directivesByKey(doc);
  if (keys.length === 1) return m.get(keys[0]) ?? NONE;
  const id = keys.join(' ');
  const known = lastNamed.get(id);
  if (known) return known;
  // Each key's list is in document order already: they are merged, not sorted.
  let out: readonly DirectiveNode[] = NONE;
  for (const k of keys) {
    const list = m.get(k);
    if (list) out = out.length ? merged(out, list) : list.slice();
  }
  const found = out.length ? out : NONE;
  lastNamed.set(id, found);
  return found;
}

/** Two lists in document order as one. */
function merged(a: readonly DirectiveNode[], b: readonly DirectiveNode[]): DirectiveNode[] {
  const out = new Array<DirectiveNode>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  let sa = a.length ? a[0].start : 0;
  let sb = b.length ? b[0].start : 0;
  while (i < a.length && j < b.length) {
    if (sa <= sb) {
      out[k++] = a[i++];
      if (i < a.length) sa = a[i].start;
    } else {
      out[k++] = b[j++];
      if (j < b.length) sb = b[j].start;
    }
  }
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/** True when the file has a directive with any of these keys. */
export function hasDirective(doc: ConfigDocument, ...keys: string[]): boolean {
  const m = directivesByKey(doc);
  return keys.some((k) => m.has(k));
}

/** A section's open tag as written, for messages: `<Directory "/srv">` (name and words as written). */
export function openTagText(s: SectionNode): string {
  const args = s.args.map((a) => a.raw).join(' ');
  return `<${s.name.value}${args ? ' ' + args : ''}>`;
}
