/**
 * The rule registry's types. A rule owns a stable string id, a default
 * severity, a docs anchor and a check that turns a parsed file into findings.
 * Findings carry offsets, never positions: the service converts them.
 */
import type { ConfigDocument, DirectiveNode, OffsetEdit, SectionNode } from '../syntax';
import type { FileContext } from '../model/context';
import type { ConfigurationView } from '../access/in-configuration';

export type Severity = 'error' | 'warning' | 'information' | 'hint';
export type SeveritySetting = Severity | 'ignore';
export const SEVERITY_SETTINGS: readonly SeveritySetting[] = ['ignore', 'hint', 'information', 'warning', 'error'];

export interface Fix {
  title: string;
  edits: OffsetEdit[];
  /** The one fix per finding that "fix all" and `apacheconf fix` apply. Only exact fixes are preferred. */
  preferred?: boolean;
  /** A part of a rewrite of the whole configuration (SectionPlan.rewriteKey). */
  rewriteKey?: string;
}

export interface RelatedLocation {
  start: number;
  end: number;
  message: string;
  /** Another file; absent means the same file. */
  uri?: string;
}

export interface Finding {
  rule: string;
  message: string;
  start: number;
  end: number;
  /** Overrides the rule's default severity for this finding (e.g. a hint inside a 2.2-only branch). The user's setting still wins. */
  severity?: Severity;
  /** The highest severity this finding may be shown at, whatever the settings say (a 2.2-only branch: at most a hint). */
  maxSeverity?: Severity;
  tags?: Array<'deprecated' | 'unnecessary'>;
  related?: RelatedLocation[];
  /** Typed payload for fixes and clients. */
  data?: Record<string, unknown>;
  fixes?: Fix[];
}

/** What the `.htaccess` files under a directory say about access, as read from the disk. */
export type HtaccessUnder = { kind: 'none' } | { kind: 'sets-access'; file: string } | { kind: 'unknown'; why: string };

export interface RuleContext {
  readonly doc: ConfigDocument;
  readonly fileContext: FileContext;
  /** The document's uri, when known (a few rules look at the file name, e.g. config.nice). */
  readonly uri?: string;
  /**
   * Which access rewrite is preferred where the behaviour-preserving one and
   * the naive one (what the author most likely meant) differ: `preserve`
   * (default) or `intent`.
   */
  readonly mode?: 'preserve' | 'intent';
  /** What the user declares the directories of `.htaccess` files inherit (ServiceSettings.inherited). */
  readonly inherited?: 'require' | 'none';
  /**
   * Looks at the `.htaccess` files under a directory (the CLI and the editor, with the server's
   * root file known); without it nothing is known of them (ServiceSettings.htaccessUnder).
   */
  readonly htaccessUnder?: (dir: string, below?: boolean) => HtaccessUnder;
  /** Directories of the rest of the server configuration whose AllowOverride lets .htaccess files set access (ServiceSettings.openDirs). */
  readonly openDirs?: readonly string[];
  /**
   * `full` (default) runs everything, including the access engine's checks over request points
   * and its exact rewrites. `quick` leaves those out (no access fixes, no findings that need
   * request points): what an editor shows at once while the full pass runs in the background.
   */
  readonly depth?: 'quick' | 'full';
  /**
   * The configuration the file is read in (its root file's includes inlined), when it is known:
   * the access rewrites of a server-config file are then worked out there (access/in-configuration.ts).
   */
  readonly configuration?: ConfigurationView;
  /**
   * The root file of the configuration, when it is known and does not include this file (the
   * not-included rule says why): a rewrite is then planned as for a file that another includes,
   * and says the file is not part of it rather than that its main file is not at hand.
   */
  readonly outsideOf?: string;
  /**
   * The file is known to be included by another (an include graph holds it) whose configuration
   * cannot be read whole here (the graph was cut at its limits): planned as a file another
   * includes, whatever its path says.
   */
  readonly included?: boolean;
}

export interface Rule {
  /** Stable id, used in settings, disable comments, `code` of diagnostics and the README. */
  readonly id: string;
  readonly defaultSeverity: Severity;
  /** A one-line summary for the README table and docs. */
  readonly summary: string;
  /** New finding objects on every call: the service completes them in place (severity). */
  check(ctx: RuleContext): Finding[];
}

export type { ConfigDocument, DirectiveNode, SectionNode, OffsetEdit, FileContext };
