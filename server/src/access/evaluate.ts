/**
 * The request evaluator (spec §0, §1, §3.3, §3.5, §5, §5.1): which scopes
 * apply to a request and in which order, how their mod_access_compat,
 * mod_authz_core and authentication settings merge, and what status httpd
 * answers.
 *
 * Two entry points: `evaluateApplied` takes the list of scopes that apply
 * (the migration check builds it from abstract request points), and
 * `explain` takes a concrete request (URL path, client address…).
 */
import type { ConfigDocument, DirectiveNode, SectionNode } from '../syntax';
import { ALL_READERS, readersOf, settledByFile, testKeyOf } from '../model/guards';
import type { FileContext } from '../model/context';
import { inDomain, parseClient, subnetMatches, type ClientAddr, type HostToken } from './addr';
import {
  decidesAccess,
  buildModel,
  isAccessKey,
  inMask,
  maskOf,
  normMethod,
  orderFor,
  satisfyAnyFor,
  unionMask,
  type AccessModel,
  type AuthnConfig,
  type AuthzLeaf,
  type AuthzNode,
  type CompatConfig,
  type Merging,
  type MethodSet,
  type Scope,
} from './model';
import { normPath, pathGlob } from './region';
import { detached, openTagText } from '../syntax';

// ---------------------------------------------------------------------------------------------
// Requests

export type Credentials = { kind: 'none' } | { kind: 'wrong' } | { kind: 'valid'; user: string };

/** Everything about the client the access phase can look at. */
export interface Client {
  method: string;
  addr: ClientAddr;
  /** The verified (double reverse) host name, or null when there is none. */
  hostName: string | null;
  /** Environment variables set before the access phase (names, any case). */
  env: ReadonlySet<string>;
  credentials: Credentials;
  /** Is `user` in `group` (AuthGroupFile)? */
  inGroup?: (user: string, group: string) => boolean;
  /**
   * Treat every AuthType and authentication provider alike (challenge without credentials,
   * refuse wrong ones, accept valid ones): right when comparing two configurations that share
   * their authentication settings, as the migration check does.
   */
  symbolicAuthn?: boolean;
  /** Values for leaves the model cannot decide (expr, DBM, LDAP…), by leafKey(). Undefined = unknown. */
  decide?: (key: string, hasUser: boolean) => AuthzResult | undefined;
}

export type AuthzResult = 'granted' | 'denied' | 'no-user' | 'neutral' | 'error';

export type Decision = 'granted' | 'auth-required' | 'denied' | 'error' | 'unknown';

export interface Step {
  /** 0-based line of the directive (or section tag). */
  line: number;
  directive: string;
  effect: string;
}

export interface Evaluation {
  /** 200 when authorization passes (the file may still be missing: 404 counts the same). null = unknown. */
  status: 200 | 401 | 403 | 500 | null;
  decision: Decision;
  steps: Step[];
}

/** Where a scope sits in the merge (§5). */
export type Walk = 'base' | 'dir' | 'files' | 'location' | 'if';

export interface Applied {
  scope: Scope;
  walk: Walk;
}

// ---------------------------------------------------------------------------------------------
// Merged state

export type Tree = AuthzNode | { kind: 'merged'; op: 'and' | 'or'; children: [Tree, Tree] };

export interface AuthzState {
  present: boolean;
  tree: Tree | null;
  op: Merging | null;
  sendForbidden: boolean | null;
  /** The scope whose config this is (last one merged). */
  from: Scope | null;
}

export interface MergedState {
  compat: CompatConfig | null;
  compatFrom: Scope | null;
  authz: AuthzState;
  authType: DirectiveNode | null;
  authName: DirectiveNode | null;
  userFile: DirectiveNode | null;
  groupFile: DirectiveNode | null;
  dbmGroupFile: DirectiveNode | null;
  basicProvider: DirectiveNode | null;
}

const NO_AUTHZ: AuthzState = { present: false, tree: null, op: null, sendForbidden: null, from: null };

function scopeAuthz(s: Scope): AuthzState {
  if (!s.authz) return NO_AUTHZ;
  return { present: true, tree: s.authz.root, op: s.authz.merging, sendForbidden: s.authz.sendForbidden, from: s };
}

/** merge_authz_core_dir_config (§3.6). */
export function mergeAuthz(base: AuthzState, next: AuthzState): AuthzState {
  if (!next.present) return base;
  if (!base.present) return next;
  const sf = next.sendForbidden ?? base.sendForbidden;
  if (next.op === null && !next.tree) return { ...base, sendForbidden: sf };
  if (next.op === null || next.op === 'off' || !(base.tree || next.tree)) return { ...next, sendForbidden: sf };
  let tree: Tree | null;
  if (base.tree && next.tree) tree = { kind: 'merged', op: next.op, children: [base.tree, next.tree] };
  else tree = base.tree ?? next.tree;
  return { present: true, tree, op: next.op, sendForbidden: sf, from: next.from };
}

function mergeScope(st: MergedState, s: Scope): MergedState {
  const n: MergedState = { ...st };
  if (s.compat) {
    n.compat = s.compat;
    n.compatFrom = s;
  }
  const a = s.authn;
  if (a.authType) n.authType = a.authType;
  if (a.authName) n.authName = a.authName;
  if (a.userFile) n.userFile = a.userFile;
  if (a.groupFile) n.groupFile = a.groupFile;
  if (a.dbmGroupFile) n.dbmGroupFile = a.dbmGroupFile;
  const bp = a.other.filter((d) => d.key === 'authbasicprovider').pop();
  if (bp) n.basicProvider = bp;
  return n;
}

