/**
 * Cross-section `mixed-access` findings (spec §6.1, §6.2), for the `mixed-access` rule to add to
 * its same-section findings: a `Require` that the 2.2 host rules of another section still gate
 * (case a: `<Directory /> Deny from all` + `<Location> Require local` → 403), and host rules that
 * do not lift the `Require` of another section (case b: `<Directory /> Require all denied` +
 * `<Location> Allow from 127.0.0.1` → 403). Each finding points at the other section's lines.
 */
import type { ConfigDocument, Finding, FileContext } from './types';
import { planMigration } from '../access';
import { toFinding } from './access-support';

export function crossSectionMixed(doc: ConfigDocument, ctx: FileContext): Finding[] {
  return planMigration(doc, ctx)
    .notes.filter((n) => n.rule === 'mixed-access')
    .map((n) => toFinding(doc, 'mixed-access', n));
}
