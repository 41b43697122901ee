/**
 * `access-intent`: say what the host rules really do where it is not what they seem to say:
 * an `Allow` that can never match under `Order allow,deny` + `Deny from all` (everyone gets 403,
 * spec §2.4, §6.4), an `Allow` without effect (no `Order`: deny,allow with nothing denied), a
 * `Deny` without effect, `Satisfy Any` letting everyone in because no `Require` applies, and the
 * differences between httpd 2.2 and 2.4 with mod_access_compat (§7: a section with only
 * `Satisfy` resets the host rules; `Satisfy Any` is no longer inherited). Also, in .htaccess
 * files, what a rewrite to `Require` needs from AllowOverride (§8.4).
 */
import type { Rule } from './types';
import { notesOf, toFinding } from './access-support';

export const accessIntentRule: Rule = {
  id: 'access-intent',
  defaultSeverity: 'warning',
  summary: 'Host rules that do not do what they seem to (an Allow that never matches, Satisfy Any letting everyone in, 2.2 vs 2.4 differences).',
  check(ctx) {
    if (ctx.depth === 'quick') return [];
    return [...notesOf(ctx, 'access-intent'), ...notesOf(ctx, 'htaccess-override')].map((n) => toFinding(ctx.doc, 'access-intent', n));
  },
};
