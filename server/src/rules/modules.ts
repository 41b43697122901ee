/**
 * Modules across the upgrade (issue: the rest of the 2.2 → 2.4 upgrade):
 *
 * - `removed-module`: `LoadModule` of a module 2.4 no longer ships
 *   (mod_authn_default, mod_authz_default, mod_mem_cache) or ships under
 *   another name (mod_disk_cache → mod_cache_disk, with a fix).
 * - `third-party-module`: `LoadModule` of a module that is not part of
 *   httpd. The module API changed in 2.4, so a 2.2 build will not load; it
 *   must be rebuilt against 2.4 (information).
 * - `compat-module`: `LoadModule access_compat_module` in a file that no
 *   longer uses any Order/Allow/Deny/Satisfy (hint, with a fix that deletes
 *   it). Only reported when the file is known to be the whole configuration
 *   it loads for: a root file whose includes were all followed.
 */
import type { ConfigDocument, DirectiveNode, Finding, Rule } from './types';
import { code, COMPAT_DIRECTIVES, deleteLine, in22Branch } from './scope';
import { directivesNamed, hasDirective, wordTable } from '../syntax';
import { getModule, isHttpdModule } from '../facts';
import { isAccessKey } from '../access';
import { readDependsOnCompat } from '../model/guards';

/** 2.2 module ids 2.4 dropped, with what replaces them. */
const REMOVED: Readonly<Record<string, { replacement: string; renamedTo?: { id: string; file: string } } | undefined>> = wordTable({
  authn_default_module: { replacement: 'Its job (refusing when no other authentication module answered) is built into mod_authn_core in 2.4: delete the line.' },
  authz_default_module: { replacement: 'Its job (refusing when no other authorization module answered) is built into mod_authz_core in 2.4: delete the line.' },
  mem_cache_module: { replacement: 'Use mod_cache_disk, or mod_cache_socache for an in-memory cache.' },
  disk_cache_module: { replacement: 'It is called mod_cache_disk in 2.4.', renamedTo: { id: 'cache_disk_module', file: 'mod_cache_disk.so' } },
  authn_alias_module: { replacement: '`<AuthnProviderAlias>` is part of mod_authn_core in 2.4: delete the line.' },
  imap_module: { replacement: 'It is called mod_imagemap since 2.2.', renamedTo: { id: 'imagemap_module', file: 'mod_imagemap.so' } },
});

function loadModules(doc: ConfigDocument): DirectiveNode[] {
  return directivesNamed(doc, 'loadmodule').filter((d) => d.args.length >= 1);
}

export const removedModuleRule: Rule = {
  id: 'removed-module',
  defaultSeverity: 'error',
  summary: '`LoadModule` of a module 2.4 removed (mod_authn_default, mod_authz_default, mod_authn_alias, mod_mem_cache) or renamed (mod_disk_cache → mod_cache_disk).',
  check({ doc }) {
    const out: Finding[] = [];
    for (const d of loadModules(doc)) {
      const id = d.args[0].value.toLowerCase();
      const info = REMOVED[id];
      if (!info) continue;
      const only22 = in22Branch(d);
      const fixes = [];
      if (!only22) {
        if (info.renamedTo) {
          const edits = [{ start: d.args[0].start, end: d.args[0].end, newText: info.renamedTo.id }];
          const file = d.args[1];
          if (file) {
            const renamed = file.value.replace(/mod_[a-z_]+\.so$/i, info.renamedTo.file);
            if (renamed !== file.value) edits.push({ start: file.start, end: file.end, newText: file.quote ? file.quote + renamed + file.quote : renamed });
          }
          fixes.push({ title: `Load ${info.renamedTo.id} instead`, edits, preferred: true });
        } else if (id === 'authn_default_module' || id === 'authz_default_module' || id === 'authn_alias_module') {
          fixes.push({ title: `Delete the LoadModule line (2.4 has no ${id})`, edits: [deleteLine(d)], preferred: true });
        }
      }
      out.push({
        rule: 'removed-module',
        message: `${code(d.args[0].value)} does not exist in httpd 2.4, so this line stops the server from starting. ${info.replacement}`,
        start: d.start,
        end: d.end,
        tags: ['deprecated'],
        ...(only22 ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
        data: { module: id },
        ...(fixes.length ? { fixes } : {}),
      });
    }
    return out;
  },
};

export const thirdPartyModuleRule: Rule = {
  id: 'third-party-module',
  defaultSeverity: 'information',
  summary: '`LoadModule` of a module that is not part of httpd: it must be built against 2.4 (the module API changed).',
  check({ doc }) {
    const out: Finding[] = [];
    for (const d of loadModules(doc)) {
      const id = d.args[0].value;
      if (!/^[A-Za-z0-9_]+$/.test(id)) continue;
      if (REMOVED[id.toLowerCase()] || isHttpdModule(id) || getModule(id)) continue;
      if (in22Branch(d)) continue;
      out.push({
        rule: 'third-party-module',
        message: `${code(id)} is not one of httpd's own modules. httpd 2.4 changed the module API, so a build made for 2.2 will not load: install the module's 2.4 version.`,
        start: d.args[0].start,
        end: d.args[0].end,
        data: { module: id },
      });
    }
    return out;
  },
};

export const compatModuleRule: Rule = {
  id: 'compat-module',
  defaultSeverity: 'hint',
  summary: '`LoadModule access_compat_module` where nothing in the file uses Order/Allow/Deny/Satisfy any more (and no access line depends on whether the module is loaded).',
  check({ doc }) {
    const loads = loadModules(doc).filter((d) => d.args[0].value === 'access_compat_module' && !in22Branch(d));
    if (!loads.length) return [];
    // Includes may bring compat directives in: only a self-contained file can be judged here, and
    // only one that configures access itself (a `mods-available/access_compat.load` holding just
    // the LoadModule line says nothing about the rest of the configuration).
    if (hasDirective(doc, 'include', 'includeoptional')) return [];
    if (!doc.sections.some((s) => /^(directory|directorymatch|location|locationmatch|files|filesmatch|virtualhost)$/.test(s.key))) return [];
    if (directivesNamed(doc, ...COMPAT_DIRECTIVES).some((d) => !in22Branch(d))) return [];
    // Lines under <IfModule [!]mod_access_compat.c> start or stop applying when the module goes:
    // it is not "no longer needed" then, whatever the file's authors meant.
    if (doc.directives.some((d) => isAccessKey(d.key) && readDependsOnCompat(d.parent))) return [];
    return loads.map((d) => ({
      rule: 'compat-module',
      message: 'Nothing in this configuration uses `Order`, `Allow`, `Deny` or `Satisfy` any more, so mod_access_compat is no longer needed. Unloading it also makes any 2.2 line that creeps back in fail loudly.',
      start: d.start,
      end: d.end,
      tags: ['unnecessary' as const],
      fixes: [{ title: 'Delete the LoadModule access_compat_module line', edits: [deleteLine(d)], preferred: false }],
    }));
  },
};
