/**
 * T(C): the 2.4 Require block that answers exactly as one section's
 * mod_access_compat config does (spec §8.1, §8.2), per method class, and the
 * small Require-tree language the rewrites are written in.
 */
import type { HostToken } from './addr';
import { inMask, isAllMethods, orderFor, satisfyAnyFor, type CompatConfig, type MethodSet, type Order } from './model';

// ---------------------------------------------------------------------------------------------
// A Require tree to print

export type R =
  /** `raw`: the args are written as they stand (copied from the file), else quoted when needed. */
  | { k: 'leaf'; neg: boolean; provider: string; args: string[]; raw?: boolean }
  | { k: 'all' | 'any' | 'none'; children: R[] }
  | { k: 'limit'; except: boolean; methods: string[]; children: R[] }
  /** Lines copied from the original file (a section's own Require lines); `indent` is their common indentation. */
  | { k: 'raw'; lines: string[] };

export const GRANTED: R = { k: 'leaf', neg: false, provider: 'all', args: ['granted'] };
export const DENIED: R = { k: 'leaf', neg: false, provider: 'all', args: ['denied'] };

export function isGranted(r: R): boolean {
  return r.k === 'leaf' && !r.neg && r.provider === 'all' && r.args[0]?.toLowerCase() === 'granted';
}
export function isDenied(r: R): boolean {
  return r.k === 'leaf' && !r.neg && r.provider === 'all' && r.args[0]?.toLowerCase() === 'denied';
}

export function all(children: R[]): R {
  const flat: R[] = [];
  for (const c of children) {
    if (c.k === 'all') for (const x of c.children) flat.push(x);
    else flat.push(c);
  }
  if (flat.some(isDenied)) return DENIED;
  // `Require all granted` is needed only when no other positive child exists (AH01624).
  const positive = flat.filter((c) => !isGranted(c) && isPositive(c));
  const rest = positive.length ? flat.filter((c) => !isGranted(c)) : dedupeGranted(flat);
  if (rest.length === 1 && isPositive(rest[0])) return rest[0];
  if (rest.length === 0) return GRANTED;
  return { k: 'all', children: rest };
}

function dedupeGranted(list: R[]): R[] {
  const out: R[] = [];
  let seen = false;
  for (const c of list) {
    if (isGranted(c)) {
      if (seen) continue;
      seen = true;
    }
    out.push(c);
  }
  return out;
}

export function any(children: R[]): R {
  const flat: R[] = [];
  for (const c of children) {
    if (c.k === 'any') for (const x of c.children) flat.push(x);
    else flat.push(c);
  }
  if (flat.some(isGranted)) return GRANTED;
  const rest = flat.filter((c) => !isDenied(c));
  if (rest.length === 0) return DENIED;
  if (rest.length === 1) return rest[0];
  return { k: 'any', children: rest };
}

/** A node that may stand in an OR position (not `Require not`, not RequireNone). */
export function isPositive(r: R): boolean {
  if (r.k === 'leaf') return !r.neg;
  return r.k !== 'none';
}

// ---------------------------------------------------------------------------------------------
// Atoms (§8.1)

export interface Lists {
  allow: HostToken[];
  deny: HostToken[];
}

function grouped(tokens: HostToken[], neg: boolean): R[] {
  const ips = tokens.filter((t) => t.kind === 'ip').map((t) => t.raw);
  const hosts = tokens.filter((t) => t.kind === 'host').map((t) => escapeExprString(t.raw));
  const envs = tokens.filter((t) => t.kind === 'env').map((t) => (t as { name: string }).name);
  const out: R[] = [];
  if (ips.length) out.push({ k: 'leaf', neg, provider: 'ip', args: uniq(ips) });
  if (hosts.length) out.push({ k: 'leaf', neg, provider: 'host', args: uniq(hosts) });
  if (envs.length) out.push({ k: 'leaf', neg, provider: 'env', args: uniq(envs) });
  return out;
}

function uniq(a: string[]): string[] {
  return [...new Set(a)];
}

/** `Require host` takes an ap_expr string: `%{`, `$` and `\` are special there. */
export function escapeExprString(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/%\{/g, '\\%{').replace(/\$/g, '\\$');
}

/** POS(L): the OR of positive atoms, as a list of OR-ed items. */
export function pos(tokens: HostToken[]): R[] {
  const out = grouped(tokens, false);
  for (const t of tokens) {
    if (t.kind === 'nenv') out.push({ k: 'all', children: [GRANTED, { k: 'leaf', neg: true, provider: 'env', args: [t.name] }] });
  }
  return out;
}

/** The children of NONE(L) without `Require all granted`: `Require not …` and `Require env V` for env=!V. */
export function noneItems(tokens: HostToken[]): R[] {
  const out = grouped(tokens, true);
  const nenv = uniq(tokens.filter((t) => t.kind === 'nenv').map((t) => (t as { name: string }).name));
  if (nenv.length) out.push({ k: 'leaf', neg: false, provider: 'env', args: nenv });
  return out;
}

/** NONE(L) = ¬OR(L), two-valued. */
export function none(tokens: HostToken[]): R {
  const items = noneItems(tokens);
  const positive = items.some(isPositive);
  if (positive && items.length === 1) return items[0];
  return { k: 'all', children: positive ? items : [GRANTED, ...items] };
}

