/**
 * Which httpd versions read a node, judging by the <IfModule>, <IfVersion> and
 * <IfDirective> sections around it. Many files carry a 2.2 branch and a 2.4 branch side by
 * side (`<IfModule !mod_authz_core.c>` … `<IfModule mod_authz_core.c>`); the
 * 2.2 branch is never read by 2.4 and must not be reported as if it were.
 */
import { detached, SpanCache, type ConfigDocument, type SectionNode } from '../syntax';
import { isHttpdModule } from '../facts';

/** The three kinds of server a file may be read by. */
export type Reader = 'httpd22' | 'httpd24compat' | 'httpd24';
export const ALL_READERS: readonly Reader[] = ['httpd22', 'httpd24compat', 'httpd24'];

/** Modules that exist only in 2.3/2.4 (their presence means "not 2.2"). */
const ONLY_24 = new Set([
  'mod_authz_core', 'authz_core_module', 'mod_authn_core', 'authn_core_module',
  'mod_authn_socache', 'authn_socache_module', 'mod_unixd', 'unixd_module',
  'mod_socache_shmcb', 'socache_shmcb_module', 'mod_slotmem_shm', 'slotmem_shm_module',
  'mod_proxy_fcgi', 'proxy_fcgi_module', 'mod_remoteip', 'remoteip_module', 'mod_ratelimit',
  'ratelimit_module', 'mod_request', 'request_module', 'mod_lua', 'lua_module',
  'mod_macro', 'macro_module', 'mod_allowmethods', 'allowmethods_module',
  'mod_cache_disk', 'cache_disk_module', 'mod_watchdog', 'watchdog_module',
]);
/** Present only in 2.4 servers that still load the compatibility module. */
const ONLY_24_COMPAT = new Set(['mod_access_compat', 'access_compat_module']);
/** Modules 2.4 no longer has, which 2.2 has. */
const ONLY_22 = new Set([
  'mod_authz_default', 'authz_default_module', 'mod_authn_default', 'authn_default_module',
  'mod_mem_cache', 'mem_cache_module', 'mod_disk_cache', 'disk_cache_module',
]);
/**
 * httpd 2.0's modules that 2.1 renamed or split, with what took their place: neither 2.2 nor 2.4
 * has a module by these names, so `<IfModule mod_access.c>` holds in no server either reads.
 */
const ONLY_20 = new Map([
  ['mod_access', 'mod_authz_host'],
  ['access_module', 'mod_authz_host'],
  ['mod_auth', 'mod_auth_basic, mod_authn_file and mod_authz_user'],
  ['auth_module', 'mod_auth_basic, mod_authn_file and mod_authz_user'],
  ['mod_auth_dbm', 'mod_authn_dbm and mod_authz_dbm'],
  ['auth_dbm_module', 'mod_authn_dbm and mod_authz_dbm'],
  ['mod_auth_anon', 'mod_authn_anon'],
  ['auth_anon_module', 'mod_authn_anon'],
]);

/** For `<IfModule arg>` naming one of httpd 2.0's modules that 2.2 and 2.4 lack: the module and what replaced it. */
export function formerModule(arg: string): { name: string; now: string } | null {
  if (arg.startsWith('!')) return null;
  const k = moduleKey(arg);
  const now = ONLY_20.get(k);
  return now ? { name: k.endsWith('_module') ? k : `${k}.c`, now } : null;
}

/** The key of a module name that names no module at all (see moduleKey). */
const NO_MODULE = '\u0000no module';

/**
 * The module an `<IfModule>` test names, as httpd looks it up: by its source file (`mod_x.c`)
 * or its identifier (`x_module`), exactly as written (httpd compares them case by case). A name
 * of httpd's own module in any other spelling (`mod_authz_core` without `.c`,
 * `MOD_ACCESS_COMPAT.C`) names no module (NO_MODULE): such a test never holds, and its `!` form
 * always does.
 */
function moduleKey(arg: string): string {
  let k = arg;
  if (k.endsWith('.c')) {
    k = k.slice(0, -2);
    // A source file name, not an identifier with `.c` added (`access_compat_module.c`).
    if (k.endsWith('_module') && isHttpdModule(k)) return NO_MODULE;
  } else if (k.endsWith('.cpp')) k = k.slice(0, -4);
  else if (!k.endsWith('_module') && isHttpdModule(k + '.c')) return NO_MODULE;
  if (k !== k.toLowerCase() && (isHttpdModule(arg) || isHttpdModule(k + '.c'))) return NO_MODULE;
  return k;
}

