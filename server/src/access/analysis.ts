/**
 * Diagnostics the access model can prove about a file, beyond the rewrite:
 *   - invalid-require: what httpd refuses at start-up (§2.1, §2.2, §3.4), with fixes;
 *   - dead-require: Require lines that can never take effect;
 *   - access-intent: host rules that do not do what they seem to (§2.4, §6.4), Satisfy Any
 *     letting everyone in, and the 2.2 / 2.4+compat differences of §7;
 *   - mixed-access (cross-section): host rules of one section and Require of another that
 *     meet for some request (§6.1, §6.2);
 *   - htaccess-override: what a rewrite in .htaccess needs (§8.4 rule 3).
 */
import { eolOf, indentAt, openTagText, physicalLine, type ConfigDocument, type DirectiveNode, type OffsetEdit, type SectionNode } from '../syntax';
import type { FileContext } from '../model/context';
import { buildModel, decidesAccess, isAllMethods, leaves, type AccessModel, type AuthzContainer, type AuthzLeaf, type AuthzNode, type Problem, type Scope } from './model';
import { accessScopes, appliedScopes, mergeApplied, type Applied, type MergedState, type Tree } from './evaluate';
import { pointsFor, selectedScopes } from './points';
import { scopesOverlap } from './region';
import { isDenied, isGranted, methodClasses, summary, verdictBlock } from './translate';

export type NoteRule = 'access-intent' | 'mixed-access' | 'invalid-require' | 'dead-require' | 'htaccess-override';

export interface NoteFix {
  title: string;
  edits: OffsetEdit[];
  preferred?: boolean;
}

export interface PlanNote {
  rule: NoteRule;
  message: string;
  start: number;
  end: number;
  related?: Array<{ start: number; end: number; message: string }>;
  severity?: 'error' | 'warning' | 'information' | 'hint';
  fixes?: NoteFix[];
  tags?: Array<'unnecessary' | 'deprecated'>;
  /** A stable kind for tests and clients. */
  kind?: string;
}

export function label(s: Scope | null): string {
  return s?.section ? openTagText(s.section) : 'the top level of this file';
}

function where(doc: ConfigDocument, s: Scope): string {
  return s.section ? `${label(s)} (line ${physicalLine(doc, s.section.open.start) + 1})` : label(s);
}

// ---------------------------------------------------------------------------------------------
// invalid-require

function problemFixes(doc: ConfigDocument, p: Problem): NoteFix[] {
  const d = p.directive;
  const eol = eolOf(doc.text);
  switch (p.code) {
    case 'provider-case': {
      const word = doc.text.slice(p.start, p.end);
      return [{ title: `Write the provider in lower case: ${word.toLowerCase()}`, edits: [{ start: p.start, end: p.end, newText: word.toLowerCase() }], preferred: true }];
    }
    case 'order-args': {
      if (!d) return [];
      const joined = d.args.map((a) => a.value).join('').toLowerCase();
      if (joined !== 'allow,deny' && joined !== 'deny,allow') return [];
      return [{ title: `Write it as one word: Order ${joined}`, edits: [{ start: d.args[0].start, end: d.args[d.args.length - 1].end, newText: joined }], preferred: true }];
    }
    case 'negated-in-or': {
      if (!d) return [];
      const ind = indentAt(doc.text, d.start);
      const unit = '    ';
      const line = doc.text.slice(d.start, d.end);
      const text = `${ind}<RequireAll>${eol}${ind}${unit}Require all granted${eol}${ind}${unit}${line}${eol}${ind}</RequireAll>`;
      return [{ title: 'Wrap it in <RequireAll> with `Require all granted` (everyone except what it names)', edits: [{ start: d.start, end: d.end, newText: text.slice(ind.length) }] }];
    }
    case 'only-negative': {
      const sec = p.section;
      if (!sec) return [];
      const first = sec.children.find((c) => c.type === 'directive' || c.type === 'section');
      if (!first) return [];
      const at = first.type === 'section' ? first.open : first;
      const ind = indentAt(doc.text, at.start);
      return [{ title: 'Add `Require all granted` so the container has a positive line', edits: [{ start: at.lineStart, end: at.lineStart, newText: `${ind}Require all granted${eol}` }] }];
    }
    case 'comment-token': {
      if (!d) return [];
      const hash = d.args.findIndex((a) => a.value.startsWith('#'));
      if (hash < 2) return [];
      const ind = indentAt(doc.text, d.start);
      const comment = doc.text.slice(d.args[hash].start, d.end);
      const kept = doc.text.slice(d.start, d.args[hash - 1].end);
      return [{ title: 'Move the comment to its own line', edits: [{ start: d.start, end: d.end, newText: `${comment}${eol}${ind}${kept}` }] }];
    }
    default:
      return [];
  }
}

