/**
 * Shared glue between the access engine's notes and rule findings (not a rule itself).
 */
import type { Finding, Fix, RuleContext } from './types';
import { planMigration, quickAccessNotes, type PlanNote } from '../access';
import { in22Branch } from './scope';
import type { ConfigDocument, DirectiveNode } from '../syntax';

/** The engine's notes of one kind for a file (the plan is cached per parsed document). */
export function notesOf(ctx: RuleContext, rule: PlanNote['rule']): PlanNote[] {
  if (ctx.depth === 'quick') return quickAccessNotes(ctx.doc, ctx.fileContext).filter((n) => n.rule === rule);
  return planMigration(ctx.doc, ctx.fileContext).notes.filter((n) => n.rule === rule);
}

function directiveAt(doc: ConfigDocument, offset: number): DirectiveNode | undefined {
  return doc.directives.find((d) => d.start <= offset && offset < Math.max(d.end, d.start + 1));
}

/** A note as a finding of `rule`. */
export function toFinding(doc: ConfigDocument, rule: string, n: PlanNote): Finding {
  const fixes: Fix[] = (n.fixes ?? []).map((f) => ({ title: f.title, edits: f.edits, ...(f.preferred ? { preferred: true } : {}) }));
  const d = directiveAt(doc, n.start);
  const only22 = d ? in22Branch(d) : false;
  return {
    rule,
    message: n.message,
    start: n.start,
    end: n.end,
    ...(n.severity ? { severity: n.severity } : {}),
    ...(only22 ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
    ...(n.tags?.length ? { tags: n.tags } : {}),
    ...(n.related?.length ? { related: n.related } : {}),
    ...(n.kind ? { data: { kind: n.kind } } : {}),
    ...(fixes.length ? { fixes } : {}),
  };
}
