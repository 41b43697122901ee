/**
 * `invalid-require`: access-control lines httpd 2.4 refuses at start-up (spec §2.1, §2.2, §3.4):
 * `Require not` or `<RequireNone>` directly in an OR (the section's implicit `<RequireAny>`), a
 * container left with only negative lines after De Morgan flattening (AH01624), empty containers
 * and containers with arguments, provider names in the wrong case, `Require ip` with a host name
 * or `/0`, and in the host rules `Order deny, allow`, `Allow` without `from`, `#` comments,
 * invalid addresses and masks. Unknown providers are a warning: a module may define them.
 *
 * One exception: `Require` lines at the top level of a server or virtual-host file cannot be
 * read there at all, so such a file is a fragment that another file includes inside a
 * directory section or a Require container (block lists are included inside `<RequireAll>`).
 * Whether a `Require not` there is valid depends on that placement, which this file does not
 * show: the finding becomes information that says so.
 */
import type { Finding, Rule } from './types';
import { notesOf, toFinding } from './access-support';
import { scopeOf } from './scope';
import { directiveAt, sectionOpenedAt } from '../syntax';

const PLACEMENT_KINDS = new Set(['negated-in-or', 'none-in-or']);

export const invalidRequireRule: Rule = {
  id: 'invalid-require',
  defaultSeverity: 'error',
  summary: 'Require structures and host-rule arguments httpd refuses at start-up (negated lines in an OR, AH01624, bad addresses, provider case, `#` comments).',
  check(ctx) {
    const fragment = ctx.fileContext === 'server' || ctx.fileContext === 'vhost';
    return notesOf(ctx, 'invalid-require').map((n): Finding => {
      const f = toFinding(ctx.doc, 'invalid-require', n);
      if (!fragment || !PLACEMENT_KINDS.has(n.kind ?? '')) return f;
      const d = directiveAt(ctx.doc, n.start);
      const sec = sectionOpenedAt(ctx.doc, n.start);
      const node = d ?? sec;
      // Directly at the file's top level (possibly inside <IfModule>/<Limit>): placement unknown.
      const atTop = node ? scopeOf(node) === null && !(node.parent && ['requireall', 'requireany', 'requirenone'].includes(node.parent.key)) : false;
      if (!atTop) return f;
      return {
        ...f,
        severity: 'information',
        message: `${f.message.replace(/ \(a section's .*\)\.?$/, '').replace(/\.$/, '')}. This file holds Require lines at its top level, where httpd does not read them, so it must be included inside a section; this line is valid only if that place is a <RequireAll>.`,
      };
    });
  },
};
