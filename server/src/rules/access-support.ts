/**
 * Shared glue between the access engine's notes and rule findings (not a rule itself).
 */
import type { Finding, Fix, RuleContext } from './types';
import { notesInConfiguration, planMigration, quickAccessNotes, type PlanNote } from '../access';
import { in22Branch } from './scope';
import { directiveAt, type ConfigDocument, type DirectiveNode } from '../syntax';

/** The engine's notes of one kind for a file (the plan is cached per parsed document). */
export function notesOf(ctx: RuleContext, rule: PlanNote['rule']): PlanNote[] {
  if (ctx.depth === 'quick') return quickAccessNotes(ctx.doc, ctx.fileContext).filter((n) => n.rule === rule);
  return fullNotes(ctx).filter((n) => n.rule === rule);
}

// The notes of the last file asked about in its configuration (each access rule asks in turn).
let lastNotes: { doc: ConfigDocument; configuration: RuleContext['configuration']; notes: PlanNote[] } | null = null;

/**
 * Every note of the full pass: for a server-config file read in its configuration (the CLI's
 * `--root`, the editor's root file), those the configuration proves about the file's lines, so
 * that a `Require` gated by the root file's host rules, or a provider another file's
 * `<AuthzProviderAlias>` defines, is judged as httpd judges it; else the file's own.
 */
function fullNotes(ctx: RuleContext): PlanNote[] {
  const configuration = ctx.configuration;
  if (configuration && (ctx.fileContext === 'server' || ctx.fileContext === 'vhost' || ctx.fileContext === 'directory')) {
    if (lastNotes && lastNotes.doc === ctx.doc && lastNotes.configuration === configuration) return lastNotes.notes;
    let notes: PlanNote[] | null = null;
    try {
      notes = notesInConfiguration(configuration, ctx.doc);
    } catch {
      notes = null;
    }
    if (notes) {
      lastNotes = { doc: ctx.doc, configuration, notes };
      return notes;
    }
  }
  return planMigration(ctx.doc, ctx.fileContext).notes;
}

/** The cross-section notes of one rule (see fullNotes), for rules that add them to findings of their own. */
export function fullNotesOf(ctx: RuleContext, rule: PlanNote['rule']): PlanNote[] {
  return fullNotes(ctx).filter((n) => n.rule === rule);
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