/**
 * In a .htaccess file, a line httpd refuses makes every request under the folder answer 500: a
 * repair changes what httpd answers there (500 becomes 200 or 403), so it is offered, not applied
 * by the migration (`fix`, "Migrate…"), whose rewrites keep every answer. In the server config
 * httpd does not start with the line, so there is no answer to keep.
 */
export const HTACCESS_REPAIR_NOTE = ' (httpd answers 500 under this folder as the file stands: the repair changes that)';

function asHtaccessRepair(fixes: NoteFix[], ctx: FileContext): NoteFix[] {
  return ctx === 'htaccess' ? fixes.map((f) => (f.preferred ? { title: f.title + HTACCESS_REPAIR_NOTE, edits: f.edits } : f)) : fixes;
}

function invalidNotes(doc: ConfigDocument, model: AccessModel, ctx: FileContext): PlanNote[] {
  return model.problems.map((p) => ({
    rule: 'invalid-require' as const,
    message:
      p.code === 'provider-unknown'
        ? `${p.message}.`
        : `httpd refuses to start with this line: ${p.message}${/[.!]$/.test(p.message) ? '' : '.'}`,
    start: p.start,
    end: p.end,
    severity: p.code === 'provider-unknown' ? ('warning' as const) : ('error' as const),
    kind: p.code,
    fixes: asHtaccessRepair(problemFixes(doc, p), ctx),
  }));
}

// ---------------------------------------------------------------------------------------------
// Per-point facts

interface PointFacts {
  applied: Applied[];
  state: MergedState;
  /** The final compat section (null: the defaults, always OK). */
  x: Scope | null;
}

function containsNode(t: Tree | null, n: AuthzNode): boolean {
  if (!t) return false;
  if (t === n) return true;
  if (t.kind === 'merged') return t.children.some((c) => containsNode(c, n));
  return false;
}

/** For each method class of the final compat config: does authz run at all for some client? */
function authzMayRun(x: Scope | null): boolean {
  if (!x?.compat) return true;
  for (const k of methodClasses(x.compat, [], false)) {
    const t = verdictBlock(k.order, k.allow, k.deny);
    if (!k.satisfyAny && !isDenied(t)) return true;
    if (k.satisfyAny && !isGranted(t)) return true;
  }
  return false;
}

/**
 * Work allowed to the point-based notes of one file (scopes looked at: finding the seed's group,
 * and request points × scopes). Huge
 * files stop getting these notes rather than stalling the editor; the notes are advice, and
 * what is left out is only what could not be checked in time.
 */
const NOTES_BUDGET = 3_000_000;
const notesWork = new WeakMap<AccessModel, number>();

function groupPoints(model: AccessModel, seed: Scope): PointFacts[] | null {
  const spent = notesWork.get(model) ?? 0;
  if (spent > NOTES_BUDGET) return null;
  const act = model.scopes.filter((s) => decidesAccess(s) && (s === seed || scopesOverlap(s, seed)));
  const ps = pointsFor(model, act, 1024);
  // The group and its points cost a few passes over the scopes even when the points are too many.
  notesWork.set(model, spent + 4 * model.scopes.length + accessScopes(model).length * ps.points.length);
  if (ps.truncated) return null;
  return ps.points.map((pt) => {
    const applied = appliedScopes(model, pt.test, true, selectedScopes(model, pt));
    let x: Scope | null = null;
    for (const a of applied) if (a.scope.compat) x = a.scope;
    return { applied, state: mergeApplied(applied), x };
  });
}

