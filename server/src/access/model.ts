/**
 * The access model of one configuration file: every scope httpd merges on its
 * own (the file's top level, Directory, DirectoryMatch, Files, FilesMatch,
 * Location, LocationMatch, If/ElseIf/Else, VirtualHost, Proxy) with
 *   - its mod_access_compat config (present only when the scope uses Order,
 *     Allow, Deny or Satisfy, spec §2.6),
 *   - its mod_authz_core config (Require tree, AuthMerging, §3),
 *   - its mod_authn_core/auth file settings (AuthType, AuthName, AuthUserFile,
 *     AuthGroupFile, AuthDBMGroupFile),
 * and the problems httpd would refuse at start-up (§2.1, §2.2, §3.4).
 * Directives in branches the chosen reader skips (<IfModule !mod_authz_core.c>
 * for a 2.4 server…) are left out.
 */
import { type ChildNode, hasDirective, IdCache, lineTextIds, SpanCache, wordTable, type ConfigDocument, type DirectiveNode, type SectionNode, type Token } from '../syntax';
import type { FileContext } from '../model/context';
import { NOTHING_SETTLED, readersInside, settledByFile, testKeyOf, type Reader } from '../model/guards';
import { getProvider } from '../facts/providers';
import { classifyHostToken, parseRequireIp, type HostToken, type Subnet } from './addr';

// ---------------------------------------------------------------------------------------------
// Methods

/** A set of HTTP methods: `methods` itself, or (except) every method but those. HEAD is folded into GET. */
export interface MethodSet {
  except: boolean;
  methods: ReadonlySet<string>;
}

export const ALL_METHODS: MethodSet = { except: true, methods: new Set() };

/**
 * A method name as httpd compares it: exactly as written (`<Limit get>` names a method of its own,
 * which GET requests never are; httpd registers it as a new method), HEAD counting as GET.
 */
export function normMethod(m: string): string {
  return m === 'HEAD' ? 'GET' : m;
}

export function inMask(mask: MethodSet, method: string): boolean {
  // Most masks are every method (no <Limit> around): no need to normalise the name.
  if (mask.except && mask.methods.size === 0) return true;
  return mask.except !== mask.methods.has(normMethod(method));
}

export function isAllMethods(mask: MethodSet): boolean {
  return mask.except && mask.methods.size === 0;
}

export function unionMask(a: MethodSet, b: MethodSet): MethodSet {
  if (!a.except && !b.except) return { except: false, methods: new Set([...a.methods, ...b.methods]) };
  if (a.except && b.except) return { except: true, methods: new Set([...a.methods].filter((m) => b.methods.has(m))) };
  const [ex, only] = a.except ? [a, b] : [b, a];
  return { except: true, methods: new Set([...ex.methods].filter((m) => !only.methods.has(m))) };
}

// ---------------------------------------------------------------------------------------------
// Compat config

export type Order = 'allow,deny' | 'deny,allow' | 'mutual-failure';

export interface CompatEntry {
  token: HostToken;
  mask: MethodSet;
  directive: DirectiveNode;
}

export interface CompatConfig {
  orders: Array<{ order: Order; mask: MethodSet; directive: DirectiveNode }>;
  satisfies: Array<{ any: boolean; mask: MethodSet; directive: DirectiveNode }>;
  allow: CompatEntry[];
  deny: CompatEntry[];
  /** Every compat directive of the scope, in order. */
  directives: DirectiveNode[];
}

/** The order for a method: the last Order line that covers it, else deny,allow. */
export function orderFor(c: CompatConfig, method: string): Order {
  let o: Order = 'deny,allow';
  for (const e of c.orders) if (inMask(e.mask, method)) o = e.order;
  return o;
}

export function satisfyAnyFor(c: CompatConfig | null, method: string): boolean {
  if (!c) return false;
  let any = false;
  for (const e of c.satisfies) if (inMask(e.mask, method)) any = e.any;
  return any;
}

// ---------------------------------------------------------------------------------------------
// Authz config

export interface AuthzLeaf {
  kind: 'leaf';
  provider: string;
  /** The words after the provider name. */
  args: Token[];
  negated: boolean;
  mask: MethodSet;
  directive: DirectiveNode;
  /** For `Require ip`: the parsed networks (invalid words are left out and reported). */
  subnets?: Subnet[];
}

export interface AuthzContainer {
  kind: 'container';
  op: 'all' | 'any' | 'none';
  children: AuthzNode[];
  /** The section tag, or null for the implicit RequireAny of a scope. */
  section: SectionNode | null;
}

export type AuthzNode = AuthzLeaf | AuthzContainer;

export type Merging = 'off' | 'and' | 'or';

export interface AuthzConfig {
  /** The scope's implicit RequireAny, or null when the scope has no Require. */
  root: AuthzContainer | null;
  merging: Merging | null;
  mergingDirective: DirectiveNode | null;
  /** AuthzSendForbiddenOnFailure, when set here. */
  sendForbidden: boolean | null;
  directives: DirectiveNode[];
}

/** The union of the method masks of a node (a container: of its children). */
export function maskOf(n: AuthzNode): MethodSet {
  if (n.kind === 'leaf') return n.mask;
  let m: MethodSet = { except: false, methods: new Set() };
  for (const c of n.children) m = unionMask(m, maskOf(c));
  return m;
}

