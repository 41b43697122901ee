/**
 * `dead-require`: Require lines that can never take effect: a sibling of `Require all granted`
 * in an OR (or of `Require all denied` in `<RequireAll>`), a repeated line, a section whose
 * Require lines a later section always replaces (AuthMerging Off), and Require lines that host
 * rules keep from ever being read (Satisfy All with hosts that refuse everyone, Satisfy Any with
 * hosts that let everyone in).
 *
 * The engine's notes are filtered to what can be shown from the file's structure alone:
 * - a repeated line, or one a sibling decides, counts only when some server reads both (not
 *   two branches of `<IfModule X>` / `<IfModule !X>`, `<IfFile>`, `<IfDefine>`…);
 * - "replaced by a later section" only when that section certainly applies to every request of
 *   this one: the same kind of section with the same literal path, later in the file, or
 *   `<Location />`, and read wherever the line is (not under an `<IfDefine>` it may fail);
 * - "never read because of host rules" only when the Require lines are not also meant for a
 *   server without mod_access_compat (host rules guarded by `<IfModule mod_access_compat.c>`
 *   beside a Require that every 2.4 server reads are the usual dual setup, not a dead line).
 */
import type { ConfigDocument, DirectiveNode, Finding, Rule, SectionNode } from './types';
import { notesOf, toFinding } from './access-support';
import { directiveStartingAt, sectionOpenedAt, trimEndChars } from '../syntax';
import { coRead, readWith, readers, scopeOf } from './scope';

function nodeAt(doc: ConfigDocument, start: number): DirectiveNode | SectionNode | undefined {
  return directiveStartingAt(doc, start) ?? sectionOpenedAt(doc, start);
}

function literalPath(s: SectionNode): string | null {
  if (s.args.length !== 1) return null;
  const v = s.args[0].value;
  if (/[*?[\]~]/.test(v) || /match$/.test(s.key)) return null;
  return trimEndChars(v, '/') || '/';
}

/** Does `later` apply to every request that `earlier` applies to? Only what the text proves. */
function covers(earlier: SectionNode | null, later: SectionNode): boolean {
  if (later.key === 'location' && literalPath(later) === '/') return true;
  if (!earlier || earlier.key !== later.key) return false;
  const a = literalPath(earlier);
  const b = literalPath(later);
  return a !== null && a === b && later.open.start > earlier.open.start;
}

/**
 * The section's authorization as text: its Require and AuthMerging lines and the sections around
 * them, in order, spacing and the case of names aside. Two sections with the same shape give every request
 * the same answer, whichever of them decides (the authentication lines merge the same either way).
 */
function authzShape(s: SectionNode): string {
  const parts: string[] = [];
  const walk = (sec: SectionNode): void => {
    for (const c of sec.children) {
      if (c.type === 'directive') {
        if (c.key === 'require' || c.key === 'authmerging') parts.push([c.key, ...c.args.map((a) => a.value)].join(' '));
      } else if (c.type === 'section') {
        // A section with no authorization inside (an <IfModule mod_deflate.c>) adds nothing.
        const at = parts.length;
        parts.push('<' + [c.key, ...c.args.map((a) => a.value)].join(' ') + '>');
        walk(c);
        if (parts.length === at + 1) parts.length = at;
        else parts.push('</' + c.key + '>');
      }
    }
  };
  walk(s);
  return parts.join('\n');
}

export const deadRequireRule: Rule = {
  id: 'dead-require',
  defaultSeverity: 'warning',
  summary: 'Require lines that can never take effect (decided by a sibling, replaced by a later section, or never read because of host rules).',
  check(ctx) {
    const { doc } = ctx;
    const out: Finding[] = [];
    for (const n of notesOf(ctx, 'dead-require')) {
      const node = nodeAt(doc, n.start);
      if ((n.kind === 'duplicate' || n.kind === 'decided-by-sibling') && n.related?.[0]) {
        const first = nodeAt(doc, n.related[0].start);
        if (node && first && !coRead(node, first, 'httpd24') && !coRead(node, first, 'httpd24compat')) continue;
      }
      if (n.kind === 'replaced') {
        const by = n.related?.[0] ? sectionOpenedAt(doc, n.related[0].start) : undefined;
        // The later section must be read wherever this line is: not under a test it may fail.
        const scope = node ? scopeOf(node) : null;
        if (!node || !by || !covers(scope, by) || !readWith(node, by.open)) continue;
        // The later section says the same: nothing changes today, only an edit here would be lost.
        if (scope && authzShape(scope) === authzShape(by)) {
          const f = toFinding(doc, 'dead-require', n);
          out.push({ ...f, severity: 'hint', message: f.message.replace(/\.$/, '') + '. They say the same today, so no answer changes; an edit made here would not take effect.' });
          continue;
        }
        // It lets everyone in: what replaces it can only ask more of a client, which is what a
        // password over a public directory means (`<Location />` with `Require valid-user`).
        if (scope && authzShape(scope).toLowerCase() === 'require all granted') {
          const f = toFinding(doc, 'dead-require', n);
          out.push({ ...f, severity: 'hint', message: f.message.replace(/\.$/, '') + '. It lets everyone in, so the section that replaces it can only ask more of a client; no answer depends on it.' });
          continue;
        }
      }
      if (n.kind === 'never-consulted' && node) {
        const hostRules = (n.related ?? []).map((r) => directiveStartingAt(doc, r.start)).filter((d): d is DirectiveNode => !!d);
        const requireForPlain24 = readers(node).has('httpd24');
        const hostsForPlain24 = hostRules.some((d) => readers(d).has('httpd24'));
        if (requireForPlain24 && !hostsForPlain24) continue;
        // True only while mod_access_compat is loaded, and the usual cure is migrating the host
        // rules, not deleting the Require: information, said that way.
        const f = toFinding(doc, 'dead-require', n);
        out.push({ ...f, severity: 'information', message: f.message.replace(/\.$/, '') + ', as long as mod_access_compat is loaded. An exact rewrite of the host rules keeps that answer (it writes what they decide as `Require`), so this line decides again only where the host rules are changed to let it.' });
        continue;
      }
      out.push(toFinding(doc, 'dead-require', n));
    }
    return out;
  },
};
