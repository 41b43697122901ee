/**
 * `compat-switch`: access lines whose reading depends on mod_access_compat itself. Lines under
 * `<IfModule !mod_access_compat.c>` (or `<IfDirective !Order>`) come into force the day the module
 * is unloaded; `Require` lines and auth settings under `<IfModule mod_access_compat.c>` (or
 * `<IfDirective Order>`) stop applying that day. Either way, unloading the module changes who gets
 * in, whatever the rest of the migration does. The host rules (`Order`, `Allow`, `Deny`,
 * `Satisfy`) under the positive test are `legacy-access`'s; they are not repeated here.
 */
import type { DirectiveNode, Finding, Rule, SectionNode } from './types';
import { code, readers } from './scope';
import { isAccessKey } from '../access';
import { openTagText } from '../syntax';
import { readersInside } from '../model/guards';

const HOST_RULES = new Set(['order', 'allow', 'deny', 'satisfy']);

/** The nearest section around a node that the two 2.4 servers read differently. */
function switchOf(d: DirectiveNode): SectionNode | null {
  let found: SectionNode | null = null;
  for (let p = d.parent; p; p = p.parent) {
    const r = readers({ parent: p });
    const outer = readers({ parent: p.parent });
    // The section whose own test tells the two servers apart.
    if (r.has('httpd24') !== r.has('httpd24compat') && outer.has('httpd24') === outer.has('httpd24compat')) found = p;
  }
  return found;
}

export const compatSwitchRule: Rule = {
  id: 'compat-switch',
  defaultSeverity: 'information',
  summary: 'Access lines that only a server with mod_access_compat reads, or only one without it: unloading the module changes them.',
  check({ doc }) {
    const out: Finding[] = [];
    // By line index: a node only for a line reported (most access lines are read by both servers).
    const access = doc.linesWithKeys(doc.directiveKeys.filter(isAccessKey));
    for (let ix = 0; ix < access.length; ix++) {
      const parent = doc.parentOf(access[ix]);
      if (!parent) continue;
      const r = readersInside(parent);
      const plain = r.has('httpd24');
      if (plain === r.has('httpd24compat')) continue;
      if (!plain && HOST_RULES.has(doc.keyOf(access[ix]))) continue;
      const d = doc.lineAt(access[ix]) as DirectiveNode;
      const at = switchOf(d);
      const where = at ? `${code(openTagText(at))} (line ${at.open.line + 1})` : 'a test of mod_access_compat';
      out.push({
        rule: 'compat-switch',
        message: plain
          ? `${code(d.name.value)} is read only once mod_access_compat is unloaded (${where}): unloading the module brings this line into force.`
          : `${code(d.name.value)} is read only while mod_access_compat is loaded (${where}): once the module is unloaded, this line no longer applies.`,
        start: d.start,
        end: d.end,
        ...(at ? { related: [{ start: at.open.start, end: at.open.end, message: 'the test of mod_access_compat' }] } : {}),
      });
    }
    return out;
  },
};
