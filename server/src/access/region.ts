/**
 * Which requests a scope can see, as far as one file tells: the scope's
 * vhost, the Directory/Files/Location/If sections around it and its own. Two
 * scopes "overlap" when some request might pass through both. The answer is
 * conservative: when in doubt (regexes, wildcards, a Directory against a
 * Location, whose mapping depends on DocumentRoot and Alias) they overlap.
 */
import type { SectionNode } from '../syntax';
import type { Scope } from './model';
import { detached } from '../syntax';

export interface Region {
  vhost: Scope | null;
  dirs: Scope[];
  /** What dirsOverlap reads of each of `dirs`, worked out once (a file's regions are compared pair by pair). */
  dirFacts?: DirFacts[];
  files: Scope[];
  locations: Scope[];
  ifs: Scope[];
}

export function regionOf(s: Scope): Region {
  const r: Region = { vhost: null, dirs: [], files: [], locations: [], ifs: [] };
  for (let p: Scope | null = s; p; p = p.parent) {
    switch (p.kind) {
      case 'virtualhost':
        r.vhost = p;
        break;
      case 'directory':
      case 'directorymatch':
      case 'proxy':
      case 'proxymatch':
        r.dirs.push(p);
        break;
      case 'files':
      case 'filesmatch':
        r.files.push(p);
        break;
      case 'location':
      case 'locationmatch':
        r.locations.push(p);
        break;
      case 'if':
      case 'elseif':
      case 'else':
        r.ifs.push(p);
        break;
      default:
    }
  }
  return r;
}

const WILD = /[*?[]/;

/** A `<Directory>`-like section as dirsOverlap reads it. */
interface DirFacts {
  proxy: boolean;
  regex: boolean;
  wild: boolean;
  /** normPath of the pattern. */
  norm: string;
}

function dirFactsOf(r: Region): DirFacts[] {
  return (r.dirFacts ??= r.dirs.map((s) => ({ proxy: isProxy(s), regex: s.regex, wild: WILD.test(s.pattern), norm: normPath(s.pattern) })));
}

/** dirsOverlap over facts worked out once. */
function dirFactsOverlap(a: DirFacts, b: DirFacts): boolean {
  if (a.proxy !== b.proxy) return false;
  if (a.regex || b.regex) return true;
  if (a.proxy) return true;
  if (a.wild || b.wild) return globDirsOverlap(a.norm, b.norm);
  return normPrefix(a.norm, b.norm) || normPrefix(b.norm, a.norm);
}

/** pathPrefix over paths normPath has made. */
function normPrefix(x: string, y: string): boolean {
  if (x === '/') return y.startsWith('/');
  return y === x || (y.length > x.length && y.charCodeAt(x.length) === 47 && y.startsWith(x));
}

/** Normalised literal path without a trailing slash (but "/" stays "/"). */
const NORM_CACHE = new Map<string, string>();

export function normPath(p: string): string {
  const hit = NORM_CACHE.get(p);
  if (hit !== undefined) return hit;
  // Copied: the cache outlives the document the path was cut from.
  const own = detached(p);
  let s = own.indexOf('//') >= 0 ? own.replace(/\/+/g, '/') : own;
  // `.` and `..` parts are resolved as httpd resolves them (apr_filepath_merge) in a DocumentRoot,
  // an Alias target, a <Directory> path and the file a URL maps to: `/srv/conf/../htdocs` is /srv/htdocs.
  if (s.startsWith('/') && /\/\.\.?(\/|$)/.test(s)) {
    const out: string[] = [];
    for (const part of s.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') out.pop();
      else out.push(part);
    }
    s = '/' + out.join('/') + (s.endsWith('/') ? '/' : '');
  }
  if (s.length > 1 && s.endsWith('/')) s = s.slice(0, -1);
  if (NORM_CACHE.size > 200_000) NORM_CACHE.clear();
  NORM_CACHE.set(own, s);
  return s;
}

function isProxy(s: Scope): boolean {
  return s.kind === 'proxy' || s.kind === 'proxymatch';
}

/** Literal path prefix on a segment boundary. */
export function pathPrefix(a: string, b: string): boolean {
  const x = normPath(a);
  const y = normPath(b);
  if (x === '/') return y.startsWith('/');
  return y === x || y.startsWith(x + '/');
}

/**
 * Whether two `<Directory>` paths, one with wildcards at least, can apply to one path: a section
 * of N parts applies to the paths whose first N parts it matches, a wildcard never crossing '/'
 * (`/srv/home/*` and `/srv/uploads` never meet). Part by part up to the shorter one: two literal
 * parts must be equal, a wildcard part must match a literal one, and two wildcard parts are taken
 * to meet.
 */
function globDirsOverlap(a: string, b: string): boolean {
  const x = a.split('/').filter(Boolean);
  const y = b.split('/').filter(Boolean);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const wx = WILD.test(x[i]);
    const wy = WILD.test(y[i]);
    if (!wx && !wy) {
      if (x[i] !== y[i]) return false;
    } else if (wx !== wy) {
      const re = pathGlob(wx ? x[i] : y[i]);
      if (re && !re.test(wx ? y[i] : x[i])) return false;
    }
  }
  return true;
}