// ---------------------------------------------------------------------------------------------
// Authn settings

export interface AuthnConfig {
  authType: DirectiveNode | null;
  authName: DirectiveNode | null;
  userFile: DirectiveNode | null;
  groupFile: DirectiveNode | null;
  dbmGroupFile: DirectiveNode | null;
  /** Any other Auth* directive of the scope (AuthBasicProvider, AuthDBMUserFile…). */
  other: DirectiveNode[];
}

// ---------------------------------------------------------------------------------------------
// Scopes

export type ScopeKind =
  | 'top'
  | 'directory'
  | 'directorymatch'
  | 'files'
  | 'filesmatch'
  | 'location'
  | 'locationmatch'
  | 'if'
  | 'elseif'
  | 'else'
  | 'virtualhost'
  | 'proxy'
  | 'proxymatch';

export interface Scope {
  kind: ScopeKind;
  /** The section, or null for the file's top level. */
  section: SectionNode | null;
  parent: Scope | null;
  /** Every directive read in this scope (through IfModule, Limit, Require containers…), in order. */
  directives: DirectiveNode[];
  compat: CompatConfig | null;
  authz: AuthzConfig | null;
  authn: AuthnConfig;
  /** `<Directory ~>`/`<Files ~>`/`<Location ~>` and the *Match forms. */
  regex: boolean;
  /** The pattern (path, name or regex) as httpd sees it; '' for top/if/else. */
  pattern: string;
  /** SetEnvIf/SetEnvIfNoCase/BrowserMatch(NoCase) lines of this scope. */
  setenv: DirectiveNode[];
  /** DocumentRoot/Alias lines (top level and VirtualHost only). */
  paths: DirectiveNode[];
  /** Index in document order. */
  index: number;
  /** For a regex that can only match one literal string (`^a\\.html$`): that string. */
  literal?: string;
  /**
   * The path holds a variable (`<Directory ${D}>`) the file does not settle: the scope is read as
   * a regex that matches anything (`regex`, empty `pattern`), and explain tries it both ways.
   */
  unresolved?: true;
  /**
   * normPath(pattern) and whether it holds a wildcard, for a `<Directory>` that is not a regex:
   * filled in by dirApplies the first time, since the checks test each scope against thousands of
   * paths (a scope's pattern never changes once it is made).
   */
  dirPattern?: string;
  dirWild?: boolean;
  /** How many components normPath(pattern) has, for ordering `<Directory>` sections (kept by appliedScopes). */
  dirDepth?: number;
}

export type ProblemCode =
  | 'order-args'
  | 'order-value'
  | 'satisfy-value'
  | 'allow-from'
  | 'allow-args'
  | 'host-token'
  | 'comment-token'
  | 'require-args'
  | 'provider-case'
  | 'provider-unknown'
  | 'require-ip'
  | 'require-all'
  | 'negated-in-or'
  | 'authmerging-value'
  | 'limit-empty'
  | 'limit-trace'
  | 'container-args'
  | 'none-in-or'
  | 'empty-container'
  | 'only-negative';

/**
 * Sections nested deeper than this are left out of the access model. Real configurations nest a
 * handful of levels; the bound keeps adversarial input (thousands of levels) from exhausting the stack.
 */
export const MAX_ANALYSED_NESTING = 128;

export interface Problem {
  /** Which rule reports it. */
  kind: 'invalid-require' | 'invalid-compat';
  code: ProblemCode;
  message: string;
  start: number;
  end: number;
  directive?: DirectiveNode;
  section?: SectionNode;
}

export interface AccessModel {
  doc: ConfigDocument;
  context: FileContext;
  reader: Reader;
  scopes: Scope[];
  /** The scope of a section (scope sections only). */
  scopeOfSection: Map<SectionNode, Scope>;
  problems: Problem[];
  /** Provider names declared by <AuthzProviderAlias> in this file. */
  aliases: Set<string>;
  /**
   * `text` with each `${NAME}` replaced as httpd replaces it when it reads a line at offset `at`,
   * from the file's own `Define` lines; null when a variable is not settled by them (defined only
   * inside a test such as `<IfDefine>`, undefined again, or taken from the environment).
   */
  resolve(text: string, at: number): string | null;
  /**
   * Paths known to be directories (the folders of `.htaccess` files read into the configuration):
   * request points never take them for files reached with path_info (points.ts). Set by the planner.
   */
  knownDirectories?: ReadonlySet<string>;
  /**
   * Whether no request reaches the main server (points.ts, mainServerUnreachable), when set by the
   * planner: a projection of the file (projection.ts) takes the whole file's answer when it kept
   * every virtual host, else false (the hosts it left out are then stood for by the main server).
   */
  mainUnreachable?: boolean;
}

const CONDITIONAL_SECTIONS = new Set(['ifdefine', 'ifmodule', 'ifversion', 'iffile', 'ifdirective', 'ifsection', 'if', 'elseif', 'else', 'macro']);