/** T(C) for one method class (§8.2). */
export function verdictBlock(order: Order, a: HostToken[], d: HostToken[]): R {
  const aAll = a.some((t) => t.kind === 'all');
  const dAll = d.some((t) => t.kind === 'all');
  if (order === 'allow,deny' || order === 'mutual-failure') {
    if (!a.length || dAll) return DENIED;
    if (aAll) return d.length ? none(d) : GRANTED;
    const p = pos(a);
    if (!d.length) return any(p);
    const posNode = p.length === 1 ? p[0] : ({ k: 'any', children: p } as R);
    return { k: 'all', children: [posNode, ...noneItems(d)] };
  }
  if (aAll || !d.length) return GRANTED;
  if (dAll) return a.length ? any(pos(a)) : DENIED;
  if (!a.length) return none(d);
  return { k: 'any', children: [...pos(a), none(d)] };
}

// ---------------------------------------------------------------------------------------------
// Method classes (§8.2 "Method-specific rules")

/** The methods whose names appear in a mask, normalised (HEAD → GET). */
export function methodsNamed(masks: MethodSet[]): string[] {
  const s = new Set<string>();
  for (const m of masks) for (const x of m.methods) s.add(x);
  return [...s].sort();
}

/** A method that no mask names, standing for "every other method". */
export const OTHER_METHOD = 'X-OTHER-METHOD';

export interface MethodClass {
  /** Representative methods; OTHER_METHOD stands for every method not named. */
  methods: string[];
  order: Order;
  allow: HostToken[];
  deny: HostToken[];
  satisfyAny: boolean;
}

function masksOf(c: CompatConfig): MethodSet[] {
  return [...c.orders.map((o) => o.mask), ...c.satisfies.map((o) => o.mask), ...c.allow.map((e) => e.mask), ...c.deny.map((e) => e.mask)];
}

/** Split the methods into classes with the same order, filtered lists and Satisfy. */
export function methodClasses(c: CompatConfig, extra: string[] = [], join = true): MethodClass[] {
  const named = uniq([...methodsNamed(masksOf(c)), ...extra]);
  const reps = [...named, OTHER_METHOD];
  const classes: MethodClass[] = [];
  for (const m of reps) {
    const cls: MethodClass = {
      methods: [m],
      order: orderFor(c, m),
      allow: c.allow.filter((e) => inMask(e.mask, m)).map((e) => e.token),
      deny: c.deny.filter((e) => inMask(e.mask, m)).map((e) => e.token),
      satisfyAny: satisfyAnyFor(c, m),
    };
    const same = join && classes.find(
      (x) => x.order === cls.order && x.satisfyAny === cls.satisfyAny && sameTokens(x.allow, cls.allow) && sameTokens(x.deny, cls.deny),
    );
    if (same) same.methods.push(m);
    else classes.push(cls);
  }
  return classes;
}

function sameTokens(a: HostToken[], b: HostToken[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** True when the compat config is the same for every method. */
export function methodUniform(c: CompatConfig): boolean {
  return masksOf(c).every(isAllMethods);
}

// ---------------------------------------------------------------------------------------------
// Printing

export interface PrintStyle {
  /** Indentation of the lines at section level. */
  indent: string;
  /** One level of nesting. */
  unit: string;
  eol: string;
}

/** Print a list of items that sit at section level (an implicit RequireAny). */
export function printItems(items: R[], style: PrintStyle): string {
  const out: string[] = [];
  for (const it of items) emit(it, style.indent, style, out);
  return out.map((l) => l + style.eol).join('');
}

/** The items of a node at section level: an `any` node's children, else the node itself. */
export function topItems(r: R): R[] {
  return r.k === 'any' ? r.children : [r];
}

function quoteArg(a: string): string {
  return /[\s"']/.test(a) || a === '' ? '"' + a.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"' : a;
}

function emit(r: R, ind: string, style: PrintStyle, out: string[]): void {
  switch (r.k) {
    case 'leaf':
      out.push(`${ind}Require ${r.neg ? 'not ' : ''}${r.provider}${r.args.length ? ' ' + r.args.map(r.raw ? (a) => a : quoteArg).join(' ') : ''}`);
      return;
    case 'raw':
      for (const l of r.lines) out.push(ind + l);
      return;
    case 'limit': {
      const tag = r.except ? 'LimitExcept' : 'Limit';
      out.push(`${ind}<${tag} ${r.methods.join(' ')}>`);
      for (const c of r.children) emit(c, ind + style.unit, style, out);
      out.push(`${ind}</${tag}>`);
      return;
    }
    default: {
      const tag = r.k === 'all' ? 'RequireAll' : r.k === 'any' ? 'RequireAny' : 'RequireNone';
      out.push(`${ind}<${tag}>`);
      for (const c of r.children) emit(c, ind + style.unit, style, out);
      out.push(`${ind}</${tag}>`);
    }
  }
}

/** A one-line summary of a tree for titles and messages. */
export function summary(r: R): string {
  switch (r.k) {
    case 'leaf':
      return `Require ${r.neg ? 'not ' : ''}${r.provider}${r.args.length ? ' ' + r.args.join(' ') : ''}`;
    case 'raw':
      return r.lines.map((l) => l.trim()).join('; ');
    case 'limit':
      return `<${r.except ? 'LimitExcept' : 'Limit'} ${r.methods.join(' ')}> ${r.children.map(summary).join('; ')}`;
    default:
      return `<Require${r.k === 'all' ? 'All' : r.k === 'any' ? 'Any' : 'None'}> ${r.children.map(summary).join('; ')}`;
  }
}
