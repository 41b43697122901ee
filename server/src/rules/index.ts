/** The rule registry: every rule, by stable id. */
import type { Rule } from './types';
import { syntaxRule } from './syntax';
import { legacyAccessRule } from './legacy-access';
import { mixedAccessRule } from './mixed-access';
import { dbmGroupRule } from './dbm-group';

export const RULES: readonly Rule[] = [syntaxRule, legacyAccessRule, mixedAccessRule, dbmGroupRule];

const byId = new Map(RULES.map((r) => [r.id, r]));

export function getRule(id: string): Rule | undefined {
  return byId.get(id);
}

export * from './types';
export { collectSuppressions } from './suppress';
export { ruleDocsUrl } from './docs';
