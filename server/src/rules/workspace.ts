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
import { fnmatch, includePattern, type ConfigGraph } from '../model/workspace';
import { physicalLine } from '../syntax';
import type { Finding, DirectiveNode } from './types';
import { ancestors } from '../model/context';
import { getDirective, getModule } from '../facts';
import { deleteLine, in22Branch, isCompat, code } from './scope';
import { isAccessKey } from '../access';
import { readDependsOnCompat } from '../model/guards';
import { NOT_INCLUDED } from './configuration';

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

/**
 * `not-included`: files in a folder the configuration's Include lines read with a name pattern
 * they do not match, so httpd never reads them. The Debian trap of 2.2 → 2.4: 2.2's apache2.conf
 * read every file of sites-enabled/, 2.4's reads `sites-enabled/*.conf` only, so a site enabled as
 * `default` (no `.conf`) is silently left out. `list` gives the names in a folder (none when it
 * cannot be read); each finding's `path` is the entry as the folder holds it (often a link to
 * sites-available/: the caller matches it to the file it checks by real path). `rootName` names
 * the root file in the message.
 */
export function notIncludedFiles(graph: ConfigGraph, list: (dir: string) => readonly string[], rootName: string): WorkspaceFinding[] {
  if (graph.truncated) return [];
  const byDir = new Map<string, Array<{ edge: ConfigGraph['edges'][number]; pattern: string }>>();
  for (const edge of graph.edges) {
    const p = includePattern(graph, edge);
    if (!p) continue;
    const l = byDir.get(p.dir);
    if (l) l.push({ edge, pattern: p.pattern });
    else byDir.set(p.dir, [{ edge, pattern: p.pattern }]);
  }
  const inGraph = new Set(graph.files.map((f) => f.path));
  const out: WorkspaceFinding[] = [];
  for (const [dir, readers] of byDir) {
    for (const name of list(dir)) {
      const path = (dir === '/' ? '' : dir) + '/' + name;
      // A name one of them takes is read (or will be once the configuration is read again); a
      // dot file is an editor's or a tool's, not a site.
      if (name.startsWith('.') || inGraph.has(path) || readers.some((r) => fnmatch(r.pattern, name))) continue;
      const { edge, pattern } = readers[0];
      const from = graph.files.find((f) => f.path === edge.from);
      const line = from ? physicalLine(from.doc, edge.directive.start) + 1 : 0;
      const fromName = edge.from.slice(edge.from.lastIndexOf('/') + 1);
      const folder = dir.slice(dir.lastIndexOf('/') + 1);
      const conf = /\.conf$/.test(pattern) && !name.endsWith('.conf');
      out.push({
        path,
        rule: NOT_INCLUDED,
        message:
          `httpd does not read this file as \`${folder}/${name}\`: the configuration of ${rootName} reads ${folder}/ with \`${edge.directive.name.value} ${edge.directive.args[0].raw}\` (${fromName} line ${line}), and \`${name}\` does not match \`${pattern}\`, so none of its settings apply.` +
          (conf ? ` httpd 2.4 as Debian packages it reads only \`*.conf\` files from sites-enabled/ and conf-enabled/ (2.2 read every file there): rename it to \`${name}.conf\` (with a2dissite/a2ensite, or the link by hand).` : ' Rename it to a name the pattern takes.'),
        start: 0,
        end: 0,
      });
    }
  }
  // Debian's 2.2 apache2.conf read conf.d/; 2.4's reads conf-enabled/*.conf and nothing of conf.d/.
  const rootDir = graph.root.slice(0, Math.max(graph.root.lastIndexOf('/'), 1));
  if (graph.root.endsWith('/apache2.conf')) {
    const confD = (rootDir === '/' ? '' : rootDir) + '/conf.d';
    const read = byDir.has(confD) || graph.edges.some((e) => e.targets.some((t) => t.startsWith(confD + '/')));
    if (!read) {
      for (const name of list(confD)) {
        if (name.startsWith('.')) continue;
        out.push({
          path: confD + '/' + name,
          rule: NOT_INCLUDED,
          message: `httpd does not read this file: the configuration of ${rootName} has no Include line for conf.d/, so none of its settings apply. httpd 2.4 as Debian packages it reads conf-enabled/*.conf instead (2.2's apache2.conf read conf.d/): move it to conf-available/${name.endsWith('.conf') ? name : name + '.conf'} and enable it with a2enconf.`,
          start: 0,
          end: 0,
        });
      }
    }
  }
  return out;
}
