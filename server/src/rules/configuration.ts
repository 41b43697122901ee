/**
 * Rules whose findings do not come from one file's check: they need the whole configuration
 * (`module-not-loaded`, from rules/workspace.ts) or a target httpd release (`newer-than-target`,
 * from features/version.ts). They have ids, default severities and summaries like the others, so
 * settings, `--rule`, `.apacheconf.json`, disable comments and SARIF's rule list know them.
 */
import type { Severity } from './types';

export interface RuleInfo {
  readonly id: string;
  readonly defaultSeverity: Severity;
  readonly summary: string;
}

export const MODULE_NOT_LOADED = 'module-not-loaded';
export const NEWER_THAN_TARGET = 'newer-than-target';
export const NOT_INCLUDED = 'not-included';
export const NEWER_THAN_TARGET_DEFAULT = 'warning' as const;

export const CONFIGURATION_RULES: readonly RuleInfo[] = [
  {
    id: MODULE_NOT_LOADED,
    defaultSeverity: 'warning',
    summary: 'A directive whose module no `LoadModule` of the whole configuration loads, outside `<IfModule>` for it: httpd refuses to start. Needs a root file.',
  },
  {
    id: NOT_INCLUDED,
    defaultSeverity: 'warning',
    summary: 'A file in a folder the configuration reads with a name pattern it does not match (`sites-enabled/default` where the root file reads `sites-enabled/*.conf`): httpd never reads it. Needs a root file.',
  },
  {
    id: NEWER_THAN_TARGET,
    defaultSeverity: NEWER_THAN_TARGET_DEFAULT,
    summary: 'A directive or section that arrived in a later 2.4 release than the target one (`httpdVersion`), which refuses to start on it.',
  },
];
