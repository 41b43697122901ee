/** The shape of the directive catalog. Facts come from the httpd 2.4 manual; descriptions are our own words. */

/** Where a directive may appear, in the manual's terms. */
export type DirectiveContext = 'server' | 'vhost' | 'directory' | 'htaccess';

/**
 * current: a normal 2.4 directive.
 * compat: still accepted in 2.4 only through a compatibility module (mod_access_compat).
 * removed: 2.4 refuses it (httpd does not start, or .htaccess gives 500).
 * renamed: 2.4 still accepts the old name but it is replaced by `renamedTo`.
 * noop: accepted by 2.4 but has no effect any more (NameVirtualHost, DefaultType).
 */
export type DirectiveStatus = 'current' | 'compat' | 'removed' | 'renamed' | 'noop';

export interface DirectiveFact {
  /** Canonical spelling, without '<' for sections (e.g. "Directory"). */
  name: string;
  /** Module source name as in the manual, e.g. "core", "mod_ssl", "mpm_common". */
  module: string;
  /** True for container directives written as <Name …> … </Name>. */
  section?: boolean;
  contexts: DirectiveContext[];
  /** Override class needed in .htaccess (AllowOverride), e.g. "AuthConfig", "FileInfo", "Limit". */
  override?: string;
  /** The syntax line from the manual, e.g. "Require [not] entity-name [entity-name] ...". */
  syntax: string;
  default?: string;
  status: DirectiveStatus;
  /** For renamed directives: the 2.4 name. */
  renamedTo?: string;
  /** For removed / compat / renamed / noop: what to do instead, in our words. */
  replacement?: string;
  /**
   * For removed directives that were gone before 2.4: the release that dropped them ("2.0" for
   * the 1.3 leftovers), or "earlier" when that release is not pinned down. Absent: 2.4 removed it.
   */
  removedIn?: '2.0' | 'earlier';
  /** First 2.4 release that has it, when the manual says so (e.g. "2.4.19"). */
  since?: string;
  /** One or two sentences in our own words. */
  description: string;
  /** Link to the directive in the official 2.4 manual (or the 2.2 manual for removed ones). */
  url: string;
  /** True when the manual's context is "proxy section": the directory context then means <Proxy> only. */
  proxySection?: boolean;
  /** The manual's Status line: Core, Base, Extension, Experimental, MPM or Deprecated. */
  manualStatus?: string;
  /** Modules that implement it when that is not just `module` (the MPMs of an mpm_common directive). */
  modules?: string[];
}

export interface ModuleFact {
  /** Source name, e.g. "mod_ssl". */
  name: string;
  /** Identifier used by LoadModule, e.g. "ssl_module". */
  id: string;
  /** Source file name as used by <IfModule mod_ssl.c>. */
  file: string;
  /** "current" for 2.4 modules, "removed" for 2.2 modules 2.4 no longer ships. */
  status: 'current' | 'removed';
  description: string;
  url: string;
  /** The manual's Status line for current modules: Core, Base, Extension, Experimental, MPM or Deprecated. */
  manualStatus?: string;
  /** For removed modules: the 2.4 module that took over, when there is one. */
  replacedBy?: string;
  /** For removed modules: what to load or write instead, in our words. */
  replacement?: string;
}
