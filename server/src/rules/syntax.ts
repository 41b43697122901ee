/** `syntax`: what the parser could not place. A file that does not parse is never reported clean. */
import { MAX_ANALYSED_NESTING } from '../access/model';
import { HTACCESS_REPAIR_NOTE } from '../access/analysis';
import type { Finding, Rule } from './types';

export const syntaxRule: Rule = {
  id: 'syntax',
  defaultSeverity: 'error',
  summary: 'Section tags that are unclosed, mismatched or stray, a tag without its closing `>`, NUL bytes, a byte order mark.',
  check({ doc, fileContext }) {
    const out: Finding[] = doc.errors.map((e) => ({
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
    }));
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