/** The file's Define/UnDefine lines by name, in document order, and whether each sits under a test. */
function variablesOf(doc: ConfigDocument): Map<string, Array<{ at: number; value: string | null; sure: boolean }>> {
  const out = new Map<string, Array<{ at: number; value: string | null; sure: boolean }>>();
  for (const d of doc.directives) {
    if (d.key !== 'define' && d.key !== 'undefine') continue;
    const name = d.args[0]?.value;
    if (!name) continue;
    let sure = true;
    for (let p = d.parent; p && sure; p = p.parent) if (CONDITIONAL_SECTIONS.has(p.key)) sure = false;
    const value = d.key === 'define' && d.args.length >= 2 && !d.args[1].value.includes('${') ? d.args[1].value : null;
    const list = out.get(name);
    const e = { at: d.start, value, sure };
    if (list) list.push(e);
    else out.set(name, [e]);
  }
  return out;
}

function resolverOf(doc: ConfigDocument): (text: string, at: number) => string | null {
  let vars: ReturnType<typeof variablesOf> | undefined;
  return (text, at) => {
    if (!text.includes('${')) return text;
    vars ??= variablesOf(doc);
    let ok = true;
    const out = text.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
      const list = vars!.get(name) ?? [];
      // Every line that sets or clears the name must be read for sure, and the last one before
      // `at` must set a value.
      if (list.some((e) => !e.sure)) ok = false;
      let last: { value: string | null } | undefined;
      for (const e of list) if (e.at < at) last = e;
      if (!last || last.value === null) ok = false;
      return last?.value ?? '';
    });
    return ok ? out : null;
  };
}

const SCOPE_KEYS: Readonly<Record<string, ScopeKind | undefined>> = wordTable({
  directory: 'directory',
  directorymatch: 'directorymatch',
  files: 'files',
  filesmatch: 'filesmatch',
  location: 'location',
  locationmatch: 'locationmatch',
  if: 'if',
  elseif: 'elseif',
  else: 'else',
  virtualhost: 'virtualhost',
  proxy: 'proxy',
  proxymatch: 'proxymatch',
});

/** Wrappers whose content belongs to the scope around them. */
const TRANSPARENT = new Set(['ifmodule', 'ifdefine', 'ifversion', 'iffile', 'ifdirective', 'ifsection']);
const CONTAINER_OP: Readonly<Record<string, 'all' | 'any' | 'none' | undefined>> = wordTable({ requireall: 'all', requireany: 'any', requirenone: 'none' });

export const COMPAT_KEYS = new Set(['order', 'allow', 'deny', 'satisfy']);
const AUTHZ_KEYS = new Set(['require', 'authmerging', 'authzsendforbiddenonfailure']);
/** The directives a light model reads: the host rules and the authorization lines. */
const LIGHT_KEYS = new Set([...COMPAT_KEYS, ...AUTHZ_KEYS]);
/** Host-rule lines a light model found sound (no problem), by their text's number (lineTextIds), shared between analyses; bounded. */
const SOUND_COMPAT = new IdCache<true>(16384);
/**
 * Texts of `Require` lines (not `Require not`) a light model found sound in a file without
 * `<AuthzProviderAlias>`: the line's words alone yield no problem (a known provider, valid
 * addresses, `all granted|denied`). Shared between analyses; bounded.
 */
const SOUND_REQUIRE = new SpanCache<true>(4096);
const AUTHZ_KEY_LIST = [...AUTHZ_KEYS];
const COMPAT_KEY_LIST = [...COMPAT_KEYS];
const SETENV_KEYS = new Set(['setenvif', 'setenvifnocase', 'browsermatch', 'browsermatchnocase']);

/** Whether a scope takes part in access decisions itself: host rules, Require lines or an AuthType. */
export function decidesAccess(s: Scope): boolean {
  return !!(s.compat || s.authz || s.authn.authType);
}

export function scopeKindOf(s: SectionNode): ScopeKind | null {
  return SCOPE_KEYS[s.key] ?? null;
}

function limitMask(s: SectionNode, outer: MethodSet): MethodSet {
  const methods = new Set(s.args.map((a) => normMethod(a.value)));
  const own: MethodSet = { except: s.key === 'limitexcept', methods };
  // httpd does not nest method limits; if it happens, the inner one wins.
  void outer;
  return own;
}

export interface ModelOptions {
  /** Which server reads the file (default: 2.4 with mod_access_compat). */
  reader?: Reader;
  /**
   * Only what start-up checks need (the quick pass): the problems of the host rules, the Require
   * trees and their problems. Scopes keep nothing else (no host-rule lists, auth settings, SetEnvIf,
   * paths or path patterns; sections without access lines get no scope): not for evaluation.
   */
  light?: boolean;
  /**
   * The truth of tests the file cannot settle (`<IfDefine X>`, `<IfFile path>`, `<IfModule m>`…),
   * by key (model/guards.ts testKeyOf): a test whose key is answered reads its content only when
   * the answer matches its form. Unanswered tests are taken as holding, except `<IfModule>` tests of
   * modules the file loads before them (model/guards.ts settledByFile).
   */
  assume?: (key: string) => boolean | undefined;
}


