/**
 * Lookups over a parsed file that many rules make: the directives by (lower-case) name, by the
 * keys they pass, and by offset. The tree keeps each answer by name (ConfigDocument.directivesWithKey
 * and directivesWithKeys); the offsets are found in its line table.
 */
import type { ConfigDocument, DirectiveNode, SectionNode } from './ast';

const NONE: readonly DirectiveNode[] = Object.freeze([]);

/** The directives with any of these keys (lower case), in document order. */
export function directivesNamed(doc: ConfigDocument, ...keys: string[]): readonly DirectiveNode[] {
  return keys.length === 1 ? doc.directivesWithKey(keys[0]) : doc.directivesWithKeys(keys);
}

/** The directives whose keys pass `test`, in document order. */
export function directivesWhere(doc: ConfigDocument, test: (key: string) => boolean): readonly DirectiveNode[] {
  const keys = doc.directiveKeys.filter(test);
  return keys.length ? directivesNamed(doc, ...keys) : NONE;
}

/**
 * The directives whose keys pass `test` and whose line's text passes `worth`, in document order. A
 * rule that looks for something rare on lines a large file has thousands of (`Options`, log
 * files) checks the text first and makes a node only for the lines that may hold it: `worth` sees
 * the whole file's text and the line's [start, end), and must answer true for every line the rule
 * could report.
 */
export function directivesWhereText(
  doc: ConfigDocument,
  test: (key: string) => boolean,
  worth: (key: string, text: string, start: number, end: number) => boolean,
): DirectiveNode[] {
  const keys = doc.directiveKeys.filter(test);
  if (!keys.length) return [];
  const at = doc.linesWithKeys(keys);
  const text = doc.text;
  const out: DirectiveNode[] = [];
  for (let ix = 0; ix < at.length; ix++) {
    const i = at[ix];
    if (worth(doc.keyOf(i), text, doc.startOf(i), doc.endOf(i))) out.push(doc.lineAt(i) as DirectiveNode);
  }
  return out;
}

/** The directive whose line holds `offset` (its name's first character up to its last one; an empty one only at its start), if any. */
export function directiveAt(doc: ConfigDocument, offset: number): DirectiveNode | undefined {
  const i = doc.lineIndexAt(offset);
  if (i < 0 || doc.lineType(i) !== 'directive') return undefined;
  const d = doc.lineAt(i) as DirectiveNode;
  return d.start <= offset && offset < Math.max(d.end, d.start + 1) ? d : undefined;
}

/** The directive that starts exactly at `start`, if any. */
export function directiveStartingAt(doc: ConfigDocument, start: number): DirectiveNode | undefined {
  const d = directiveAt(doc, start);
  return d && d.start === start ? d : undefined;
}

/** The section whose opening tag starts exactly at `start`, if any. */
export function sectionOpenedAt(doc: ConfigDocument, start: number): SectionNode | undefined {
  const i = doc.lineIndexAt(start);
  if (i < 0 || doc.lineType(i) !== 'open') return undefined;
  const open = doc.lineAt(i) as import('./ast').SectionOpen;
  return open.start === start ? open.section : undefined;
}

/** True when the file has a directive with any of these keys. */
export function hasDirective(doc: ConfigDocument, ...keys: string[]): boolean {
  return keys.some((k) => doc.directiveKeys.includes(k));
}

/** A section's open tag as written, for messages: `<Directory "/srv">` (name and words as written). */
export function openTagText(s: SectionNode): string {
  const args = s.args.map((a) => a.raw).join(' ');
  return `<${s.name.value}${args ? ' ' + args : ''}>`;
}