// ---------------------------------------------------------------------------------------------
// dead-require

function nodeRange(n: AuthzNode): { start: number; end: number } {
  if (n.kind === 'leaf') return { start: n.directive.start, end: n.directive.end };
  return { start: n.section!.open.start, end: n.section!.open.end };
}

function nodeText(n: AuthzNode): string {
  if (n.kind === 'leaf') return `Require ${n.negated ? 'not ' : ''}${n.provider}${n.args.length ? ' ' + n.args.map((a) => a.raw).join(' ') : ''}`;
  return `<${n.section!.name.value}>`;
}

function structuralDead(c: AuthzContainer, out: PlanNote[]): void {
  const or = c.op === 'any';
  const and = c.op === 'all';
  const decisive = c.children.find(
    (ch) =>
      ch.kind === 'leaf' &&
      !ch.negated &&
      ch.provider === 'all' &&
      isAllMethods(ch.mask) &&
      ((or && ch.args[0]?.value.toLowerCase() === 'granted') || (and && ch.args[0]?.value.toLowerCase() === 'denied')),
  ) as AuthzLeaf | undefined;
  const where = c.section ? `<${c.section.name.value}>` : "the section's implicit <RequireAny>";
  // A line that repeats an earlier one of the container is reported as a repeat, and only so
  // (a second `Require all granted` is not also "decided by" the first).
  // (Only a container of two lines or more can repeat one: the usual single line makes no tables.)
  const repeats = c.children.length > 1 ? new Map<AuthzLeaf, AuthzLeaf>() : null;
  if (repeats) {
    const seen = new Map<string, AuthzLeaf>();
    for (const ch of c.children) {
      if (ch.kind !== 'leaf') continue;
      const key = `${nodeText(ch)}|${[...ch.mask.methods].join(',')}|${ch.mask.except}`;
      const first = seen.get(key);
      if (first && ch !== decisive) repeats.set(ch, first);
      else if (!first) seen.set(key, ch);
    }
  }
  if (decisive) {
    for (const ch of c.children) {
      if (ch === decisive || (ch.kind === 'leaf' && repeats?.has(ch))) continue;
      if (or && (ch.kind === 'leaf' ? ch.negated : ch.op === 'none')) continue; // a start-up error, reported as such
      out.push({
        rule: 'dead-require',
        message: `${nodeText(ch)} never changes the result: \`${nodeText(decisive)}\` in ${where} already ${or ? 'lets every request through' : 'refuses every request'}.`,
        ...nodeRange(ch),
        related: [{ ...nodeRange(decisive), message: `${nodeText(decisive)} decides alone` }],
        tags: ['unnecessary'],
        kind: 'decided-by-sibling',
      });
    }
  }
  for (const ch of c.children) {
    if (ch.kind !== 'leaf') {
      structuralDead(ch, out);
      continue;
    }
    const first = repeats?.get(ch);
    if (first) {
      out.push({
        rule: 'dead-require',
        message: `${nodeText(ch)} repeats a line of the same container: it never changes the result.`,
        ...nodeRange(ch),
        related: [{ ...nodeRange(first), message: 'first occurrence' }],
        tags: ['unnecessary'],
        kind: 'duplicate',
      });
    }
  }
}

