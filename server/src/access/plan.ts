/**
 * The migration plan: for every scope that uses Order/Allow/Deny/Satisfy, the
 * exact 2.4 rewrite (when the file proves one) or the reason there is none,
 * and the naive mapping most guides give with what it changes.
 */
import { eolOf, indentAt, parse, applyEdits, type ConfigDocument, type DirectiveNode, type OffsetEdit, type SectionNode } from '../syntax';
import type { FileContext } from '../model/context';
import { buildModel, type AccessModel, type Scope } from './model';
import { scopesOverlap } from './region';
import { methodClasses, methodUniform, printItems, summary, topItems, verdictBlock, type PrintStyle, type R } from './translate';

export type PlanRule = 'access-intent' | 'mixed-access' | 'invalid-require' | 'dead-require' | 'htaccess-override';

export interface PlanNote {
  rule: PlanRule;
  message: string;
  start: number;
  end: number;
  related?: Array<{ start: number; end: number; message: string }>;
  severity?: 'error' | 'warning' | 'information' | 'hint';
}

export interface SectionPlan {
  /** null = the file's top level. */
  section: SectionNode | null;
  compatDirectives: DirectiveNode[];
  exact?: { title: string; edits: OffsetEdit[] };
  naive?: { title: string; edits: OffsetEdit[]; changes: string };
  /** Why there is no exact rewrite, when `exact` is absent. */
  reason?: string;
}

export interface MigrationPlan {
  sections: SectionPlan[];
  notes: PlanNote[];
}

export interface PlanOptions {
  mode?: 'preserve' | 'intent';
}

// ---------------------------------------------------------------------------------------------
// Style

/** One level of indentation as the file writes it (difference between a section and its first child). */
export function indentUnit(doc: ConfigDocument): string {
  for (const s of doc.sections) {
    const first = s.children.find((c) => c.type === 'directive' || c.type === 'section');
    if (!first) continue;
    const at = first.type === 'section' ? first.open.start : first.start;
    const inner = indentAt(doc.text, at);
    const outer = indentAt(doc.text, s.open.start);
    if (inner.length > outer.length && inner.startsWith(outer)) return inner.slice(outer.length);
  }
  return '    ';
}

function styleAt(doc: ConfigDocument, offset: number): PrintStyle {
  return { indent: indentAt(doc.text, offset), unit: indentUnit(doc), eol: eolOf(doc.text) };
}

/** Replace the line of `first` by `items` and delete the lines of `rest`. */
function replaceLines(doc: ConfigDocument, first: DirectiveNode, rest: DirectiveNode[], items: R[]): OffsetEdit[] {
  const style = styleAt(doc, first.start);
  let text = printItems(items, style);
  const lineText = doc.text.slice(first.lineStart, first.lineEnd);
  if (!/\r?\n$/.test(lineText)) text = text.slice(0, text.length - style.eol.length);
  const edits: OffsetEdit[] = [{ start: first.lineStart, end: first.lineEnd, newText: text }];
  for (const d of rest) edits.push({ start: d.lineStart, end: d.lineEnd, newText: '' });
  return edits;
}

function label(s: Scope): string {
  if (!s.section) return 'the top level of this file';
  const args = s.section.args.map((a) => a.raw).join(' ');
  return `<${s.section.name.value}${args ? ' ' + args : ''}>`;
}

// ---------------------------------------------------------------------------------------------
// The plan

/** Scopes whose access config can interact: connected through overlapping regions. */
function accessScopes(m: AccessModel): Scope[] {
  return m.scopes.filter((s) => s.compat || s.authz || s.authn.authType);
}

export function planMigration(doc: ConfigDocument, ctx: FileContext, options: PlanOptions = {}): MigrationPlan {
  void options;
  const model = buildModel(doc, ctx);
  const plan: MigrationPlan = { sections: [], notes: [] };
  const active = accessScopes(model);
  const compatScopes = model.scopes.filter((s) => s.compat);
  for (const x of compatScopes) {
    const sp: SectionPlan = { section: x.section, compatDirectives: x.compat!.directives };
    plan.sections.push(sp);
    const why = isolationProblem(model, x, active);
    if (why) {
      sp.reason = why;
      continue;
    }
    const c = x.compat!;
    const cls = methodClasses(c);
    const t = verdictBlock(cls[0].order, cls[0].allow, cls[0].deny);
    const first = c.directives[0];
    const edits = replaceLines(doc, first, c.directives.slice(1), topItems(t));
    sp.exact = { title: `Replace the 2.2 host rules of ${label(x)} with \`${summary(t)}\``, edits };
  }
  return plan;
}

/** Why the single-section rewrite is not proven exact for x, or null. */
function isolationProblem(model: AccessModel, x: Scope, active: Scope[]): string | null {
  const c = x.compat!;
  if (model.problems.some((p) => p.directive && c.directives.includes(p.directive))) {
    return 'httpd refuses one of these lines as written; fix it first.';
  }
  if (model.context === 'htaccess' || model.context === 'directory') {
    return 'this file is read inside a directory whose other rules are not visible here, so an inherited `Require` cannot be ruled out.';
  }
  if (!x.section) return 'these directives are not allowed at the top level of a server or virtual host config.';
  if (!methodUniform(c)) return 'the host rules depend on the request method (<Limit>).';
  if (c.satisfies.some((s) => s.any)) return '`Satisfy Any` combines the host rules with authentication.';
  if (x.authz || x.authn.authType) return 'the section also has authentication or `Require` lines.';
  if (c.directives.some((d) => inWrapper(d, x))) return 'some of these lines sit inside a conditional block.';
  for (const y of active) {
    if (y === x || !scopesOverlap(x, y)) continue;
    if (y.authz || y.authn.authType) return `${label(y)} may apply to the same requests and has its own authorization, so the rewrite would interact with it.`;
    if (y.compat && !simple(model, y)) return `${label(y)} may apply to the same requests and its host rules cannot be rewritten on their own.`;
  }
  return null;
}

function simple(model: AccessModel, y: Scope): boolean {
  const c = y.compat!;
  return (
    !!y.section &&
    methodUniform(c) &&
    !c.satisfies.some((s) => s.any) &&
    !y.authz &&
    !y.authn.authType &&
    !c.directives.some((d) => inWrapper(d, y)) &&
    !model.problems.some((p) => p.directive && c.directives.includes(p.directive))
  );
}

/** True when d sits in a wrapper (IfModule, Limit…) inside its scope's section. */
function inWrapper(d: DirectiveNode, s: Scope): boolean {
  return d.parent !== s.section;
}

/** Apply every exact edit of the plan at once. */
export function migrateText(text: string, ctx: FileContext, options: PlanOptions = {}): { text: string; plan: MigrationPlan } {
  const doc = parse(text);
  const plan = planMigration(doc, ctx, options);
  const seen = new Set<string>();
  const edits: OffsetEdit[] = [];
  for (const sp of plan.sections) {
    for (const e of sp.exact?.edits ?? []) {
      const k = `${e.start}:${e.end}:${e.newText}`;
      if (seen.has(k)) continue;
      seen.add(k);
      edits.push(e);
    }
  }
  return { text: applyEdits(text, edits), plan };
}
