/**
 * `dead-require`: Require lines that can never take effect: a sibling of `Require all granted`
 * in an OR (or of `Require all denied` in `<RequireAll>`), a repeated line, a section whose
 * Require lines a later section always replaces (AuthMerging Off), and Require lines that host
 * rules keep from ever being read (Satisfy All with hosts that refuse everyone, Satisfy Any with
 * hosts that let everyone in).
 */
import type { Rule } from './types';
import { notesOf, toFinding } from './access-support';

export const deadRequireRule: Rule = {
  id: 'dead-require',
  defaultSeverity: 'warning',
  summary: 'Require lines that can never take effect (decided by a sibling, replaced by a later section, or never read because of host rules).',
  check(ctx) {
    return notesOf(ctx, 'dead-require').map((n) => toFinding(ctx.doc, 'dead-require', n));
  },
};
