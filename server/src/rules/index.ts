/** The rule registry: every rule, by stable id. */
import type { Rule } from './types';
import { syntaxRule } from './syntax';
import { legacyAccessRule } from './legacy-access';
import { removedDirectiveRule } from './removed-directive';
import { mixedAccessRule } from './mixed-access';
import { dbmGroupRule } from './dbm-group';
import { unknownDirectiveRule } from './unknown-directive';
import { renamedDirectiveRule, obsoleteDirectiveRule, changedValueRule } from './upgrade';
import { changedSyntaxRule, changedBehaviorRule, changedDefaultRule } from './upgrade-review';
import { removedModuleRule, thirdPartyModuleRule, compatModuleRule } from './modules';
import { configNiceRule } from './config-nice';
import { accessIntentRule } from './access-intent';
import { invalidRequireRule } from './invalid-require';
import { deadRequireRule } from './dead-require';
import { compatSwitchRule } from './compat-switch';
import { CONFIGURATION_RULES, type RuleInfo } from './configuration';

/** Every rule, in the order of the README's table. */
export const RULES: readonly Rule[] = [
  syntaxRule,
  legacyAccessRule,
  removedDirectiveRule,
  mixedAccessRule,
  accessIntentRule,
  invalidRequireRule,
  deadRequireRule,
  dbmGroupRule,
  unknownDirectiveRule,
  renamedDirectiveRule,
  obsoleteDirectiveRule,
  changedValueRule,
  changedSyntaxRule,
  changedBehaviorRule,
  changedDefaultRule,
  removedModuleRule,
  thirdPartyModuleRule,
  compatModuleRule,
  compatSwitchRule,
  configNiceRule,
];

const byId = new Map(RULES.map((r) => [r.id, r]));

export function getRule(id: string): Rule | undefined {
  return byId.get(id);
}

const infoById = new Map<string, RuleInfo>([...RULES, ...CONFIGURATION_RULES].map((r) => [r.id, r]));

/** Any rule's id, default severity and summary: the per-file rules and the configuration-wide ones. */
export function getRuleInfo(id: string): RuleInfo | undefined {
  return infoById.get(id);
}

/** Every rule id, in the README's order. */
export const ALL_RULE_IDS: readonly string[] = [...infoById.keys()];

export * from './types';
export { collectSuppressions } from './suppress';
export { declaredNote, DECLARED_TITLE } from './legacy-access';
export { ruleDocsUrl } from './docs';
export { CONFIGURATION_RULES, MODULE_NOT_LOADED, NEWER_THAN_TARGET, NEWER_THAN_TARGET_DEFAULT, type RuleInfo } from './configuration';