/** Build the access model of a parsed file. */
/** A scope with nothing read into it yet. */
export function emptyScope(kind: ScopeKind, section: SectionNode | null, parent: Scope | null, regex: boolean, pattern: string, index: number, light = false): Scope {
  return {
    kind,
    section,
    parent,
    directives: [],
    compat: null,
    authz: null,
    authn: light ? LIGHT_AUTHN : { authType: null, authName: null, userFile: null, groupFile: null, dbmGroupFile: null, other: [] },
    regex,
    pattern,
    setenv: light ? (NO_DIRECTIVES as DirectiveNode[]) : [],
    paths: light ? (NO_DIRECTIVES as DirectiveNode[]) : [],
    index,
  };
}

/*
 * A light model's scopes never hold auth settings, SetEnvIf lines or paths (it reads only the host
 * rules and the authorization lines): they share these empty, frozen ones instead of three new
 * objects each (a 100,000-line file has tens of thousands of sections).
 */
const NO_DIRECTIVES: readonly DirectiveNode[] = Object.freeze([]);
const LIGHT_AUTHN: AuthnConfig = Object.freeze({ authType: null, authName: null, userFile: null, groupFile: null, dbmGroupFile: null, other: NO_DIRECTIVES as DirectiveNode[] }) as AuthnConfig;