function deadNotes(doc: ConfigDocument, model: AccessModel, cache: Map<Scope, PointFacts[] | null>): PlanNote[] {
  const out: PlanNote[] = [];
  const satisfyNoted = new Set<number>();
  for (const s of model.scopes) if (s.authz?.root) structuralDead(s.authz.root, out);
  if (model.context === 'htaccess' || model.context === 'directory') return out;
  for (const s of model.scopes) {
    const root = s.authz?.root;
    // (A tree without a line: every Require line of the section is one httpd refuses, such as a
    // bare `Require`. httpd does not start; invalid-require says why.)
    if (!root || !leaves(root).length) continue;
    const pts = factsFor(model, s, cache);
    if (!pts) continue;
    const mine = pts.filter((p) => p.applied.some((a) => a.scope === s));
    if (!mine.length) continue;
    let replacedBy: Scope | null = null;
    let blockedBy: Scope | null = null;
    const blockers = new Set<Scope>();
    const dead = mine.every((p) => {
      if (!containsNode(p.state.authz.tree, root)) {
        replacedBy = p.state.authz.from ?? replacedBy;
        return true;
      }
      if (!authzMayRun(p.x)) {
        blockedBy = p.x;
        if (p.x) blockers.add(p.x);
        return true;
      }
      return false;
    });
    if (!dead) continue;
    // Host rules that let every client in under `Satisfy Any`: the password (or whatever the
    // Require lines ask) is never asked, which is seldom what a file with Require lines means.
    // (Not where the Require lines grant everyone anyway: Thruk's `Require all granted` beside
    // `Allow from all` + `Satisfy any` for mod_access_compat.)
    if (!replacedBy && !allGranted(root)) {
      for (const bx of blockers) {
        if (!bx.compat || !methodClasses(bx.compat, [], false).every((k) => k.satisfyAny)) continue;
        for (const e of bx.compat.satisfies) {
          if (!e.any || satisfyNoted.has(e.directive.start)) continue;
          satisfyNoted.add(e.directive.start);
          const d = e.directive;
          out.push({
            rule: 'access-intent',
            message: `\`Satisfy Any\` lets every client in here without the \`Require\` lines being asked (${summary({ k: 'raw', lines: [nodeText(leaves(root)[0] ?? root.children[0])] })}${leaves(root).length > 1 ? ' …' : ''}): the host rules refuse no one, and with \`Satisfy Any\` passing them is enough. The exact rewrite keeps that (\`Require all granted\`). If only the clients the \`Require\` lines name should get in, delete \`Satisfy Any\` (that changes who gets in).`,
            start: d.start,
            end: d.end,
            related: leaves(root).map((l) => ({ start: l.directive.start, end: l.directive.end, message: 'never asked' })),
            kind: 'satisfy-any-skips-require',
            fixes: [{ title: 'Ask the Require lines: delete Satisfy Any (changes who gets in)', edits: [{ start: d.lineStart, end: d.lineEnd, newText: '' }] }],
          });
        }
      }
    }
    const first = leaves(root)[0];
    if (!first) continue;
    const rb = replacedBy as Scope | null;
    const bb = blockedBy as Scope | null;
    const why =
      bb && !rb
        ? `the host rules of ${where(doc, bb)} decide every request before any \`Require\` is read (${describeCompat(bb)})`
        : `every request that reaches ${label(s)} also reaches ${rb ? where(doc, rb) : 'a later section'}, whose \`Require\` lines replace these (AuthMerging Off)`;
    for (const it of root.children) {
      out.push({
        rule: 'dead-require',
        message: `${nodeText(it)} never takes effect: ${why}.`,
        ...nodeRange(it),
        related: rb?.section ? [{ start: rb.section.open.start, end: rb.section.open.end, message: 'replaces the Require lines' }] : bb?.compat ? bb.compat.directives.map((d) => ({ start: d.start, end: d.end, message: 'host rule decided first' })) : [],
        tags: ['unnecessary'],
        kind: rb ? 'replaced' : 'never-consulted',
      });
    }
  }
  return out;
}

function describeCompat(x: Scope): string {
  const cls = methodClasses(x.compat!, [], false);
  const any = cls.some((k) => k.satisfyAny);
  return any ? 'with `Satisfy Any` they let everyone in' : 'with `Satisfy All` they refuse everyone';
}

function factsFor(model: AccessModel, s: Scope, cache: Map<Scope, PointFacts[] | null>): PointFacts[] | null {
  if (!cache.has(s)) cache.set(s, groupPoints(model, s));
  return cache.get(s)!;
}

// ---------------------------------------------------------------------------------------------
// access-intent

