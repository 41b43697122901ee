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
