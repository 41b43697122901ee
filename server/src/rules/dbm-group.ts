/**
 * `dbm-group`: in 2.2, mod_authz_dbm answered `Require group` (and
 * `Require file-group`) when the groups came from `AuthDBMGroupFile`. In 2.4
 * `Require group` belongs to mod_authz_groupfile, which reads only
 * `AuthGroupFile`, so the DBM groups need `Require dbm-group` (and
 * `dbm-file-group`). Where both group files are in scope, 2.2's answer
 * depended on module order and the Authoritative settings: the finding says
 * so and the fix is offered but not applied by "fix all".
 */
import type { DirectiveNode, Finding, Rule, SectionNode } from './types';
import { code, in22Branch, scopeOf } from './scope';
import { directivesNamed } from '../syntax';

/** The scopes whose per-directory settings reach a directive: its own and each enclosing one, and the top level. */
function reachingScopes(d: DirectiveNode): Array<SectionNode | null> {
  const out: Array<SectionNode | null> = [];
  let s = scopeOf(d);
  while (s) {
    out.push(s);
    s = scopeOf(s);
  }
  out.push(null);
  return out;
}

export const dbmGroupRule: Rule = {
  id: 'dbm-group',
  defaultSeverity: 'warning',
  summary: '`Require group` with groups from `AuthDBMGroupFile`: 2.4 calls this `Require dbm-group`.',
  check({ doc }) {
    const groupFiles = new Map<SectionNode | null, { dbm: DirectiveNode[]; plain: DirectiveNode[] }>();
    for (const d of directivesNamed(doc, 'authdbmgroupfile', 'authgroupfile')) {
      const s = scopeOf(d);
      let e = groupFiles.get(s);
      if (!e) groupFiles.set(s, (e = { dbm: [], plain: [] }));
      (d.key === 'authdbmgroupfile' ? e.dbm : e.plain).push(d);
    }
    if (![...groupFiles.values()].some((e) => e.dbm.length)) return [];
    const out: Finding[] = [];
    for (const d of directivesNamed(doc, 'require')) {
      if (!d.args.length) continue;
      const negated = d.args[0].value.toLowerCase() === 'not';
      const word = d.args[negated ? 1 : 0];
      if (!word || (word.value !== 'group' && word.value !== 'file-group')) continue;
      if (in22Branch(d)) continue;
      const dbm: DirectiveNode[] = [];
      const plain: DirectiveNode[] = [];
      for (const s of reachingScopes(d)) {
        const e = groupFiles.get(s);
        if (e) {
          dbm.push(...e.dbm);
          plain.push(...e.plain);
        }
      }
      if (!dbm.length) continue;
      const target = word.value === 'group' ? 'dbm-group' : 'dbm-file-group';
      const both = plain.length > 0;
      const message = both
        ? `${code('Require ' + word.value)} here has both \`AuthDBMGroupFile\` and \`AuthGroupFile\` in scope. In 2.2 the answer depended on module order; in 2.4 \`Require ${word.value}\` reads only \`AuthGroupFile\` and \`Require ${target}\` only the DBM file. Decide which file holds the groups.`
        : `${code('Require ' + word.value)} reads \`AuthGroupFile\` in httpd 2.4, but the groups here come from \`AuthDBMGroupFile\`: 2.4 calls this check \`Require ${target}\`.`;
      out.push({
        rule: 'dbm-group',
        message,
        start: word.start,
        end: word.end,
        related: dbm.map((g) => ({ start: g.start, end: g.end, message: 'The DBM group file in scope' })),
        data: { provider: word.value, replacement: target },
        fixes: [{ title: `Change to \`Require ${negated ? 'not ' : ''}${target}\``, edits: [{ start: word.start, end: word.end, newText: target }], preferred: !both }],
      });
    }
    return out;
  },
};
