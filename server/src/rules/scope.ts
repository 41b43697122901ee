/**
 * Where a directive sits for access-control purposes. A scope is the file's
 * top level or a section httpd merges on its own (Directory, Location, Files,
 * If, VirtualHost…). Conditional wrappers (IfModule, IfDefine, IfVersion…),
 * method limits and Require containers are not scopes: what they hold belongs
 * to the scope around them.
 */
import type { ChildNode, ConfigDocument, DirectiveNode, OffsetEdit, SectionNode } from '../syntax';
import { ancestors } from '../model/context';
import { only22Inside, readersInside, testKeyOf, type Reader } from '../model/guards';

/** The start-up tests: read or skipped as a whole, they leave what they hold where it stands. */
export const CONDITIONS: ReadonlySet<string> = new Set(['ifmodule', 'ifdefine', 'ifversion', 'iffile', 'ifdirective', 'ifsection']);

/** Sections that only filter or group what they hold, without a merge of their own. */
export const TRANSPARENT: ReadonlySet<string> = new Set([...CONDITIONS, 'limit', 'limitexcept', 'requireall', 'requireany', 'requirenone']);

/** The nearest enclosing scope section, or null for the file's top level. */
export function scopeOf(node: { parent: SectionNode | null }): SectionNode | null {
  for (let p = node.parent; p; p = p.parent) if (!TRANSPARENT.has(p.key)) return p;
  return null;
}

/** True when only httpd 2.2 reads the node (a `<IfModule !mod_authz_core.c>` branch and the like). */
export function in22Branch(node: { parent: SectionNode | null }): boolean {
  return only22Inside(node.parent);
}

/** The servers that read the node. */
export function readers(node: { parent: SectionNode | null }): ReadonlySet<Reader> {
  return readersInside(node.parent);
}

/** An edit that removes a whole logical line (continuations and its line break included). */
export function deleteLine(node: { lineStart: number; lineEnd: number }): OffsetEdit {
  return { start: node.lineStart, end: node.lineEnd, newText: '' };
}

export const COMPAT_DIRECTIVES = new Set(['order', 'allow', 'deny', 'satisfy']);
/**
 * The same keys as a list, for the file's index (`linesWithKeys`): one list shared by the rules
 * that ask for these lines, so the index answers them all from one lookup.
 */
export const COMPAT_KEY_LIST: readonly string[] = [...COMPAT_DIRECTIVES];

export function isCompat(d: DirectiveNode): boolean {
  return COMPAT_DIRECTIVES.has(d.key);
}

/** `Name` in backquotes as the user wrote it. */
export function code(s: string): string {
  return '`' + s + '`';
}

/** A line quoted in a message: in backquotes, cut at a space before `max` characters (a line may hold thousands of addresses). */
export function codeLine(s: string, max = 80): string {
  if (s.length <= max) return code(s);
  let cut = s.slice(0, max - 2);
  const space = cut.lastIndexOf(' ');
  if (space > max / 2) cut = cut.slice(0, space);
  return code(cut.trimEnd() + ' …');
}

/** The `<IfModule>`, `<IfDefine>`, `<IfFile>`, `<IfDirective>` and `<IfSection>` tests around a node: key → required truth. */
function conditions(node: { parent: SectionNode | null }): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const s of ancestors(node)) {
    const t = testKeyOf(s);
    if (t) out.set(t.key, t.positive);
  }
  return out;
}

/**
 * True when some server reads both nodes: the same kind of server reads
 * each, and no `<IfModule X>` / `<IfModule !X>` pair (or `<IfDefine>`,
 * `<IfFile>`, `<IfDirective>`, `<IfSection>`) puts them in branches that
 * exclude each other.
 */
export function coRead(a: { parent: SectionNode | null }, b: { parent: SectionNode | null }, reader: Reader = 'httpd24compat'): boolean {
  if (!readers(a).has(reader) || !readers(b).has(reader)) return false;
  const ca = conditions(a);
  for (const [k, v] of conditions(b)) if (ca.has(k) && ca.get(k) !== v) return false;
  return true;
}

/**
 * True when a server that reads `a` surely reads `b` too: each server kind that reads `a` reads
 * `b`, and every test around `b` is around `a` as well, in the same form (so `b` cannot be left
 * out where `a` is read).
 */
export function readWith(a: { parent: SectionNode | null }, b: { parent: SectionNode | null }): boolean {
  const ra = readers(a);
  const rb = readers(b);
  for (const r of ra) if (!rb.has(r)) return false;
  const ca = conditions(a);
  for (const [k, v] of conditions(b)) if (ca.get(k) !== v) return false;
  return true;
}