function intentNotes(doc: ConfigDocument, model: AccessModel, cache: Map<Scope, PointFacts[] | null>): PlanNote[] {
  const out: PlanNote[] = [];
  const eol = eolOf(doc.text);
  for (const x of model.scopes) {
    const c = x.compat;
    if (!c || !x.section) continue;
    const classes = methodClasses(c, [], true);
    const uniform = classes.length === 1;
    const orderLines = c.orders.map((o) => o.directive);
    for (const k of classes) {
      if (!uniform && k !== classes[0]) break;
      const aAll = k.allow.some((t) => t.kind === 'all');
      const dAll = k.deny.some((t) => t.kind === 'all');
      const allowLines = [...new Set(c.allow.filter((e) => k.allow.includes(e.token)).map((e) => e.directive))];
      const denyLines = [...new Set(c.deny.filter((e) => k.deny.includes(e.token)).map((e) => e.directive))];
      if ((k.order === 'allow,deny' || k.order === 'mutual-failure') && dAll && k.allow.length) {
        for (const d of allowLines) {
          const fixes: NoteFix[] = [];
          if (uniform && orderLines.length === 1) {
            const o = orderLines[0];
            fixes.push({ title: 'Let the listed clients in: Order deny,allow (changes who gets in)', edits: [{ start: o.args[0].start, end: o.args[0].end, newText: 'deny,allow' }] });
          }
          out.push({
            rule: 'access-intent',
            message: `This \`Allow\` never lets anyone in: with \`Order ${k.order}\`, \`Deny from all\` is checked last and refuses every client, those listed here included, so everyone gets 403. If these clients should get in, the order must be deny,allow.`,
            start: d.start,
            end: d.end,
            related: denyLines.map((l) => ({ start: l.start, end: l.end, message: 'matches every client and is checked last' })),
            fixes,
            kind: 'allow-never-matches',
          });
        }
      }
      if (k.order === 'deny,allow' && !k.deny.length && k.allow.length && !aAll) {
        for (const d of allowLines) {
          const fixes: NoteFix[] = [];
          if (uniform && !orderLines.length) {
            const ind = indentAt(doc.text, d.start);
            fixes.push({ title: 'Let only the listed clients in: add Order allow,deny (changes who gets in)', edits: [{ start: d.lineStart, end: d.lineStart, newText: `${ind}Order allow,deny${eol}` }] });
          }
          out.push({
            rule: 'access-intent',
            message: `This \`Allow\` has no effect: ${orderLines.length ? '`Order deny,allow`' : 'without an `Order` line the order is deny,allow, and'} with nothing denied every client gets in, listed or not.`,
            start: d.start,
            end: d.end,
            fixes,
            kind: 'allow-no-effect',
          });
        }
      }
      if (k.order === 'deny,allow' && aAll && k.deny.length) {
        for (const d of denyLines) {
          out.push({
            rule: 'access-intent',
            message: 'This `Deny` never refuses anyone: with `Order deny,allow`, `Allow from all` is checked last and lets every client in.',
            start: d.start,
            end: d.end,
            related: allowLines.map((l) => ({ start: l.start, end: l.end, message: 'matches every client and is checked last' })),
            kind: 'deny-no-effect',
          });
        }
      }
    }
    if (model.context === 'htaccess' || model.context === 'directory') continue;
    const pts = factsFor(model, x, cache);
    if (!pts) continue;
    const finalHere = pts.filter((p) => p.x === x);
    // Satisfy Any with no Require in effect: everyone gets in.
    const anyLines = c.satisfies.filter((s) => s.any).map((s) => s.directive);
    if (anyLines.length && finalHere.length && finalHere.every((p) => !p.state.authz.tree)) {
      const hostRules = classes.some((k) => k.satisfyAny && !isGranted(verdictBlock(k.order, k.allow, k.deny)));
      if (hostRules) {
        for (const d of anyLines) {
          out.push({
            rule: 'access-intent',
            message: '`Satisfy Any` lets every client in here: no `Require` applies to these requests, and in httpd 2.4 an empty authorization grants, so a client the host rules refuse is let in anyway. httpd 2.2 answered 403 to those clients.',
            start: d.start,
            end: d.end,
            kind: 'satisfy-any-open',
          });
        }
      }
    }
    // §7: a section whose compat lines are only Satisfy, or only Order/Allow/Deny under Satisfy Any.
    const onlySatisfy = c.directives.every((d) => d.key === 'satisfy');
    const earlier = new Map<Scope, true>();
    for (const p of pts) {
      const i = p.applied.findIndex((a) => a.scope === x);
      if (i < 0) continue;
      for (const a of p.applied.slice(0, i)) if (a.scope.compat) earlier.set(a.scope, true);
    }
    for (const prev of earlier.keys()) {
      const prevAny = prev.compat!.satisfies.some((s) => s.any);
      const prevHostRules = prev.compat!.directives.some((d) => d.key !== 'satisfy');
      if (onlySatisfy && prevHostRules) {
        out.push({
          rule: 'access-intent',
          message: `This section only sets \`Satisfy\`, yet in httpd 2.4 (mod_access_compat) any of Order/Allow/Deny/Satisfy starts the host rules over: the rules of ${where(doc, prev)} no longer apply here and every client passes the host check. httpd 2.2 kept them (Satisfy was inherited on its own).`,
          start: c.directives[0].start,
          end: c.directives[0].end,
          related: prev.compat!.directives.map((d) => ({ start: d.start, end: d.end, message: 'no longer applies in this section' })),
          kind: 'satisfy-only-resets',
        });
      } else if (!onlySatisfy && prevAny && !c.satisfies.length) {
        out.push({
          rule: 'access-intent',
          message: `${where(doc, prev)} sets \`Satisfy Any\`; httpd 2.2 kept it for this section, but in httpd 2.4 (mod_access_compat) these host rules start over with \`Satisfy All\`: host rules and \`Require\` must now both pass.`,
          start: c.directives[0].start,
          end: c.directives[0].end,
          related: prev.compat!.satisfies.map((s) => ({ start: s.directive.start, end: s.directive.end, message: 'not inherited in 2.4' })),
          kind: 'satisfy-not-inherited',
        });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// mixed-access across sections (§6.1, §6.2)

function mixedNotes(doc: ConfigDocument, model: AccessModel, cache: Map<Scope, PointFacts[] | null>): PlanNote[] {
  if (model.context === 'htaccess' || model.context === 'directory') return [];
  const pairs = new Map<string, PlanNote>();
  for (const x of model.scopes) {
    if (!x.compat) continue;
    const pts = factsFor(model, x, cache);
    if (!pts) continue;
    const classes = methodClasses(x.compat, [], false);
    const restricts = classes.some((k) => !k.satisfyAny && !isGranted(verdictBlock(k.order, k.allow, k.deny)));
    // Host rules that refuse every client (phpMyAdmin's `Deny from All` on a folder under one with
    // `Require valid-user`): nobody they let in meets the earlier Require, so nothing is hidden.
    // A host named `None` (Fedora's phpMyAdmin.conf: `Deny from All` / `Allow from None`, meant as
    // "nobody") counts as no one here: httpd looks the name up, but no client is called that, and
    // access-intent reports the line itself.
    const refusesAll = classes.every((k) => !k.satisfyAny && isDenied(verdictBlock(k.order, k.allow.filter((t) => !(t.kind === 'host' && /^none$/i.test(t.name))), k.deny)));
    for (const p of pts) {
      if (p.x !== x || !p.state.authz.tree) continue;
      const xi = p.applied.findIndex((a) => a.scope === x);
      for (let i = 0; i < p.applied.length; i++) {
        const y = p.applied[i].scope;
        if (y === x || y.compat || !y.authz?.root || !containsNode(p.state.authz.tree, y.authz.root)) continue;
        const first = leaves(y.authz.root)[0];
        if (!first) continue;
        if (i > xi && restricts) {
          const key = `a|${y.index}|${x.index}`;
          if (pairs.has(key)) continue;
          pairs.set(key, {
            rule: 'mixed-access',
            message: `The 2.2 host rules of ${where(doc, x)} still apply to requests here and are checked first: a client they refuse gets 403 before this \`Require\` is read (httpd 2.4 with mod_access_compat ANDs the two). Migrate those host rules to \`Require\` so that one mechanism decides.`,
            start: first.directive.start,
            end: first.directive.end,
            related: x.compat.directives.map((d) => ({ start: d.start, end: d.end, message: `host rule of ${label(x)}, checked before this Require` })),
            kind: 'host-rules-before-require',
          });
        } else if (i < xi && !x.authz?.root && !allGranted(y.authz.root) && !refusesAll) {
          const key = `b|${x.index}|${y.index}`;
          if (pairs.has(key)) continue;
          const d0 = x.compat.directives[0];
          pairs.set(key, {
            rule: 'mixed-access',
            message: `These host rules do not replace the \`Require\` of ${where(doc, y)}: httpd 2.4 evaluates both and a client needs to pass ${classes.some((k) => k.satisfyAny) ? 'either' : 'both'} (${summary({ k: 'raw', lines: [nodeText(first)] })}${leaves(y.authz.root).length > 1 ? ' …' : ''}). A client allowed here can still get 403 from that \`Require\`.`,
            start: d0.start,
            end: d0.end,
            related: leaves(y.authz.root).map((l) => ({ start: l.directive.start, end: l.directive.end, message: `Require of ${label(y)}, still in effect here` })),
            kind: 'require-still-applies',
          });
        }
      }
    }
  }
  return [...pairs.values()];
}

function allGranted(root: AuthzContainer): boolean {
  return root.children.some((c) => c.kind === 'leaf' && !c.negated && c.provider === 'all' && c.args[0]?.value.toLowerCase() === 'granted' && isAllMethods(c.mask));
}

// ---------------------------------------------------------------------------------------------
// htaccess-override

function htaccessNotes(model: AccessModel): PlanNote[] {
  if (model.context !== 'htaccess') return [];
  const compat = model.scopes.flatMap((s) => s.compat?.directives ?? []);
  if (!compat.length) return [];
  const d = compat[0];
  return [
    {
      rule: 'htaccess-override',
      message:
        'Rewriting these host rules as `Require` changes what this .htaccess needs: `Order`/`Allow`/`Deny` need `AllowOverride Limit`, `Require` and its containers need `AllowOverride AuthConfig` (or an AllowOverrideList with `Require <RequireAll <RequireAny <RequireNone`). With only Limit allowed, the rewritten file answers 500. The rules inherited from the server config are not visible here either, so check the result on the server.',
      start: d.start,
      end: d.end,
      severity: 'information',
      kind: 'needs-authconfig',
    },
  ];
}

// ---------------------------------------------------------------------------------------------

/** Every note the access model proves about the file. */
export function accessNotes(doc: ConfigDocument, ctx: FileContext, model: AccessModel): PlanNote[] {
  const cache = new Map<Scope, PointFacts[] | null>();
  return [
    ...invalidNotes(doc, model, ctx),
    ...deadNotes(doc, model, cache),
    ...intentNotes(doc, model, cache),
    ...mixedNotes(doc, model, cache),
    ...htaccessNotes(model),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
}

// The notes of the last tree asked about (invalid-require and dead-require of one analysis ask in
// turn). A WeakMap over every tree would keep the trees alive for longer in V8, at a real cost.
let quickDoc: ConfigDocument | null = null;
let quickByCtx = new Map<string, PlanNote[]>();

/**
 * The notes that need no request points, only the model: start-up errors, and Require lines a
 * sibling decides or repeats. Cheap enough to run on every keystroke; remembered for the last document asked about.
 */
export function quickAccessNotes(doc: ConfigDocument, ctx: FileContext): PlanNote[] {
  if (quickDoc !== doc) {
    quickDoc = doc;
    quickByCtx = new Map();
  }
  const hit = quickByCtx.get(ctx);
  if (hit) return hit;
  const model = buildModel(doc, ctx, { light: true });
  const out: PlanNote[] = [...invalidNotes(doc, model, ctx)];
  for (const s of model.scopes) if (s.authz?.root) structuralDead(s.authz.root, out);
  out.sort((a, b) => a.start - b.start || a.end - b.end);
  quickByCtx.set(ctx, out);
  return out;
}

export type { DirectiveNode, SectionNode };