/** Whether `<IfModule [!]arg>`'s name is one httpd can never find (see moduleKey). */
export function namesNoModule(arg: string): boolean {
  return moduleKey(arg.startsWith('!') ? arg.slice(1) : arg) === NO_MODULE;
}

/** The readers of a module test `<IfModule [!]arg>` when true. */
function moduleReaders(arg: string): Set<Reader> {
  const neg = arg.startsWith('!');
  const k = moduleKey(neg ? arg.slice(1) : arg);
  if (k === NO_MODULE || ONLY_20.has(k)) return neg ? new Set(ALL_READERS) : new Set();
  let yes: Reader[];
  if (ONLY_24.has(k)) yes = ['httpd24compat', 'httpd24'];
  else if (ONLY_24_COMPAT.has(k)) yes = ['httpd24compat'];
  else if (ONLY_22.has(k)) yes = ['httpd22'];
  else return new Set(ALL_READERS);
  if (!neg) return new Set(yes);
  return new Set(ALL_READERS.filter((r) => !yes.includes(r)));
}

function cmpVersion(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** mod_version's test (`<IfVersion [!]op version>`, or one word `>=2.4`): null for a regex form or a word that is not a version. */
function versionTest(args: string[]): { op: string; negate: boolean; v: number[] } | null {
  let op = '=';
  let ver: string | undefined;
  if (args.length >= 2) {
    op = args[0];
    ver = args[1];
  } else if (args.length === 1) {
    const m = /^(<=|>=|<|>|==?|!=?)?(.*)$/.exec(args[0])!;
    op = m[1] ?? '=';
    ver = m[2];
  }
  let negate = false;
  if (op.startsWith('!')) {
    negate = true;
    op = op.slice(1) || '=';
  }
  if (!ver || !/^\d+(\.\d+){0,2}$/.test(ver)) return null;
  return { op, negate, v: ver.split('.').map(Number) };
}

/** The readers of `<IfVersion op version>` (mod_version's syntax; regex forms read by everyone). */
function versionReaders(args: string[]): Set<Reader> {
  const t = versionTest(args);
  if (!t) return new Set(ALL_READERS);
  const { op, negate, v } = t;
  // Judge each family by its whole range of releases: 2.2.0–2.2.x and 2.4.0–2.4.x (2.3 was 2.4's development series).
  const ranges: Array<[Reader[], number[], number[]]> = [
    [['httpd22'], [2, 2, 0], [2, 2, 999]],
    [['httpd24compat', 'httpd24'], [2, 4, 0], [2, 4, 999]],
  ];
  const out = new Set<Reader>();
  for (const [readers, lo, hi] of ranges) {
    let some: boolean;
    switch (op) {
      case '<': some = cmpVersion(lo, v) < 0; break;
      case '<=': some = cmpVersion(lo, v) <= 0; break;
      case '>': some = cmpVersion(hi, v) > 0; break;
      case '>=': some = cmpVersion(hi, v) >= 0; break;
      case '=': case '==': {
        // "2.2" in mod_version means 2.2.0 only if given with fewer parts? It compares major.minor.patch with missing parts as 0.
        some = cmpVersion(lo, v) <= 0 && cmpVersion(hi, v) >= 0;
        break;
      }
      default: some = true;
    }
    if (negate) some = true; // a negated comparison matches some release of almost any family
    if (some) readers.forEach((r) => out.add(r));
  }
  return out;
}

/** Directives only mod_access_compat registers in 2.4, and one every 2.4 server has. */
const COMPAT_DIRECTIVE_NAMES = new Set(['order', 'allow', 'deny', 'satisfy']);

/**
 * The readers of `<IfDirective [!]name>` (2.4.34 and later) for the names whose presence tells
 * the servers apart: the host-rule directives exist only with mod_access_compat, `Require` in every
 * 2.4 server. Any other name: everyone (whether its module is loaded is not known here).
 */
function directiveReaders(arg: string): Set<Reader> {
  const neg = arg.startsWith('!');
  const k = (neg ? arg.slice(1) : arg).toLowerCase();
  let yes: Reader[];
  if (COMPAT_DIRECTIVE_NAMES.has(k)) yes = ['httpd24compat'];
  else if (k === 'require') yes = ['httpd24compat', 'httpd24'];
  else return new Set(ALL_READERS);
  // 2.2 has no <IfDirective> at all (it refuses to start): it reads neither branch.
  if (!neg) return new Set(yes);
  return new Set((['httpd24compat', 'httpd24'] as Reader[]).filter((r) => !yes.includes(r)));
}

/** Which servers read a node inside the given chain of sections (innermost first or any order). */
export function readersOf(sections: readonly SectionNode[]): Set<Reader> {
  let set = new Set<Reader>(ALL_READERS);
  for (const s of sections) {
    let r: Set<Reader> | null = null;
    if (s.key === 'ifmodule' && s.args.length >= 1) r = moduleReaders(s.args[0].value);
    else if (s.key === 'ifversion') r = versionReaders(s.args.map((a) => a.value));
    else if (s.key === 'ifdirective' && s.args.length === 1) r = directiveReaders(s.args[0].value);
    if (r) set = new Set([...set].filter((x) => r!.has(x)));
  }
  return set;
}


/*
 * readersInside answers with one of the eight subsets of ALL_READERS, made once each: a file with
 * thousands of guard sections would otherwise make new sets for every one of them on every
 * analysis. A guard's own answer is remembered by its test as written (bounded).
 */
const SUBSETS: ReadonlyArray<ReadonlySet<Reader>> = Array.from({ length: 1 << ALL_READERS.length }, (_, m) => new Set(ALL_READERS.filter((_r, i) => m & (1 << i))));
const EVERY_MASK = (1 << ALL_READERS.length) - 1;
const EVERY_READER: ReadonlySet<Reader> = SUBSETS[EVERY_MASK];
const GUARD_MASKS = new SpanCache<number>(4096);

function maskOf(set: ReadonlySet<Reader>): number {
  let m = 0;
  for (let i = 0; i < ALL_READERS.length; i++) if (set.has(ALL_READERS[i])) m |= 1 << i;
  return m;
}

/**
 * The readers a guard section's own test lets in, as a mask of ALL_READERS. Remembered by the tag
 * as written (its stretch of the file: the same tag is the same test), so that a file repeating
 * `<IfModule mod_authz_core.c>` thousands of times has its tags neither split into words nor
 * cut out on each analysis.
 */
function guardMask(s: SectionNode): number {
  let m = GUARD_MASKS.get(s.fileText, s.openStart, s.openEnd);
  if (m === undefined) {
    m = maskOf(readersOf([s]));
    GUARD_MASKS.set(s.fileText, s.openStart, s.openEnd, m);
  }
  return m;
}

/** The answer remembered on a section (its readersMemo slot), if any. */
function remembered(s: SectionNode): ReadonlySet<Reader> | undefined {
  return s.readersMemo as ReadonlySet<Reader> | undefined;
}

/**
 * The servers that read what a section holds (`null`: the file's top level, read by all), the
 * same answer as readersOf over the section and its ancestors. Remembered on each section (its
 * readersMemo slot): every rule asks it for every directive, and a tree does not change once
 * parsed. The set is shared: read it, never change it.
 */
export function readersInside(section: SectionNode | null): ReadonlySet<Reader> {
  if (!section) return EVERY_READER;
  const known = remembered(section);
  if (known) return known;
  // Up to the nearest section with a known answer (or the top level), then down again: a loop,
  // not a recursion, so a nest of any depth is answered.
  const chain: SectionNode[] = [];
  let r: ReadonlySet<Reader> = EVERY_READER;
  for (let p: SectionNode | null = section; p; p = p.parent) {
    const k = remembered(p);
    if (k) {
      r = k;
      break;
    }
    chain.push(p);
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const s = chain[i];
    // Only <IfModule>, <IfVersion> and <IfDirective> narrow the readers; any other section reads as its parent.
    const guard = s.key === 'ifmodule' || s.key === 'ifversion' || s.key === 'ifdirective';
    if (guard) {
      const own = guardMask(s);
      if (own !== EVERY_MASK) r = SUBSETS[maskOf(r) & own];
    }
    s.readersMemo = r;
  }
  return r;
}

/** True when only httpd 2.2 (or older) reads what a section holds: a branch 2.4 skips. */
export function only22Inside(section: SectionNode | null): boolean {
  const r = readersInside(section);
  return !r.has('httpd24') && !r.has('httpd24compat');
}

/**
 * Whether both 2.4 servers (with and without mod_access_compat) certainly read what a section
 * holds, judging by its own condition only: `<IfModule mod_authz_core.c>`, `<IfModule
 * !mod_access.c>`, `<IfVersion >= 2.4>` and the like. False for any other section, for a test of
 * mod_access_compat itself (the two servers differ on it), for a module this file cannot know
 * about (it may or may not be loaded), and for a version test some 2.4 releases fail.
 */
export function readBy24Surely(section: SectionNode): boolean {
  if (section.key === 'ifmodule') {
    if (section.args.length !== 1) return false;
    const arg = section.args[0].value;
    const neg = arg.startsWith('!');
    const k = moduleKey(neg ? arg.slice(1) : arg);
    if (k === NO_MODULE) return neg;
    if (ONLY_24.has(k)) return !neg;
    if (ONLY_22.has(k) || ONLY_20.has(k)) return neg;
    return false;
  }
  if (section.key === 'ifdirective') {
    if (section.args.length !== 1) return false;
    const r = directiveReaders(section.args[0].value);
    return r.size !== ALL_READERS.length && r.has('httpd24') && r.has('httpd24compat');
  }
  if (section.key === 'ifversion') {
    const t = section.args.length <= 2 ? versionTest(section.args.map((a) => a.value)) : null;
    if (!t || t.negate) return false;
    const { op, v } = t;
    // Every 2.4 release from 2.4.0 to 2.4.999 must pass; the comparisons are monotonic, so the
    // two ends decide.
    const lo = [2, 4, 0];
    const hi = [2, 4, 999];
    switch (op) {
      case '>=': return cmpVersion(lo, v) >= 0;
      case '>': return cmpVersion(lo, v) > 0;
      case '<=': return cmpVersion(hi, v) <= 0;
      case '<': return cmpVersion(hi, v) < 0;
      default: return false;
    }
  }
  return false;
}

/**
 * True when one 2.4 server reads what a section holds and the other does not: the section sits
 * in `<IfModule mod_access_compat.c>` or `<IfModule !mod_access_compat.c>` (or both kinds of
 * server are told apart some other way). Unloading mod_access_compat changes what such lines do.
 */
export function readDependsOnCompat(section: SectionNode | null): boolean {
  const r = readersInside(section);
  return r.has('httpd24') !== r.has('httpd24compat');
}

/** `<IfModule mod_access_compat.c>` (or `access_compat_module`, or `<IfDirective Order>`): read only while that module is loaded. */
export function readWithCompatOnly(section: SectionNode): boolean {
  if (section.args.length !== 1) return false;
  const arg = section.args[0].value;
  if (section.key === 'ifdirective') return !arg.startsWith('!') && COMPAT_DIRECTIVE_NAMES.has(arg.toLowerCase());
  if (section.key !== 'ifmodule') return false;
  return !arg.startsWith('!') && ONLY_24_COMPAT.has(moduleKey(arg));
}

/**
 * `<IfModule !mod_access_compat.c>` (or `<IfDirective !Order>`) where both 2.4 servers read what is
 * around it: what it holds is read only once that module is gone.
 */
export function readWithoutCompatOnly(p: SectionNode): boolean {
  if (p.key !== 'ifmodule' && p.key !== 'ifdirective') return false;
  const inside = readersInside(p);
  const around = readersInside(p.parent);
  return inside.has('httpd24') && !inside.has('httpd24compat') && around.has('httpd24') && around.has('httpd24compat');
}

/** A test section whose truth this file cannot settle, by key (`define:SSL`, `file:/etc/x`, `module:ssl`…). */
export interface TestKey {
  key: string;
  /** True for `<IfDefine X>`, false for `<IfDefine !X>`. */
  positive: boolean;
}

/** Tests whose `!` form holds exactly when the plain form does not. */
const TEST_KEYS = new Set(['ifmodule', 'ifdefine', 'iffile', 'ifdirective', 'ifsection']);

/**
 * The key of a `<IfModule>`, `<IfDefine>`, `<IfFile>`, `<IfDirective>` or `<IfSection>` test, the
 * same for its plain and its `!` form; null for any other section.
 */
export function testKeyOf(s: SectionNode): TestKey | null {
  if (!TEST_KEYS.has(s.key)) return null;
  // A file repeats a few tests many times (`<IfModule mod_authz_core.c>` in every block): each
  // test's key is worked out once, by the tag as written (see guardMask).
  let known = TEST_KEY_CACHE.get(s.fileText, s.openStart, s.openEnd);
  if (known === undefined) {
    known = s.args.length ? testKeyOfWord(s.key, s.args[0].value) : null;
    TEST_KEY_CACHE.set(s.fileText, s.openStart, s.openEnd, known);
  }
  return known;
}

const TEST_KEY_CACHE = new SpanCache<TestKey | null>(4096);

function testKeyOfWord(sectionKey: string, word: string): TestKey {
  let arg = word;
  const neg = arg.startsWith('!');
  if (neg) arg = arg.slice(1);
  // `<IfFile !"path">`: the quotes follow the `!`, so the word keeps them.
  if (arg.length >= 2 && (arg[0] === '"' || arg[0] === "'") && arg.endsWith(arg[0])) arg = arg.slice(1, -1);
  let key: string;
  // mod_version.c, version_module and mod_version name the same module.
  if (sectionKey === 'ifmodule') key = moduleKey(arg) === NO_MODULE ? 'no-module:' + arg : 'module:' + arg.toLowerCase().replace(/\.c$/, '').replace(/^mod_/, '').replace(/_module$/, '');
  else if (sectionKey === 'ifdefine') key = 'define:' + arg;
  else if (sectionKey === 'iffile') key = 'file:' + arg;
  else key = `${sectionKey}:${arg.toLowerCase()}`;
  // Frozen: one object answers for every section with the same test.
  return Object.freeze({ key: detached(key), positive: !neg });
}

const LOADED = new WeakMap<object, Map<string, boolean>>();

/**
 * What the file itself settles about `<IfModule>` tests: a module it loads with `LoadModule` (at
 * the top level, or only inside tests both 2.4 servers pass) before any test of that module is
 * loaded where those tests are read, so `<IfModule mod_x.c>` holds and `<IfModule !mod_x.c>` does
 * not. Keys as testKeyOf gives them; undefined for any other test.
 */
export function settledByFile(doc: ConfigDocument): (key: string) => boolean | undefined {
  let known = LOADED.get(doc);
  if (!known) {
    known = new Map();
    const firstLoad = new Map<string, number>();
    const loads = doc.directivesWithKey('loadmodule');
    for (let ix = 0; ix < loads.length; ix++) {
      const d = loads[ix];
      if (!d.args.length) continue;
      let plain = true;
      for (let p = d.parent; p && plain; p = p.parent) if (!readBy24Surely(p)) plain = false;
      if (!plain) continue;
      const k = 'module:' + d.args[0].value.toLowerCase().replace(/_module$/, '');
      // mod_access_compat is what tells the two 2.4 servers apart: the reader settles its tests
      // (the original loads it, the rewrite is for a server without it), not this line.
      if (k === 'module:access_compat') continue;
      if (!firstLoad.has(k)) firstLoad.set(k, d.start);
    }
    if (firstLoad.size) {
      const firstTest = new Map<string, number>();
      for (let ix = 0; ix < doc.sections.length; ix++) {
        const s = doc.sections[ix];
        if (s.key !== 'ifmodule') continue;
        const t = testKeyOf(s);
        if (t && !firstTest.has(t.key)) firstTest.set(t.key, s.open.start);
      }
      for (const [k, at] of firstLoad) if ((firstTest.get(k) ?? Infinity) > at) known.set(k, true);
    }
    // A test of a name httpd can never find never holds.
    for (let ix = 0; ix < doc.sections.length; ix++) {
      const s = doc.sections[ix];
      if (s.key !== 'ifmodule') continue;
      const t = testKeyOf(s);
      if (t && t.key.startsWith('no-module:')) known.set(t.key, false);
    }
    LOADED.set(doc, known);
  }
  const m = known;
  return m.size ? (key) => m.get(key) : NOTHING_SETTLED;
}

/** What settledByFile answers for a file that loads no module it also tests. */
export const NOTHING_SETTLED = (_key: string): boolean | undefined => undefined;
