/**
 * Abstract requests for the migration check: every combination that matters of
 * "where" (vhost, directory, file name, URL path, <If> branches) and "who"
 * (method, address, host name, environment, credentials, the value of each
 * Require line the model cannot decide).
 *
 * "Where" is built per dimension from the sections' own patterns: for a
 * literal <Directory /a/b> a path under it, for a regex section a free yes/no,
 * and one point outside everything. Directory and URL dimensions are
 * independent (their mapping depends on DocumentRoot/Alias), which can only
 * add combinations httpd never sees: the check stays on the safe side.
 */
import { openTagText, type ChildNode } from '../syntax';
import { domainIndex, formatClient, parseSubnetToken, samplesOf, subnetIndex, type ClientAddr, type Subnet } from './addr';
import { leaves, MAX_ANALYSED_NESTING, normMethod, type AccessModel, type AuthzLeaf, type Scope } from './model';
import { accessScopes, dirApplies, dirAppliesNormalized, dirPatternOf, filesApplies, leafKey, locationApplies, withinVirtualHost, type AuthzResult, type Client, type Credentials } from './evaluate';
import { normPath, sampleOfGlob } from './region';
import { OTHER_METHOD } from './translate';

export interface Point {
  /** Does scope #index (own condition only) apply? */
  test: (s: Scope) => boolean;
  /** A readable description for reasons ("GET /x from …"). */
  label: string;
  /** The model the point was made on, and the indices of its access scopes the point selects there (selectedScopes). */
  model?: AccessModel;
  selects?: Int32Array;
}

/**
 * scopesThatApply(model, pt.test, true), from what pointsFor worked out when it made the point on
 * that model (undefined on another model, such as a rewrite's: the caller tests the scopes there).
 */
export function selectedScopes(model: AccessModel, pt: Point): Scope[] | undefined {
  if (pt.model !== model || !pt.selects) return undefined;
  const out: Scope[] = new Array(pt.selects.length);
  for (let i = 0; i < pt.selects.length; i++) out[i] = model.scopes[pt.selects[i]];
  return out;
}


const isDir = (s: Scope) => s.kind === 'directory' || s.kind === 'directorymatch' || s.kind === 'proxy' || s.kind === 'proxymatch';
const isFiles = (s: Scope) => s.kind === 'files' || s.kind === 'filesmatch';
const isLoc = (s: Scope) => s.kind === 'location' || s.kind === 'locationmatch';
const isIf = (s: Scope) => s.kind === 'if' || s.kind === 'elseif' || s.kind === 'else';

/** The scopes of `group` and all their ancestors. */
function withAncestors(group: Scope[]): Scope[] {
  const set = new Set<Scope>();
  for (const g of group) for (let p: Scope | null = g; p; p = p.parent) set.add(p);
  return [...set].sort((a, b) => a.index - b.index);
}

/** Each If/ElseIf/Else scope's whole chain, per model (worked out once: a file may hold thousands of <If> sections). */
const CHAINS = new WeakMap<AccessModel, Map<Scope, Scope[]>>();

function chainsOf(model: AccessModel): Map<Scope, Scope[]> {
  let byScope = CHAINS.get(model);
  if (byScope) return byScope;
  byScope = new Map();
  const walk = (children: readonly ChildNode[], depth: number) => {
    // Sections deeper than the model goes hold no scope (and a file may nest thousands of levels).
    if (depth > MAX_ANALYSED_NESTING) return;
    let chain: Scope[] | null = null;
    for (const c of children) {
      if (c.type !== 'section') continue;
      // An <If> starts a chain; <ElseIf> and <Else> right after it (as sections) continue it.
      if (c.key === 'if') chain = [];
      else if (c.key !== 'elseif' && c.key !== 'else') chain = null;
      const sc = model.scopeOfSection.get(c);
      if (chain && sc) {
        chain.push(sc);
        byScope.set(sc, chain);
      }
      walk(c.children, depth + 1);
    }
  };
  walk(model.doc.children, 0);
  CHAINS.set(model, byScope);
  return byScope;
}

/** If/ElseIf/Else chains among the scopes (each a list of branch scopes). */
function ifChains(scopes: Scope[], model: AccessModel): Scope[][] {
  const chains: Scope[][] = [];
  const seen = new Set<Scope>();
  const byScope = chainsOf(model);
  for (const s of scopes) {
    if (!isIf(s) || seen.has(s)) continue;
    const chain = byScope.get(s) ?? [s];
    for (const c of chain) seen.add(c);
    chains.push(chain);
  }
  return chains;
}

export interface PointSet {
  points: Point[];
  /** True when the set had to be cut short (too many combinations). */
  truncated: boolean;
  /** True when URL paths were mapped to files through a DocumentRoot the file shows. */
  mapped: boolean;
}

/** URL → file mapping the file shows for a vhost (or the main server): DocumentRoot and plain Aliases. */
interface Mapping {
  root: string;
  aliases: Array<[string, string]>;
  /**
   * mod_userdir maps URLs that start with `/~` to a user's folder (after the aliases): where that
   * is depends on the users of the machine, so those URLs may reach any directory.
   */
  userDir?: true;
}

/** Mappings per model and virtual host: each group's points ask again, and the scan reads the whole file. */
const MAPPING_CACHE = new WeakMap<AccessModel, Map<Scope | null, Mapping | null>>();

function mappingFor(model: AccessModel, vhost: Scope | null): Mapping | null {
  let byVhost = MAPPING_CACHE.get(model);
  if (!byVhost) MAPPING_CACHE.set(model, (byVhost = new Map()));
  if (byVhost.has(vhost)) return byVhost.get(vhost)!;
  const m = computeMapping(model, vhost);
  byVhost.set(vhost, m);
  return m;
}

/** Directives that map URLs to files in ways the mapping below does not follow, wherever they are. */
const UNFOLLOWED_MAPPING = new Set(['virtualdocumentroot', 'virtualdocumentrootip', 'virtualscriptalias', 'virtualscriptaliasip', 'use']);

