/** The rule registry: every rule, by stable id. */
import type { Rule } from './types';
import { syntaxRule } from './syntax';

export const RULES: readonly Rule[] = [syntaxRule];

const byId = new Map(RULES.map((r) => [r.id, r]));

export function getRule(id: string): Rule | undefined {
  return byId.get(id);
}

export * from './types';
export { collectSuppressions } from './suppress';
export { ruleDocsUrl } from './docs';
