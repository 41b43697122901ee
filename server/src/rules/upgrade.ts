/**
 * The rest of the 2.2 → 2.4 run-time changes (access-semantics.md §9, the
 * manual's upgrading page), one rule per kind of change:
 *
 * - `renamed-directive`: 2.4 still accepts the old name but logs a warning;
 *   the fix renames it (same meaning, so it is exact).
 * - `obsolete-directive`: accepted but without effect in 2.4
 *   (`NameVirtualHost`, `DefaultType`); the fix deletes the line, which
 *   changes nothing but the start-up warning.
 * - `changed-value`: values 2.4 reads differently (`KeepAlive` takes only
 *   On/Off; 2.2 took any other word as On). A diagnostic with a fix that
 *   writes the value 2.2 meant.
 */
import type { DirectiveNode, Finding, Rule } from './types';
import { directivesNamed } from '../syntax';
import { code, deleteLine, in22Branch } from './scope';
import { getDirective } from '../facts';

function hintIn22(d: DirectiveNode): Partial<Finding> {
  return in22Branch(d) ? { severity: 'hint', maxSeverity: 'hint' } : {};
}

/**
 * Rename a directive; where its value was aligned in a column with spaces,
 * take the difference in length out of those spaces (at least one stays).
 */
function renameKeepingColumn(text: string, d: DirectiveNode, to: string): { start: number; end: number; newText: string } {
  let gapEnd = d.name.end;
  while (text[gapEnd] === ' ') gapEnd++;
  const gap = gapEnd - d.name.end;
  if (!d.args.length || gap < 2) return { start: d.name.start, end: d.name.end, newText: to };
  const spaces = Math.max(1, gap - (to.length - d.name.raw.length));
  return { start: d.name.start, end: gapEnd, newText: to + ' '.repeat(spaces) };
}

export const renamedDirectiveRule: Rule = {
  id: 'renamed-directive',
  defaultSeverity: 'warning',
  summary: 'Directives 2.4 renamed (`MaxClients` → `MaxRequestWorkers`, `MaxRequestsPerChild` → `MaxConnectionsPerChild`). Fix renames them.',
  check({ doc }) {
    const out: Finding[] = [];
    for (const key of doc.directiveKeys) {
      const fact = getDirective(key);
      if (!fact || fact.status !== 'renamed' || !fact.renamedTo) continue;
      const list = doc.directivesWithKey(key);
      for (const d of list) {
        const only22 = in22Branch(d);
        out.push({
          rule: 'renamed-directive',
          message: `${code(d.name.value)} is called ${code(fact.renamedTo)} in httpd 2.4. 2.4 still accepts the old name as a deprecated alias.`,
          start: d.name.start,
          end: d.name.end,
          tags: ['deprecated'],
          ...hintIn22(d),
          data: { directive: fact.name, renamedTo: fact.renamedTo },
          ...(only22 ? {} : { fixes: [{ title: `Rename to ${fact.renamedTo}`, edits: [renameKeepingColumn(doc.text, d, fact.renamedTo)], preferred: true }] }),
        });
      }
    }
    return out;
  },
};

export const obsoleteDirectiveRule: Rule = {
  id: 'obsolete-directive',
  defaultSeverity: 'warning',
  summary: 'Directives 2.4 accepts but ignores (`NameVirtualHost`, `DefaultType`). Fix deletes them.',
  check({ doc }) {
    const out: Finding[] = [];
    for (const key of doc.directiveKeys) {
      const fact = getDirective(key);
      if (!fact || fact.status !== 'noop') continue;
      const list = doc.directivesWithKey(key);
      for (const d of list) {
        const only22 = in22Branch(d);
        let message = `${code(fact.name)} has no effect in httpd 2.4.`;
        if (fact.replacement) message += ' ' + fact.replacement;
        out.push({
          rule: 'obsolete-directive',
          message,
          start: d.start,
          end: d.end,
          tags: ['unnecessary', 'deprecated'],
          ...hintIn22(d),
          data: { directive: fact.name },
          ...(only22 ? {} : { fixes: [{ title: `Delete ${fact.name} (no effect in 2.4)`, edits: [deleteLine(d)], preferred: true }] }),
        });
      }
    }
    return out;
  },
};

export const changedValueRule: Rule = {
  id: 'changed-value',
  defaultSeverity: 'warning',
  summary: 'Values 2.4 reads differently: `KeepAlive` accepts only `On` or `Off` (2.2 took any other value as On).',
  check({ doc }) {
    const out: Finding[] = [];
    for (const d of directivesNamed(doc, 'keepalive')) {
      if (d.args.length !== 1) continue;
      const v = d.args[0];
      const low = v.value.toLowerCase();
      if (low === 'on' || low === 'off') continue;
      const meant = low === '0' ? 'Off' : 'On';
      out.push({
        rule: 'changed-value',
        message: `${code('KeepAlive ' + v.value)}: httpd 2.4 accepts only \`On\` or \`Off\` and refuses to start otherwise. 2.2 read this value as \`${meant}\`.`,
        start: v.start,
        end: v.end,
        ...hintIn22(d),
        data: { directive: 'KeepAlive', value: v.value, meant },
        ...(in22Branch(d) ? {} : { fixes: [{ title: `Write KeepAlive ${meant} (what 2.2 did with this value)`, edits: [{ start: v.start, end: v.end, newText: meant }], preferred: true }] }),
      });
    }
    return out;
  },
};
