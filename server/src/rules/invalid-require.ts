/**
 * `invalid-require`: access-control lines httpd 2.4 refuses at start-up (spec §2.1, §2.2, §3.4):
 * `Require not` or `<RequireNone>` directly in an OR (the section's implicit `<RequireAny>`), a
 * container left with only negative lines after De Morgan flattening (AH01624), empty containers
 * and containers with arguments, provider names in the wrong case, `Require ip` with a host name
 * or `/0`, and in the host rules `Order deny, allow`, `Allow` without `from`, `#` comments,
 * invalid addresses and masks. Unknown providers are a warning: a module may define them.
 */
import type { Rule } from './types';
import { notesOf, toFinding } from './access-support';

export const invalidRequireRule: Rule = {
  id: 'invalid-require',
  defaultSeverity: 'error',
  summary: 'Require structures and host-rule arguments httpd refuses at start-up (negated lines in an OR, AH01624, bad addresses, provider case, `#` comments).',
  check(ctx) {
    return notesOf(ctx, 'invalid-require').map((n) => toFinding(ctx.doc, 'invalid-require', n));
  },
};