function locationsOverlap(a: Scope, b: Scope): boolean {
  if (a.regex || b.regex || WILD.test(a.pattern) || WILD.test(b.pattern)) return true;
  // Location matching is a prefix match; be generous about segment boundaries.
  const x = a.pattern;
  const y = b.pattern;
  return x.startsWith(y) || y.startsWith(x);
}

/** A bracket expression of a glob: `[abc]`, `[a-z]`, `[!x]` or `[^x]` (apr_fnmatch reads both as "not"). */
interface GlobClass {
  /** Index of the closing `]`. */
  end: number;
  negated: boolean;
  /** Inclusive ranges of UTF-16 code units (a single character is a range of one). */
  ranges: Array<[number, number]>;
}

/**
 * Reads globs left to right. Where a `[` has no closing `]` it is an ordinary character; the
 * search for the `]` is remembered, so a run of thousands of `[` stays linear.
 */
class GlobReader {
  private searchedFrom = -1;
  private found = -1;
  constructor(private readonly g: string) {}

  /** The bracket expression that opens at `i`, or null when the `[` is an ordinary character. */
  classAt(i: number): GlobClass | null {
    const g = this.g;
    let k = i + 1;
    const negated = g[k] === '!' || g[k] === '^';
    if (negated) k++;
    // A `]` right after the opening (and its negation) is one of the characters.
    const close = this.closeFrom(k + 1);
    if (close < 0) return null;
    const ranges: Array<[number, number]> = [];
    for (let m = k; m < close; m++) {
      const lo = g.charCodeAt(m);
      if (g[m + 1] === '-' && m + 2 < close) {
        ranges.push([lo, g.charCodeAt(m + 2)]);
        m += 2;
      } else ranges.push([lo, lo]);
    }
    return { end: close, negated, ranges };
  }

  private closeFrom(from: number): number {
    if (this.searchedFrom >= 0 && from >= this.searchedFrom && (this.found < 0 || from <= this.found)) return this.found;
    this.searchedFrom = from;
    this.found = this.g.indexOf(']', from);
    return this.found;
  }
}

function inClass(c: GlobClass, code: number): boolean {
  let hit = false;
  for (const [lo, hi] of c.ranges) if (code >= lo && code <= hi) hit = true;
  return hit !== c.negated && code !== 47;
}

const hex4 = (code: number): string => '\\u' + code.toString(16).padStart(4, '0');

/**
 * A shell-style wildcard as a RegExp. With `pathname` (fnmatch's FNM_PATHNAME, as httpd matches
 * `<Directory>`, `<Files>` and `<Location>` globs) no wildcard or bracket expression matches `/`.
 */
