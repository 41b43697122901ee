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
import type { SectionNode } from '../syntax';
import { code, in22Branch } from './scope';
import { directivesNamed, type ConfigDocument } from '../syntax';
import { getDirective, holdsCode, isHttpdModule, isSectionKey, suggestDirective, suggestSection } from '../facts';
import { ancestors } from '../model/context';
import { isConfigNice } from './config-nice';

function inThirdPartyModule(d: { parent: SectionNode | null }): boolean {
  return ancestors(d).some((s) => {
    if (s.key !== 'ifmodule' || !s.args.length) return false;
    const name = s.args[0].value.replace(/^!/, '');
    return !isHttpdModule(name);
  });
}

function inMacro(d: { parent: SectionNode | null }): boolean {
  return ancestors(d).some((s) => s.key === 'macro');
}

/**
 * A section whose lines are not directives for this rule: one holding code (mod_lua's inline
 * hooks), or one httpd 2.4 does not define that is no near-miss of one (a third-party module's,
 * such as mod_perl's `<Perl>`, whose content is that module's to read).
 */
function opaqueSection(s: SectionNode): boolean {
  return holdsCode(s.key) || (!isSectionKey(s.key) && !suggestSection(s.name.value));
}

function inOpaqueSection(d: DirectiveNode): boolean {
  return ancestors(d).some(opaqueSection);
}

/**
 * A file that belongs to a module outside httpd's own set: one that loads such a module itself
 * (its unknown names are most likely that module's), or Debian's `mods-available/NAME.conf` for
 * one (read only when `NAME.load` is enabled, which loads the module).
 */
function thirdPartyModuleFile(doc: ConfigDocument, uri: string | undefined): boolean {
  for (const d of directivesNamed(doc, 'loadmodule')) {
    const id = d.args[0]?.value;
    if (id && !isHttpdModule(id) && !in22Branch(d)) return true;
  }
  const m = uri ? /\/mods-(?:available|enabled)\/([^/]+)\.conf$/i.exec(uri) : null;
  if (!m) return false;
  const name = decodeURIComponent(m[1]).toLowerCase();
  return !isHttpdModule(`${name}_module`) && !isHttpdModule(`mod_${name}.c`);
}

/** The words of `Options` (core), which a line of their own most likely lost from an `Options` line. */
const OPTIONS_WORDS = new Set(['execcgi', 'followsymlinks', 'includes', 'includesnoexec', 'indexes', 'multiviews', 'symlinksifownermatch']);

export const unknownDirectiveRule: Rule = {
  id: 'unknown-directive',
  defaultSeverity: 'information',
  summary: 'A directive httpd 2.4 does not define: a third-party module\'s (information) or a likely typo (warning, with "did you mean").',
  check({ doc, uri }) {
    if (isConfigNice(uri)) return [];
    const out: Finding[] = [];
    const moduleFile = thirdPartyModuleFile(doc, uri);
    // One catalog lookup per distinct name, not per line.
    for (const key of doc.directiveKeys) {
      const fact = getDirective(key);
      if (fact?.section) {
        // A section's name without its '<': httpd knows the name only as a tag ("Invalid command 'If'").
        const list = doc.directivesWithKey(key);
        for (const d of list) {
          if (in22Branch(d) || inMacro(d) || inOpaqueSection(d)) continue;
          out.push({
            rule: 'unknown-directive',
            message: `${code(d.name.value)} is a section: httpd reads it only as a tag, ${code('<' + fact.name + ' …>')} … ${code('</' + fact.name + '>')}. Written without the angle brackets, httpd refuses to start.`,
            start: d.name.start,
            end: d.name.end,
            severity: 'warning',
            data: { directive: d.name.value },
          });
        }
        continue;
      }
      if (fact) continue;
      const list = doc.directivesWithKey(key);
      for (const d of list) {
        const name = d.name.value;
        if (!name || /[$%{}@]/.test(name)) continue;
        if (inThirdPartyModule(d) || in22Branch(d) || inMacro(d) || inOpaqueSection(d)) continue;
        const guess = suggestDirective(name);
        if (OPTIONS_WORDS.has(name.replace(/^[+-]/, '').toLowerCase())) {
          // `Options FollowSymLinks` with its words carried onto a line of their own.
          out.push({
            rule: 'unknown-directive',
            message: `${code(name)} is a word of \`Options\`, not a directive: httpd refuses to start on this line. Is the \`\\\` at the end of the line before missing?`,
            start: d.name.start,
            end: d.name.end,
            severity: 'warning',
            data: { directive: name },
          });
        } else if (guess) {
          out.push({
            rule: 'unknown-directive',
            message: `${code(name)} is not an httpd 2.4 directive. Did you mean ${code(guess)}?`,
            start: d.name.start,
            end: d.name.end,
            severity: 'warning',
            data: { directive: name, suggestion: guess },
            fixes: [{ title: `Change to ${guess}`, edits: [{ start: d.name.start, end: d.name.end, newText: guess }] }],
          });
        } else if (!moduleFile) {
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
    // Section tags: httpd refuses a name it does not define ("Invalid command '<Directroy'").
    for (let ix = 0; ix < doc.sections.length; ix++) {
      const sec = doc.sections[ix];
      if (isSectionKey(sec.key)) continue;
      const name = sec.name.value;
      if (!name || /[$%{}@]/.test(name)) continue;
      if (inThirdPartyModule(sec) || in22Branch(sec) || inMacro(sec)) continue;
      const guess = suggestSection(name);
      if (guess) {
        const edits = [{ start: sec.name.start, end: sec.name.end, newText: guess }];
        if (sec.close && sec.close.name.value.toLowerCase() === sec.key) edits.push({ start: sec.close.name.start, end: sec.close.name.end, newText: guess });
        out.push({
          rule: 'unknown-directive',
          message: `${code('<' + name + '>')} is not a section httpd 2.4 defines, so httpd refuses to start. Did you mean ${code('<' + guess + '>')}?`,
          start: sec.name.start,
          end: sec.name.end,
          severity: 'warning',
          data: { directive: name, suggestion: guess },
          fixes: [{ title: `Change to <${guess}>`, edits }],
        });
      } else {
        out.push({
          rule: 'unknown-directive',
          message: `${code('<' + name + '>')} is not a section httpd 2.4 defines. If a third-party module provides it, make sure that module is built for 2.4 and loaded (wrapping the section in \`<IfModule>\` for that module silences this); the lines inside are that module's to read and are not checked here.`,
          start: sec.name.start,
          end: sec.name.end,
          data: { directive: name },
        });
      }
    }
    return out;
  },
};
