/**
 * Rules that need a whole configuration (a root file and the files its
 * Include lines bring in), not one file:
 *
 * - `module-not-loaded`: a directive whose module no LoadModule of the
 *   configuration loads, outside any `<IfModule>` for it. httpd refuses to
 *   start on it ("Invalid command … perhaps misspelled or defined by a module
 *   not included in the server configuration").
 * - `compat-module`: `LoadModule access_compat_module` while no file of the
 *   configuration uses Order/Allow/Deny/Satisfy any more.
 *
 * Only judged when the configuration loads modules at all (a static build or
 * a fragment says nothing about what is loaded) and the walk was complete.
 * Modules that distributions compile in are taken as loaded.
 */
import type { ConfigGraph } from '../model/workspace';
import type { Finding, DirectiveNode } from './types';
import { ancestors } from '../model/context';
import { getDirective, getModule } from '../facts';
import { deleteLine, in22Branch, isCompat, code } from './scope';
import { isAccessKey } from '../access';
import { readDependsOnCompat } from '../model/guards';

/** Modules compiled into httpd by the common builds (Debian, Red Hat, the default `configure`). */
const STATIC = new Set(['core', 'http_core', 'mod_so', 'mod_watchdog', 'mpm_common', 'mod_log_config', 'mod_logio', 'mod_version', 'mod_unixd', 'mod_systemd']);

export interface WorkspaceFinding extends Finding {
  /** The file of the configuration it is in. */
  path: string;
}

/** Inside `<IfModule X>` (X loaded or not: httpd skips the block when X is absent) or `<IfDirective>`. */
function moduleGuarded(d: DirectiveNode): boolean {
  return ancestors(d).some((s) => (s.key === 'ifmodule' && !(s.args[0]?.value ?? '!').startsWith('!')) || s.key === 'ifdirective');
}

export function checkConfiguration(graph: ConfigGraph): WorkspaceFinding[] {
  const out: WorkspaceFinding[] = [];
  if (graph.truncated) return out;
  const loaded = new Set<string>();
  let loads = 0;
  const compatLoads: Array<{ path: string; d: DirectiveNode }> = [];
  let compatUsed = false;
  for (const f of graph.files) {
    for (let ix = 0; ix < f.doc.directives.length; ix++) {
      const d = f.doc.directives[ix];
      if (d.key === 'loadmodule' && d.args[0]) {
        loads++;
        const m = getModule(d.args[0].value);
        if (m) loaded.add(m.name.toLowerCase());
        if (d.args[0].value === 'access_compat_module' && !in22Branch(d)) compatLoads.push({ path: f.path, d });
      }
      if (isCompat(d) && !in22Branch(d)) compatUsed = true;
      // A line under <IfModule [!]mod_access_compat.c> starts or stops applying when the module goes.
      if (isAccessKey(d.key) && readDependsOnCompat(d.parent)) compatUsed = true;
    }
  }
  if (!loads) return out;
  for (const f of graph.files) {
    for (let ix = 0; ix < f.doc.directives.length; ix++) {
      const d = f.doc.directives[ix];
      const fact = getDirective(d.key);
      if (!fact || fact.status !== 'current' || !fact.module) continue;
      const mod = fact.module.toLowerCase();
      if (STATIC.has(mod) || loaded.has(mod)) continue;
      if (in22Branch(d) || moduleGuarded(d)) continue;
      // The MPM-specific directives live in whichever MPM is loaded.
      if (['event', 'worker', 'prefork', 'mpm_winnt', 'mpmt_os2', 'mpm_netware'].includes(mod) && [...loaded].some((m) => ['event', 'worker', 'prefork'].includes(m))) continue;
      out.push({
        path: f.path,
        rule: 'module-not-loaded',
        message: `${code(fact.name)} belongs to ${fact.module}, which no LoadModule of this configuration loads: httpd will refuse to start. Load the module or wrap the line in \`<IfModule ${fact.module}.c>\`.`,
        start: d.name.start,
        end: d.name.end,
        data: { module: fact.module },
      });
    }
  }
  if (!compatUsed) {
    for (const { path, d } of compatLoads) {
      out.push({
        path,
        rule: 'compat-module',
        message: 'No file of this configuration uses `Order`, `Allow`, `Deny` or `Satisfy` any more, so mod_access_compat is no longer needed (.htaccess files are not part of this check).',
        start: d.start,
        end: d.end,
        tags: ['unnecessary'],
        fixes: [{ title: 'Delete the LoadModule access_compat_module line', edits: [deleteLine(d)], preferred: false }],
      });
    }
  }
  return out;
}