/** Merge the applied scopes: the base and the directory walk step by step, the other walks pre-merged (§5.1). */
export function mergeApplied(applied: Applied[]): MergedState {
  let st: MergedState = {
    compat: null,
    compatFrom: null,
    authz: NO_AUTHZ,
    authType: null,
    authName: null,
    userFile: null,
    groupFile: null,
    dbmGroupFile: null,
    basicProvider: null,
  };
  let i = 0;
  while (i < applied.length) {
    const w = applied[i].walk;
    if (w === 'base' || w === 'dir') {
      st = mergeScope(st, applied[i].scope);
      st.authz = mergeAuthz(st.authz, scopeAuthz(applied[i].scope));
      i++;
      continue;
    }
    let walkAuthz = NO_AUTHZ;
    while (i < applied.length && applied[i].walk === w) {
      st = mergeScope(st, applied[i].scope);
      walkAuthz = mergeAuthz(walkAuthz, scopeAuthz(applied[i].scope));
      i++;
    }
    st.authz = mergeAuthz(st.authz, walkAuthz);
  }
  return st;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/**
 * Thrown by decide when it meets a leaf it cannot settle. Not an Error: it is part of the normal
 * flow (caught in evaluateState), and an Error would record a stack trace every time.
 */
class NeedValue {
  constructor(
    readonly key: string,
    readonly options: AuthzResult[],
  ) {}
}

/** The identity of an undecidable leaf: its provider and words (and negation is applied outside). */
export function leafKey(l: AuthzLeaf): string {
  return `${l.provider} ${l.args.map((a) => a.value).join(' ')}`.trim();
}

const USER_PROVIDERS = new Set(['dbm-group', 'dbm-file-group', 'file-owner', 'file-group', 'ldap-user', 'ldap-group', 'ldap-dn', 'ldap-attribute', 'ldap-filter', 'dbd-group']);

function tokenMatches(t: HostToken, c: Client): boolean {
  switch (t.kind) {
    case 'all':
      return true;
    case 'ip':
      return subnetMatches(t.subnet, c.addr);
    case 'env':
      return hasEnv(c, t.name);
    case 'nenv':
      return !hasEnv(c, t.name);
    case 'host':
      return c.hostName !== null && inDomain(t.name, c.hostName);
  }
}

function hasEnv(c: Client, name: string): boolean {
  const n = name.toLowerCase();
  for (const e of c.env) if (e.toLowerCase() === n) return true;
  return false;
}

/** check_dir_access: the compat verdict for a method (§2.4, §2.5). */
export function compatAllows(c: CompatConfig, client: Client): boolean {
  const m = client.method;
  const order = orderFor(c, m);
  const a = c.allow.some((e) => inMask(e.mask, m) && tokenMatches(e.token, client));
  const d = c.deny.some((e) => inMask(e.mask, m) && tokenMatches(e.token, client));
  if (order === 'deny,allow') return a || !d;
  return a && !d;
}

interface EvalCtx {
  client: Client;
  user: string | null;
  st: MergedState;
  assigned: Map<string, AuthzResult>;
  steps: Step[] | null;
}

function leafResult(l: AuthzLeaf, x: EvalCtx): AuthzResult {
  const c = x.client;
  const words = l.args.map((a) => a.value);
  const unknown = (options: AuthzResult[]): AuthzResult => {
    const key = leafKey(l);
    const given = c.decide?.(key, x.user !== null);
    if (given) return given;
    const have = x.assigned.get(key + (x.user !== null ? '#u' : '#n'));
    if (have) return have;
    throw new NeedValue(key + (x.user !== null ? '#u' : '#n'), options);
  };
  switch (l.provider) {
    case 'all':
      return words[0]?.toLowerCase() === 'granted' ? 'granted' : 'denied';
    case 'env':
      return words.some((w) => hasEnv(c, w)) ? 'granted' : 'denied';
    case 'method':
      return words.some((w) => normMethod(w) === normMethod(c.method)) ? 'granted' : 'denied';
    case 'ip':
      return (l.subnets ?? []).some((s) => subnetMatches(s, c.addr)) ? 'granted' : 'denied';
    case 'host':
      if (words.some((w) => /%\{|\$/.test(w))) return unknown(['granted', 'denied']);
      return c.hostName !== null && words.some((w) => inDomain(w, c.hostName!)) ? 'granted' : 'denied';
    case 'local': {
      const a = c.addr;
      const loop = (a.family === 4 && a.bytes[0] === 127) || (a.family === 6 && a.bytes.every((b, i) => b === (i === 15 ? 1 : 0)));
      return loop ? 'granted' : 'denied';
    }
    case 'valid-user':
      return x.user === null ? 'no-user' : 'granted';
    case 'user':
      if (x.user === null) return 'no-user';
      if (words.some((w) => /%\{|\$/.test(w))) return unknown(['granted', 'denied']);
      return words.includes(x.user) ? 'granted' : 'denied';
    case 'group': {
      if (x.user === null) return 'no-user';
      if (!x.st.groupFile) return 'denied';
      if (!c.inGroup) return unknown(['granted', 'denied']);
      return words.some((g) => c.inGroup!(x.user!, g)) ? 'granted' : 'denied';
    }
    case 'expr': {
      const text = words.join(' ');
      if (/REMOTE_USER/.test(text) && x.user === null) return unknown(['granted', 'no-user']);
      return unknown(['granted', 'denied']);
    }
    default:
      if (USER_PROVIDERS.has(l.provider)) {
        if (x.user === null) return 'no-user';
        return unknown(['granted', 'denied']);
      }
      return unknown(['granted', 'denied']);
  }
}

/** The methods a tree's leaves are limited to, per tree (trees are not changed once built; a check evaluates each thousands of times). */
const TREE_MASKS = new WeakMap<Tree, MethodSet>();

function treeMask(t: Tree): MethodSet {
  if (t.kind === 'leaf') return t.mask;
  let m = TREE_MASKS.get(t);
  if (!m) {
    m = t.kind === 'merged' ? unionMask(treeMask(t.children[0]), treeMask(t.children[1])) : maskOf(t);
    TREE_MASKS.set(t, m);
  }
  return m;
}

/** apply_authz_sections (§3.3). */
function evalTree(t: Tree, parentAnd: boolean, x: EvalCtx): AuthzResult {
  if (!inMask(treeMask(t), x.client.method)) return parentAnd ? 'granted' : 'neutral';
  let result: AuthzResult;
  let negate = false;
  if (t.kind === 'leaf') {
    result = leafResult(t, x);
    negate = t.negated;
    if (x.steps) {
      const shown = negate ? (result === 'granted' ? 'denied' : result === 'neutral' ? 'neutral' : 'neutral') : result;
      x.steps.push({ line: t.directive.line, directive: t.directive.start >= 0 ? directiveText(t) : '', effect: `${shown}` });
    }
  } else {
    const and = t.kind === 'merged' ? t.op === 'and' : t.op === 'all';
    negate = t.kind === 'container' && t.op === 'none';
    result = 'neutral';
    for (const ch of t.children as Tree[]) {
      const r = evalTree(ch, and, x);
      if (r === 'error') return 'error';
      if (r === 'neutral') continue;
      if (and) {
        if (r === 'denied') {
          result = r;
          break;
        }
        if ((r === 'no-user' && result !== 'denied') || result === 'neutral') result = r;
      } else {
        if (r === 'granted') {
          result = r;
          break;
        }
        if ((r === 'no-user' && result === 'denied') || result === 'neutral') result = r;
      }
    }
  }
  if (negate) {
    if (result === 'granted') result = 'denied';
    else if (result === 'denied' || result === 'no-user') result = 'neutral';
  }
  return result;
}

function directiveText(l: AuthzLeaf): string {
  return `Require ${l.negated ? 'not ' : ''}${l.provider}${l.args.length ? ' ' + l.args.map((a) => a.raw).join(' ') : ''}`;
}

/** The status httpd answers, given the merged state (§1, §3.5). Throws NeedValue for unknown leaves. */
type Decided = { readonly status: 200 | 401 | 403 | 500; readonly decision: Decision };
// decide's answers, shared (it runs for every request point and client of a check).
const GRANTED: Decided = Object.freeze({ status: 200, decision: 'granted' });
const DENIED: Decided = Object.freeze({ status: 403, decision: 'denied' });
const ERROR: Decided = Object.freeze({ status: 500, decision: 'error' });
const AUTH_REQUIRED: Decided = Object.freeze({ status: 401, decision: 'auth-required' });

function decide(st: MergedState, client: Client, assigned: Map<string, AuthzResult>, steps: Step[] | null): Decided {
  const compat = st.compat;
  const cOk = compat ? compatAllows(compat, client) : true;
  const any = satisfyAnyFor(compat, client.method);
  if (steps && compat) {
    const d = compat.directives[0];
    steps.push({
      line: d.line,
      directive: `host rules of ${st.compatFrom?.section ? openTagText(st.compatFrom.section) : 'the top level'}`,
      effect: `${cOk ? 'allow' : 'deny'} (Order ${orderFor(compat, client.method)}, Satisfy ${any ? 'Any' : 'All'})`,
    });
  }
  if (!any && !cOk) return DENIED;
  if (any && cOk) return GRANTED;
  const authType = st.authType && st.authType.args[0]?.value.toLowerCase() !== 'none' ? st.authType : null;
  const x: EvalCtx = { client, user: null, st, assigned, steps };
  if (!st.authz.tree) {
    if (authType) return ERROR;
    return GRANTED;
  }
  const r1 = evalTree(st.authz.tree, true, x);
  if (r1 === 'granted') return GRANTED;
  if (r1 === 'error') return ERROR;
  if (r1 === 'denied' || r1 === 'neutral') return DENIED;
  // Authentication.
  if (!authType) return ERROR;
  const type = authType.args[0]?.value.toLowerCase();
  const symbolic = client.symbolicAuthn === true;
  if (type !== 'basic' && !symbolic) throw new NeedValue('authtype ' + type, ['error']);
  if (!st.authName) return ERROR;
  const cred = client.credentials;
  if (cred.kind === 'none') return AUTH_REQUIRED;
  const providers = st.basicProvider ? st.basicProvider.args.map((a) => a.value.toLowerCase()) : ['file'];
  if (!symbolic) {
    if (providers.length !== 1 || providers[0] !== 'file') throw new NeedValue('authn provider', ['error']);
    if (!st.userFile) return ERROR;
  }
  if (cred.kind === 'wrong') return AUTH_REQUIRED;
  const x2: EvalCtx = { ...x, user: cred.user };
  const r2 = evalTree(st.authz.tree, true, x2);
  if (r2 === 'granted') return GRANTED;
  if (r2 === 'error') return ERROR;
  if (r2 === 'no-user') return AUTH_REQUIRED;
  return st.authz.sendForbidden ? DENIED : AUTH_REQUIRED;
}

/** Evaluate with unknown leaves explored: a definite answer only when every possibility agrees. */
export function evaluateApplied(applied: Applied[], client: Client, withSteps = false): Evaluation {
  const st = mergeApplied(applied);
  return evaluateState(st, client, withSteps);
}

/** No value assigned to any undecidable leaf (decide only reads it). */
const NOTHING_ASSIGNED: ReadonlyMap<string, AuthzResult> = new Map();

export function evaluateState(st: MergedState, client: Client, withSteps = false): Evaluation {
  // Most evaluations meet no undecidable leaf: one decision, with nothing to allocate for the
  // exploration below (whose first step is this same call).
  if (!withSteps) {
    try {
      const r = decide(st, client, NOTHING_ASSIGNED as Map<string, AuthzResult>, null);
      return { status: r.status, decision: r.decision, steps: [] };
    } catch (e) {
      if (!(e instanceof NeedValue)) throw e;
    }
  }
  const seen = new Set<string>();
  let first: { status: 200 | 401 | 403 | 500; decision: Decision } | null = null;
  let firstSteps: Step[] = [];
  let agree = true;
  let budget = 64;
  const explore = (assigned: Map<string, AuthzResult>): void => {
    if (!agree || budget-- <= 0) {
      agree = false;
      return;
    }
    const steps: Step[] | null = withSteps ? [] : null;
    try {
      const r = decide(st, client, assigned, steps);
      const k = String(r.status);
      seen.add(k);
      if (!first) {
        first = r;
        firstSteps = steps ?? [];
      } else if (first.status !== r.status) agree = false;
    } catch (e) {
      if (!(e instanceof NeedValue)) throw e;
      if (e.options.length === 1 && e.options[0] === 'error') {
        agree = false;
        return;
      }
      for (const o of e.options) explore(new Map([...assigned, [e.key, o]]));
    }
  };
  explore(new Map());
  if (!agree || !first) return { status: null, decision: 'unknown', steps: firstSteps };
  const f = first as { status: 200 | 401 | 403 | 500; decision: Decision };
  return { status: f.status, decision: f.decision, steps: firstSteps };
}

// ---------------------------------------------------------------------------------------------
// Which scopes apply (§5)

/** Answers "does this scope's own condition hold" (ancestors are checked by the caller). */
export type ScopeTest = (s: Scope) => boolean;

function components(p: string): number {
  const n = normPath(p);
  if (n === '/') return 1;
  let k = 1;
  for (let i = 0; i < n.length; i++) if (n.charCodeAt(i) === 47) k++;
  return k;
}

/** components(s.pattern), kept on the scope (its pattern never changes): it orders the sections of every point. */
function depthOf(s: Scope): number {
  let d = s.dirDepth;
  if (d === undefined) d = s.dirDepth = components(s.pattern);
  return d;
}

/** Whether a scope can change what a request gets: access lines, auth settings or variables. */
export function hasAccessEffect(s: Scope): boolean {
  const a = s.authn;
  return decidesAccess(s) || !!(a.authName || a.userFile || a.groupFile || a.dbmGroupFile || a.other.length || s.setenv.length);
}

const ACCESS_SCOPES = new WeakMap<AccessModel, Scope[]>();

/**
 * The top level, the scopes that can change what a request gets, and their parents (which decide
 * whether they apply), in document order. Merging the others changes nothing (mergeApplied), so
 * the migration check looks at these only: a file of hundreds of sections may have a handful.
 */
export function accessScopes(model: AccessModel): Scope[] {
  let list = ACCESS_SCOPES.get(model);
  if (list) return list;
  const keep = new Uint8Array(model.scopes.length);
  keep[0] = 1;
  for (const s of model.scopes) {
    if (!hasAccessEffect(s)) continue;
    for (let p: Scope | null = s; p && !keep[p.index]; p = p.parent) keep[p.index] = 1;
  }
  list = model.scopes.filter((s) => keep[s.index] === 1);
  ACCESS_SCOPES.set(model, list);
  return list;
}

/**
 * The scopes that apply, in document order: a scope applies when its own condition holds and its
 * parent applies (scopes come in document order, so a parent is settled before its children).
 * With `onlyAccess`, only among accessScopes(model).
 */
export function scopesThatApply(model: AccessModel, test: ScopeTest, onlyAccess = false): Scope[] {
  const applies = new Uint8Array(model.scopes.length);
  const out: Scope[] = [];
  for (const s of onlyAccess ? accessScopes(model) : model.scopes) {
    if ((s.parent ? applies[s.parent.index] === 1 : true) && test(s)) {
      applies[s.index] = 1;
      out.push(s);
    }
  }
  return out;
}

/** True for a virtual host's scope and the scopes inside one. */
export function withinVirtualHost(s: Scope): boolean {
  for (let p: Scope | null = s; p; p = p.parent) if (p.kind === 'virtualhost') return true;
  return false;
}

/** The scopes that apply, in httpd's merge order, given a test for each scope's own condition (`onlyAccess`: see scopesThatApply). */
export function appliedScopes(model: AccessModel, test: ScopeTest, onlyAccess = false, known?: Scope[]): Applied[] {
  /** `known`: what scopesThatApply would give, when the caller has it already (a point's own, see points.ts selectedScopes). */
  const scopes = known ?? scopesThatApply(model, test, onlyAccess);
  const inVhost = (s: Scope) => (withinVirtualHost(s) ? 1 : 0);
  const out: Applied[] = [];
  const dirLevel = model.context === 'htaccess' || model.context === 'directory';
  // Each kind of section in one pass, in the order of `scopes` (each list is then sorted; most
  // hold one section or none, and are left as they are). Called for every request point.
  let top: Scope | undefined;
  const vhosts: Scope[] = [];
  const plainDirs: Scope[] = [];
  const regexDirs: Scope[] = [];
  const files: Scope[] = [];
  const locs: Scope[] = [];
  const ifs: Scope[] = [];
  for (let i = 0; i < scopes.length; i++) {
    const s = scopes[i];
    switch (s.kind) {
      case 'top':
        top ??= s;
        break;
      case 'virtualhost':
        vhosts.push(s);
        break;
      case 'directory':
      case 'proxy':
        (s.regex ? regexDirs : plainDirs).push(s);
        break;
      case 'directorymatch':
      case 'proxymatch':
        regexDirs.push(s);
        break;
      case 'files':
      case 'filesmatch':
        files.push(s);
        break;
      case 'location':
      case 'locationmatch':
        locs.push(s);
        break;
      case 'if':
      case 'elseif':
      case 'else':
        ifs.push(s);
        break;
    }
  }
  out.push({ scope: top!, walk: dirLevel ? 'dir' : 'base' });
  for (const v of vhosts) out.push({ scope: v, walk: 'base' });
  if (plainDirs.length > 1) plainDirs.sort((a, b) => depthOf(a) - depthOf(b) || inVhost(a) - inVhost(b) || a.index - b.index);
  if (regexDirs.length > 1) regexDirs.sort((a, b) => inVhost(a) - inVhost(b) || a.index - b.index);
  for (const d of plainDirs) out.push({ scope: d, walk: 'dir' });
  for (const d of regexDirs) out.push({ scope: d, walk: 'dir' });
  if (files.length > 1) {
    const nestedIn = (s: Scope): Scope | null | undefined => {
      for (let p = s.parent; p; p = p.parent) if (p.kind !== 'virtualhost' && p.kind !== 'top') return p;
      return dirLevel ? top : null;
    };
    // A <Files> section's rank: that of the directory it sits in (-1 outside any, 0 at the top).
    const rank = new Map<Scope, number>();
    for (const f of files) {
      const s = nestedIn(f);
      const k = plainDirs.indexOf(s as Scope);
      const j = k >= 0 ? k : regexDirs.indexOf(s as Scope) >= 0 ? plainDirs.length + regexDirs.indexOf(s as Scope) : -1;
      rank.set(f, s === null ? -1 : s === top ? 0 : j + 1);
    }
    files.sort((a, b) => rank.get(a)! - rank.get(b)! || inVhost(a) - inVhost(b) || a.index - b.index);
  }
  for (const f of files) out.push({ scope: f, walk: 'files' });
  if (locs.length > 1) locs.sort((a, b) => inVhost(a) - inVhost(b) || a.index - b.index);
  for (const l of locs) out.push({ scope: l, walk: 'location' });
  if (ifs.length > 1) {
    const order = new Map<Scope, number>();
    out.forEach((a, i) => order.set(a.scope, i));
    ifs.sort((a, b) => {
      const pa = a.parent ? order.get(a.parent) ?? -1 : -1;
      const pb = b.parent ? order.get(b.parent) ?? -1 : -1;
      return pa - pb || a.index - b.index;
    });
  }
  for (const s of ifs) out.push({ scope: s, walk: 'if' });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Concrete requests

export interface Request {
  /** URL path (no query string). */
  path: string;
  method?: string;
  /** Client address, default 127.0.0.1. */
  ip?: string;
  /** Verified host name of the client; default: "localhost" for 127.0.0.1, none otherwise. */
  hostName?: string | null;
  /** Credentials: none, a wrong password, or a valid user. */
  credentials?: Credentials;
  /** group → members (for Require group). */
  groups?: Record<string, string[]>;
  headers?: Record<string, string>;
  /** Variables set before the access phase by means other than this file. */
  env?: Record<string, string>;
  /** Filesystem path; default DocumentRoot (of the request or the file) + path, after Alias. */
  filename?: string;
  documentRoot?: string;
  /** The <VirtualHost> by ServerName (server context files); default: the main server. */
  serverName?: string;
  /** Or the <VirtualHost> by the offset of its open tag (one without a ServerName can be picked too). */
  vhostStart?: number;
  /** Values of <If> conditions by the section's start offset; unknown when absent. */
  ifs?: Record<number, boolean>;
  /**
   * What the disk holds, when it is at hand: the directory walk then stops where httpd's does (see
   * walkStop). Without it every path is taken to exist as a directory up to its last part.
   */
  disk?: { isDirectory(path: string): boolean; isFile(path: string): boolean };
  /** For explain of .htaccess files: the directory the file sits in (default: every path is under it). */
  htaccessDir?: string;
  /** The names httpd is started with `-D` (every `<IfDefine>` is then settled); unknown when absent. */
  defines?: string[];
}

function decodePath(p: string): string {
  let s: string;
  try {
    s = decodeURIComponent(p.split('?')[0]).replace(/\/+/g, '/');
  } catch {
    s = p.split('?')[0];
  }
  return s.includes('/.') ? withoutDotSegments(s) : s;
}

/** A path with its `.` and `..` segments resolved, as httpd resolves them before it maps a request (never above the root). */
function withoutDotSegments(path: string): string {
  const out: string[] = [];
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    const seg = parts[i];
    if (seg === '.' || seg === '..') {
      if (seg === '..' && out.length > 1) out.pop();
      // A dot segment at the end leaves the path naming a directory.
      if (i === parts.length - 1) out.push('');
    } else out.push(seg);
  }
  const r = out.join('/');
  return r.startsWith('/') ? r : '/' + r;
}

/**
 * Compiled section patterns, by source (sections are tested against many request points; the
 * source itself is the key, so a lookup makes no string).
 */
const REGEX_CACHE = new Map<string, RegExp | null>();
function cachedRegExp(source: string): RegExp | null {
  let re = REGEX_CACHE.get(source);
  if (re === undefined) {
    // Compiled from a copy: the cache (and the pattern's source) outlive the document.
    const own = detached(source);
    try {
      re = new RegExp(own);
    } catch {
      re = null;
    }
    if (REGEX_CACHE.size > 5000) REGEX_CACHE.clear();
    REGEX_CACHE.set(own, re);
  }
  return re;
}

/** fnmatch with FNM_PATHNAME: a wildcard never matches '/'. */
export function fnmatchPath(pattern: string, s: string): boolean {
  const re = pathGlob(pattern);
  return re ? re.test(s) : false;
}

/**
 * Where httpd's directory walk stops on the disk: at the first part of the path that is not a
 * directory. A file there with more path after it takes the rest as path_info; a missing part ends
 * the request in 404 once access is granted. Either way (httpd 2.4.71) the walk applies no
 * `<Directory>` naming that part or anything below it: the sections of its parent directory
 * apply, regex ones and `<Files>` are matched against it. Null when the walk reaches the path
 * itself and it exists (every section as usual).
 */
export function walkStop(filename: string, disk: NonNullable<Request['disk']>): { stop: string; missing: boolean } | null {
  const parts = filename.split('/').filter((x) => x.length > 0);
  let at = '';
  for (let i = 0; i < parts.length; i++) {
    at += '/' + parts[i];
    if (disk.isDirectory(at)) continue;
    const file = disk.isFile(at);
    // The file itself; with a slash after it (`/a/f.txt/`) the slash is path_info.
    if (file && i === parts.length - 1 && !filename.endsWith('/')) return null;
    return { stop: at, missing: !file };
  }
  return null;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function fileOf(model: AccessModel, req: Request, vhost: Scope | null): string {
  if (req.filename) return req.filename;
  const uri = decodePath(req.path);
  const pathScopes = [model.scopes[0], ...(vhost ? [vhost] : [])];
  let root = req.documentRoot ?? '/var/www/html';
  // A variable the file's Define lines settle is read as httpd reads it (else left as written).
  const value = (d: DirectiveNode, i: number) => model.resolve(d.args[i].value, d.start) ?? d.args[i].value;
  for (const s of pathScopes) {
    for (const d of s.paths) {
      if (d.key === 'documentroot' && d.args[0] && !req.documentRoot) root = value(d, 0);
    }
  }
  for (const s of [...pathScopes].reverse()) {
    for (const d of s.paths) {
      if ((d.key === 'alias' || d.key === 'scriptalias') && d.args.length >= 2) {
        const from = value(d, 0);
        if (uri === from || uri.startsWith(from.endsWith('/') ? from : from + '/')) return value(d, 1) + uri.slice(from.length);
      }
    }
  }
  return root.replace(/\/$/, '') + uri;
}

export function dirApplies(s: Scope, filename: string): boolean {
  if (s.regex) return cachedRegExp(s.pattern)?.test(filename) ?? false;
  return dirAppliesNormalized(s, normPath(filename));
}

/** A `<Directory>` scope's path as normPath gives it (kept on the scope, with whether it holds a wildcard). */
export function dirPatternOf(s: Scope): string {
  let pat = s.dirPattern;
  if (pat === undefined) {
    pat = s.dirPattern = normPath(s.pattern);
    s.dirWild = /[*?[]/.test(pat);
  }
  return pat;
}

/** dirApplies for a `<Directory>` that is not a regex, with a file name normPath has already normalised. */
export function dirAppliesNormalized(s: Scope, nd: string): boolean {
  const pat = dirPatternOf(s);
  if (pat === '/') return true;
  // httpd's directory walk tests each leading part of the path, the file itself last: on httpd
  // <Directory "/srv/a.html"> and <Directory "/srv/*"> both apply to /srv/a.html (an existing file
  // requested without extra path).
  if (!s.dirWild) {
    // The first components of the directory equal the pattern: the same as comparing component lists.
    return nd.startsWith(pat) && (nd.length === pat.length || nd.charCodeAt(pat.length) === 47);
  }
  const parts = nd.split('/');
  const want = pat.split('/').length;
  if (parts.length < want) return false;
  const prefix = parts.slice(0, want).join('/');
  return fnmatchPath(pat, prefix);
}

export function locationApplies(s: Scope, uri: string): boolean {
  if (s.regex) return cachedRegExp(s.pattern)?.test(uri) ?? false;
  const p = s.pattern;
  if (/[*?[]/.test(p)) return fnmatchPath(p, uri);
  if (!uri.startsWith(p)) return false;
  return p.endsWith('/') || uri.length === p.length || uri[p.length] === '/';
}

export function filesApplies(s: Scope, filename: string): boolean {
  const base = filename.slice(filename.lastIndexOf('/') + 1);
  if (s.regex) return cachedRegExp(s.pattern)?.test(base) ?? false;
  return /[*?[]/.test(s.pattern) ? fnmatchPath(s.pattern, base) : s.pattern === base;
}

function serverNameOf(s: Scope): string | null {
  const d = s.directives.find((x) => x.key === 'servername');
  return d?.args[0]?.value ?? null;
}

/** SetEnvIf/BrowserMatch of the applied scopes, run in order on the request (mod_setenvif). */
function runSetEnv(applied: Applied[], req: Request, client: { addr: string; method: string }, env: Map<string, string>): void {
  const headers = new Map<string, string>();
  for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k.toLowerCase(), v);
  for (const a of applied) {
    for (const d of a.scope.setenv) {
      const words = d.args.map((t) => t.value);
      let attr: string;
      let regex: string;
      let rest: string[];
      if (d.key === 'browsermatch' || d.key === 'browsermatchnocase') {
        attr = 'User-Agent';
        regex = words[0] ?? '';
        rest = words.slice(1);
      } else {
        attr = words[0] ?? '';
        regex = words[1] ?? '';
        rest = words.slice(2);
      }
      const nocase = d.key.endsWith('nocase');
      let negate = false;
      if (regex.startsWith('!')) {
        negate = true;
        regex = regex.slice(1);
      }
      let value: string | undefined;
      const al = attr.toLowerCase();
      if (al === 'remote_addr') value = client.addr;
      else if (al === 'remote_host') value = client.addr;
      else if (al === 'request_method') value = client.method;
      else if (al === 'request_uri') value = decodePath(req.path);
      else if (al === 'request_protocol') value = 'HTTP/1.1';
      else if (al === 'server_addr') value = '127.0.0.1';
      else if (headers.has(al)) value = headers.get(al);
      else {
        for (const [k, v] of env) if (k.toLowerCase() === al) value = v;
      }
      let re: RegExp;
      try {
        re = new RegExp(regex, nocase ? 'i' : '');
      } catch {
        continue;
      }
      // mod_setenvif tests a header the request lacks (or an unset variable) as the empty string,
      // so `^$` and `(.*)` match it (httpd 2.4.71).
      const hit = re.test(value ?? '');
      if (hit === negate) continue;
      for (const w of rest) {
        if (w.startsWith('!')) {
          for (const k of [...env.keys()]) if (k.toLowerCase() === w.slice(1).toLowerCase()) env.delete(k);
        } else {
          const eq = w.indexOf('=');
          env.set(eq >= 0 ? w.slice(0, eq) : w, eq >= 0 ? w.slice(eq + 1) : '1');
        }
      }
    }
  }
}

/** Beyond this many variables set by lines explain does not evaluate, it says it cannot tell. */
const MAX_OPEN_VARIABLES = 4;

/**
 * Variables that lines explain does not evaluate may set before access is checked:
 * `SetEnvIfExpr` (mod_setenvif, with an ap_expr condition) and a `RewriteRule` with an `E=` flag
 * outside per-directory sections (mod_rewrite's server-level rules run when the URL is mapped,
 * before access; per-directory ones run after it). By name, with the line that sets each first.
 */
function variablesSetElsewhere(doc: ConfigDocument, ctx: FileContext): Map<string, DirectiveNode> {
  const out = new Map<string, DirectiveNode>();
  const add = (name: string, d: DirectiveNode) => {
    const n = name.replace(/^!/, '');
    if (n && !out.has(n.toLowerCase())) out.set(n.toLowerCase(), d);
  };
  for (const d of doc.directives) {
    if (d.key === 'setenvifexpr') {
      for (const a of d.args.slice(1)) add(a.value.split('=')[0], d);
    } else if (d.key === 'rewriterule' && ctx !== 'htaccess' && ctx !== 'directory') {
      let perDir = false;
      for (let p = d.parent; p; p = p.parent) if (/^(directory|directorymatch|location|locationmatch|files|filesmatch|if|elseif|else)$/.test(p.key)) perDir = true;
      const flags = d.args[2]?.value;
      if (perDir || !flags || !flags.startsWith('[')) continue;
      for (const f of flags.replace(/^\[|\]$/g, '').split(',')) {
        const m = /^\s*(?:e|env)=(!?[^:]*)/i.exec(f);
        if (m) add(m[1], d);
      }
    }
  }
  return out;
}

/**
 * A line that maps URLs, or puts configuration in place, in a way explain does not follow: a
 * macro (`Use`), mod_vhost_alias, or an `Alias`/`ScriptAlias` inside a `<Location>`. Null when
 * there is none (or the request names its file).
 */
function unfollowedLine(doc: ConfigDocument, request: Request): DirectiveNode | null {
  for (const d of doc.directives) {
    if (d.key === 'use') return d;
    if (request.filename) continue;
    if (/^virtual(documentroot|scriptalias)(ip)?$/.test(d.key)) return d;
    if (/^(script)?alias(match)?$/.test(d.key)) {
      for (let p = d.parent; p; p = p.parent) if (p.key === 'location' || p.key === 'locationmatch') return d;
    }
  }
  return null;
}

/** Evaluate one concrete request against a parsed file. */
export function explain(doc: ConfigDocument, ctx: FileContext, request: Request, options: { compat?: boolean } = {}): Evaluation {
  const ev = explainRequest(doc, ctx, request, options);
  // A directory URL: once access to the directory is granted, mod_dir looks its index file up in a
  // subrequest, which the sections of that file decide (httpd 2.4.71: `<Files index.html>` with
  // host rules refused `/a/` while the directory let everyone in). Whether the file exists is not
  // known here: where the index's answer differs, so does the answer.
  if (ev.status !== 200 || !request.path.endsWith('/')) return ev;
  const names = directoryIndexNames(doc);
  for (const name of names) {
    const sub = explainRequest(doc, ctx, { ...request, path: request.path + name }, options);
    if (sub.status === 200) continue;
    const d = doc.directives.find((x) => x.key === 'directoryindex');
    return {
      status: null,
      decision: 'unknown',
      steps: [...ev.steps, ...sub.steps, { line: d?.line ?? 0, directive: d ? d.name.value : 'DirectoryIndex', effect: `where ${name} exists, mod_dir's subrequest for it is answered ${sub.status ?? 'unknown'}, and so is this request` }],
    };
  }
  return ev;
}

/** The index file names mod_dir tries (DirectoryIndex, default index.html). */
function directoryIndexNames(doc: ConfigDocument): string[] {
  const names = new Set<string>();
  for (const d of doc.directives) {
    if (d.key !== 'directoryindex') continue;
    for (const a of d.args) if (a.value.toLowerCase() !== 'disabled' && !a.value.includes('/')) names.add(a.value);
  }
  return names.size ? [...names].slice(0, 8) : ['index.html'];
}

function explainRequest(doc: ConfigDocument, ctx: FileContext, request: Request, options: { compat?: boolean }): Evaluation {
  const unfollowed = unfollowedLine(doc, request);
  if (unfollowed) {
    const what = unfollowed.key === 'use' ? 'puts a macro\'s lines in place, which apacheconf does not expand' : 'maps URLs to files in a way apacheconf does not follow';
    return { status: null, decision: 'unknown', steps: [{ line: unfollowed.line, directive: unfollowed.name.value, effect: `this line ${what}, so the answer is not known` }] };
  }
  // Variables set by lines not evaluated here: the request is worked out with each set and unset,
  // and where the answer depends on them it is unknown.
  const given = new Set(Object.keys(request.env ?? {}).map((k) => k.toLowerCase()));
  const open = [...variablesSetElsewhere(doc, ctx)].filter(([n]) => !given.has(n));
  if (!open.length) return explainAsSet(doc, ctx, request, options);
  if (open.length > MAX_OPEN_VARIABLES) {
    const d = open[0][1];
    return { status: null, decision: 'unknown', steps: [{ line: d.line, directive: d.name.value, effect: `the outcome depends on ${open.length} variables that lines apacheconf does not evaluate may set` }] };
  }
  let first: Evaluation | null = null;
  for (let bits = 0; bits < 2 ** open.length; bits++) {
    const env = { ...(request.env ?? {}) };
    open.forEach(([n], i) => {
      if ((bits >> i) & 1) env[n] = '1';
    });
    const ev = explainAsSet(doc, ctx, { ...request, env }, options);
    if (!first) {
      first = ev;
      continue;
    }
    if (ev.status !== first.status) {
      const k = Math.max(0, open.findIndex((_, i) => (bits >> i) & 1));
      const d = open[k][1];
      return {
        status: null,
        decision: 'unknown',
        steps: [...first.steps, { line: d.line, directive: d.name.value, effect: `the answer depends on whether this line sets \`${open[k][0]}\` for the request, which apacheconf does not work out` }],
      };
    }
  }
  return first!;
}

function explainAsSet(doc: ConfigDocument, ctx: FileContext, request: Request, options: { compat?: boolean }): Evaluation {
  const reader = options.compat === false ? 'httpd24' : 'httpd24compat';
  const defines = request.defines ? new Set(request.defines) : null;
  const given = (key: string): boolean | undefined => (defines && key.startsWith('define:') ? defines.has(key.slice(7)) : undefined);
  // A test the file cannot settle is taken as holding; but where both its forms hold access lines
  // (`<IfFile x>` … `<IfFile !x>`), exactly one is read: each way is worked out.
  const open = exclusiveTests(doc).filter((t) => given(t.key) === undefined);
  if (!open.length) return explainModel(buildModel(doc, ctx, { reader, ...(defines ? { assume: given } : {}) }), request);
  if (open.length > MAX_EXCLUSIVE_TESTS) {
    return { status: null, decision: 'unknown', steps: [{ line: open[0].line, directive: open[0].label, effect: `the outcome depends on ${open.length} tests the editor cannot settle` }] };
  }
  let first: Evaluation | null = null;
  let firstBits = 0;
  for (let bits = 0; bits < 2 ** open.length; bits++) {
    const assume = (key: string): boolean | undefined => {
      const k = open.findIndex((t) => t.key === key);
      return k >= 0 ? !!((bits >> k) & 1) : given(key);
    };
    const ev = explainModel(buildModel(doc, ctx, { reader, assume }), request);
    if (!first) {
      first = ev;
      firstBits = bits;
      continue;
    }
    if (ev.status !== first.status) {
      // The first test whose value differs between the two readings names the dependency.
      const k = Math.max(0, open.findIndex((_, i) => ((bits >> i) & 1) !== ((firstBits >> i) & 1)));
      const t = open[k];
      const holds = (bits >> k) & 1 ? ev.status : first.status;
      const fails = (bits >> k) & 1 ? first.status : ev.status;
      return {
        status: null,
        decision: 'unknown',
        steps: [...first.steps, { line: t.line, directive: t.label, effect: `the outcome depends on this test: ${holds ?? 'unknown'} when it holds, ${fails ?? 'unknown'} when it does not` }],
      };
    }
  }
  return first!;
}

/** Beyond this many tests to work out both ways, explain says it cannot tell. */
const MAX_EXCLUSIVE_TESTS = 5;

/**
 * The tests (`<IfDefine>`, `<IfFile>`, `<IfModule>` of a module this file cannot know about…)
 * that appear in both forms, `<IfX a>` and `<IfX !a>`, with access lines or sections inside: each
 * reading of the file takes exactly one of the two.
 */
export function exclusiveTests(doc: ConfigDocument): Array<{ key: string; line: number; label: string }> {
  const seen = new Map<string, { pos: boolean; neg: boolean; line: number; label: string }>();
  const settled = settledByFile(doc);
  const holds = sectionsHoldingAccess(doc);
  for (let ix = 0; ix < doc.sections.length; ix++) {
    const s = doc.sections[ix];
    const t = testKeyOf(s);
    if (!t || settled(t.key) !== undefined) continue;
    // Tests the servers' kinds settle (<IfModule mod_authz_core.c>) are read as such already.
    if (readersOf([s]).size !== ALL_READERS.length) continue;
    if (!holds.has(s)) continue;
    const e = seen.get(t.key) ?? { pos: false, neg: false, line: s.open.line, label: openTagText(s) };
    if (t.positive) e.pos = true;
    else e.neg = true;
    seen.set(t.key, e);
  }
  const out: Array<{ key: string; line: number; label: string }> = [];
  // `<IfDefine X>` alone is tried both ways too: httpd started without `-D X` skips it, so reading
  // it as holding would be a guess (unless the file defines X itself).
  const defined = new Set(doc.directives.filter((d) => d.key === 'define' && d.args.length).map((d) => 'define:' + d.args[0].value));
  for (const [key, e] of seen) if ((e.pos && e.neg) || (key.startsWith('define:') && !defined.has(key))) out.push({ key, line: e.line, label: e.label });
  return out;
}

const ACCESS_SECTIONS = /^(directory|directorymatch|location|locationmatch|files|filesmatch|virtualhost|if|elseif|else|require(all|any|none)|limit|limitexcept)$/;

/**
 * The sections that hold a line that can change an access decision, or a section that can, at any
 * depth. Worked out once for the file, deepest first (sections are listed parents before children),
 * so nested tests cost one pass rather than one walk of each subtree (10,000 nested <IfModule>
 * made explain take seconds).
 */
function sectionsHoldingAccess(doc: ConfigDocument): Set<SectionNode> {
  const out = new Set<SectionNode>();
  for (let ix = doc.sections.length - 1; ix >= 0; ix--) {
    const s = doc.sections[ix];
    for (const c of s.children) {
      if ((c.type === 'directive' && isAccessKey(c.key)) || (c.type === 'section' && (ACCESS_SECTIONS.test(c.key) || out.has(c)))) {
        out.add(s);
        break;
      }
    }
  }
  return out;
}

export function explainModel(model: AccessModel, request: Request): Evaluation {
  const method = (request.method ?? 'GET').toUpperCase();
  const ipText = request.ip ?? '127.0.0.1';
  const addr = parseClient(ipText);
  if (!addr) throw new Error(`not an IP address: ${ipText}`);
  const vhosts = model.scopes.filter((s) => s.kind === 'virtualhost');
  const vhost =
    request.vhostStart !== undefined
      ? vhosts.find((v) => v.section?.open.start === request.vhostStart) ?? null
      : request.serverName
        ? vhosts.find((v) => serverNameOf(v) === request.serverName) ?? null
        : null;
  const uri = decodePath(request.path);
  const filename = fileOf(model, request, vhost);
  const stopped = request.disk ? walkStop(filename, request.disk) : null;
  const headers = new Map<string, string>();
  for (const [k, v] of Object.entries(request.headers ?? {})) headers.set(k.toLowerCase(), v);
  const exprCtx: ExprContext = { headers, uri, method, addr: ipText };
  // <If> conditions: given, or worked out for simple expressions, else tried both ways.
  const ifScopes = model.scopes.filter((s) => s.kind === 'if' || s.kind === 'elseif' || s.kind === 'else');
  const own = new Map<Scope, boolean | undefined>();
  for (const s of ifScopes) {
    const given = request.ifs?.[s.section!.open.start];
    own.set(s, s.kind === 'else' ? true : given ?? evalCondition(s.section!.args.map((a) => a.value).join(' '), exprCtx));
  }
  // Sections whose path holds a variable the file does not settle apply or not: both are tried.
  const unknown = [...ifScopes.filter((s) => own.get(s) === undefined), ...model.scopes.filter((s) => s.unresolved)];
  if (unknown.length > 6) return { status: null, decision: 'unknown', steps: [{ line: 0, directive: '<If>', effect: 'too many conditions or section paths not known' }] };
  let result: Evaluation | null = null;
  for (let bits = 0; bits < 2 ** unknown.length; bits++) {
    const value = (s: Scope): boolean => {
      const k = unknown.indexOf(s);
      return k >= 0 ? !!((bits >> k) & 1) : own.get(s)!;
    };
    const ev = evaluateWith(model, request, (s) => {
      if (s.unresolved) return value(s);
      switch (s.kind) {
        case 'top':
          return true;
        case 'virtualhost':
          return s === vhost;
        case 'directory':
        case 'directorymatch':
          if (request.htaccessDir && !filename.startsWith(request.htaccessDir)) return false;
          if (stopped) return s.regex ? dirApplies(s, stopped.stop) : dirApplies(s, parentOf(stopped.stop));
          return dirApplies(s, filename);
        case 'proxy':
        case 'proxymatch':
          return false;
        case 'files':
        case 'filesmatch':
          return filesApplies(s, stopped ? stopped.stop : filename);
        case 'location':
        case 'locationmatch':
          return locationApplies(s, uri);
        default:
          return chainValue(s, value);
      }
    }, { method, ipText, addr, expr: exprCtx });
    if (!result) result = ev;
    else if (result.status !== ev.status) {
      const variable = unknown.find((s) => s.unresolved);
      const step = variable
        ? { line: s0(variable), directive: variable.section ? `<${variable.section.name.value} ${variable.section.args.map((a) => a.raw).join(' ')}>` : '', effect: 'the outcome depends on where this section applies, and its path holds a variable the file does not settle' }
        : { line: s0(unknown[0]), directive: '<If>', effect: 'the outcome depends on a condition the editor cannot evaluate' };
      return { status: null, decision: 'unknown', steps: [...result.steps, step] };
    }
  }
  return result!;
}

function s0(s: Scope): number {
  return s.section?.open.line ?? 0;
}

/** An If/ElseIf/Else branch applies when its own condition holds and no earlier branch of its chain did. */
function chainValue(s: Scope, value: (s: Scope) => boolean): boolean {
  if (!value(s)) return false;
  if (s.kind === 'if') return true;
  // Walk back over the chain: previous ElseIf/If siblings.
  let prev = previousBranch(s);
  while (prev) {
    if (value(prev)) return false;
    if (prev.kind === 'if') break;
    prev = previousBranch(prev);
  }
  return true;
}

function previousBranch(s: Scope): Scope | null {
  const parent = s.parent;
  if (!parent) return null;
  // Scopes of the same parent in document order; the branch right before s.
  let best: Scope | null = null;
  for (const sib of siblingScopes.get(parent) ?? []) {
    if (sib.index < s.index && (sib.kind === 'if' || sib.kind === 'elseif') && sib.section!.parent === s.section!.parent) best = sib;
  }
  return best;
}

const siblingScopes = new WeakMap<Scope, Scope[]>();

function evaluateWith(model: AccessModel, request: Request, test: ScopeTest, c: { method: string; ipText: string; addr: ClientAddr; expr: ExprContext }): Evaluation {
  if (!siblingScopes.has(model.scopes[0])) {
    for (const s of model.scopes) {
      if (!s.parent) continue;
      const list = siblingScopes.get(s.parent) ?? [];
      list.push(s);
      siblingScopes.set(s.parent, list);
    }
    siblingScopes.set(model.scopes[0], siblingScopes.get(model.scopes[0]) ?? []);
  }
  const applied = appliedScopes(model, test);
  const env = new Map<string, string>(Object.entries(request.env ?? {}));
  runSetEnv(applied, request, { addr: c.ipText, method: c.method }, env);
  const hostName = request.hostName !== undefined ? request.hostName : c.ipText === '127.0.0.1' ? 'localhost' : null;
  const groups = request.groups ?? {};
  const client: Client = {
    method: c.method,
    addr: c.addr,
    hostName,
    env: new Set(env.keys()),
    credentials: request.credentials ?? { kind: 'none' },
    // Own entries only: a group may be named `constructor`.
    inGroup: (u, g) => (Object.hasOwn(groups, g) ? groups[g] : []).includes(u),
    // `Require expr` of a request whose method, address, path and headers are known: the same
    // evaluator as <If> (one that reads the user stays unknown).
    decide: (key) => {
      if (!key.startsWith('expr ') || /REMOTE_USER/.test(key)) return undefined;
      const v = evalCondition(unquoted(key.slice(5)), c.expr);
      return v === undefined ? undefined : v ? 'granted' : 'denied';
    },
  };
  return evaluateApplied(applied, client, true);
}

// ---------------------------------------------------------------------------------------------
// A small part of ap_expr, enough for the usual <If> conditions

interface ExprContext {
  headers: Map<string, string>;
  uri: string;
  method: string;
  addr: string;
}

const MAX_EXPRESSION = 4096;

/** An expression as written in one quoted word, without the quotes. */
function unquoted(s: string): string {
  const t = s.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0] ? t.slice(1, -1) : t;
}

/** The value of a simple ap_expr condition, or undefined when it is beyond this evaluator. */
export function evalCondition(expr: string, ctx: ExprContext): boolean | undefined {
  // The patterns below take time quadratic in long runs of blanks: a condition this long is not
  // one of the usual ones anyway.
  if (expr.length > MAX_EXPRESSION) return undefined;
  const e = expr.trim();
  if (e.startsWith('!')) {
    const v = evalCondition(e.slice(1).replace(/^\s*\((.*)\)\s*$/, '$1'), ctx);
    return v === undefined ? undefined : !v;
  }
  let m = /^-([nz])\s+(.+)$/.exec(e);
  if (m) {
    const v = evalString(m[2], ctx);
    if (v === undefined) return undefined;
    return m[1] === 'n' ? v.length > 0 : v.length === 0;
  }
  m = /^(.+?)\s*(==|!=|=~|!~)\s*(.+)$/.exec(e);
  if (m) {
    const left = evalString(m[1], ctx);
    if (left === undefined) return undefined;
    if (m[2] === '==' || m[2] === '!=') {
      const right = evalString(m[3], ctx);
      if (right === undefined) return undefined;
      return (left === right) === (m[2] === '==');
    }
    const rm = /^(?:\/(.*)\/|m(.)(.*)\2)(i?)$/.exec(m[3].trim());
    if (!rm) return undefined;
    const body = rm[1] ?? rm[3];
    try {
      return new RegExp(body, rm[4]).test(left) === (m[2] === '=~');
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function evalString(t: string, ctx: ExprContext): string | undefined {
  const s = t.trim();
  let m = /^'([^']*)'$/.exec(s) ?? /^"([^"]*)"$/.exec(s);
  if (m) return m[1];
  m = /^%\{([^}]+)\}$/.exec(s);
  if (!m) return undefined;
  const v = m[1];
  if (/^HTTP:/i.test(v)) return ctx.headers.get(v.slice(5).toLowerCase()) ?? '';
  switch (v.toUpperCase()) {
    case 'REQUEST_URI':
      return ctx.uri;
    case 'REQUEST_METHOD':
      return ctx.method;
    case 'REMOTE_ADDR':
      return ctx.addr;
    case 'QUERY_STRING':
      return '';
    case 'HTTPS':
      return 'off';
    default:
      return undefined;
  }
}
