/**
 * `removed-directive`: directives httpd 2.4 no longer has. 2.4 refuses to
 * start on them ("Invalid command"), or answers 500 when they sit in an
 * .htaccess file. The `Authz*Authoritative` family and the other lines whose
 * job 2.4 does by itself get a fix that deletes the line; the rest say what
 * replaces them. Look-alikes that still exist (AuthBasicAuthoritative,
 * AuthzSVNAuthoritative…) are not in the catalog as removed, so they never
 * match.
 */
import type { DirectiveNode, Finding, Fix, Rule } from './types';
import { code, deleteLine, in22Branch } from './scope';
import { getDirective, type DirectiveFact } from '../facts';

/** Removed directives whose deletion is the whole migration (2.4 behaves as if they were absent). */
const DELETE_IS_EXACT = new Set([
  'authzuserauthoritative', 'authzgroupfileauthoritative', 'authzdbmauthoritative',
  'authzownerauthoritative', 'authzldapauthoritative', 'authzdbdauthoritative',
  'authzdefaultauthoritative', 'authdefaultauthoritative', 'authldapauthzenabled',
]);

/** Replacement lines for removed directives that have a 2.4 spelling. `preferred` when the meaning is the same. */
function replacementFix(d: DirectiveNode): Fix | undefined {
  const arg = d.args[0]?.value;
  if (!arg) return undefined;
  const dir = (p: string) => p.replace(/\/[^/]*$/, '') || '/';
  switch (d.key) {
    case 'acceptmutex':
      // Verified with httpd 2.4: under the event MPM `mpm-accept` is not a mutex at all ("Mutex type
      // mpm-accept is not valid"), so the Mutex spelling is only offered, never applied by fix-all.
      return { title: `Replace with Mutex ${arg} mpm-accept (prefork and worker MPMs only)`, edits: [{ start: d.start, end: d.end, newText: `Mutex ${arg} mpm-accept` }], preferred: false };
    case 'lockfile':
      return { title: `Replace with Mutex file:${dir(arg)} mpm-accept (2.4 takes the lock file's folder)`, edits: [{ start: d.start, end: d.end, newText: `Mutex file:${dir(arg)} mpm-accept` }], preferred: false };
    case 'rewritelock':
      return { title: `Replace with Mutex file:${dir(arg)} rewrite-map`, edits: [{ start: d.start, end: d.end, newText: `Mutex file:${dir(arg)} rewrite-map` }], preferred: false };
    case 'sslmutex': {
      const simple = /^(default|none|sem|flock|fcntl|posixsem|pthread|sysvsem)$/i.test(arg);
      const mech = simple ? arg : arg.replace(/^(file|flock|fcntl):(.*)$/i, (_m, k: string, p: string) => `${k}:${dir(p)}`);
      if (/^none$/i.test(arg)) return { title: 'Delete SSLMutex none (2.4 picks a mutex itself)', edits: [deleteLine(d)], preferred: false };
      return { title: `Replace with Mutex ${mech} ssl-cache`, edits: [{ start: d.start, end: d.end, newText: `Mutex ${mech} ssl-cache` }], preferred: simple };
    }
    case 'rewriteloglevel': {
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 0) return undefined;
      if (n === 0) return { title: 'Delete RewriteLogLevel 0 (rewrite logging is off by default)', edits: [deleteLine(d)], preferred: true };
      const level = Math.min(n, 8);
      return { title: `Replace with LogLevel rewrite:trace${level} (2.4 writes it to the error log)`, edits: [{ start: d.start, end: d.end, newText: `LogLevel rewrite:trace${level}` }], preferred: true };
    }
    case 'rewritelog':
      return { title: 'Delete RewriteLog (2.4 writes rewrite tracing to the error log; set LogLevel rewrite:traceN)', edits: [deleteLine(d)], preferred: true };
    case 'dumpiologlevel':
      return { title: 'Replace with LogLevel dumpio:trace7 (mod_dumpio logs at trace7 in 2.4)', edits: [{ start: d.start, end: d.end, newText: 'LogLevel dumpio:trace7' }], preferred: true };
  }
  return undefined;
}

/** When the directive went away, as the start of a sentence about httpd 2.4. */
export function removedWhen(fact: DirectiveFact): string {
  if (fact.removedIn === '2.0') return 'is an httpd 1.3 directive, dropped in 2.0; it is unknown to httpd 2.4';
  if (fact.removedIn === 'earlier') return 'was dropped before httpd 2.4; it is unknown to httpd 2.4';
  return 'was removed in httpd 2.4';
}

export const removedDirectiveRule: Rule = {
  id: 'removed-directive',
  defaultSeverity: 'error',
  summary: 'Directives httpd 2.4 removed (the `Authz*Authoritative` family, `LockFile`, `RewriteLog`…): 2.4 will not start with them. Says what replaces each; deletes the `Authz*Authoritative` lines.',
  check({ doc }) {
    const out: Finding[] = [];
    for (const key of doc.directiveKeys) {
      const fact = getDirective(key);
      if (!fact || fact.status !== 'removed') continue;
      const list = doc.directivesWithKey(key);
      for (const d of list) {
        const only22 = in22Branch(d);
        let message = `${code(fact.name)} ${removedWhen(fact)}, which refuses to start with it (an .htaccess file with it answers 500).`;
        if (fact.replacement) message += ' ' + fact.replacement;
        if (only22) message += ' Only httpd 2.2 reads this branch.';
        const exact = DELETE_IS_EXACT.has(d.key) && !only22;
        const other = only22 || exact ? undefined : replacementFix(d);
        out.push({
          rule: 'removed-directive',
          message,
          start: d.start,
          end: d.end,
          tags: ['deprecated'],
          ...(only22 ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
          data: { directive: fact.name },
          ...(exact ? { fixes: [{ title: `Delete ${fact.name} (2.4 has no such directive; sibling Require lines are already OR-ed)`, edits: [deleteLine(d)], preferred: true }] } : {}),
          ...(other ? { fixes: [other] } : {}),
        });
      }
    }
    return out;
  },
};
