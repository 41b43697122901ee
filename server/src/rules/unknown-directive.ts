/**
 * `unknown-directive`: a directive httpd 2.4 does not define. Most are
 * legitimate directives of third-party modules (mod_php, mod_wsgi, Passenger…),
 * so the default is information. A near-miss of a known name is more likely
 * a typo and is a warning with "did you mean" and a fix. Nothing is reported
 * inside `<IfModule>` for a module outside httpd's own set, inside 2.2-only
 * branches, or where the name is built from a variable (`${X}`, macro
 * parameters).
 */
import type { DirectiveNode, Finding, Rule } from './types';
import { code, in22Branch } from './scope';
import { directivesByKey } from '../syntax';
import { getDirective, isHttpdModule, suggestDirective } from '../facts';
import { ancestors } from '../model/context';
import { isConfigNice } from './config-nice';

function inThirdPartyModule(d: DirectiveNode): boolean {
  return ancestors(d).some((s) => {
    if (s.key !== 'ifmodule' || !s.args.length) return false;
    const name = s.args[0].value.replace(/^!/, '');
    return !isHttpdModule(name);
  });
}

function inMacro(d: DirectiveNode): boolean {
  return ancestors(d).some((s) => s.key === 'macro');
}

export const unknownDirectiveRule: Rule = {
  id: 'unknown-directive',
  defaultSeverity: 'information',
  summary: 'A directive httpd 2.4 does not define: a third-party module\'s (information) or a likely typo (warning, with "did you mean").',
  check({ doc, uri }) {
    if (isConfigNice(uri)) return [];
    const out: Finding[] = [];
    // One catalog lookup per distinct name, not per line.
    for (const [key, list] of directivesByKey(doc)) {
      if (getDirective(key)) continue;
      for (const d of list) {
        const name = d.name.value;
        if (!name || /[$%{}@]/.test(name)) continue;
        if (inThirdPartyModule(d) || in22Branch(d) || inMacro(d)) continue;
        const guess = suggestDirective(name);
        if (guess) {
          out.push({
            rule: 'unknown-directive',
            message: `${code(name)} is not an httpd 2.4 directive. Did you mean ${code(guess)}?`,
            start: d.name.start,
            end: d.name.end,
            severity: 'warning',
            data: { directive: name, suggestion: guess },
            fixes: [{ title: `Change to ${guess}`, edits: [{ start: d.name.start, end: d.name.end, newText: guess }] }],
          });
        } else {
          out.push({
            rule: 'unknown-directive',
            message: `${code(name)} is not an httpd 2.4 directive. If a third-party module provides it, make sure that module is built for 2.4 and loaded (wrapping the line in \`<IfModule>\` for that module silences this).`,
            start: d.name.start,
            end: d.name.end,
            data: { directive: name },
          });
        }
      }
    }
    return out;
  },
};