/**
 * True when the file maps URLs in a way computeMapping does not follow: mod_vhost_alias, a macro
 * (`Use`, which may define hosts, roots and aliases), or an `Alias`/`ScriptAlias` inside a
 * `<Location>` (one argument: the section's URL maps to that path). httpd 2.4.71 reached
 * directories through each of them that a mapping without them calls unreachable.
 */
function unfollowedMapping(model: AccessModel): boolean {
  let v = UNFOLLOWED.get(model.doc);
  if (v === undefined) {
    v = false;
    for (const d of model.doc.directives) {
      if (UNFOLLOWED_MAPPING.has(d.key)) v = true;
      else if (d.key === 'alias' || d.key === 'scriptalias' || d.key === 'aliasmatch' || d.key === 'scriptaliasmatch') {
        for (let p = d.parent; p; p = p.parent) if (p.key === 'location' || p.key === 'locationmatch') v = true;
      }
      if (v) break;
    }
    UNFOLLOWED.set(model.doc, v);
  }
  return v;
}

/** unfollowedMapping's answer per document (asked once per virtual host). */
const UNFOLLOWED = new WeakMap<object, boolean>();

/** Whether the file has a `<Proxy>` or `<ProxyMatch>` section, per document (asked once per virtual host). */
function hasProxySection(model: AccessModel): boolean {
  let v = PROXY_SECTIONS.get(model.doc);
  if (v === undefined) PROXY_SECTIONS.set(model.doc, (v = model.doc.sections.some((x) => x.key === 'proxy' || x.key === 'proxymatch')));
  return v;
}

const PROXY_SECTIONS = new WeakMap<object, boolean>();

function computeMapping(model: AccessModel, vhost: Scope | null): Mapping | null {
  if (unfollowedMapping(model)) return null;
  const top = model.scopes[0];
  const chain = vhost ? [top, vhost] : [top];
  let root: string | null = null;
  // mod_alias tries a virtual host's aliases before the main server's, each list in the order
  // written, and the first match wins.
  let aliases: Array<[string, string]> = [];
  let userDir = false;
  for (const s of chain) {
    const own: Array<[string, string]> = [];
    for (const d of s.paths) {
      // A variable the file's Define lines do not settle makes the mapping unknown, and so does a
      // relative path (read from the ServerRoot).
      const args: string[] = [];
      for (const a of d.args) {
        const v = model.resolve(a.value, d.start);
        if (v === null) return null;
        args.push(v);
      }
      if (d.key === 'documentroot' && args[0]) {
        root = args[0];
        if (!root.startsWith('/')) return null;
      } else if ((d.key === 'alias' || d.key === 'scriptalias') && args.length >= 2) {
        if (!args[1].startsWith('/')) return null;
        own.push([args[0], args[1]]);
      } else return null;
    }
    aliases = [...own, ...aliases];
    // Anything else that can map URLs somewhere else makes the mapping unknown.
    if (s.directives.some((d) => d.key === 'rewriterule' || d.key === 'rewriteengine' || d.key === 'proxypass')) return null;
    // (`UserDir disabled` alone turns it off; any other line may turn it on for some users.)
    if (s.directives.some((d) => d.key === 'userdir' && !(d.args.length === 1 && d.args[0].value.toLowerCase() === 'disabled'))) userDir = true;
  }
  if (hasProxySection(model)) return null;
  return root ? { root: normPath(root), aliases, ...(userDir ? { userDir: true as const } : {}) } : null;
}

/**
 * True when requests reach a server-level directory of `group` through a virtual host the group
 * does not hold (pointsFor adds those hosts' places): a projection of the group alone, which
 * leaves those hosts out, would not see them.
 */
export function reachedThroughOtherHosts(model: AccessModel, group: readonly Scope[]): boolean {
  if (!group.some((s) => isDir(s) && !withinVirtualHost(s))) return false;
  return model.scopes.some((v) => v.kind === 'virtualhost' && mapsOwnWay(v) && !group.some((g) => withinVirtualHost(g) && ancestorsInclude(g, v)));
}

/** Sections whose content httpd may or may not read. */
const CONDITIONS = new Set(['ifdefine', 'ifmodule', 'ifversion', 'iffile', 'ifdirective', 'ifsection', 'if', 'elseif', 'else', 'macro']);

/** The conditional sections around a node, outermost first, each as its tag reads. */
function conditionsOf(p: { parent: import('../syntax').SectionNode | null }): string[] {
  const out: string[] = [];
  for (let s = p.parent; s; s = s.parent) if (CONDITIONS.has(s.key)) out.unshift(`${s.key} ${s.args.map((a) => a.value).join(' ')}`);
  return out;
}

/**
 * True when a virtual host takes every address the server listens on, so no request is answered
 * by the main server (httpd picks among the hosts of the address and port a connection arrives
 * on, the first of them when no name matches; the main server only answers where no host
 * names the address and port). Each `Listen` needs a host for `*:PORT`, `_default_:PORT`
 * or its own address and port, read whenever the `Listen` line is: outside every conditional
 * section, or inside the same ones. No `Listen` line at all (a fragment) leaves it unknown.
 */
export function mainServerUnreachable(model: AccessModel): boolean {
  if (model.mainUnreachable !== undefined) return model.mainUnreachable;
  let v = UNREACHABLE.get(model);
  if (v === undefined) UNREACHABLE.set(model, (v = computeUnreachable(model)));
  return v;
}
const UNREACHABLE = new WeakMap<AccessModel, boolean>();

