/**
 * `mixed-access`: 2.2 host rules (Order/Allow/Deny/Satisfy) and 2.4
 * authorization in the same section. httpd 2.4 with mod_access_compat keeps
 * the two apart: the host rules are checked first and, under `Satisfy All`,
 * a 403 from them ends the request before any `Require` is looked at; under
 * `Satisfy Any` a pass lets the request in without any `Require`. Neither is
 * what an admin who adds `Require all granted` beside `Deny from all` means.
 *
 * "2.4 style" is a provider 2.2 did not have (`Require all|ip|host|local|env|
 * method|expr|forward-dns|dbm-group…`), `Require not`, a `<Require*>`
 * container or `AuthMerging`. `Require valid-user|user|group` alone existed
 * in 2.2 and mixes with host rules as `Satisfy` says.
 *
 * Only servers that read both halves count: a dual-version file with the
 * host rules under `<IfModule !mod_authz_core.c>` is not mixed.
 */
import type { ChildNode } from '../syntax';
import type { DirectiveNode, Finding, Rule, SectionNode } from './types';
import { code, coRead, COMPAT_KEY_LIST, scopeOf, TRANSPARENT } from './scope';
import { PROVIDERS } from '../facts/providers';
import { crossSectionMixed } from './access-mixed';
import { directivesNamed, openTagText } from '../syntax';

const ONLY24_PROVIDERS = new Set(PROVIDERS.filter((p) => p.only24).map((p) => p.name));
const CONTAINERS = new Set(['requireall', 'requireany', 'requirenone']);

/** Why a directive is 2.4 style, or null when it is not. */
export function newStyleReason(d: DirectiveNode): string | null {
  if (d.key === 'authmerging') return code('AuthMerging');
  // The nearest enclosing Require container, up to the directive's own section: a container
  // cannot hold a section, so the walk ends there (it runs for every directive of every section
  // that has host rules, and a broken file can nest thousands of sections).
  for (let p: SectionNode | null = d.parent; p && TRANSPARENT.has(p.key); p = p.parent) {
    if (CONTAINERS.has(p.key)) return code('<' + p.name.value + '>');
  }
  if (d.key !== 'require' || !d.args.length) return null;
  const first = d.args[0].value;
  if (first.toLowerCase() === 'not') return code('Require not');
  // Provider names are case-sensitive in httpd; an unknown spelling is not judged here.
  if (ONLY24_PROVIDERS.has(first)) return code('Require ' + first);
  return null;
}


/** Inside a <Limit> or <LimitExcept> (its lines hold for some methods only). */
function inLimit(d: DirectiveNode): boolean {
  for (let p = d.parent; p; p = p.parent) if (p.key === 'limit' || p.key === 'limitexcept') return true;
  return false;
}

function sectionLabel(s: SectionNode | null): string {
  return s ? code(openTagText(s)) : 'the top level of this file';
}

