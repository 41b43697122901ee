/** `syntax`: what the parser could not place. A file that does not parse is never reported clean. */
import { MAX_ANALYSED_NESTING } from '../access/model';
import { HTACCESS_REPAIR_NOTE } from '../access/analysis';
import type { Finding, Rule } from './types';

/**
 * Sections httpd refuses to read without an argument (`httpd -t`: "directive requires additional
 * arguments", or an invalid version or empty name): the server does not start, and in a .htaccess
 * file every request under it answers 500. (`<Proxy>` and `<Else>` take none; `<Limit>` and the
 * `<Require…>` containers are invalid-require's.)
 */
const NEEDS_ARGUMENT: ReadonlyMap<string, string> = new Map([
  ['directory', 'a directory path'],
  ['directorymatch', 'a regular expression'],
  ['files', 'a file name or wildcard'],
  ['filesmatch', 'a regular expression'],
  ['location', 'a URL path'],
  ['locationmatch', 'a regular expression'],
  ['virtualhost', 'an address'],
  ['ifmodule', 'a module name'],
  ['ifdefine', 'a parameter name'],
  ['ifversion', 'a version'],
  ['iffile', 'a file path'],
  ['ifdirective', 'a directive name'],
  ['ifsection', 'a section name'],
  ['if', 'an expression'],
  ['elseif', 'an expression'],
  ['macro', 'a macro name'],
  ['authnprovideralias', 'a provider and an alias'],
  ['authzprovideralias', 'a provider, an alias and its arguments'],
]);

/** Lines a version-control merge leaves: `<<<<<<< ours`, `=======`, `>>>>>>> theirs` (git, Mercurial). */
function conflictMarkers(text: string): Array<{ start: number; end: number; text: string }> {
  if (!text.includes('<<<<<<<') && !text.includes('>>>>>>>')) return [];
  const out: Array<{ start: number; end: number; text: string }> = [];
  const re = /^(?:<{7}|>{7})(?:[ \t][^\r\n]*)?$|^={7}[ \t]*$/gm;
  for (let m = re.exec(text); m && out.length < 1000; m = re.exec(text)) {
    const t = m[0].replace(/[ \t]+$/, '');
    out.push({ start: m.index, end: m.index + t.length, text: t });
  }
  // A lone `=======` (a ruler in a comment block is `#=======`) counts only beside a real marker.
  return out.some((m) => m.text[0] !== '=') ? out : [];
}

export const syntaxRule: Rule = {
  id: 'syntax',
  defaultSeverity: 'error',
  summary: 'Section tags that are unclosed, mismatched or stray, a tag without its closing `>` or without the argument it needs, merge-conflict markers, NUL bytes, a byte order mark.',
  check({ doc, fileContext }) {
    const markers = conflictMarkers(doc.text);
    const markerAt = new Set(markers.map((m) => m.start));
    const out: Finding[] = markers.map((m) => ({
      rule: 'syntax',
      message: `An unresolved merge conflict: \`${m.text.length > 40 ? m.text.slice(0, 39) + '…' : m.text}\` is a marker a version-control merge left in the file, and httpd refuses the line${fileContext === 'htaccess' ? ' (every request under this .htaccess answers 500)' : ' (the server does not start)'}. Keep the side that is meant and delete the markers.`,
      start: m.start,
      end: m.end,
      data: { kind: 'conflict-marker' },
    }));
    for (const e of doc.errors) {
      // The parser's own words for a marker line (`<<<<<<<` read as a section tag) are left out.
      if (markerAt.has(e.start)) continue;
      out.push({
        rule: 'syntax',
        message: e.message,
        start: e.start,
        end: e.end,
        data: { kind: e.code },
        // Deleting the mark is what httpd needs and changes nothing else; in a .htaccess file, where the
        // mark makes every request under the folder answer 500, it changes that (offered, not applied by `fix`).
        ...(e.code === 'bom'
          ? { fixes: [fileContext === 'htaccess' ? { title: 'Remove the byte order mark' + HTACCESS_REPAIR_NOTE, edits: [{ start: e.start, end: e.end, newText: '' }] } : { title: 'Remove the byte order mark', edits: [{ start: e.start, end: e.end, newText: '' }], preferred: true }] }
          : {}),
      });
    }
    for (const sec of doc.sections) {
      if (sec.args.length) continue;
      const what = NEEDS_ARGUMENT.get(sec.key);
      if (!what) continue;
      out.push({
        rule: 'syntax',
        message: `\`<${sec.name.raw}>\` needs ${what}: httpd refuses to read the section without one${fileContext === 'htaccess' ? ' (in a .htaccess file every request under it answers 500)' : ', so the server does not start'}.`,
        start: sec.name.start - 1,
        end: sec.openEnd,
        data: { kind: 'missing-argument' },
      });
    }
    // The first section nested deeper than the engine models (a top-level section has depth 1).
    const deep = doc.sections.find((sec) => sec.depth > MAX_ANALYSED_NESTING + 1);
    if (deep) {
      out.push({
        rule: 'syntax',
        message: `Sections are nested more than ${MAX_ANALYSED_NESTING} levels deep here; apacheconf does not check access control below this depth.`,
        start: deep.open.start,
        end: deep.open.end,
        severity: 'warning',
        data: { kind: 'too-deep' },
      });
    }
    return out;
  },
};