function computeUnreachable(model: AccessModel): boolean {
  const hosts: Array<{ addr: string; port: string; conditions: string[] }> = [];
  for (const v of model.scopes) {
    if (v.kind !== 'virtualhost' || !v.section) continue;
    const conditions = conditionsOf(v.section.open);
    for (const a of v.section.args) {
      const value = model.resolve(a.value, a.start);
      if (value === null) continue;
      const m = /^(\[[^\]]*\]|[^:]+):(\d+|\*)$/.exec(value.trim());
      if (m) hosts.push({ addr: m[1].toLowerCase(), port: m[2], conditions });
    }
  }
  let listens = 0;
  for (const d of model.doc.directives) {
    if (d.key !== 'listen') continue;
    listens++;
    if (!d.args[0]) return false;
    const value = model.resolve(d.args[0].value, d.start);
    if (value === null) return false;
    const m = /^(?:(\[[^\]]*\]|[^:\]]+):)?(\d+)$/.exec(value.trim());
    if (!m) return false;
    const addr = m[1] === undefined || m[1] === '0.0.0.0' || m[1] === '[::]' || m[1] === '*' ? null : m[1].toLowerCase();
    const conditions = conditionsOf(d);
    const read = (h: { conditions: string[] }) => h.conditions.length <= conditions.length && h.conditions.every((c, i) => c === conditions[i]);
    const covered = hosts.some((h) => (h.port === '*' || h.port === m[2]) && (h.addr === '*' || h.addr === '_default_' || (addr !== null && h.addr === addr)) && read(h));
    if (!covered) return false;
  }
  return listens > 0;
}

function ancestorsInclude(s: Scope, v: Scope): boolean {
  for (let p: Scope | null = s; p; p = p.parent) if (p === v) return true;
  return false;
}

/** A virtual host that maps URLs to files otherwise than the main server (its own DocumentRoot, Alias or rewriting). */
export function mapsOwnWay(v: Scope): boolean {
  return v.paths.length > 0 || v.directives.some((d) => d.key === 'rewriterule' || d.key === 'rewriteengine' || d.key === 'userdir' || d.key === 'proxypass');
}

function mapUri(m: Mapping, uri: string): string {
  for (const [from, to] of m.aliases) {
    if (uri === from || uri.startsWith(from.endsWith('/') ? from : from + '/')) return to + uri.slice(from.length);
  }
  return (m.root === '/' ? '' : m.root) + uri;
}

/**
 * The URL prefixes that map to a directory: through each Alias whose target holds it, and through
 * the DocumentRoot. A directory an Alias points into is usually reachable both ways (an Alias to a
 * subdirectory of the DocumentRoot), and a rewrite must hold for both.
 */
function urisOfDir(m: Mapping, dir: string): string[] {
  const d = normPath(dir);
  const out: string[] = [];
  for (const [from, to] of m.aliases) {
    const t = normPath(to);
    if (d === t || d.startsWith(t + '/')) out.push(normPath(from) + d.slice(t.length));
  }
  if (d === m.root) out.push('');
  else if (d.startsWith(m.root === '/' ? '/' : m.root + '/')) out.push(m.root === '/' ? d : d.slice(m.root.length));
  return out;
}