export const mixedAccessRule: Rule = {
  id: 'mixed-access',
  defaultSeverity: 'warning',
  summary: '2.2 host rules and 2.4 `Require` rules in one section: httpd evaluates them separately, so one can silently overrule the other.',
  check(ctx) {
    const { doc, depth } = ctx;
    const out: Finding[] = [];
    // Across sections: the access engine knows which sections merge for which requests (spec §6.1, §6.2).
    if (depth !== 'quick') {
      try {
        out.push(...crossSectionMixed(ctx));
      } catch {
        // The same-section check below still runs.
      }
    }
    const compatLines = doc.linesWithKeys(COMPAT_KEY_LIST);
    if (!compatLines.length) return out;
    // The host rules of a scope, looked up only for the scopes that hold a 2.4-style line (a large
    // file has thousands of scopes with host rules and few of those).
    // (Grouped on the first scope asked about, by counting: `byScope[first[slot] .. first[slot + 1])`
    // are the line indices of the scope whose index in doc.sections is `slot`, the last slot for
    // the top level. A node is made only for a line found read with a 2.4-style one, which its
    // section alone decides.)
    const top = doc.sections.length;
    let byScope: Int32Array | null = null;
    let first: Int32Array | null = null;
    const group = (): void => {
      const slots = new Int32Array(compatLines.length);
      first = new Int32Array(top + 2);
      for (let ix = 0; ix < compatLines.length; ix++) {
        let p = doc.parentOf(compatLines[ix]);
        while (p && TRANSPARENT.has(p.key)) p = p.parent;
        const slot = p ? p.index : top;
        slots[ix] = slot;
        first[slot + 1]++;
      }
      for (let k = 0; k <= top; k++) first[k + 1] += first[k];
      const fill = first.slice(0, top + 1);
      byScope = new Int32Array(compatLines.length);
      for (let ix = 0; ix < compatLines.length; ix++) byScope[fill[slots[ix]]++] = compatLines[ix];
    };
    /** The host-rule lines of `scope` read with `d`, as nodes. */
    const partnersOf = (scope: SectionNode | null, d: DirectiveNode): DirectiveNode[] => {
      if (!byScope) group();
      const slot = scope ? scope.index : top;
      const found: DirectiveNode[] = [];
      for (let j = first![slot]; j < first![slot + 1]; j++) {
        const i = byScope![j];
        if (coRead({ parent: doc.parentOf(i) }, d)) found.push(doc.lineAt(i) as DirectiveNode);
      }
      return found;
    };
    // The 2.4-style lines: `Require` and `AuthMerging` lines, and whatever a Require container holds.
    // Each is looked at with the host rules of its scope (a large file has thousands of scopes,
    // most with no 2.4-style line at all).
    const styled: DirectiveNode[] = [...directivesNamed(doc, 'require', 'authmerging')];
    const inContainer = (children: readonly ChildNode[]): void => {
      for (const ch of children) {
        if (ch.type === 'directive') styled.push(ch);
        else if (ch.type === 'section' && TRANSPARENT.has(ch.key)) inContainer(ch.children);
      }
    };
    for (let ix = 0; ix < doc.sections.length; ix++) if (CONTAINERS.has(doc.sections[ix].key)) inContainer(doc.sections[ix].children);
    // (Lines met twice, by key and in a container, are looked at once; marked by their line's index.)
    const seen = new Uint8Array(doc.lineCount);
    for (const d of styled) {
      if (seen[d.lineIndex] === 1) continue;
      seen[d.lineIndex] = 1;
      const scope = scopeOf(d);
      const partners = partnersOf(scope, d);
      if (!partners.length) continue;
      const why = newStyleReason(d);
      if (!why) continue;
      const satisfyAny = partners.some((c) => c.key === 'satisfy' && c.args[0]?.value.toLowerCase() === 'any');
      let how = satisfyAny
        ? 'With `Satisfy Any`, a client the host rules let in gets in without this line being consulted.'
        : 'With `Satisfy All` (the default) a client the host rules refuse gets 403 before this line is consulted.';
      // No Allow or Deny line: the section's host rules (started over by any of its 2.2 lines)
      // let everyone in under `Order deny,allow` (the default) and no one under `allow,deny`.
      if (!partners.some((c) => c.key === 'allow' || c.key === 'deny') && !partners.some(inLimit)) {
        const orders = partners.filter((c) => c.key === 'order');
        const order = orders.length ? orders[orders.length - 1].args.map((a) => a.value).join('').toLowerCase() : 'deny,allow';
        const everyoneIn = order === 'deny,allow';
        // Satisfy All with everyone let in, or Satisfy Any with no one: the Require lines decide alone.
        if (satisfyAny !== everyoneIn) continue;
        how = satisfyAny
          ? 'With `Satisfy Any` and no `Allow` or `Deny` line, the host rules let every client in, so this line is never consulted.'
          : `With \`Order ${orders[orders.length - 1]?.args.map((a) => a.raw).join('') ?? ''}\` and no \`Allow\` line, the host rules refuse every client (403) before this line is consulted.`;
      }
      out.push({
        rule: 'mixed-access',
        message: `${why} is 2.4 authorization, but ${sectionLabel(scope)} also uses 2.2 access control (${partners.map((c) => code(c.name.value)).join(', ')}). httpd 2.4 checks the two separately. ${how} Migrate the 2.2 lines so only \`Require\` remains.`,
        start: d.start,
        end: d.end,
        related: partners.map((c) => ({ start: c.start, end: c.end, message: `2.2 host rule in the same section: ${c.name.value}` })),
        data: { scope: scope ? scope.key : null },
      });
    }
    return out;
  },
};