export function buildModel(doc: ConfigDocument, context: FileContext, options: ModelOptions = {}): AccessModel {
  const reader = options.reader ?? 'httpd24compat';
  const light = options.light === true;
  // Tests the caller answers, else those the file settles itself (a module it loads earlier).
  const byFile = settledByFile(doc);
  const asked = options.assume;
  const assume = asked ? (key: string) => asked(key) ?? byFile(key) : byFile === NOTHING_SETTLED ? undefined : byFile;
  const problems: Problem[] = [];
  const scopes: Scope[] = [];
  const scopeOfSection = new Map<SectionNode, Scope>();
  const aliases = new Set<string>();
  for (let ix = 0; ix < doc.sections.length; ix++) {
    const s = doc.sections[ix];
    if (s.key === 'authzprovideralias' && s.args.length >= 2) aliases.add(s.args[1].value);
  }

  const resolve = resolverOf(doc);
  const newScope = (kind: ScopeKind, section: SectionNode | null, parent: Scope | null): Scope => {
    let regex = false;
    let pattern = '';
    let unresolved = false;
    // A light model is never evaluated against paths: its scopes need no pattern (the tag is not split).
    if (section && !light) {
      const a = section.args;
      if (kind === 'directorymatch' || kind === 'filesmatch' || kind === 'locationmatch' || kind === 'proxymatch') {
        regex = true;
        pattern = a[0]?.value ?? '';
      } else if ((kind === 'directory' || kind === 'files' || kind === 'location' || kind === 'proxy') && a[0]?.value === '~') {
        regex = true;
        pattern = a[1]?.value ?? '';
      } else if (kind === 'if' || kind === 'elseif') pattern = a.map((t) => t.raw).join(' ');
      else pattern = a[0]?.value ?? '';
      // httpd puts a variable's value in (`Define`, the environment) before it reads the tag: the
      // path is not known here, so the section is taken as one that may apply to any request (an
      // empty regex), as a regex section the file cannot pin down is.
      if (kind !== 'if' && kind !== 'elseif' && pattern.includes('${')) {
        const known = resolve(pattern, section.open.start);
        if (known !== null) pattern = known;
        else {
          regex = true;
          pattern = '';
          unresolved = true;
        }
      }
    }
    const sc = emptyScope(kind, section, parent, regex, pattern, scopes.length, light);
    if (unresolved) sc.unresolved = true;
    if (regex && pattern) {
      const lit = regexLiteral(pattern);
      if (lit !== null) sc.literal = lit;
    }
    scopes.push(sc);
    if (section) scopeOfSection.set(section, sc);
    return sc;
  };

  const top = newScope('top', null, null);

  interface Ctx {
    scope: Scope;
    mask: MethodSet;
    /** The Require container being filled, or the scope's implicit one (created lazily). */
    container: AuthzContainer | null;
  }

  // Whether the reader reads a node depends only on its enclosing sections: cached per parent, by
  // the section's index (1 yes, 2 no; the last slot for the top level).
  const nSections = doc.sections.length;
  const readByParent = new Uint8Array(nSections + 1);
  const readBy = (node: { parent: SectionNode | null }): boolean => {
    const slot = node.parent ? node.parent.index : nSections;
    const known = readByParent[slot];
    let r: boolean;
    if (known !== 0) r = known === 1;
    else {
      r = readersInside(node.parent).has(reader);
      if (r && assume) {
        for (let p = node.parent; p && r; p = p.parent) {
          const t = testKeyOf(p);
          const v = t ? assume(t.key) : undefined;
          if (t && v !== undefined && v !== t.positive) r = false;
        }
      }
      readByParent[slot] = r ? 1 : 2;
    }
    return r;
  };

  const authzOf = (sc: Scope): AuthzConfig => {
    if (!sc.authz) sc.authz = { root: null, merging: null, mergingDirective: null, sendForbidden: null, directives: [] };
    return sc.authz;
  };
  const compatOf = (sc: Scope): CompatConfig => {
    if (!sc.compat) sc.compat = { orders: [], satisfies: [], allow: [], deny: [], directives: [] };
    return sc.compat;
  };
  const rootOf = (sc: Scope): AuthzContainer => {
    const a = authzOf(sc);
    if (!a.root) a.root = { kind: 'container', op: 'any', children: [], section: null };
    return a.root;
  };

  const report = (d: DirectiveNode, message: string, code: ProblemCode, start = d.start, end = d.end) =>
    problems.push({ kind: COMPAT_KEYS.has(d.key) ? 'invalid-compat' : 'invalid-require', code, message, start, end, directive: d });

  /** Order, Allow, Deny, Satisfy: their values, and the problems httpd would refuse them for. */
  const compatDirective = (d: DirectiveNode, ctx: Ctx, sc: Scope): void => {
    const k = d.key;
    // A light model keeps no host rules (only their problems): nothing is gathered for it.
    const c = light ? null : compatOf(sc);
    c?.directives.push(d);
    if (k === 'order') {
      if (d.args.length !== 1) {
        report(d, `Order takes exactly one argument (allow,deny, deny,allow or mutual-failure, without spaces); httpd refuses "${d.args.map((a) => a.raw).join(' ')}".`, 'order-args');
        return;
      }
      const v = d.args[0].value.toLowerCase();
      if (v !== 'allow,deny' && v !== 'deny,allow' && v !== 'mutual-failure') {
        report(d, `unknown order "${d.args[0].value}": httpd accepts allow,deny, deny,allow or mutual-failure.`, 'order-value');
        return;
      }
      c?.orders.push({ order: v as Order, mask: ctx.mask, directive: d });
    } else if (k === 'satisfy') {
      const v = d.args.length === 1 ? d.args[0].value.toLowerCase() : '';
      if (v !== 'any' && v !== 'all') {
        report(d, "Satisfy either 'any' or 'all'.", 'satisfy-value');
        return;
      }
      c?.satisfies.push({ any: v === 'any', mask: ctx.mask, directive: d });
    } else {
      if (!d.args.length || d.args[0].value.toLowerCase() !== 'from') {
        report(d, "allow and deny must be followed by 'from'", 'allow-from');
        return;
      }
      if (d.args.length < 2) {
        report(d, `${d.name.value} requires at least two arguments`, 'allow-args');
        return;
      }
      for (const t of d.args.slice(1)) {
        const r = classifyHostToken(t.value);
        if (!r.ok) {
          problems.push({ kind: 'invalid-compat', code: r.message.startsWith('No comments') ? 'comment-token' : 'host-token', message: `${r.message}: "${t.raw}"`, start: t.start, end: t.end, directive: d });
          continue;
        }
        if (c) (k === 'allow' ? c.allow : c.deny).push({ token: r.token, mask: ctx.mask, directive: d });
      }
    }
  };

  const directive = (d: DirectiveNode, ctx: Ctx) => {
    const sc = ctx.scope;
    const k = d.key;
    if (light && COMPAT_KEYS.has(k)) {
      // A light model keeps only the problems of host rules (the loop that calls this for them
      // remembers the texts found sound).
      compatDirective(d, ctx, sc);
      return;
    }
    sc.directives.push(d);
    if (COMPAT_KEYS.has(k)) {
      compatDirective(d, ctx, sc);
      return;
    }
    if (k === 'require') {
      const before = problems.length;
      authzOf(sc).directives.push(d);
      const parent = ctx.container ?? rootOf(sc);
      let i = 0;
      let negated = false;
      if (d.args[0] && d.args[0].value.toLowerCase() === 'not') {
        negated = true;
        i = 1;
      }
      const p = d.args[i];
      if (!p) {
        report(d, negated ? 'Require not needs a provider name.' : 'Require takes at least one argument.', 'require-args');
        return;
      }
      const provider = p.value;
      if (!getProvider(provider) && !aliases.has(provider)) {
        const lower = getProvider(provider.toLowerCase());
        report(
          d,
          lower
            ? `Unknown Authz provider: ${provider} (provider names are case-sensitive: write ${lower.name})`
            : `Unknown Authz provider: ${provider} (not a stock provider; httpd refuses it unless a module or <AuthzProviderAlias> defines it)`,
          lower ? 'provider-case' : 'provider-unknown',
          p.start,
          p.end,
        );
      }
      const leaf: AuthzLeaf = { kind: 'leaf', provider, args: d.args.slice(i + 1), negated, mask: ctx.mask, directive: d };
      if (provider === 'ip') {
        leaf.subnets = [];
        for (const t of leaf.args) {
          const r = parseRequireIp(t.value);
          if (r.ok) leaf.subnets.push(r.subnet);
          else problems.push({ kind: 'invalid-require', code: 'require-ip', message: r.message, start: t.start, end: t.end, directive: d });
        }
        if (!leaf.args.length) report(d, 'Require ip needs at least one address.', 'require-ip');
      } else if (provider === 'all') {
        const v = leaf.args.map((a) => a.value.toLowerCase());
        if (v.length !== 1 || (v[0] !== 'granted' && v[0] !== 'denied')) report(d, "Require all must be followed by 'granted' or 'denied'.", 'require-all');
      } else if (provider === 'valid-user' || provider === 'local' || provider === 'file-owner' || provider === 'file-group' || provider === 'dbm-file-group') {
        // These take no argument; httpd ignores what follows for most of them.
      }
      if (negated && parent.op !== 'all') {
        report(
          d,
          parent.section
            ? `negative Require directive has no effect in <${parent.section.name.value}> directive`
            : 'negative Require directive has no effect in <RequireAny> directive (a section\'s Require lines are an implicit <RequireAny>: put `Require not` inside <RequireAll> with a positive line)',
          'negated-in-or',
        );
      }
      parent.children.push(leaf);
      if (light && !negated && problems.length === before && aliases.size === 0) SOUND_REQUIRE.set(doc.text, d.start, d.end, true);
      return;
    }
    if (k === 'authmerging') {
      const a = authzOf(sc);
      a.directives.push(d);
      const v = d.args[0]?.value.toLowerCase();
      if (d.args.length !== 1 || (v !== 'off' && v !== 'and' && v !== 'or')) {
        report(d, 'AuthMerging takes Off, And or Or.', 'authmerging-value');
        return;
      }
      a.merging = v as Merging;
      a.mergingDirective = d;
      return;
    }
    if (k === 'authzsendforbiddenonfailure') {
      const a = authzOf(sc);
      a.directives.push(d);
      a.sendForbidden = d.args[0]?.value.toLowerCase() === 'on';
      return;
    }
    if (k === 'authtype') sc.authn.authType = d;
    else if (k === 'authname') sc.authn.authName = d;
    else if (k === 'authuserfile') sc.authn.userFile = d;
    else if (k === 'authgroupfile') sc.authn.groupFile = d;
    else if (k === 'authdbmgroupfile') sc.authn.dbmGroupFile = d;
    else if (k.startsWith('auth')) sc.authn.other.push(d);
    else if (SETENV_KEYS.has(k)) sc.setenv.push(d);
    else if (k === 'documentroot' || k === 'alias' || k === 'aliasmatch' || k === 'scriptalias' || k === 'scriptaliasmatch') sc.paths.push(d);
  };

  // A light model reads only the sections that hold (at any depth) a line it reads, a <Limit> or a
  // Require container: nothing else can yield a problem or an authorization tree. The others are
  // skipped whole (their scopes are not made, their tags not split into words).
  // (By the sections' indices: 1 for a wanted section.)
  let wanted: Uint8Array | null = null;
  // The authorization lines the light walk reads (see below), in document order.
  const authzRead: DirectiveNode[] = [];
  if (light) {
    wanted = new Uint8Array(nSections);
    const want = (p: SectionNode | null) => {
      for (; p && wanted![p.index] === 0; p = p.parent) wanted![p.index] = 1;
    };
    // A `Require` line whose words were found sound before, alone in its scope (the scope holds no
    // other authorization line, <Limit> or Require container, at any depth short of a nested
    // scope), can yield nothing: its tree is that one line, which no other line can make dead or
    // invalid. Such a line is not read (no node, no scope): on each keystroke, a large file's
    // usual `Require` lines cost a look at their text.
    // (Each section's scope owner by index, -1 before it is known; the last slot for the top level.)
    const ownerOf = new Int32Array(nSections + 1).fill(-1);
    const ownerSlot = (p: SectionNode | null): number => {
      // Up to the first section whose owner is known or that is a scope (a loop: nesting may be deep).
      let o = nSections;
      let q = p;
      for (; q; q = q.parent) {
        if (ownerOf[q.index] >= 0) {
          o = ownerOf[q.index];
          break;
        }
        if (scopeKindOf(q) !== null) {
          o = q.index;
          break;
        }
      }
      for (let r = p; r && r !== q; r = r.parent) ownerOf[r.index] = o;
      if (q) ownerOf[q.index] = o;
      return o;
    };
    const lines = doc.linesWithKeys(AUTHZ_KEY_LIST);
    const owned = new Int32Array(nSections + 1);
    for (let ix = 0; ix < lines.length; ix++) owned[ownerSlot(doc.parentOf(lines[ix]))]++;
    for (const sec of doc.sections) {
      if (sec.key === 'limit' || sec.key === 'limitexcept' || Object.hasOwn(CONTAINER_OP, sec.key)) {
        want(sec);
        owned[ownerSlot(sec.parent)] += 2;
      }
    }
    const text = doc.text;
    for (let ix = 0; ix < lines.length; ix++) {
      const i = lines[ix];
      const parent = doc.parentOf(i);
      if (aliases.size === 0 && owned[ownerSlot(parent)] === 1 && doc.keyOf(i) === 'require' && SOUND_REQUIRE.get(text, doc.startOf(i), doc.endOf(i))) continue;
      want(parent);
      authzRead.push(doc.lineAt(i) as DirectiveNode);
    }
  }

  // The light model's walk reads, of a section's children, only the sections it wants and the
  // lines it reads: those lists are made from the file's index, without a node for every other line.
  // (By the section's index; the last slot for the top level.)
  let lightKids: Array<ChildNode[] | undefined> | null = null;
  if (wanted) {
    lightKids = new Array(nSections + 1);
    const add = (ch: ChildNode & { parent: SectionNode | null }) => {
      const slot = ch.parent ? ch.parent.index : nSections;
      const list = lightKids![slot];
      if (list) list.push(ch);
      else lightKids![slot] = [ch];
    };
    const authz = authzRead;
    const secs = doc.sections;
    let j = 0;
    for (let i = 0; i < secs.length; i++) {
      const s = secs[i];
      if (wanted[s.index] === 0) continue;
      while (j < authz.length && authz[j].lineIndex < s.lineIndex) add(authz[j++]);
      add(s);
    }
    while (j < authz.length) add(authz[j++]);
  }
  const NO_KIDS: ChildNode[] = [];
  const kidsOf = (s: SectionNode): readonly ChildNode[] => (lightKids ? (lightKids[s.index] ?? NO_KIDS) : s.children);

  const walk = (children: readonly ChildNode[], ctx: Ctx, depth = 0) => {
    // Deeper sections are not modelled (the syntax rule says so); this keeps every recursion here
    // and in the engine bounded whatever the input.
    if (depth > MAX_ANALYSED_NESTING) return;
    for (let ix = 0; ix < children.length; ix++) {
      const ch = children[ix];
      if (ch.type === 'directive') {
        if ((!light || AUTHZ_KEYS.has(ch.key)) && readBy(ch)) directive(ch, ctx);
        continue;
      }
      if (ch.type !== 'section') continue;
      if (wanted && wanted[ch.index] === 0) continue;
      if (!readBy(ch)) continue;
      const key = ch.key;
      if (TRANSPARENT.has(key)) {
        walk(kidsOf(ch), ctx, depth + 1);
        continue;
      }
      if (key === 'limit' || key === 'limitexcept') {
        if (!ch.args.length) {
          problems.push({ kind: 'invalid-require', code: 'limit-empty', message: `<${ch.name.value}> needs at least one method.`, start: ch.open.start, end: ch.open.end, section: ch });
        }
        for (const a of ch.args) {
          if (a.value === 'TRACE' && key === 'limit') {
            problems.push({ kind: 'invalid-require', code: 'limit-trace', message: 'TRACE cannot be controlled by <Limit>, see TraceEnable', start: a.start, end: a.end, section: ch });
          }
        }
        walk(kidsOf(ch), { ...ctx, mask: limitMask(ch, ctx.mask) }, depth + 1);
        continue;
      }
      const op = CONTAINER_OP[key];
      if (op) {
        const sc = ctx.scope;
        authzOf(sc);
        const parent = ctx.container ?? rootOf(sc);
        const node: AuthzContainer = { kind: 'container', op, children: [], section: ch };
        if (ch.args.length) {
          problems.push({
            kind: 'invalid-require',
            code: 'container-args',
            message: `<${ch.name.value}> directive doesn't take additional arguments`,
            start: ch.open.start,
            end: ch.open.end,
            section: ch,
          });
        }
        if (op === 'none' && parent.op !== 'all') {
          problems.push({
            kind: 'invalid-require',
            code: 'none-in-or',
            message: parent.section
              ? `<RequireNone> directive has no effect in <${parent.section.name.value}> directive`
              : '<RequireNone> directive has no effect in <RequireAny> directive (a section\'s top level is an implicit <RequireAny>: wrap it in <RequireAll> with a positive line)',
            start: ch.open.start,
            end: ch.open.end,
            section: ch,
          });
        }
        parent.children.push(node);
        walk(kidsOf(ch), { ...ctx, container: node }, depth + 1);
        if (!node.children.length) {
          problems.push({
            kind: 'invalid-require',
            code: 'empty-container',
            message: `<${ch.name.value}> directive contains no authorization directives`,
            start: ch.open.start,
            end: ch.open.end,
            section: ch,
          });
        }
        continue;
      }
      const kind = scopeKindOf(ch);
      if (kind) {
        const sc = newScope(kind, ch, ctx.scope);
        walk(kidsOf(ch), { scope: sc, mask: ALL_METHODS, container: null }, depth + 1);
        continue;
      }
      // Other sections (Macro, AuthnProviderAlias…) hold no access config of this file's scopes.
    }
  };

  // A light model of a file with no access lines and no Limit or Require section has nothing to
  // find: its walk is skipped.
  const nothingToRead =
    light &&
    !hasDirective(doc, ...LIGHT_KEYS) &&
    !doc.sections.some((s) => s.key === 'limit' || s.key === 'limitexcept' || Object.hasOwn(CONTAINER_OP, s.key));
  if (!nothingToRead) walk(lightKids ? (lightKids[nSections] ?? NO_KIDS) : doc.children, { scope: top, mask: ALL_METHODS, container: null });
  // A light model checks the host rules by their text alone: each line the walk would reach is
  // checked where it is, without the scopes of the sections that hold nothing else it reads.
  if (light && !nothingToRead) {
    // (By the section's index: 1 yes, 2 no.)
    const reached = new Uint8Array(nSections);
    // Whether the walk enters a section's lines (every section around it is one it goes into,
    // not nested deeper than it models); the depth bound keeps the recursion short.
    const reaches = (p: SectionNode | null): boolean => {
      if (!p) return true;
      const known = reached[p.index];
      let r: boolean;
      if (known !== 0) r = known === 1;
      else {
        const k = p.key;
        r =
          p.depth <= MAX_ANALYSED_NESTING &&
          (TRANSPARENT.has(k) || k === 'limit' || k === 'limitexcept' || Object.hasOwn(CONTAINER_OP, k) || scopeKindOf(p) !== null) &&
          reaches(p.parent);
        reached[p.index] = r ? 1 : 2;
      }
      return r;
    };
    // (What a line sets goes into a scratch scope: a light model's scopes hold no host rules.)
    const scratch: Ctx = { scope: emptyScope('top', null, null, false, '', -1, true), mask: ALL_METHODS, container: null };
    // In document order, so that the lines of one section (looked up once) come one after another.
    // By line index: a line whose text was found sound before needs no node.
    let lastParent: SectionNode | null | undefined;
    let lastOk = false;
    const at = doc.linesWithKeys(COMPAT_KEY_LIST);
    // Whether a line has a problem depends on its text alone: a text found sound is remembered.
    const ids = lineTextIds(doc, at);
    for (let ix = 0; ix < at.length; ix++) {
      const i = at[ix];
      const parent = doc.parentOf(i);
      if (parent !== lastParent) {
        lastParent = parent;
        lastOk = reaches(parent) && readBy({ parent });
      }
      if (!lastOk || SOUND_COMPAT.get(ids[ix])) continue;
      const before = problems.length;
      directive(doc.lineAt(i) as DirectiveNode, scratch);
      if (problems.length === before) SOUND_COMPAT.set(ids[ix], true);
    }
  }

  // AH01624: after De Morgan flattening every container keeps a non-negated child.
  for (const sc of scopes) {
    if (sc.authz?.root && hasNegation(sc.authz.root)) checkFlattened(sc.authz.root, problems);
  }
  // httpd stops at the first error: AH01624 on a container already refused while parsing is noise.
  const refused = new Set(problems.filter((p) => p.code !== 'only-negative' && p.section).map((p) => p.section));
  for (let i = problems.length - 1; i >= 0; i--) if (problems[i].code === 'only-negative' && refused.has(problems[i].section)) problems.splice(i, 1);
  return { doc, context, reader, scopes, scopeOfSection, problems, aliases, resolve };
}