/** Directories that stand for any directory: each literal `<Directory>` (as a folder and as the parent of one), and one elsewhere. */
function anyDirectory(litDirs: readonly Scope[], more: Iterable<string> = []): Set<string> {
  const dirPaths = new Set<string>();
  for (const d of litDirs) {
    const p = normPath(/[*?[]/.test(d.pattern) ? sampleOfGlob(d.pattern) : d.pattern);
    dirPaths.add(p === '/' ? '/zz' : p + '/zz');
    dirPaths.add(p === '/' ? '' : p);
  }
  for (const p of more) {
    dirPaths.add(p + '/zz');
    dirPaths.add(p);
  }
  dirPaths.add('/zz-elsewhere/zz');
  return dirPaths;
}

/**
 * The folders before the first wildcard of a wildcard `<Directory>` (for the home folders'
 * public_html, `/home`), or null when the first folder already has one. Only files under it can
 * be in the section.
 */
function literalDirPrefix(pattern: string): string | null {
  const segs = normPath(pattern).split('/');
  const out: string[] = [];
  for (const seg of segs) {
    if (/[*?[\\]/.test(seg)) break;
    out.push(seg);
  }
  const p = out.join('/');
  return p && p !== '/' && out.length < segs.length ? p : null;
}

/** How many (place, choice) pairs pointsFor looks at per point it may keep. */
const ENUMERATION_FACTOR = 8;

/**
 * The request locations that matter for a group of scopes. Points that select the same scopes
 * able to change an answer count once; `distinguish` adds scopes that tell points apart too (ones
 * whose lines only the rewrite's server reads, so the original's model sees no access in them).
 */
export function pointsFor(model: AccessModel, group: Scope[], limit = 4096, distinguish: readonly Scope[] = []): PointSet {
  const scopes = withAncestors(group);
  const vhosts = scopes.filter((s) => s.kind === 'virtualhost');
  // A directory of the main server is reached through every virtual host too, each by its own
  // DocumentRoot and Aliases: those that map paths their own way are places of their own.
  // (A directory inside a virtual host is reached through that host alone.)
  if (scopes.some((s) => isDir(s) && !withinVirtualHost(s))) {
    for (const v of model.scopes) if (v.kind === 'virtualhost' && !vhosts.includes(v) && mapsOwnWay(v)) vhosts.push(v);
  }
  let vhostOptions: Array<Scope | null> = model.context === 'server' ? [null, ...vhosts] : [null];
  // No request reaches the main server when a virtual host takes every address it listens on:
  // its places are then those of the hosts (each maps its own way, so none stands for it).
  // (A projection that leaves hosts out keeps it: there it stands for them, as it does for every
  // host that maps as it does; see AccessModel.mainUnreachable.)
  // (Only a group with sections outside the hosts is reached through other hosts than its own:
  // for the others, the main server's places stay as they were, reaching none of the group.)
  if (model.context === 'server' && group.some((s) => s.kind !== 'virtualhost' && !withinVirtualHost(s)) && mainServerUnreachable(model)) {
    const all = model.scopes.filter((v) => v.kind === 'virtualhost');
    if (all.length && all.every(mapsOwnWay)) {
      for (const v of all) if (!vhosts.includes(v)) vhosts.push(v);
      vhostOptions = [...vhosts];
    }
  }
  const litDirs = scopes.filter((s) => isDir(s) && !s.regex && s.kind !== 'proxy');
  // A regex that matches one literal string only (^a\.html$) is treated as that string.
  const lit = (s: Scope) => s.regex && s.literal !== undefined && !isDir(s);
  const files = scopes.filter((s) => isFiles(s) && (!s.regex || lit(s)));
  const names = new Set<string>(['zz-other.html']);
  for (const f of files) names.add(lit(f) ? f.literal! : /[*?[]/.test(f.pattern) ? sampleOfGlob(f.pattern) : f.pattern);
  /**
   * The names a `<Files>` section gives exactly (not a glob's sample, not a stand-in for other
   * names): a place with one of them is a request for that very name, so whether a `<Files>`
   * pattern applies there is known (see below).
   */
  const exactNames = new Set<string>();
  for (const f of files) if (lit(f) || !/[*?[]/.test(f.pattern)) exactNames.add(lit(f) ? f.literal! : f.pattern);
  for (const f of files) if (!lit(f) && /[*?[]/.test(f.pattern)) exactNames.delete(sampleOfGlob(f.pattern));
  for (const standIn of ['zz', 'zz-other.html', '~zz', 'zz-elsewhere']) exactNames.delete(standIn);
  const locs = scopes.filter((s) => isLoc(s) && (!s.regex || lit(s)));
  // Sections whose reach the places below cannot pin down apply or not at will, each both ways: a
  // regex, a proxy, and a wildcard. A wildcard's sample lands in it, but the other places may
  // all land in it too (`<Directory "/srv/[^s]*">` takes /srv/zz-other.html, the file itself
  // being tested by httpd) and a rewrite must not count on nobody reaching its parent without it.
  const free = scopes.filter((s) => (s.regex && !lit(s)) || s.kind === 'proxy' || (!s.regex && (isDir(s) || isFiles(s) || isLoc(s)) && /[*?[]/.test(s.pattern)));
  // A wildcard `<Directory>` applies only under the folders before its first wildcard: those are
  // places of their own (each file is represented by a place under its deepest named folder), and
  // elsewhere the section is off.
  const wildPrefix = new Map<number, string>();
  for (const s of free) {
    if (s.regex || s.kind === 'proxy' || !isDir(s)) continue;
    const p = literalDirPrefix(s.pattern);
    if (p) wildPrefix.set(s.index, p);
  }
  const chains = ifChains(scopes.filter(isIf), model);
  const mappings = vhostOptions.map((v) => mappingFor(model, v));
  const mapped = mappings.every((m) => m !== null);
  // Every place is taken with every regex and <If> choice: when those choices alone pass the
  // limit, so will the points, whatever the places (there is at least one).
  let choices = 2 ** free.length;
  for (const c of chains) choices *= c.length + (c[c.length - 1].kind === 'else' ? 0 : 1);
  if (choices > limit) return { points: [], truncated: true, mapped };

  // Where: (uri, filename) pairs.
  const places: Array<{ vh: Scope | null; uri: string; file: string; unmapped?: true; userDir?: true; pathInfo?: true }> = [];
  // A `<Directory>` path may name a file: a request for something below it then reaches that file
  // with the rest as path_info (/a/h.html/extra), and httpd's directory walk stops at the file
  // without applying the section that names it (httpd 2.4.71). Its parents still apply, <Files>
  // sections test the file's name, <Location> sections the URL. Each such place is taken both ways.
  // A DocumentRoot, a folder known to hold a .htaccess file, and each directory above one, is a directory.
  const roots = mappings.flatMap((m) => (m ? [m.root] : []));
  const knownDirs = [...(model.knownDirectories ?? [])];
  const namedPaths = litDirs
    .filter((d) => !/[*?[]/.test(d.pattern))
    .map((d) => normPath(d.pattern))
    .filter((p) => p !== '/' && !roots.some((r) => r === p || r.startsWith(p + '/')) && !model.knownDirectories?.has(p) && !knownDirs.some((k) => k.startsWith(p + '/')));
  const namedDirs = namedPaths.map((p) => p + '/');
  const withPathInfo = (pl: { vh: Scope | null; uri: string; file: string; unmapped?: true; userDir?: true }): void => {
    places.push(pl);
    for (let i = 0; i < namedPaths.length; i++) if (pl.file.startsWith(namedDirs[i])) places.push({ ...pl, file: namedPaths[i], pathInfo: true });
  };
  let tooMany = false;
  /** URLs for places that may be in any directory: `base`, and each location under `under` with a URL below it. */
  const locationUris = (base: string[], under: string): Set<string> => {
    const uris = new Set<string>(base);
    for (const l of locs) {
      const p = lit(l) ? l.literal! : /[*?[]/.test(l.pattern) ? sampleOfGlob(l.pattern) : l.pattern;
      if (!p.startsWith(under)) continue;
      uris.add(p);
      uris.add(p.endsWith('/') ? p + 'zz' : p + '/zz');
    }
    return uris;
  };
  /** Places of each URL in each directory (false, and tooMany, when that is more than are ever looked at). */
  const anywhere = (vh: Scope | null, dirPaths: Set<string>, uris: Set<string>, how: { unmapped?: true; userDir?: true }): boolean => {
    if (places.length + dirPaths.size * names.size * uris.size > 4 * limit) {
      tooMany = true;
      return false;
    }
    for (const d of dirPaths) for (const n of names) for (const u of uris) withPathInfo({ vh, uri: u, file: `${d}/${n}`, ...how });
    return true;
  };
  vhostOptions.forEach((vh, vi) => {
    if (tooMany) return;
    const m = mappings[vi];
    if (m) {
      const prefixes = new Set<string>(['', '/zz-elsewhere']);
      const fullUris = new Set<string>();
      for (const l of locs) {
        const p = lit(l) ? l.literal! : /[*?[]/.test(l.pattern) ? sampleOfGlob(l.pattern) : l.pattern;
        prefixes.add(normPath(p) === '/' ? '' : normPath(p));
        fullUris.add(p);
      }
      for (const d of litDirs) {
        const p = normPath(/[*?[]/.test(d.pattern) ? sampleOfGlob(d.pattern) : d.pattern);
        for (const u of urisOfDir(m, p)) {
          prefixes.add(u);
          prefixes.add(u + '/zz');
        }
      }
      for (const p of new Set(wildPrefix.values())) {
        for (const u of urisOfDir(m, p)) {
          prefixes.add(u);
          prefixes.add(u + '/zz');
        }
      }
      for (const [from] of m.aliases) prefixes.add(normPath(from));
      // Give up before building more places than the caller will ever look at.
      if (places.length + (prefixes.size + 1) * names.size + fullUris.size > 4 * limit) {
        tooMany = true;
        return;
      }
      const uris = new Set<string>(fullUris);
      for (const p of prefixes) for (const n of names) uris.add(`${p}/${n}`);
      for (const u of uris) withPathInfo({ vh, uri: u, file: mapUri(m, u) });
      if (m.userDir) {
        // URLs under /~ may reach any directory (a user's folder): each directory with each of them.
        const dirPaths = anyDirectory(litDirs, wildPrefix.values());
        if (!anywhere(vh, dirPaths, locationUris(['/~zz', '/~zz/zz'], '/~'), { userDir: true })) return;
      }
    } else {
      anywhere(vh, anyDirectory(litDirs, wildPrefix.values()), locationUris(['/zz-elsewhere'], ''), { unmapped: true });
    }
  });
  if (tooMany) return { points: [], truncated: true, mapped };

  const freeIndex = new Set(free.map((s) => s.index));
  const freeFiles = free.filter(isFiles);
  let total = places.length * 2 ** free.length;
  for (const c of chains) total *= c.length + (c[c.length - 1].kind === 'else' ? 0 : 1);
  const points: Point[] = [];
  // `limit` bounds the points kept, which is what the checks cost. Many (place, choice) pairs
  // select the same sections (a pattern section that cannot reach most places, say) and are kept
  // once: up to ENUMERATION_FACTOR times as many pairs are looked at for them.
  if (total > ENUMERATION_FACTOR * limit) return { points, truncated: true, mapped };
  const chainChoices: number[][] = [[]];
  for (const c of chains) {
    const n = c.length + (c[c.length - 1].kind === 'else' ? 0 : 1);
    const next: number[][] = [];
    for (const prev of chainChoices) for (let k = 0; k < n; k++) next.push([...prev, k]);
    chainChoices.splice(0, chainChoices.length, ...next);
  }
  // Which regex sections and which <If> branches are on depends on the choice only, not on the
  // place: each set is made once.
  const freeOnOf: Array<Set<number>> = [];
  for (let bits = 0; bits < 2 ** free.length; bits++) freeOnOf.push(new Set(free.filter((_, i) => (bits >> i) & 1).map((s) => s.index)));
  const ifOnOf = chainChoices.map((choice) => {
    const on = new Set<number>();
    chains.forEach((c, i) => {
      if (choice[i] < c.length) on.add(c[choice[i]].index);
    });
    return on;
  });
  const nScopes = model.scopes.length;
  // Points that select the same scopes are the same request as far as access goes: only the
  // first of each is kept.
  const seen = new Signatures();
  const scratch = new Int32Array(nScopes + distinguish.length);
  const applies = new Uint8Array(nScopes);
  const where = scopesByPathOf(model);
  // Whether a scope applies to a place (its path, file name, virtual host) does not depend on the
  // regex and <If> choices below: worked out once per place and scope, kept in placeMemo while
  // placeStamp says it is this place's (one pair of arrays for all the places; a point's test,
  // called later, works it out again where another place has taken the entry since).
  const placeMemo = new Int8Array(nScopes);
  const placeStamp = new Int32Array(nScopes);
  let stamps = 0;
  for (const pl of places) {
    const stamp = ++stamps;
    /** The place's file as normPath gives it, made once for all the directories tested on it. */
    const normFile = normPath(pl.file);
    const placeApplies = (s: Scope): boolean => {
      let v = placeStamp[s.index] === stamp ? placeMemo[s.index] : 0;
      if (v === 0) {
        let r: boolean;
        if (s.kind === 'virtualhost') r = pl.vh !== null && s.index === pl.vh.index;
        else if (lit(s)) r = isFiles(s) ? pl.file.slice(pl.file.lastIndexOf('/') + 1) === s.literal : pl.uri === s.literal;
        else if (isDir(s) && s.regex) r = dirApplies(s, pl.file);
        else if (isDir(s)) r = dirAppliesNormalized(s, normFile) && !(pl.pathInfo && s.dirPattern === pl.file);
        else if (isFiles(s)) r = filesApplies(s, pl.file);
        else if (isLoc(s)) r = locationApplies(s, pl.uri);
        else r = false;
        placeMemo[s.index] = v = r ? 2 : 1;
        placeStamp[s.index] = stamp;
      }
      return v === 2;
    };
    // The scopes that may apply here: the others' test is false at this place, whatever the choice.
    const base = pl.file.slice(pl.file.lastIndexOf('/') + 1);
    const candidates = where.candidates(normFile, pl.uri, base, pl.vh ? pl.vh.index : -1);
    // A `<Files>` pattern tests the file's name alone: at a place named exactly (a request for
    // `cmd.cgi`, which a `<Files cmd.cgi>` names), it applies or not, and the other way round is no
    // request at all (the requests for other names are the other places'). Those choices are skipped.
    const nameKnown = !pl.pathInfo && exactNames.has(base) ? freeFiles.map((f) => filesApplies(f, pl.file)) : null;
    for (const freeOn of freeOnOf) {
      if (nameKnown && freeFiles.some((f, i) => freeOn.has(f.index) !== nameKnown[i])) continue;
      for (const ifOn of ifOnOf) {
        const test = (s: Scope): boolean => {
          if (s.kind === 'top') return true;
          if (s.kind === 'virtualhost' || lit(s)) return placeApplies(s);
          if (freeIndex.has(s.index)) {
            if (!freeOn.has(s.index)) return false;
            const under = wildPrefix.get(s.index);
            return under === undefined || pl.file === under || pl.file.startsWith(under + '/');
          }
          if (isDir(s) || isFiles(s) || isLoc(s)) return placeApplies(s);
          if (isIf(s)) return ifOn.has(s.index);
          return false;
        };
        let n = appliedSignature(candidates, test, scratch, applies);
        const own = n;
        for (const d of distinguish) if (appliesWithParents(d, test)) scratch[n++] = -1 - d.index;
        if (!seen.add(scratch, n)) continue;
        if (points.length >= limit) return { points: [], truncated: true, mapped };
        // The label is only read when a reason is written: build it on demand.
        points.push({
          test,
          model,
          selects: scratch.slice(0, own),
          get label(): string {
            const parts = [
              `${pl.uri}`,
              pl.unmapped
                ? `file ${pl.file} (the file does not show how URLs map to files here, so any URL may reach any directory)`
                : pl.userDir
                  ? `file ${pl.file} (a user's folder through UserDir, which may be any directory)`
                  : `file ${pl.file}`,
            ];
            if (pl.pathInfo) parts.push(`${pl.file} being a file and the rest of the path its path_info`);
            // Sections by their tag and line (relabelLines names the file a line comes from).
            const tag = (i: number) => {
              const sec = model.scopes[i]?.section;
              return sec ? `${openTagText(sec)} (line ${sec.open.line + 1})` : 'the top level';
            };
            if (pl.vh) parts.push(`in ${tag(pl.vh.index)}`);
            if (free.length) {
              // The place stands for every request there that the pattern sections taken as applying
              // match and the others do not; its own path and name may not be one of them (`<Files ~
              // "^\.ht">` taken as applying at /cmd.cgi stands for /.htaccess and the like there).
              const matches = (i: number): boolean => {
                const sc = model.scopes[i];
                if (isFiles(sc)) return filesApplies(sc, pl.file);
                if (isLoc(sc)) return locationApplies(sc, pl.uri);
                if (sc.kind === 'directory' || sc.kind === 'directorymatch') return dirApplies(sc, pl.file);
                return freeOn.has(i);
              };
              const on = free.filter((f) => freeOn.has(f.index)).map((f) => f.index);
              const off = free.filter((f) => !freeOn.has(f.index)).map((f) => f.index);
              const here = on.filter(matches);
              const also = on.filter((i) => !matches(i));
              const not = off.filter(matches);
              const list = (xs: number[]) => xs.map(tag).join(', ');
              if (here.length) parts.push(`where ${list(here)} ${here.length === 1 ? 'applies' : 'apply'}`);
              if (also.length || not.length) {
                const what = [also.length ? `${list(also)} also ${also.length === 1 ? 'matches' : 'match'}` : '', not.length ? `${list(not)} ${not.length === 1 ? 'does' : 'do'} not match` : ''].filter(Boolean);
                parts.push(`for a request there that ${what.join(' and ')}`);
              }
              if (!on.length && !not.length) parts.push('where no pattern section applies');
            }
            if (chains.length) parts.push(ifOn.size ? `where ${[...ifOn].map(tag).join(', ')} ${ifOn.size === 1 ? 'holds' : 'hold'}` : 'where no <If> holds');
            return parts.join(', ');
          },
        });
      }
    }
  }
  return { points, truncated: false, mapped };
}

function appliesWithParents(s: Scope, test: (s: Scope) => boolean): boolean {
  for (let p: Scope | null = s; p; p = p.parent) if (!test(p)) return false;
  return true;
}

/**
 * Which scopes that can change an answer a point selects (a scope applies when it and all its
 * parents do), written into `out` as their indices; returns how many. The same walk as
 * scopesThatApply over accessScopes, over `scopes`: those of them that may apply at the point's
 * place (ScopesByPath), in document order. `applies` is left all zero.
 */
function appliedSignature(scopes: readonly Scope[], test: (s: Scope) => boolean, out: Int32Array, applies: Uint8Array): number {
  let n = 0;
  for (const s of scopes) {
    if ((s.parent ? applies[s.parent.index] === 1 : true) && test(s)) {
      applies[s.index] = 1;
      out[n++] = s.index;
    }
  }
  for (let i = 0; i < n; i++) applies[out[i]] = 0;
  return n;
}

/**
 * The scopes of a model that may apply at a place. A large configuration is mostly `<Directory>`,
 * `<Location>` and `<Files>` sections with a plain path or name, each of which reaches few of the
 * places a plan tries: they are found by the place's path (its parent folders, its URL's leading
 * parts, its file name) instead of being tested at every place. Every other scope (a pattern, an
 * `<If>`, a virtual host, the top level) is a candidate everywhere, its own test deciding.
 */
/** Models with at most this many access scopes are not indexed: testing each is cheaper. */
const SMALL_MODEL = 24;

/** A model's index (its scopes do not change once it is built; pointsFor is asked many times of one model). */
const BY_PATH = new WeakMap<AccessModel, ScopesByPath>();

function scopesByPathOf(model: AccessModel): ScopesByPath {
  let v = BY_PATH.get(model);
  if (!v) BY_PATH.set(model, (v = new ScopesByPath(accessScopes(model))));
  return v;
}

export class ScopesByPath {
  private readonly everywhere: Scope[] = [];
  /** Virtual hosts by index: a place is in one of them at most, and each applies only there. */
  private readonly hosts = new Map<number, Scope>();
  private readonly byDir = new Map<string, Scope[]>();
  private readonly byLocation = new Map<string, Scope[]>();
  private readonly byName = new Map<string, Scope[]>();
  private readonly out: Scope[] = [];
  /** Every scope, for a model too small for the index to pay (or with nothing to index). */
  private readonly all: readonly Scope[] | null;

  /** `small`: up to how many scopes every one is a candidate (tests give 0 to index any model). */
  constructor(scopes: readonly Scope[], small = SMALL_MODEL) {
    this.all = scopes.length <= small ? scopes : null;
    if (this.all) return;
    const put = (m: Map<string, Scope[]>, k: string, s: Scope) => {
      const l = m.get(k);
      if (l) l.push(s);
      else m.set(k, [s]);
    };
    for (const s of scopes) {
      if (s.kind === 'virtualhost') this.hosts.set(s.index, s);
      else if (s.regex || /[*?[]/.test(s.pattern)) this.everywhere.push(s);
      else if (s.kind === 'directory' && dirPatternOf(s).startsWith('/')) put(this.byDir, s.dirPattern!, s);
      else if (s.kind === 'location') put(this.byLocation, s.pattern, s);
      else if (s.kind === 'files') put(this.byName, s.pattern, s);
      else this.everywhere.push(s);
    }
  }

  /**
   * The candidates at a place (file `file` as normPath gives it, URL `uri`, file name `name`), in
   * document order. The array is reused by the next call.
   * - A plain `<Directory>` applies to its folder and what is below: its path is `/` or a leading
   *   part of the file's path that ends before a `/`, or the whole path (dirApplies).
   * - A plain `<Location>` applies where the URL starts with it and it ends in `/`, or the URL
   *   ends or has a `/` right after it (locationApplies).
   * - A plain `<Files>` applies where it is the file's name (filesApplies).
   * - A `<VirtualHost>` applies at the places of its host alone: `vh` is the place's host (-1 for
   *   the main server); left out, every host is a candidate.
   */
  candidates(file: string, uri: string, name: string, vh?: number): readonly Scope[] {
    if (this.all) return this.all;
    if (!this.byDir.size && !this.byLocation.size && !this.byName.size && !this.hosts.size) return this.everywhere;
    const out = this.out;
    out.length = 0;
    for (const s of this.everywhere) out.push(s);
    // The place's virtual host (-1: none); without one given, every host.
    if (vh === undefined) for (const h of this.hosts.values()) out.push(h);
    else if (vh >= 0) {
      const h = this.hosts.get(vh);
      if (h) out.push(h);
    }
    const add = (l: Scope[] | undefined) => {
      if (l) for (const s of l) out.push(s);
    };
    if (this.byDir.size) {
      add(this.byDir.get('/'));
      if (file.startsWith('/') && file !== '/') {
        for (let k = file.indexOf('/', 1); k > 0; k = file.indexOf('/', k + 1)) add(this.byDir.get(file.slice(0, k)));
        add(this.byDir.get(file));
      }
    }
    if (this.byLocation.size) {
      for (let k = uri.indexOf('/'); k >= 0; k = uri.indexOf('/', k + 1)) {
        add(this.byLocation.get(uri.slice(0, k)));
        // The part with its slash, unless that is the whole URL (looked up below).
        if (k + 1 < uri.length) add(this.byLocation.get(uri.slice(0, k + 1)));
      }
      add(this.byLocation.get(uri));
    }
    if (this.byName.size) add(this.byName.get(name));
    out.sort((a, b) => a.index - b.index);
    // A URL with `//` finds a section by two of its parts: each scope once.
    let n = 0;
    for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[i - 1]) out[n++] = out[i];
    out.length = n;
    return out;
  }
}

/** A set of integer sequences (point signatures), kept by a hash of each: no string per point. */
class Signatures {
  private readonly byHash = new Map<number, Int32Array[]>();

  /** Adds buf[0, n) and says whether it was new. */
  add(buf: Int32Array, n: number): boolean {
    let h = n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ buf[i], 0x9e3779b1) + i;
    const list = this.byHash.get(h);
    if (list) {
      for (const old of list) {
        if (old.length !== n) continue;
        let same = true;
        for (let i = 0; i < n && same; i++) same = old[i] === buf[i];
        if (same) return false;
      }
    }
    const copy = buf.slice(0, n);
    if (list) list.push(copy);
    else this.byHash.set(h, [copy]);
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Clients

export interface ClientSet {
  clients: Client[];
  truncated: boolean;
  /** Undecidable leaves by key (the check tries every assignment). */
  unknownKeys: string[];
}

const KNOWN = new Set(['all', 'env', 'method', 'ip', 'host', 'local', 'valid-user', 'user', 'group']);

function describeClient(c: Client): string {
  const who = c.credentials.kind === 'none' ? 'without credentials' : c.credentials.kind === 'wrong' ? 'with a wrong password' : `as user ${c.credentials.user}`;
  const m = c.method === OTHER_METHOD ? 'another method' : c.method;
  const env = c.env.size ? `, with ${[...c.env].join(', ')} set` : '';
  const host = c.hostName ? ` (host name ${c.hostName})` : '';
  return `${m} from ${formatClient(c.addr)}${host} ${who}${env}`;
}

export { describeClient };

/** Every client class that matters for the scopes of the models given. */
export function clientsFor(models: AccessModel[], scopes: Array<Scope[]>, limit = 20000): ClientSet {
  const ipTokens = new Set<string>();
  const hostTokens = new Set<string>();
  const envNames = new Set<string>();
  const users = new Set<string>();
  const groups = new Set<string>();
  const methods = new Set<string>(['GET', 'POST']);
  const unknown = new Set<string>();
  let local = false;
  const leafList: AuthzLeaf[] = [];
  for (const list of scopes) {
    for (const s of list) {
      for (const e of [...(s.compat?.allow ?? []), ...(s.compat?.deny ?? [])]) {
        const t = e.token;
        if (t.kind === 'ip') ipTokens.add(t.raw);
        else if (t.kind === 'host') hostTokens.add(t.name.replace(/^\./, '').toLowerCase());
        else if (t.kind === 'env' || t.kind === 'nenv') envNames.add(t.name.toLowerCase());
        for (const m of e.mask.methods) methods.add(m);
      }
      for (const o of [...(s.compat?.orders ?? []), ...(s.compat?.satisfies ?? [])]) for (const m of o.mask.methods) methods.add(m);
      // One leaf per Require line: pushed one by one (a spread of 100,000 overflows the stack).
      if (s.authz?.root) for (const l of leaves(s.authz.root)) leafList.push(l);
    }
  }
  for (const l of leafList) {
    for (const m of l.mask.methods) methods.add(m);
    const words = l.args.map((a) => a.value);
    switch (l.provider) {
      case 'ip':
        words.forEach((w) => ipTokens.add(w));
        break;
      case 'host':
        words.forEach((w) => hostTokens.add(w.replace(/^\./, '').toLowerCase()));
        break;
      case 'env':
        words.forEach((w) => envNames.add(w.toLowerCase()));
        break;
      case 'method':
        words.forEach((w) => methods.add(normMethod(w)));
        break;
      case 'local':
        local = true;
        break;
      case 'user':
        words.forEach((w) => users.add(w));
        break;
      case 'group':
        words.forEach((w) => groups.add(w));
        break;
      default:
    }
    if (!KNOWN.has(l.provider) || (l.provider === 'host' && words.some((w) => /%\{|\$/.test(w)))) unknown.add(leafKey(l));
  }
  void models;
  // Addresses: samples inside every network named, and outside all of them.
  const addrs: ClientAddr[] = [];
  const seenAddrs = new Set<string>();
  const addAddr = (a: ClientAddr) => {
    const k = a.family + ':' + a.bytes.join('.');
    if (seenAddrs.has(k)) return;
    seenAddrs.add(k);
    addrs.push(a);
  };
  let v6 = false;
  for (const t of ipTokens) {
    const r = parseSubnetToken(t);
    if (!r.ok) continue;
    if (r.subnet.family === 6) v6 = true;
    samplesOf(r.subnet).forEach(addAddr);
  }
  addAddr({ family: 4, bytes: [203, 0, 113, 77] });
  if (local) {
    addAddr({ family: 4, bytes: [127, 0, 0, 1] });
    addAddr({ family: 4, bytes: [127, 9, 9, 9] });
  }
  if (v6 || local) addAddr({ family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x77] });
  // Addresses that fall in exactly the same networks are one class.
  {
    const nets = [...ipTokens].map((t) => parseSubnetToken(t)).filter((r) => r.ok).map((r) => (r as { ok: true; subnet: Subnet }).subnet);
    const containing = subnetIndex(nets);
    const sigs = new Set<string>();
    const keep: ClientAddr[] = [];
    for (const a of addrs) {
      const loop = (a.family === 4 && a.bytes[0] === 127) || (a.family === 6 && a.bytes.every((b, i) => b === (i === 15 ? 1 : 0)));
      const sig = a.family + ':' + (local ? (loop ? 'L' : 'l') : '') + ':' + containing(a).join(',');
      if (sigs.has(sig)) continue;
      sigs.add(sig);
      keep.push(a);
    }
    // (Not splice with a spread: tens of thousands of arguments overflow the stack.)
    addrs.length = 0;
    for (const a of keep) addrs.push(a);
  }
  // Host names: none, each name, a sub-name of each, an unrelated one.
  const hostNames: Array<string | null> = [null];
  if (hostTokens.size) {
    const cands: Array<string | null> = [];
    for (const h of hostTokens) cands.push(h, 'zz.' + h);
    cands.push('zz-unrelated.invalid');
    // Names that match the same host tokens are one class (no name at all matches none).
    const matching = domainIndex([...hostTokens]);
    const sigs = new Set<string>(['']);
    for (const n of cands) {
      const sig = n === null ? '' : matching(n).join(',');
      if (sigs.has(sig)) continue;
      sigs.add(sig);
      hostNames.push(n);
    }
  }
  // Environment: every subset (or singles and all when there are many).
  const envList = [...envNames];
  const envSets: Array<Set<string>> = [];
  if (envList.length <= 4) {
    for (let b = 0; b < 2 ** envList.length; b++) envSets.push(new Set(envList.filter((_, i) => (b >> i) & 1)));
  } else {
    envSets.push(new Set());
    envSets.push(new Set(envList));
    for (const e of envList) {
      envSets.push(new Set([e]));
      envSets.push(new Set(envList.filter((x) => x !== e)));
    }
  }
  // Credentials and groups: a user per named user, one per named group, one in nothing.
  const membership = new Map<string, Set<string>>();
  const creds: Credentials[] = [{ kind: 'none' }, { kind: 'wrong' }];
  for (const u of users) {
    creds.push({ kind: 'valid', user: u });
    membership.set(u, new Set());
  }
  for (const g of groups) {
    const u = `zz-member-of-${g}`;
    creds.push({ kind: 'valid', user: u });
    membership.set(u, new Set([g]));
  }
  creds.push({ kind: 'valid', user: 'zz-someone' });
  membership.set('zz-someone', new Set());
  const methodList = [...methods, OTHER_METHOD];
  const unknownKeys = [...unknown];
  const assignments: Array<Map<string, AuthzResult>> = [];
  if (unknownKeys.length <= 4) {
    for (let b = 0; b < 2 ** unknownKeys.length; b++) {
      assignments.push(new Map(unknownKeys.map((k, i) => [k, (b >> i) & 1 ? 'granted' : 'denied'] as [string, AuthzResult])));
    }
  }
  const total = methodList.length * addrs.length * hostNames.length * envSets.length * creds.length * Math.max(1, assignments.length);
  if (total > limit || (unknownKeys.length && !assignments.length)) return { clients: [], truncated: true, unknownKeys };
  const clients: Client[] = [];
  const inGroup = (u: string, g: string) => membership.get(u)?.has(g) ?? false;
  for (const method of methodList) {
    for (const addr of addrs) {
      for (const hostName of hostNames) {
        for (const env of envSets) {
          for (const credentials of creds) {
            for (const asg of assignments.length ? assignments : [new Map<string, AuthzResult>()]) {
              clients.push({ method, addr, hostName, env, credentials, inGroup, symbolicAuthn: true, decide: (k) => asg.get(k) });
            }
          }
        }
      }
    }
  }
  return { clients, truncated: false, unknownKeys };
}
