/**
 * `config-nice`: the configure line recorded by an installed server
 * (`build/config.nice`), read as a check of what 2.4's build dropped or now
 * does by default (the manual's upgrading page, "compile-time changes").
 * Only files named config.nice are looked at.
 */
import type { Finding, Rule } from './types';

interface OptionFact {
  pattern: RegExp;
  severity: 'error' | 'warning' | 'information';
  message: string;
}

const OPTIONS: OptionFact[] = [
  { pattern: /^--(enable|disable)-authn-default(=.*)?$/, severity: 'error', message: 'mod_authn_default is gone in 2.4 (mod_authn_core does its job): drop this option.' },
  { pattern: /^--(enable|disable)-authz-default(=.*)?$/, severity: 'error', message: 'mod_authz_default is gone in 2.4 (mod_authz_core does its job): drop this option.' },
  { pattern: /^--(enable|disable)-authn-alias(=.*)?$/, severity: 'error', message: 'mod_authn_alias is gone in 2.4: `<AuthnProviderAlias>` is part of mod_authn_core. Drop this option.' },
  { pattern: /^--(enable|disable)-mem-cache(=.*)?$/, severity: 'error', message: 'mod_mem_cache is gone in 2.4: build mod_cache_disk (`--enable-cache-disk`) or mod_cache_socache (`--enable-cache-socache`) instead.' },
  { pattern: /^--(enable|disable)-disk-cache(=.*)?$/, severity: 'error', message: 'mod_disk_cache is called mod_cache_disk in 2.4: use `--enable-cache-disk`.' },
  { pattern: /^--enable-proxy-balancer(=.*)?$/, severity: 'information', message: 'In 2.4 each balancing method is a module of its own: also build the ones the configuration uses (`--enable-lbmethod-byrequests`, `-bytraffic`, `-bybusyness`, `-heartbeat`) and load them.' },
  { pattern: /^--with-mpm=/, severity: 'information', message: 'In 2.4 the MPM can also be built as loadable modules (`--enable-mpms-shared=all`) and chosen with LoadModule at start-up.' },
  { pattern: /^--enable-mods-shared=most$/, severity: 'information', message: 'The "most" module set and shared (DSO) builds are the 2.4 default; this option is no longer needed. Note that 2.4\'s default httpd.conf loads only a basic set: the other LoadModule lines come commented out.' },
  { pattern: /^--enable-so$/, severity: 'information', message: 'DSO support is built by default in 2.4; this option is no longer needed.' },
];

export function isConfigNice(uri: string | undefined): boolean {
  return !!uri && /(^|[/\\])config\.nice$/.test(uri);
}

export const configNiceRule: Rule = {
  id: 'config-nice',
  defaultSeverity: 'warning',
  summary: 'In a recorded `config.nice` configure line: options 2.4\'s build dropped (removed or renamed modules) or now takes as the default.',
  check({ doc, uri }) {
    if (!isConfigNice(uri)) return [];
    const out: Finding[] = [];
    for (let ix = 0; ix < doc.directives.length; ix++) {
      const d = doc.directives[ix];
      for (const t of [d.name, ...d.args]) {
        const opt = t.value;
        const fact = OPTIONS.find((o) => o.pattern.test(opt));
        if (!fact) continue;
        out.push({ rule: 'config-nice', message: `${opt}: ${fact.message}`, start: t.start, end: t.end, severity: fact.severity, data: { option: opt } });
      }
    }
    return out;
  },
};