/**
 * Whether a tree holds a negated line or a <RequireNone>: without either, no container can be
 * left with only negative children, and the flattening below (objects for every line) is skipped.
 */
function hasNegation(c: AuthzContainer): boolean {
  if (c.op === 'none') return true;
  for (let i = 0; i < c.children.length; i++) {
    const ch = c.children[i];
    if (ch.kind === 'leaf' ? ch.negated : hasNegation(ch)) return true;
  }
  return false;
}

/** authz_core_check_section after the same flattening httpd does (spec §3.4). */
function checkFlattened(root: AuthzContainer, problems: Problem[]): void {
  interface Flat {
    op: 'all' | 'any';
    items: Array<{ negated: boolean; node: Flat | AuthzLeaf }>;
    section: SectionNode | null;
  }
  // Returns the flattened container for `c` seen with negation `neg` (RequireNone = negated any).
  const flatten = (c: AuthzContainer, neg: boolean): Flat => {
    let op: 'all' | 'any' = c.op === 'all' ? 'all' : 'any';
    let negate = neg !== (c.op === 'none');
    if (negate) op = op === 'all' ? 'any' : 'all';
    const out: Flat = { op, items: [], section: c.section };
    for (const ch of c.children) {
      if (ch.kind === 'leaf') {
        out.items.push({ negated: ch.negated !== negate, node: ch });
        continue;
      }
      const sub = flatten(ch, negate);
      if (sub.op === op) {
        // Same operator after De Morgan: its children join this container.
        for (const x of sub.items) out.items.push(x);
        if (!sub.items.some((x) => !x.negated)) {
          // reported by the parent's check below through the merged list
        }
      } else out.items.push({ negated: false, node: sub });
    }
    negate = false;
    return out;
  };
  const check = (f: Flat) => {
    if (f.items.length && !f.items.some((x) => !x.negated) && f.section) {
      problems.push({
        kind: 'invalid-require',
        code: 'only-negative',
        message: `AH01624: <${f.section.name.value}> has only negative authorization directives: httpd refuses to start. Add a positive line such as \`Require all granted\`.`,
        start: f.section.open.start,
        end: f.section.open.end,
        section: f.section,
      });
    }
    for (const x of f.items) if ('items' in x.node) check(x.node);
  };
  check(flatten(root, false));
}

/** The one string a regex like `^/a/b\\.html$` matches, or null when it is not such a regex. */
export function regexLiteral(re: string): string | null {
  const m = /^\^((?:[^\\.*+?()[\]{}|^$]|\\[^a-zA-Z0-9])*)\$$/.exec(re);
  if (!m) return null;
  return m[1].replace(/\\(.)/g, '$1');
}

/** Every leaf of a tree. */
export function leaves(n: AuthzNode | null, out: AuthzLeaf[] = []): AuthzLeaf[] {
  if (!n) return out;
  if (n.kind === 'leaf') out.push(n);
  else for (const c of n.children) leaves(c, out);
  return out;
}

/** Directives that can change an access decision: host rules, Require lines, auth settings, SetEnvIf and its kin. */
export function isAccessKey(key: string): boolean {
  return (
    key.startsWith('auth') || key.startsWith('require') || key === 'order' || key === 'allow' || key === 'deny' || key === 'satisfy' ||
    key.startsWith('setenvif') || key.startsWith('browsermatch')
  );
}
