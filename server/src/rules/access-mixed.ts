/**
 * Cross-section `mixed-access` findings (spec §6.1, §6.2), for the `mixed-access` rule to add to
 * its same-section findings: a `Require` that the 2.2 host rules of another section still gate
 * (case a: `<Directory /> Deny from all` + `<Location> Require local` → 403), and host rules that
 * do not lift the `Require` of another section (case b: `<Directory /> Require all denied` +
 * `<Location> Allow from 127.0.0.1` → 403). Each finding points at the other section's lines.
 */
import type { Finding, RuleContext } from './types';
import { fullNotesOf, toFinding } from './access-support';

/** In a configuration (the CLI's `--root`, the editor's root file), the sections of other files count too. */
export function crossSectionMixed(ctx: RuleContext): Finding[] {
  return fullNotesOf(ctx, 'mixed-access').map((n) => toFinding(ctx.doc, 'mixed-access', n));
}
