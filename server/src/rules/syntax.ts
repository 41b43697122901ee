/** `syntax`: what the parser could not place. A file that does not parse is never reported clean. */
import type { Rule } from './types';

export const syntaxRule: Rule = {
  id: 'syntax',
  defaultSeverity: 'error',
  summary: 'Section tags that are unclosed, mismatched or stray, a tag without its closing `>`, NUL bytes.',
  check({ doc }) {
    return doc.errors.map((e) => ({
      rule: 'syntax',
      message: e.message,
      start: e.start,
      end: e.end,
      data: { kind: e.code },
    }));
  },
};