export function globToRegExp(g: string, pathname = false): RegExp {
  const reader = new GlobReader(g);
  const any = pathname ? '[^/]' : '.';
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') re += any + '*';
    else if (c === '?') re += any;
    else if (c === '[') {
      const cls = reader.classAt(i);
      if (!cls) re += '\\[';
      else {
        // Every character of the class as an escape, so none of them means anything to RegExp. A
        // range written backwards (`z-a`) holds nothing.
        const items = cls.ranges
          .filter(([lo, hi]) => lo <= hi)
          .map(([lo, hi]) => (lo === hi ? hex4(lo) : hex4(lo) + '-' + hex4(hi)))
          .join('');
        if (cls.negated) re += '[^' + items + (pathname ? '/' : '') + ']';
        else if (!items) re += '(?!)';
        else re += pathname ? '(?!/)[' + items + ']' : '[' + items + ']';
        i = cls.end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

/** Characters tried, in order, where a sample must avoid those a negated bracket expression names. */
const SAMPLE_CHARS = 'zqx_0123456789abcdefghijklmnoprstuvwyABCDEFGHIJKLMNOPQRSTUVWXYZ.-~';

/**
 * A string the glob matches with FNM_PATHNAME: each `*` as `zz`, each `?` as `z`, each bracket
 * expression as a character it accepts. Null when none is found (a class that accepts only `/`,
 * say): the caller must then not count on any request landing where the glob applies.
 */
export function globSample(g: string): string | null {
  const reader = new GlobReader(g);
  let out = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') out += 'zz';
    else if (c === '?') out += 'z';
    else if (c === '[') {
      const cls = reader.classAt(i);
      if (!cls) out += '[';
      else {
        let pick = -1;
        if (!cls.negated) {
          for (const [lo, hi] of cls.ranges) {
            for (let code = lo; code <= hi && pick < 0; code++) if (code !== 47) pick = code;
            if (pick >= 0) break;
          }
        } else {
          for (const ch of SAMPLE_CHARS) {
            if (inClass(cls, ch.charCodeAt(0))) {
              pick = ch.charCodeAt(0);
              break;
            }
          }
        }
        if (pick < 0) return null;
        out += String.fromCharCode(pick);
        i = cls.end;
      }
    } else out += c;
  }
  // A pattern too large for RegExp: no sample can be vouched for.
  return pathGlob(g)?.test(out) ? out : null;
}

/** A path or name the glob matches, else the glob itself (its text as a literal name). */
export function sampleOfGlob(g: string): string {
  return globSample(g) ?? g;
}

const PATH_GLOBS = new Map<string, RegExp | null>();

/**
 * The glob compiled with FNM_PATHNAME (see globToRegExp), remembered: sections are tested against
 * many request points. Null for a pattern too large for RegExp.
 */
export function pathGlob(pattern: string): RegExp | null {
  let re = PATH_GLOBS.get(pattern);
  if (re === undefined) {
    // Compiled from a copy: the cache outlives the document the pattern was cut from.
    const own = detached(pattern);
    try {
      re = globToRegExp(own, true);
      // V8 compiles on first use, and only then finds a pattern too large: use it once here.
      re.test('');
    } catch {
      re = null;
    }
    if (PATH_GLOBS.size > 5000) PATH_GLOBS.clear();
    PATH_GLOBS.set(own, re);
  }
  return re;
}

/**
 * Whether `path` lies below the folder(s) a `<Directory>` path names (`dir` may hold wildcards,
 * matched part by part as httpd does, a wildcard never crossing '/').
 */
export function isBelowDir(path: string, dir: string): boolean {
  const d = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  if (!/[*?[]/.test(d)) return path.startsWith(d === '/' ? '/' : d + '/');
  const parts = d.split('/').length;
  const p = path.split('/');
  if (p.length <= parts) return false;
  return pathGlob(d)?.test(p.slice(0, parts).join('/')) ?? false;
}

function filesOverlap(a: Scope, b: Scope): boolean {
  if (a.regex || b.regex) return true;
  const wa = WILD.test(a.pattern);
  const wb = WILD.test(b.pattern);
  if (wa && wb) return true;
  try {
    if (wa) return globToRegExp(a.pattern).test(b.pattern);
    if (wb) return globToRegExp(b.pattern).test(a.pattern);
  } catch {
    // A pattern too large for RegExp: assume they overlap.
    return true;
  }
  return a.pattern === b.pattern;
}

/** If/ElseIf/Else of one chain never apply together. */
function ifsExclusive(a: Scope, b: Scope): boolean {
  if (a === b || !a.section || !b.section || a.section.parent !== b.section.parent) return false;
  const [first, second] = a.index < b.index ? [a, b] : [b, a];
  if (second.kind === 'if') return false;
  // Walk back from `second` over ElseIf/Else siblings: if we reach `first` before another If starts, same chain.
  const list = siblingsOf(second);
  const i = list.indexOf(second.section!);
  for (let k = i - 1; k >= 0; k--) {
    const s = list[k];
    if (s === first.section) return true;
    if (s.key === 'if') return false;
    if (s.key !== 'elseif' && s.key !== 'else') return false;
  }
  return false;
}

function siblingsOf(s: Scope): SectionNode[] {
  const sec = s.section!;
  const kids = sec.parent ? sec.parent.children : null;
  const list: SectionNode[] = [];
  if (kids) for (const c of kids) if (c.type === 'section') list.push(c);
  return list;
}

export interface OverlapOptions {
  /** The document's top-level sections (for If chains at top level). */
  topSections?: SectionNode[];
}

/** Might some request be inside both regions? */
export function regionsOverlap(a: Region, b: Region): boolean {
  if (a.vhost && b.vhost && a.vhost !== b.vhost) return false;
  if (a.dirs.length && b.dirs.length) {
    const fa = dirFactsOf(a);
    const fb = dirFactsOf(b);
    for (const x of fa) for (const y of fb) if (!dirFactsOverlap(x, y)) return false;
  }
  for (const x of a.files) for (const y of b.files) if (!filesOverlap(x, y)) return false;
  for (const x of a.locations) for (const y of b.locations) if (!locationsOverlap(x, y)) return false;
  for (const x of a.ifs) for (const y of b.ifs) if (ifsExclusive(x, y)) return false;
  return true;
}

/** A scope's region never changes once the model is built. */
const REGION_CACHE = new WeakMap<Scope, Region>();
export function cachedRegion(s: Scope): Region {
  let r = REGION_CACHE.get(s);
  if (!r) REGION_CACHE.set(s, (r = regionOf(s)));
  return r;
}

export function scopesOverlap(a: Scope, b: Scope): boolean {
  return regionsOverlap(cachedRegion(a), cachedRegion(b));
}
