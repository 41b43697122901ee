/**
 * The migration plan: for every scope that uses Order/Allow/Deny/Satisfy, the
 * exact 2.4 rewrite (when the model proves one) or the reason there is none,
 * and the naive mapping most guides give with what it changes.
 *
 * How a rewrite is found (spec §8.2–§8.5): scopes whose regions overlap form a
 * group; for each group a few candidate rewrites are built, in order of
 * preference (the forms of §8.4 chosen by its rules, then "AuthMerging Off with
 * the inherited tree written out" everywhere, then the copy form). Each
 * candidate is applied to the text and checked with the evaluator: the
 * original with mod_access_compat against the rewrite without it, over every
 * request location and client class that matters. The first candidate that
 * gives the same status everywhere is offered; if none does, the reason names
 * a request that would change.
 */
import { applyEdits, eolOf, hasDirective, indentAt, openTagText, parse, physicalLine, type ConfigDocument, type DirectiveNode, type OffsetEdit, type SectionNode } from '../syntax';
import type { FileContext } from '../model/context';
import { ALL_READERS, readBy24Surely, readDependsOnCompat, readersInside, readersOf, readWithCompatOnly, readWithoutCompatOnly, settledByFile, testKeyOf } from '../model/guards';
import {
  decidesAccess,
  isAccessKey,
  buildModel,
  emptyScope,
  inMask,
  isAllMethods,
  leaves,
  maskOf,
  type AccessModel,
  type AuthzContainer,
  type AuthzLeaf,
  type AuthzNode,
  type MethodSet,
  type Scope,
} from './model';
import { accessScopes, appliedScopes, hasAccessEffect, mergeApplied, evaluateState, scopesThatApply, type Applied, type Client, type MergedState, type Tree } from './evaluate';
import { cachedRegion, normPath, regionsOverlap, scopesOverlap } from './region';
import { accessNotes, type NoteFix, type NoteRule, type PlanNote } from './analysis';
import { clientsFor, describeClient, pointsFor, mainServerUnreachable, reachedThroughOtherHosts, selectedScopes, type ClientSet, type Point, type PointSet } from './points';
import { onlyGroupApplies, projectEdits, projectForGroup, projectOffset, sectionsByOrigin, type Projection } from './projection';
import {
  all as rAll,
  any as rAny,
  GRANTED,
  isDenied,
  isGranted,
  methodClasses,
  OTHER_METHOD,
  printItems,
  summary,
  topItems,
  verdictBlock,
  type MethodClass,
  type PrintStyle,
  type R,
} from './translate';

export type PlanRule = NoteRule;
export type { PlanNote, NoteFix };

export interface SectionPlan {
  /** null = the file's top level. */
  section: SectionNode | null;
  compatDirectives: DirectiveNode[];
  /** `touches`: the sections the rewrite edits (the requests it may change pass through one of them). */
  exact?: { title: string; edits: OffsetEdit[]; touches?: Scope[] };
  naive?: { title: string; edits: OffsetEdit[]; changes: string };
  /** Why there is no exact rewrite, when `exact` is absent. */
  reason?: string;
  /** A file read inside a directory: what its offered rewrite needs from the rules it inherits. */
  dirLevel?: DirLevelNeeds;
  /**
   * With `exact`: the directories whose `AllowOverride` lets `.htaccess` files set access (Require
   * and its kin, or host rules) for some of the requests the rewrite decides. The rewrite is exact
   * as far as the configuration shows; a `.htaccess` file below one of them that sets access could
   * make it otherwise (in 2.2 terms its lines are read apart from the host rules, in 2.4 terms its
   * `Require` and the rewrite's replace each other), so it holds when none does.
   */
  htaccessBelow?: string[];
  /** With `exact`: what the rewrite rests on, for the finding's message (a file planned without its main file). */
  note?: string;
  /**
   * With `exact`, planned in a configuration (in-configuration.ts): the rewrite of the whole
   * configuration it is a part of, the same key in each file's plan, and the other files that
   * make a part of it.
   */
  rewriteKey?: string;
  partsIn?: string[];
}

export interface MigrationPlan {
  sections: SectionPlan[];
  notes: PlanNote[];
}

export interface PlanOptions {
  /** preserve (default): keep what 2.4 with mod_access_compat does. intent: also say what 2.2 did where that differs. */
  mode?: 'preserve' | 'intent';
  /** Skip the model check (tests of the candidate builder only). */
  unchecked?: boolean;
  /** Always work out client classes point by point (tests: both ways must give the same plan). */
  clientsPerPoint?: boolean;
  /** Check every candidate on the whole rewritten file, never on a projection (tests: both must agree). */
  wholeFile?: boolean;
  /** Only the exact rewrites and the reasons there are none: no notes, no naive mappings (a caller that reads nothing else). */
  exactOnly?: boolean;
  /** Paths known to be directories, such as the folders of the `.htaccess` files spliced into the file. */
  directories?: readonly string[];
  /**
   * Physical lines (0-based) whose host rules stay as they are: the `.htaccess` files spliced into a
   * configuration, which their own run rewrites. A section of them is not planned; a rewrite of the
   * others is checked with them still read by mod_access_compat, and never edits them.
   */
  keepLines?: readonly number[];
  /**
   * Try first the form that keeps what each section of host rules inherits (`AuthMerging And`, or
   * `Or` under `Satisfy Any`) even where the file shows nothing before it: a file another includes,
   * whose main file may set access in `<Directory />` (plansAsIncluded checks it under several).
   */
  keepInherited?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Style and text helpers

/** One level of indentation as the file writes it (difference between a section and its first child). */
export function indentUnit(doc: ConfigDocument): string {
  for (let ix = 0; ix < doc.sections.length; ix++) {
    const s = doc.sections[ix];
    const first = s.children.find((c) => c.type === 'directive' || c.type === 'section');
    if (!first) continue;
    const at = first.type === 'section' ? first.open.start : first.start;
    const inner = indentAt(doc.text, at);
    const outer = indentAt(doc.text, s.open.start);
    if (inner.length > outer.length && inner.startsWith(outer)) return inner.slice(outer.length);
  }
  return '    ';
}

export function scopeLabel(s: Scope | null): string {
  return s?.section ? openTagText(s.section) : 'the top level of this file';
}

/** The original lines of a node, with their common indentation removed. */
function rawLines(doc: ConfigDocument, start: number, end: number): string[] {
  let text = doc.text.slice(start, end).replace(/\r?\n$/, '');
  const lines = text.split(/\r?\n/);
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0]);
  let common = indents[0] ?? '';
  for (const i of indents) while (!i.startsWith(common)) common = common.slice(0, -1);
  text = '';
  return lines.map((l) => (l.startsWith(common) ? l.slice(common.length) : l.trimStart()));
}

function maskR(mask: MethodSet, inner: R[]): R {
  if (isAllMethods(mask)) return inner.length === 1 ? inner[0] : { k: 'any', children: inner };
  return { k: 'limit', except: mask.except, methods: [...mask.methods], children: inner };
}

/** A tree of the model written as Require lines (leaves keep their method limits). */
function treeR(t: Tree): R {
  if (t.kind === 'merged') return { k: t.op === 'and' ? 'all' : 'any', children: t.children.map(treeR) };
  if (t.kind === 'leaf') {
    const leaf: R = { k: 'leaf', neg: t.negated, provider: t.provider, args: t.args.map((a) => a.raw), raw: true };
    return maskR(t.mask, [leaf]);
  }
  const kids = t.children.map(treeR);
  if (!t.section) return kids.length === 1 ? kids[0] : { k: 'any', children: kids };
  return { k: t.op, children: kids };
}

/**
 * The tree as it acts for one method, without <Limit> wrappers: what is limited to other methods
 * drops out (it is GRANTED under an AND and NEUTRAL under an OR, §3.3). null when nothing is left.
 */
function treeForMethod(t: Tree, method: string): R | null {
  if (t.kind === 'merged') {
    const kids = t.children.map((c) => treeForMethod(c, method)).filter((x): x is R => x !== null);
    if (!kids.length) return null;
    return kids.length === 1 ? kids[0] : { k: t.op === 'and' ? 'all' : 'any', children: kids };
  }
  if (t.kind === 'leaf') {
    if (!inMask(t.mask, method)) return null;
    return { k: 'leaf', neg: t.negated, provider: t.provider, args: t.args.map((a) => a.raw), raw: true };
  }
  const kids = t.children.map((c) => treeForMethod(c, method)).filter((x): x is R => x !== null);
  if (!kids.length) return null;
  if (!t.section) return kids.length === 1 ? kids[0] : { k: 'any', children: kids };
  if (t.op === 'all' && !kids.some(isPositiveR)) return { k: 'all', children: [GRANTED, ...kids] };
  return { k: t.op, children: kids };
}

/** A tree that is `Require all granted` and nothing else. */
function treeIsGranted(t: Tree): boolean {
  const r = treeR(t);
  return r.k === 'leaf' && !r.neg && r.provider === 'all' && r.args.length === 1 && r.args[0].toLowerCase() === 'granted';
}

function isPositiveR(r: R): boolean {
  return r.k === 'leaf' ? !r.neg : r.k !== 'none';
}

function treeUsesLimits(t: Tree | null): boolean {
  if (!t) return false;
  if (t.kind === 'merged') return t.children.some(treeUsesLimits);
  if (t.kind === 'leaf') return !isAllMethods(t.mask);
  return t.children.some(treeUsesLimits);
}

function treeKey(t: Tree | null): string {
  if (!t) return '';
  return summary(treeR(t));
}

// ---------------------------------------------------------------------------------------------
// Edits of one scope

/** What to do with one scope's access lines. */
interface ScopeEdit {
  scope: Scope;
  /** Delete these directives (compat lines). */
  drop: DirectiveNode[];
  /** Move the scope's own Require items into `block` (true) or leave them. */
  moveOwn: boolean;
  /** The new Require items at section level (replacing the moved ones), or null for none. */
  block: R[] | null;
  /** New AuthMerging value: a string sets it, null deletes it, undefined leaves it. */
  merging?: 'And' | 'Or' | null;
  /** Other lines written before the block (`AuthType None`). */
  extra?: string[];
}

/** The top-level authz items of a scope: Require lines and containers directly in it (maybe in <Limit>). */
function ownItems(s: Scope): Array<DirectiveNode | SectionNode> {
  const out: Array<DirectiveNode | SectionNode> = [];
  const root = s.authz?.root;
  if (!root) return out;
  for (const ch of root.children) out.push(ch.kind === 'leaf' ? ch.directive : ch.section!);
  return out;
}

/**
 * The scope's own Require items as R. Without a method, each item keeps its <Limit> wrapper;
 * with one, only the items that apply to it are kept, without their wrapper (the caller puts
 * the result inside that method's <Limit>).
 */
function ownR(doc: ConfigDocument, s: Scope, method?: string): R[] {
  const out: R[] = [];
  const root = s.authz?.root;
  if (!root) return out;
  for (const ch of root.children) {
    const it = ch.kind === 'leaf' ? ch.directive : ch.section!;
    if (method !== undefined && !inMask(maskOf(ch), method)) continue;
    const start = it.type === 'section' ? it.open.lineStart : it.lineStart;
    const end = it.type === 'section' ? it.close?.lineEnd ?? it.open.lineEnd : it.lineEnd;
    const raw: R = { k: 'raw', lines: rawLines(doc, start, end) };
    const lim = limitOf(it, s);
    out.push(lim && method === undefined ? { k: 'limit', except: lim.key === 'limitexcept', methods: lim.args.map((a) => a.raw), children: [raw] } : raw);
  }
  return out;
}

function limitOf(node: { parent: SectionNode | null }, s: Scope): SectionNode | null {
  for (let p = node.parent; p && p !== s.section; p = p.parent) if (p.key === 'limit' || p.key === 'limitexcept') return p;
  return null;
}

/**
 * Whether a conditional wrapper sits between a node and its scope's section that a rewrite cannot
 * be checked across: anything but a Limit, a Require container, a test whose answer for each
 * server is known (settledWrapper: the 2.4 half of a file written for 2.2 and 2.4 alike,
 * `<IfModule mod_access_compat.c>`), or, when `worlds` is on, a test httpd may or may not pass
 * that the check works out both ways (worldTest). Left: `<IfVersion>` tests some 2.4 releases
 * fail, and every test for the naive check, which reads them all as holding.
 */
function inCondWrapper(node: { parent: SectionNode | null }, s: Scope, worlds = true): boolean {
  for (let p = node.parent; p && p !== s.section; p = p.parent) {
    if (!['limit', 'limitexcept', 'requireall', 'requireany', 'requirenone'].includes(p.key) && !settledWrapper(p) && !(worlds && worldTest(p))) return true;
  }
  return false;
}

/**
 * A test httpd may or may not pass, which the check works out both ways (mixedTests): `<IfDefine>`,
 * `<IfFile>`, `<IfModule>` of a module the file does not load itself, `<IfDirective>`, `<IfSection>`.
 */
function worldTest(p: SectionNode): boolean {
  return testKeyOf(p) !== null && readersOf([p]).size === ALL_READERS.length;
}

/**
 * A test whose answer the check knows for each of the two servers: both 2.4 servers pass it
 * (`<IfModule mod_authz_core.c>`), or only the one with mod_access_compat does (`<IfModule
 * mod_access_compat.c>`: the original reads what it holds, the rewrite does not).
 */
function settledWrapper(p: SectionNode): boolean {
  return readBy24Surely(p) || readWithCompatOnly(p);
}

function hasContent(sec: SectionNode, removed: Set<unknown>): boolean {
  for (const c of sec.children) {
    if (c.type === 'directive' && !removed.has(c)) return true;
    if (c.type === 'section' && !removed.has(c) && hasContent(c, removed)) return true;
  }
  return false;
}

/** Directives that set variables, and the index of their first variable argument. */
const SETS_ENV = new Map<string, number>([
  ['setenvif', 2],
  ['setenvifnocase', 2],
  ['browsermatch', 1],
  ['browsermatchnocase', 1],
  ['setenvifexpr', 1],
]);

/**
 * The variables access lines test (`Allow from env=X`, `Require env X`), in lower case; null when
 * any may be (a `Require expr`). Per document (read-only: a plan and its checks ask many times).
 */
function envNamesTested(doc: ConfigDocument): ReadonlySet<string> | null {
  let v = ENV_TESTED.get(doc);
  if (!v) ENV_TESTED.set(doc, (v = { names: readEnvNamesTested(doc) }));
  return v.names;
}

const ENV_TESTED = new WeakMap<ConfigDocument, { names: ReadonlySet<string> | null }>();

function readEnvNamesTested(doc: ConfigDocument): Set<string> | null {
  const out = new Set<string>();
  for (let ix = 0; ix < doc.directives.length; ix++) {
    const d = doc.directives[ix];
    if (d.key === 'allow' || d.key === 'deny') {
      for (const a of d.args) {
        const v = a.value.toLowerCase();
        if (v.startsWith('env=')) out.add(v.slice(4).replace(/^!/, ''));
      }
    } else if (d.key === 'require') {
      const words = d.args.map((a) => a.value.toLowerCase());
      const i = words[0] === 'not' ? 1 : 0;
      if (words[i] === 'expr') return null;
      if (words[i] === 'env') for (const w of words.slice(i + 1)) out.add(w);
    }
  }
  return out;
}

/** Whether a SetEnvIf-like line sets a variable that access lines test. */
function setsTested(d: DirectiveNode, tested: ReadonlySet<string> | null): boolean {
  if (tested === null) return true;
  for (const a of d.args.slice(SETS_ENV.get(d.key) ?? 0)) {
    const name = a.value.replace(/^!/, '').split('=')[0].toLowerCase();
    if (tested.has(name)) return true;
  }
  return false;
}

/** A test httpd may or may not pass that holds some of a group's deciding sections and not others. */
interface MixedTest {
  key: string;
  label: string;
  /** The form the label shows: `<IfDefine X>` (true) or `<IfDefine !X>`. */
  positive: boolean;
}

/**
 * The tests that hold some of the sections deciding a group's requests but not others. The model
 * reads every such test as holding; where one does not, the sections under it are gone from the
 * original and the rewrite alike, and the rest must still agree: the check is repeated that way
 * (checkWorlds). Sections that all sit under the same tests go or stay together.
 */
function mixedTests(group: Scope[], infos: PointInfo[], settled: (key: string) => boolean | undefined, tested: ReadonlySet<string> | null): MixedTest[] {
  const scopes = new Set<Scope>(group);
  for (const i of infos) for (const a of i.applied) if (hasAccessEffect(a.scope)) scopes.add(a.scope);
  const count = new Map<string, { n: number; label: string; positive: boolean }>();
  for (const s of scopes) {
    const seen = new Set<string>();
    for (let p = s.section?.parent ?? null; p; p = p.parent) {
      const t = testKeyOf(p);
      if (!t || readersOf([p]).size !== ALL_READERS.length || settled(t.key) !== undefined) continue;
      const k = `${t.key}=${t.positive}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const e = count.get(k) ?? { n: 0, label: `${openTagText(p)} (line ${p.open.line + 1})`, positive: t.positive };
      e.n++;
      count.set(k, e);
    }
  }
  const out = new Map<string, MixedTest>();
  for (const [k, e] of count) {
    if (e.n === scopes.size) continue;
    const key = k.slice(0, k.lastIndexOf('='));
    if (!out.has(key)) out.set(key, { key, label: e.label, positive: e.positive });
  }
  // Tests inside a section, around some of its access lines: those lines come and go with them.
  for (const s of scopes) {
    for (const d of s.directives) {
      if (!isAccessKey(d.key) || (SETS_ENV.has(d.key) && !setsTested(d, tested))) continue;
      for (let p = d.parent; p && p !== s.section; p = p.parent) {
        const t = testKeyOf(p);
        if (!t || !worldTest(p) || settled(t.key) !== undefined || out.has(t.key)) continue;
        out.set(t.key, { key: t.key, label: `${openTagText(p)} (line ${p.open.line + 1})`, positive: t.positive });
      }
    }
  }
  return [...out.values()];
}

/** The most tests worked out both ways for one group (2^n readings of the file). */
const MAX_WORLD_TESTS = 4;

/**
 * Check a candidate (already exact with every test holding) in every other way the mixed tests
 * can go: the original and the rewritten whole file are read with those answers, and compared at
 * the request points of the group's sections that are still read.
 */
function checkWorlds(
  doc: ConfigDocument,
  text: string,
  ctx: FileContext,
  group: Scope[],
  extra: Scope[],
  mixed: MixedTest[],
  limits: CheckLimits,
  reread: number,
  known?: ReadonlySet<string>,
): { result: CheckResult; reread: number } {
  let rwDoc: ConfigDocument | null = null;
  for (let bits = 0; bits < 2 ** mixed.length; bits++) {
    if (reread + doc.text.length + text.length > REREAD_BUDGET) {
      return { result: { ok: false, why: 'not checked: this file has more access sections than one pass checks', limit: true }, reread };
    }
    reread += doc.text.length + text.length;
    const assume = (key: string): boolean | undefined => {
      const k = mixed.findIndex((t) => t.key === key);
      return k >= 0 ? !!((bits >> k) & 1) : undefined;
    };
    const m1 = buildModel(doc, ctx, { assume });
    if (known) m1.knownDirectories = known;
    // The group's sections still read in this reading, and those with lines only one server reads.
    const inM1 = (list: Scope[]) => list.map((s) => (s.section ? m1.scopeOfSection.get(s.section) : m1.scopes[0])).filter((s): s is Scope => !!s);
    const g1 = inM1(group);
    const x1 = inM1(extra);
    if (!g1.length && !x1.length) continue;
    // In this reading some of the group's sections may hold no access line any more (their lines
    // sat under a test that fails here) while the rewrite moved lines out of it: every section of
    // the group tells points apart, whatever the original's model sees in it.
    const ps = pointsFor(m1, [...g1, ...x1], undefined, [...g1, ...x1]);
    if (ps.truncated) return { result: { ok: false, why: 'too many overlapping sections to check every combination of them', limit: true }, reread };
    rwDoc ??= parse(text);
    const r = checkCandidate(m1, { doc: rwDoc, assume }, ctx, ps.points, limits);
    if (!r.ok) {
      const how = mixed.map((t, i) => `${t.label} ${!!((bits >> i) & 1) === t.positive ? 'holds' : 'does not hold'}`).join(', ');
      return { result: { ...r, why: `when ${how}: ${r.why}` }, reread };
    }
  }
  return { result: { ok: true }, reread };
}

/**
 * The scope's own Require lines, when the new block would print them again exactly as they stand
 * (same lines, same order, same indentation): then only the host rules need to go, and the
 * Require lines stay where they are instead of moving to the first host rule's place.
 */
function blockAsWritten(doc: ConfigDocument, e: ScopeEdit, unit: string, eol: string): boolean {
  if (!e.moveOwn || !e.block?.length || e.merging !== undefined || e.extra?.length) return false;
  const own = ownItems(e.scope);
  if (!own.length || own.some((it) => it.parent !== e.scope.section)) return false;
  let written = '';
  for (const it of own) {
    const line = it.type === 'section' ? doc.text.slice(it.open.lineStart, it.close?.lineEnd ?? it.open.lineEnd) : doc.text.slice(it.lineStart, it.lineEnd);
    if (!line.endsWith(eol)) return false;
    written += line;
  }
  const first = own[0];
  const indent = indentAt(doc.text, first.type === 'section' ? first.open.start : first.start);
  return printItems(e.block, { indent, unit, eol }) === written;
}

/** Build the text edits for one scope. */
function scopeEdits(doc: ConfigDocument, e: ScopeEdit, unit: string): OffsetEdit[] {
  const eol = eolOf(doc.text);
  if (blockAsWritten(doc, e, unit, eol)) e = { ...e, moveOwn: false, block: null };
  const s = e.scope;
  const removed = new Set<unknown>(e.drop);
  if (e.moveOwn) for (const it of ownItems(s)) removed.add(it);
  const mergingLine = s.authz?.mergingDirective ?? null;
  // Wrappers left empty go too: <Limit>, <LimitExcept>, the 2.4 half of a file written for 2.2
  // and 2.4 alike (`<IfModule mod_authz_core.c>`) and `<IfModule mod_access_compat.c>`, innermost
  // first.
  const ranges: Array<{ start: number; end: number; node: unknown }> = [];
  const addRange = (start: number, end: number, node: unknown) => ranges.push({ start, end, node });
  const wrappers = new Set<SectionNode>();
  for (const n of removed) {
    for (let p = (n as DirectiveNode).parent; p && p !== s.section; p = p.parent) {
      if (p.key === 'limit' || p.key === 'limitexcept' || settledWrapper(p) || readWithoutCompatOnly(p)) wrappers.add(p);
    }
  }
  for (const w of [...wrappers].sort((a, b) => b.depth - a.depth)) if (!hasContent(w, removed)) removed.add(w);
  for (const n of removed) {
    const node = n as DirectiveNode | SectionNode;
    if (node.type === 'section') addRange(node.open.lineStart, node.close?.lineEnd ?? node.open.lineEnd, node);
    else addRange(node.lineStart, node.lineEnd, node);
  }
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: typeof ranges = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.start < last.end) {
      last.end = Math.max(last.end, r.end);
      continue;
    }
    merged.push({ ...r });
  }
  const edits: OffsetEdit[] = merged.map((r) => ({ start: r.start, end: r.end, newText: '' }));
  // Where the new lines go: the first removed line directly in the section, else before the close tag.
  const block: R[] = [...(e.block ?? [])];
  let mergingText: string | null = e.extra?.length ? e.extra.join('\u0000') : null;
  if (e.merging !== undefined) {
    if (e.merging === null) {
      if (mergingLine && !removed.has(mergingLine)) edits.push({ start: mergingLine.lineStart, end: mergingLine.lineEnd, newText: '' });
    } else if (mergingLine) {
      const ind = indentAt(doc.text, mergingLine.start);
      const keepEol = /\r?\n$/.test(doc.text.slice(mergingLine.lineStart, mergingLine.lineEnd));
      edits.push({ start: mergingLine.lineStart, end: mergingLine.lineEnd, newText: `${ind}AuthMerging ${e.merging}${keepEol ? eol : ''}` });
    } else mergingText = mergingText ? `${mergingText}\u0000AuthMerging ${e.merging}` : `AuthMerging ${e.merging}`;
  }
  if (!block.length && !mergingText) return edits;
  const direct = merged.find((r) => {
    const n = r.node as DirectiveNode | SectionNode;
    return n.parent === s.section;
  });
  let anchor: OffsetEdit;
  let indent: string;
  if (direct) {
    anchor = edits.find((x) => x.start === direct.start)!;
    const n = direct.node as DirectiveNode | SectionNode;
    indent = indentAt(doc.text, n.type === 'section' ? n.open.start : n.start);
  } else {
    // Before the first Require item kept, or before the closing tag.
    const firstItem = ownItems(s).find((it) => !removed.has(it));
    const at = firstItem
      ? firstItem.type === 'section'
        ? firstItem.open.lineStart
        : firstItem.lineStart
      : s.section?.close
        ? s.section.close.lineStart
        : doc.text.length;
    indent = firstItem
      ? indentAt(doc.text, firstItem.type === 'section' ? firstItem.open.start : firstItem.start)
      : s.section
        ? indentAt(doc.text, s.section.open.start) + unit
        : '';
    anchor = { start: at, end: at, newText: '' };
    edits.push(anchor);
  }
  const style: PrintStyle = { indent, unit, eol };
  let text = (mergingText ? mergingText.split('\u0000').map((l) => indent + l + eol).join('') : '') + printItems(block, style);
  if (anchor.end > anchor.start && !/\r?\n$/.test(doc.text.slice(anchor.start, anchor.end)) && anchor.end === doc.text.length) {
    text = text.slice(0, text.length - eol.length);
  }
  if (anchor.start === doc.text.length && doc.text.length > 0 && !/\n$/.test(doc.text)) text = eol + text.slice(0, text.length - eol.length);
  anchor.newText = text;
  return edits;
}

// ---------------------------------------------------------------------------------------------
// Per-point facts of the original

interface PointInfo {
  point: Point;
  applied: Applied[];
  /** The last applied scope with compat directives, or null. */
  x: Scope | null;
  /** Merged state of everything before x (step by step reading), for P. */
  beforeX: MergedState | null;
  /** Scopes with authz config applied after x. */
  after: Scope[];
}

function pointInfo(model: AccessModel, point: Point): PointInfo {
  const applied = appliedScopes(model, point.test, true, selectedScopes(model, point));
  let xi = -1;
  applied.forEach((a, i) => {
    if (a.scope.compat) xi = i;
  });
  const x = xi >= 0 ? applied[xi].scope : null;
  const beforeX = xi >= 0 ? mergeApplied(applied.slice(0, xi).map((a) => ({ ...a, walk: a.walk === 'base' ? 'base' : 'dir' }))) : null;
  const after = xi >= 0 ? applied.slice(xi + 1).map((a) => a.scope).filter((s) => s.authz) : [];
  return { point, applied, x, beforeX, after };
}

// ---------------------------------------------------------------------------------------------
// T(C) with method classes

/** Methods named by the Limit masks of a scope's Require leaves. */
function leafMethods(s: Scope | null): string[] {
  const out = new Set<string>();
  if (s?.authz?.root) for (const l of leaves(s.authz.root)) for (const m of l.mask.methods) out.add(m);
  return [...out];
}

/** Does any leaf of the scope's own tree apply to the method? */
function ownReaches(s: Scope, method: string): boolean {
  if (!s.authz?.root) return false;
  return leaves(s.authz.root).some((l) => inMask(l.mask, method));
}

/**
 * Emit one block per method class. Classes (one per representative method) whose blocks print
 * the same are joined; a single group needs no wrapper, else each group goes in a <Limit> and
 * the group of "every other method" in a <LimitExcept>.
 */
function perClass(classes: MethodClass[], f: (c: MethodClass) => R | null): R[] | null {
  const groups: Array<{ key: string; r: R; methods: string[] }> = [];
  for (const c of classes) {
    const r = f(c);
    if (r === null) return null;
    const key = r === EMPTY ? '\u0000empty' : summary(r);
    const g = groups.find((x) => x.key === key);
    if (g) g.methods.push(...c.methods);
    else groups.push({ key, r, methods: [...c.methods] });
  }
  if (groups.length === 1 && groups[0].r !== EMPTY) return topItems(groups[0].r);
  const named = groups.flatMap((g) => g.methods).filter((m) => m !== OTHER_METHOD);
  const out: R[] = [];
  for (const g of groups) {
    if (g.r === EMPTY) continue;
    const ms = g.methods.filter((m) => m !== OTHER_METHOD);
    if (g.methods.includes(OTHER_METHOD)) {
      const others = named.filter((m) => !ms.includes(m));
      out.push(others.length ? { k: 'limit', except: true, methods: others, children: topItems(g.r) } : g.r);
    } else out.push({ k: 'limit', except: false, methods: ms, children: topItems(g.r) });
  }
  if (out.some((r) => r.k === 'limit' && hasLimit(r.children))) return null;
  return out;
}

/** A class result meaning "nothing for these methods". */
const EMPTY: R = { k: 'raw', lines: [] };

function hasLimit(list: R[]): boolean {
  return list.some((r) => r.k === 'limit' || ('children' in r && hasLimit(r.children)));
}

function orR(list: R[]): R {
  return list.length === 1 ? list[0] : { k: 'any', children: list };
}

// ---------------------------------------------------------------------------------------------
// Candidates

type XForm = 'off' | 'merge' | 'written';
type YForm = 'keep' | 'w' | 'b' | 'b-any';

interface Candidate {
  name: string;
  edits: Map<Scope, ScopeEdit>;
}

/**
 * Candidates that edit sections whose lines stay (keepLines: a `.htaccess` file spliced in, left to
 * its own run) cannot be made. Each such candidate is also tried without its edits of those
 * sections, when it still rewrites every section of host rules: the sections that stay keep
 * their `Require` lines as they are (no `AuthMerging` added there), which is often exact already
 * (a `.htaccess` file's `Require all denied` under `Allow from all`), and the check says whether
 * it is.
 */
function withKeptLeftAlone(candidates: Candidate[], keep: ReadonlySet<number> | null, compat: readonly Scope[]): Candidate[] {
  if (!keep) return candidates;
  const stays = (x: Scope) => x.directives.some((d) => keep.has(d.line));
  const out: Candidate[] = [];
  for (const cand of candidates) {
    out.push(cand);
    if (![...cand.edits.keys()].some(stays)) continue;
    const edits = new Map([...cand.edits].filter(([x]) => !stays(x)));
    if (!edits.size || !compat.every((x) => edits.has(x))) continue;
    const same = out.some((c) => c.edits.size === edits.size && [...edits].every(([x, e]) => c.edits.get(x) === e));
    if (!same) out.push({ name: `${cand.name}, the lines that stay left alone`, edits });
  }
  return out;
}

interface GroupFacts {
  model: AccessModel;
  infos: PointInfo[];
  compat: Scope[];
  /** Require-only scopes that come after a compat scope for some request. */
  ys: Scope[];
  /** PlanOptions.keepInherited. */
  keepInherited?: boolean;
}

/** One class per representative method (perClass joins those that end up alike). */
function classesOf(x: Scope, extra: string[] = []): MethodClass[] {
  return methodClasses(x.compat!, [...leafMethods(x), ...extra], false);
}

/** Methods named by the <Limit> masks of a tree's leaves. */
function treeMethods(t: Tree | null, out: Set<string> = new Set()): string[] {
  if (!t) return [...out];
  if (t.kind === 'merged') t.children.forEach((c) => treeMethods(c, out));
  else if (t.kind === 'leaf') t.mask.methods.forEach((m) => out.add(m));
  else t.children.forEach((c) => treeMethods(c, out as Set<string>));
  return [...out];
}

/** The X edit of a form, or null when the form does not exist for this X. */
const VALID_USER: R = { k: 'leaf', neg: false, provider: 'valid-user', args: [] };

/**
 * The X edit of a form, or null when the form does not exist for this X. `authNone`: where no
 * Require applies but an AuthType does, the original answers 500 (AH01627) whenever authz runs;
 * `AuthType None` + `Require valid-user` keeps those 500s (AH00027) (§8.3).
 */
function xEdit(doc: ConfigDocument, f: GroupFacts, x: Scope, form: XForm, authNone = false): ScopeEdit | null {
  const c = x.compat!;
  const classes = classesOf(x);
  const hasOwn = !!x.authz?.root;
  const ownOf = (k: MethodClass) => ownR(doc, x, k.methods[0]);
  const merging = x.authz?.merging ?? 'off';
  const pts = f.infos.filter((i) => i.x === x);
  const anyS = classes.some((k) => k.satisfyAny);
  const allS = classes.some((k) => !k.satisfyAny);
  const base: ScopeEdit = { scope: x, drop: c.directives, moveOwn: hasOwn, block: null };
  if (!pts.length) return { ...base, moveOwn: false };
  const T = (k: MethodClass) => verdictBlock(k.order, k.allow, k.deny);
  // x's own Require alone settles every request (refuses all, or lets all in): what it is
  // combined with for a class that does the same (Satisfy All, Any) would never change the result.
  const ownTree = hasOwn && !treeUsesLimits(x.authz!.root) ? treeR(x.authz!.root!) : null;
  const settles = (k: MethodClass) => ownTree !== null && (k.satisfyAny ? isGranted(ownTree) : isDenied(ownTree));
  if (form === 'off') {
    // P is thrown away (Off) — exact when P is empty everywhere, or when x's own Require replaced it anyway.
    const block = perClass(classes, (k) => {
      const t = T(k);
      const own = ownOf(k);
      if (own.length && settles(k)) return orR(own);
      const z = own.length ? orR(own) : hasOwn ? GRANTED : authNone ? VALID_USER : null;
      if (!k.satisfyAny) return z ? rAll([t, z]) : t;
      return z ? rAny([t, z]) : GRANTED;
    });
    if (!block) return null;
    return withAuthNone({ ...base, block, merging: merging === 'off' ? undefined : null }, authNone);
  }
  if (form === 'merge') {
    if (anyS && allS) return null;
    const want = anyS ? 'or' : 'and';
    if (hasOwn && merging !== want) return null;
    const block = perClass(classes, (k) => {
      const own = ownOf(k);
      return anyS ? (own.length ? rAny([T(k), ...own]) : T(k)) : own.length ? rAll([T(k), orR(own)]) : T(k);
    });
    if (!block) return null;
    return { ...base, block, merging: anyS ? 'Or' : 'And' };
  }
  // written: P copied in, Off.
  const ps = pts.map((i) => i.beforeX!.authz.tree);
  const key = treeKey(ps[0]);
  if (!ps.every((p) => treeKey(p) === key)) return null;
  const P = ps[0];
  const single = !(P && treeUsesLimits(P));
  const block = perClass(classesOf(x, treeMethods(P)), (k) => {
    const t = T(k);
    const own = ownOf(k);
    const PR = P ? (single ? treeR(P) : treeForMethod(P, k.methods[0])) : null;
    const Zx = own.length ? orR(own) : null;
    // Z for this class: Off → Zx, or granted when x's own lines do not reach it (an empty tree);
    // And → P ∧ Zx; Or → P ∨ Zx (a part that does not reach the method drops out).
    let Z: R | null;
    if (!hasOwn) Z = PR ?? (authNone ? VALID_USER : null);
    else if (merging === 'off') Z = Zx ?? GRANTED;
    else if (merging === 'and') Z = PR && Zx ? rAll([PR, Zx]) : PR ?? Zx;
    else Z = PR && Zx ? rAny([PR, Zx]) : PR ?? Zx;
    if (!k.satisfyAny) return Z ? rAll([t, Z]) : t;
    return Z ? rAny([t, Z]) : GRANTED;
  });
  if (!block) return null;
  return withAuthNone({ ...base, block, merging: merging === 'off' ? undefined : null }, authNone);
}

function withAuthNone(e: ScopeEdit, on: boolean): ScopeEdit {
  if (!on) return e;
  const own = e.scope.authn.authType;
  return { ...e, drop: own ? [...e.drop, own] : e.drop, extra: ['AuthType None'] };
}

/** The Y edit of a form (W: T(C) copied into Y; B: AuthMerging And), or null. */
function yEdit(doc: ConfigDocument, f: GroupFacts, y: Scope, form: YForm, xForms: Map<Scope, XForm>): ScopeEdit | null {
  if (form === 'keep') return null;
  const pts = f.infos.filter((i) => i.applied.some((a) => a.scope === y));
  // The compat config in force at y for each request, and whether anything was in effect before y.
  const xs = new Set<Scope | null>();
  let somethingBefore = false;
  let nothingBefore = false;
  let firstRequire = true;
  for (const i of pts) {
    const idx = i.applied.findIndex((a) => a.scope === y);
    let xi: Scope | null = null;
    for (let k = 0; k < idx; k++) if (i.applied[k].scope.compat) xi = i.applied[k].scope;
    xs.add(xi);
    const before = mergeApplied(i.applied.slice(0, idx));
    if (before.authz.tree) somethingBefore = true;
    else nothingBefore = true;
    if (i.applied.slice(0, idx).some((a) => a.scope.authz?.root)) firstRequire = false;
  }
  if (form === 'b' || form === 'b-any') {
    // Only the first Require section on the way, nothing in effect before it, and before it in the
    // rewrite at most the request's own T(C) (its X had no Require and nothing before it).
    // Satisfy All everywhere: AuthMerging And (T ∧ Zy). Satisfy Any with host rules that let
    // everyone in (the "open this up" idiom): X becomes `Require all granted` and AuthMerging Or
    // keeps it open (granted ∨ Zy), while requests with no X still get Zy alone.
    // 'b-any' tries the same where a Require was in effect before Y too: AuthMerging joins it to
    // Y's lines where Y used to replace it, which the check may still find the same (Y repeats
    // it, or the points where it differs cannot occur).
    if (form === 'b' && (somethingBefore || !firstRequire)) return null;
    if (form === 'b-any' && !somethingBefore && firstRequire) return null;
    let allS = true;
    let openAny = true;
    for (const x of xs) {
      if (!x) continue;
      if (x.authz?.root) return null;
      const xf = xForms.get(x);
      if (xf && xf !== 'off') return null;
      for (const k of classesOf(x)) {
        if (k.satisfyAny) allS = false;
        if (!k.satisfyAny || !isGranted(verdictBlock(k.order, k.allow, k.deny))) openAny = false;
      }
    }
    if (allS) return { scope: y, drop: [], moveOwn: false, block: null, merging: 'And' };
    if (openAny) return { scope: y, drop: [], moveOwn: false, block: null, merging: 'Or' };
    return null;
  }
  if (xs.size !== 1) return null;
  const x = [...xs][0];
  if (!x) return null;
  const classes = classesOf(x, leafMethods(y));
  const merging = y.authz?.merging ?? 'off';
  if (somethingBefore && nothingBefore) return null;
  if (!ownR(doc, y).length) return null;
  const block = perClass(classes, (k) => {
    const t = verdictBlock(k.order, k.allow, k.deny);
    const own = ownR(doc, y, k.methods[0]);
    if (own.length) return k.satisfyAny ? rAny([t, ...own]) : rAll([t, orR(own)]);
    // Y's lines do not reach this method: with Off under Satisfy All, Y erased the tree and C
    // still applied (T); otherwise Y stays out of the way.
    return !k.satisfyAny && merging === 'off' ? t : EMPTY;
  });
  if (!block) return null;
  const e: ScopeEdit = { scope: y, drop: [], moveOwn: true, block };
  if (!somethingBefore && merging === 'or') e.merging = null;
  return e;
}

/** The copy form (§8.4): the last section with access config takes the whole tree, Off. */
function copyForm(doc: ConfigDocument, f: GroupFacts): Candidate | null {
  const edits = new Map<Scope, ScopeEdit>();
  const lastOf = new Map<Scope, PointInfo[]>();
  for (const i of f.infos) {
    let last: Scope | null = null;
    for (const a of i.applied) if (a.scope.compat || a.scope.authz) last = a.scope;
    if (!last || !i.x) continue;
    const list = lastOf.get(last) ?? [];
    list.push(i);
    lastOf.set(last, list);
  }
  for (const [l, infos] of lastOf) {
    const st = infos.map((i) => mergeApplied(i.applied));
    const xs = new Set(infos.map((i) => i.x));
    const zk = new Set(st.map((s) => treeKey(s.authz.tree)));
    if (xs.size !== 1 || zk.size !== 1) return null;
    const x = [...xs][0]!;
    const Z = st[0].authz.tree;
    const classes = classesOf(x, treeMethods(Z));
    const single = !(Z && treeUsesLimits(Z));
    const block = perClass(classes, (k) => {
      const t = verdictBlock(k.order, k.allow, k.deny);
      const ZR = Z ? (single ? treeR(Z) : treeForMethod(Z, k.methods[0])) : null;
      if (!k.satisfyAny) return ZR ? rAll([t, ZR]) : t;
      return ZR ? rAny([t, ZR]) : GRANTED;
    });
    if (!block) return null;
    edits.set(l, { scope: l, drop: l.compat?.directives ?? [], moveOwn: !!l.authz?.root, block, merging: l.authz?.merging && l.authz.merging !== 'off' ? null : undefined });
  }
  for (const x of f.compat) {
    if (!edits.has(x)) edits.set(x, { scope: x, drop: x.compat!.directives, moveOwn: false, block: null });
  }
  return { name: 'copy', edits };
}

function buildCandidates(doc: ConfigDocument, f: GroupFacts): Candidate[] {
  const out = candidatesWith(doc, f, false);
  // An AuthType with no Require anywhere gives 500s that only `AuthType None` + valid-user keep:
  // the sections of host rules deciding the requests where that happens.
  const where = new Set<Scope>();
  for (const i of f.infos) {
    if (!i.x) continue;
    const st = mergeApplied(i.applied);
    if (!st.authz.tree && st.authType && st.authType.args[0]?.value.toLowerCase() !== 'none') where.add(i.x);
  }
  if (where.size) {
    out.push(...candidatesWith(doc, f, true).filter((c) => c.name !== 'copy').map((c) => ({ ...c, name: c.name + '+authnone' })));
    // The same, with `AuthType None` only in those sections: another section of the group with an
    // AuthType and a Require of its own keeps its AuthType (its 401s).
    if (where.size < f.compat.length) out.push(...candidatesWith(doc, f, where).filter((c) => c.name !== 'copy').map((c) => ({ ...c, name: c.name + '+authnone-where-needed' })));
  }
  // Last, each form with the access lines that only a server without mod_access_compat reads
  // (`<IfModule !mod_access_compat.c>`) taken out of the sections it edits: the original never
  // read them, and once the module goes they are read beside the rewrite (a 2.4 half that says
  // otherwise than the host rules, `Require all granted` beside `Deny from 127.0.0.2`).
  const variants: Candidate[] = [];
  for (const c of out) {
    let changed = false;
    const edits = new Map<Scope, ScopeEdit>();
    for (const [sc, e] of c.edits) {
      const extra = readOnlyWithoutCompat(sc);
      if (extra.length) changed = true;
      edits.set(sc, extra.length ? { ...e, drop: [...e.drop, ...(extra as DirectiveNode[])] } : e);
    }
    if (changed) variants.push({ name: c.name + '-without-2.4-branch', edits });
  }
  out.push(...variants);
  return out;
}

/**
 * The access lines (and Require containers) of a scope's section that only a server without
 * mod_access_compat reads: those in `<IfModule !mod_access_compat.c>` and the like, directly in
 * the section or in wrappers inside it (not in nested sections of their own).
 */
function readOnlyWithoutCompat(sc: Scope): Array<DirectiveNode | SectionNode> {
  const out: Array<DirectiveNode | SectionNode> = [];
  if (!sc.section) return out;
  const onlyWithout = (n: { parent: SectionNode | null }) => {
    const r = readersInside(n.parent);
    return r.has('httpd24') && !r.has('httpd24compat');
  };
  const walk = (sec: SectionNode, depth: number): void => {
    if (depth > 64) return;
    for (const ch of sec.children) {
      if (ch.type === 'directive') {
        if (isAccessKey(ch.key) && onlyWithout(ch)) out.push(ch);
      } else if (ch.type === 'section') {
        if (CONTAINER_KEYS.has(ch.key)) {
          if (onlyWithout(ch)) out.push(ch);
        } else if (WRAPPER_KEYS.has(ch.key)) walk(ch, depth + 1);
      }
    }
  };
  walk(sc.section, 0);
  return out;
}
const CONTAINER_KEYS = new Set(['requireall', 'requireany', 'requirenone']);
const WRAPPER_KEYS = new Set(['ifmodule', 'ifdefine', 'ifversion', 'iffile', 'ifdirective', 'ifsection', 'limit', 'limitexcept']);

/**
 * The candidate forms of a group. `authNone`: which sections of host rules get `AuthType None` with
 * `Require valid-user` where they have no Require of their own (see xEdit): none, all, or those
 * where an AuthType with no Require answers 500 (buildCandidates).
 */
function candidatesWith(doc: ConfigDocument, f: GroupFacts, authNone: boolean | ReadonlySet<Scope>): Candidate[] {
  const none = (x: Scope): boolean => (typeof authNone === 'boolean' ? authNone : authNone.has(x));
  const out: Candidate[] = [];
  // 0. With keepInherited: every section of host rules keeps what is in force before it, whatever
  // that is (`AuthMerging And`/`Or`), unless its own Require replaced it anyway.
  if (f.keepInherited) {
    const c = formEverywhere(doc, f, none, 'inherit', (x) => (x.authz?.root && (x.authz.merging ?? 'off') === 'off' ? ['off'] : ['merge', 'written']), ['b', 'w']);
    if (c) out.push(c);
  }
  // 1. The forms chosen by §8.4's rules; then, when some X was given Off only because what was in
  // force before it lets everyone in at the points seen, the same with AuthMerging there: what is in
  // force before X may differ where the points cannot tell (an <IfDefine> around Debian's
  // serve-cgi-bin.conf: `Require all granted` when it holds, `<Directory />`'s denial when not), and
  // `AuthMerging And` keeps whichever it is, as the host rules that let everyone in did.
  let grantedOff = false;
  for (const preferMerge of [false, true]) {
    if (preferMerge && !grantedOff) break;
    const xForms = new Map<Scope, XForm>();
    // Sections whose tree the rewrite changes: compat sections that decide some request (one that
    // decides none just loses its compat lines), and the later Require sections edited below.
    const edited = new Set<Scope>(f.compat.filter((x) => f.infos.some((i) => i.x === x)));
    const edits = new Map<Scope, ScopeEdit>();
    for (const y of f.ys) {
      const yb = yEdit(doc, f, y, 'b', xForms);
      const e = yb ?? yEdit(doc, f, y, 'w', xForms);
      if (e) {
        edits.set(y, e);
        edited.add(y);
      }
    }
    let ok = true;
    for (const x of f.compat) {
      const pts = f.infos.filter((i) => i.x === x);
      const pEmpty = pts.every((i) => !i.beforeX!.authz.tree);
      const hasOwn = !!x.authz?.root;
      const merging = x.authz?.merging ?? 'off';
      const pSame = pts.every((i) => {
        const idx = i.applied.findIndex((a) => a.scope === x);
        return i.applied.slice(0, idx).every((a) => !edited.has(a.scope));
      });
      // What was in force before X lets everyone in (Debian's `<Directory /usr/share>`): T says
      // alone what T ∧ P says, without an AuthMerging line.
      const pGranted = !pEmpty && !hasOwn && pts.every((i) => !i.beforeX!.authz.tree || treeIsGranted(i.beforeX!.authz.tree));
      let form: XForm;
      if (pEmpty || (hasOwn && merging === 'off')) form = 'off';
      else if (pGranted && !(preferMerge && pSame)) {
        form = 'off';
        if (pSame) grantedOff = true;
      } else if (pSame) form = 'merge';
      else form = 'written';
      let e = xEdit(doc, f, x, form, none(x));
      if (!e && form === 'merge') e = xEdit(doc, f, x, (form = 'written'), none(x));
      // What was in force before X differs between requests, so it cannot be written out; an
      // edited section before X may still leave it as it was (Debian's `<Directory /usr/share>`
      // granting, a rewritten section granting too): AuthMerging keeps it, and the check says
      // whether it was left as it was.
      if (!e && form === 'written' && !pSame) e = xEdit(doc, f, x, (form = 'merge'), none(x));
      if (!e) {
        ok = false;
        break;
      }
      xForms.set(x, form);
      edits.set(x, e);
    }
    if (ok) out.push({ name: preferMerge ? 'spec-merge' : 'spec', edits });
    // The same with AuthMerging on the later Require sections where a Require came before them.
    if (ok && f.ys.some((y) => !edits.has(y))) {
      const loose = new Map(edits);
      const newly = new Set<Scope>();
      for (const y of f.ys) {
        if (edits.has(y)) continue;
        const e = yEdit(doc, f, y, 'b-any', xForms);
        if (e) {
          loose.set(y, e);
          newly.add(y);
        }
      }
      if (newly.size) {
        // An X that kept what was in force before it ('merge') writes it out when a Y before it changed.
        let ok2 = true;
        for (const x of f.compat) {
          if (xForms.get(x) !== 'merge') continue;
          const pSame = f.infos
            .filter((i) => i.x === x)
            .every((i) => i.applied.slice(0, i.applied.findIndex((a) => a.scope === x)).every((a) => !newly.has(a.scope)));
          if (pSame) continue;
          const e = xEdit(doc, f, x, 'written', none(x));
          if (!e) {
            ok2 = false;
            break;
          }
          loose.set(x, e);
        }
        if (ok2) out.push({ name: preferMerge ? 'spec-merge-merging' : 'spec-merging', edits: loose });
      }
    }
  }
  // 2. Off everywhere with P written out, T(C) copied into the later Require sections.
  const written = formEverywhere(doc, f, none, 'written', (x) => (f.infos.every((i) => i.x !== x || !i.beforeX!.authz.tree) ? ['off'] : ['written']), ['w']);
  if (written) out.push(written);
  // 3. The copy form.
  const c = copyForm(doc, f);
  if (c) out.push(c);
  // 4. The first form with the later Require sections that no form above could write (see yAcrossClosed).
  const spec = out.find((x) => x.name === 'spec');
  if (spec) {
    const edits = new Map(spec.edits);
    for (const y of f.ys) {
      if (edits.has(y)) continue;
      const e = yAcrossClosed(doc, f, y);
      if (e) edits.set(y, e);
    }
    if (edits.size > spec.edits.size) out.push({ name: 'spec-and-closed', edits });
  }
  // Each form again, just before it, with `AuthMerging And` left out where a section's new block
  // is `Require all denied` alone: refusing everyone, it answers alike whatever it inherits (a
  // package's `Deny from all` under a directory with `Require local`). The check says whether it holds.
  //
  // And each, just before it, with the later Require sections left as they are where the form only
  // gave them `AuthMerging And`: such a section replaced every Require before it in the original,
  // so untouched it still does, whatever the rest of the configuration has there (a `<Location />`
  // with `Require valid-user` over a vhost's `<Directory>` whose host rules let everyone in: with
  // `AuthMerging And` it would also take in what the server config requires of directories the file
  // does not show, `<Directory />`'s `Require all denied` under an Alias). The check says whether it holds.
  return out.flatMap((c) => {
    const alone = deniedAlone(c);
    return (alone ? [alone, c] : [c]).flatMap((v) => {
      const left = ysLeft(v, f);
      return left ? [left, v] : [v];
    });
  });
}

/** `c` without the edits that only give a later Require section `AuthMerging And`, or null when it has none. */
function ysLeft(c: Candidate, f: GroupFacts): Candidate | null {
  let edits: Map<Scope, ScopeEdit> | null = null;
  for (const [s, e] of c.edits) {
    if (!f.ys.includes(s) || e.merging !== 'And' || e.drop.length || e.moveOwn || e.block !== null || e.extra?.length || s.authz?.mergingDirective) continue;
    edits ??= new Map(c.edits);
    edits.delete(s);
  }
  return edits ? { name: `${c.name}-ys-left`, edits } : null;
}

function deniedAlone(c: Candidate): Candidate | null {
  let edits: Map<Scope, ScopeEdit> | null = null;
  for (const [s, e] of c.edits) {
    if (e.merging !== 'And' || e.extra?.length || s.authz?.root || s.authz?.mergingDirective || e.block?.length !== 1 || !isDenied(e.block[0])) continue;
    edits ??= new Map(c.edits);
    edits.set(s, { ...e, merging: undefined });
  }
  return edits ? { name: `${c.name}-denied-alone`, edits } : null;
}

/**
 * One candidate where each section of host rules takes the first of `formsOf(x)` that can be
 * written (null when none can, for some section), and each later Require section the first of
 * `yForms` that can.
 */
function formEverywhere(doc: ConfigDocument, f: GroupFacts, none: (x: Scope) => boolean, name: string, formsOf: (x: Scope) => readonly XForm[], yForms: readonly YForm[]): Candidate | null {
  const xForms = new Map<Scope, XForm>();
  const edits = new Map<Scope, ScopeEdit>();
  for (const x of f.compat) {
    let e: ScopeEdit | null = null;
    for (const form of formsOf(x)) {
      e = xEdit(doc, f, x, form, none(x));
      if (e) {
        xForms.set(x, form);
        break;
      }
    }
    if (!e) return null;
    edits.set(x, e);
  }
  for (const y of f.ys) {
    for (const form of yForms) {
      const e = yEdit(doc, f, y, form, xForms);
      if (e) {
        edits.set(y, e);
        break;
      }
    }
  }
  return { name, edits };
}

/** The last section with host rules before `y` at a point, or null. */
function compatBefore(i: PointInfo, y: Scope): Scope | null {
  let x: Scope | null = null;
  for (const a of i.applied) {
    if (a.scope === y) break;
    if (a.scope.compat) x = a.scope;
  }
  return x;
}

/** Host rules that refuse everyone under `Satisfy All`, for every method (`<Files ~ "^\.ht">`'s `Deny from all`). */
function refusesEveryone(x: Scope): boolean {
  return classesOf(x).every((k) => !k.satisfyAny && isDenied(verdictBlock(k.order, k.allow, k.deny)));
}

/**
 * A later Require section `y` that follows the host rules of several sections, all but one of
 * which refuse everyone: a directory's `Satisfy Any` with an address, and Debian's and Red Hat's
 * `<Files ~ "^\.ht">` with `Deny from all`, before a `<Location>` with `Require valid-user`.
 * Neither form W (one T(C) to copy in) nor B (nothing copied) fits. The other section's T(C) is
 * copied in as W does, with `AuthMerging And`: where a section that refuses everyone applied, its
 * rewrite (`Require all denied`) still refuses through the And. The check says whether it holds.
 */
function yAcrossClosed(doc: ConfigDocument, f: GroupFacts, y: Scope): ScopeEdit | null {
  const reaching = f.infos.filter((i) => i.applied.some((a) => a.scope === y));
  const xs = new Set(reaching.map((i) => compatBefore(i, y)));
  if (xs.size < 2) return null;
  const open = [...xs].filter((x) => !x || !refusesEveryone(x));
  if (open.length !== 1 || !open[0]) return null;
  const e = yEdit(doc, { ...f, infos: f.infos.filter((i) => !i.applied.some((a) => a.scope === y) || compatBefore(i, y) === open[0]) }, y, 'w', new Map());
  return e ? { ...e, merging: 'And' } : null;
}

// ---------------------------------------------------------------------------------------------
// The check

interface CheckResult {
  ok: boolean;
  why?: string;
  /** The check stopped at a limit (no later candidate of the group would fare better). */
  limit?: boolean;
}

/**
 * Models of the rewritten text are built once and shared: the check needs the text read with
 * mod_access_compat (does any 2.2 rule remain?) and, when none remains, read by plain 2.4.
 */
interface Rewritten {
  doc: ConfigDocument;
  compat?: AccessModel;
  h24?: AccessModel;
  /** The truth of unsettled tests the original was read with (see checkWorlds). */
  assume?: (key: string) => boolean | undefined;
}

/** How far one check may go. */
interface CheckLimits {
  /** The most (request location × client class) evaluations. */
  budget: number;
  /** The most client classes one set may hold. */
  clientLimit: number;
  /** Skip the shared set (see PlanOptions.clientsPerPoint). */
  perPoint?: boolean;
}

/** What the original's server does at a point: the same for every candidate a group tries. */
interface OriginalSide {
  model: AccessModel;
  applied: Applied[];
  state: MergedState | null;
}

const ORIGINAL_SIDE = new WeakMap<Point, OriginalSide>();

function originalSide(model: AccessModel, pt: Point): OriginalSide {
  let side = ORIGINAL_SIDE.get(pt);
  if (!side || side.model !== model) {
    side = { model, applied: appliedScopes(model, pt.test, true, selectedScopes(model, pt)), state: null };
    ORIGINAL_SIDE.set(pt, side);
  }
  return side;
}

/**
 * Compare the original and the rewrite at every point, for every client class that matters there.
 *
 * The client classes come from the address, host, environment, user and method tokens of the
 * sections that apply. One set over every section that applies at some point is the cheapest
 * when it is small; when points × classes passes the budget (a file whose `<Directory />` joins
 * hundreds of virtual hosts into one group, each with its own networks), each point gets the
 * classes of the sections that apply at that point alone. Both ways are exact: what a request
 * gets depends only on the sections that apply to it, and two clients in the same class for those
 * sections' tokens get the same answer. When even the one set has too many classes, the check
 * stops there (a point that reads most of those sections would need as many).
 */
function checkCandidate(original: AccessModel, rw: Rewritten, ctx: FileContext, points: Point[], limits: CheckLimits): CheckResult {
  const doc2 = rw.doc;
  const assume = rw.assume ? { assume: rw.assume } : {};
  const stillCompat = (rw.compat ??= buildModel(doc2, ctx, { reader: 'httpd24compat', ...assume }));
  const reader = stillCompat.scopes.some((s) => s.compat) ? 'httpd24compat' : 'httpd24';
  const m2 = reader === 'httpd24' ? (rw.h24 ??= buildModel(doc2, ctx, { reader, ...assume })) : stillCompat;
  if (m2.scopes.length !== original.scopes.length) return { ok: false, why: 'the rewrite changes the section structure' };
  const newProblems = m2.problems.filter((p) => p.kind === 'invalid-require' && !original.problems.some((q) => q.message === p.message));
  if (newProblems.length) return { ok: false, why: `the rewrite would not start: ${newProblems[0].message}` };
  const pairs = points.map((pt) => {
    const a1 = originalSide(original, pt).applied;
    const a2 = appliedScopes(m2, (s) => pt.test(original.scopes[s.index]), true);
    return { pt, a1, a2 };
  });
  const scopesOf = (list: Applied[]) => list.map((a) => a.scope);
  // One set of classes for every point, when that is small enough.
  const union1 = new Set<Scope>();
  const union2 = new Set<Scope>();
  for (const p of pairs) {
    for (const a of p.a1) union1.add(a.scope);
    for (const a of p.a2) union2.add(a.scope);
  }
  const shared: ClientSet = limits.perPoint ? { clients: [], truncated: true, unknownKeys: [] } : clientsFor([original, m2], [[...union1], [...union2]], limits.clientLimit);
  let perPoint: Array<Client[]>;
  if (!limits.perPoint && shared.truncated) {
    // Too many classes over all the sections: a point that reads most of them would fare no
    // better, and working that out point by point costs the same large set again and again.
    return {
      ok: false,
      why: shared.unknownKeys.length > 4 ? `the outcome depends on ${shared.unknownKeys.length} Require lines the editor cannot evaluate` : 'there are too many client classes to check',
      limit: true,
    };
  }
  if (!limits.perPoint && shared.clients.length * pairs.length <= limits.budget) {
    perPoint = pairs.map(() => shared.clients);
  } else {
    // Classes per point (points selecting the same sections share them).
    const bySig = new Map<string, ClientSet>();
    perPoint = [];
    let total = 0;
    for (const p of pairs) {
      const sig = p.a1.map((a) => a.scope.index).join(',') + '|' + p.a2.map((a) => a.scope.index).join(',');
      let cs = bySig.get(sig);
      if (!cs) {
        cs = clientsFor([original, m2], [scopesOf(p.a1), scopesOf(p.a2)], limits.clientLimit);
        bySig.set(sig, cs);
      }
      if (cs.truncated) {
        return {
          ok: false,
          why: cs.unknownKeys.length > 4 ? `the outcome depends on ${cs.unknownKeys.length} Require lines the editor cannot evaluate` : 'there are too many client classes to check',
          limit: true,
        };
      }
      total += cs.clients.length;
      // Stop as soon as the budget is passed: the points left could each cost as much again.
      if (total > limits.budget) return { ok: false, why: `checking it would take more than ${limits.budget} evaluations, more than the editor allows itself`, limit: true };
      perPoint.push(cs.clients);
    }
  }
  for (let i = 0; i < pairs.length; i++) {
    const { pt, a2 } = pairs[i];
    const side = originalSide(original, pt);
    const s1 = (side.state ??= mergeApplied(side.applied));
    const s2 = mergeApplied(a2);
    for (const c of perPoint[i]) {
      const e1 = evaluateState(s1, c);
      const e2 = evaluateState(s2, c);
      if (e1.status === null || e2.status === null) {
        return { ok: false, why: `the outcome for ${describeClient(c)} at ${pt.label} cannot be worked out from this file` };
      }
      if (e1.status !== e2.status) {
        return { ok: false, why: `${describeClient(c)} at ${pt.label} would get ${e2.status} instead of ${e1.status}` };
      }
    }
  }
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------
// Checking on a projection

/** A group as read from a projection of the file: its model and the request points of the group's scopes in it. */
interface View {
  proj: Projection;
  model: AccessModel;
  points: PointSet;
}

/**
 * The projection of the file for `group` and its reading, or null when there is none or it does
 * not hold the group's sections as the whole file does (then the whole file is checked).
 */
function viewFor(model: AccessModel, group: Scope[], ctx: FileContext, limit?: number, keptWhole: readonly Scope[] = []): View | null {
  // (Sections kept whole besides the group's are copied as they are; the points are the group's.)
  const proj = projectForGroup(model, keptWhole.length ? [...group, ...keptWhole] : group);
  if (!proj) return null;
  const doc = parse(proj.text);
  const pm = buildModel(doc, ctx, { reader: model.reader });
  // (Its Listen lines and hosts are not all the file's: the whole file's answer, where every host was kept.)
  const hosts = (m: AccessModel) => m.scopes.reduce((n, s) => n + (s.kind === 'virtualhost' ? 1 : 0), 0);
  pm.mainUnreachable = hosts(pm) === hosts(model) && mainServerUnreachable(model);
  if (model.knownDirectories) pm.knownDirectories = model.knownDirectories;
  const byOrigin = sectionsByOrigin(proj, doc);
  const mapped: Scope[] = [];
  for (const s of group) {
    const sec = byOrigin.get(s.section!.open.lineStart);
    const s2 = sec ? pm.scopeOfSection.get(sec) : undefined;
    if (!s2 || s2.kind !== s.kind || s2.pattern !== s.pattern || s2.directives.length !== s.directives.length) return null;
    mapped.push(s2);
  }
  const points = pointsFor(pm, mapped, limit);
  if (points.truncated) return null;
  return { proj, model: pm, points };
}

/** What a check reads: a model of the file (or of its projection), the request points in it, and the rewritten text. */
interface Reading {
  model: AccessModel;
  points: Point[];
  text: string;
}

/** What a candidate's check reads on the view: the rewritten projection, or null to read the whole file. */
/**
 * `text` written about a projection (`line 12` of the projected text), with each line number made
 * the original file's: the points and their labels are the projection's, the user reads the file.
 */
function linesOfOriginal(text: string, proj: Projection, doc: ConfigDocument): string {
  if (!/\bline \d/.test(text)) return text;
  const starts = [0];
  for (let i = proj.text.indexOf('\n'); i >= 0; i = proj.text.indexOf('\n', i + 1)) starts.push(i + 1);
  const ps = proj.pieces;
  return text.replace(/\bline (\d+)\b/g, (whole, n: string) => {
    const at = starts[Number(n) - 1];
    if (at === undefined) return whole;
    // The kept run the line starts in (a line that starts where one run ends starts the next).
    for (let i = 0; i < ps.length; i += 3) {
      if (ps[i + 2] <= at && at < ps[i + 2] + (ps[i + 1] - ps[i])) return `line ${physicalLine(doc, ps[i] + (at - ps[i + 2])) + 1}`;
    }
    return whole;
  });
}

function onView(view: View | null, edits: readonly OffsetEdit[]): Reading | null {
  if (!view) return null;
  const moved = projectEdits(view.proj, edits);
  if (!moved) return null;
  let text: string;
  try {
    text = applyEdits(view.proj.text, moved);
  } catch {
    return null;
  }
  return { model: view.model, points: view.points.points, text };
}

// ---------------------------------------------------------------------------------------------
// The plan

/**
 * The scopes holding lines that the original's model cannot account for: access lines that only
 * the server without mod_access_compat reads (`<IfModule !mod_access_compat.c>`), and auth
 * settings or SetEnvIf lines that only the server with it reads. The original's model, which
 * makes the groups and the request points, holds nothing of the first kind, and the second kind
 * may sit in a section outside every group: the request points of a group they overlap are made
 * with them too, and its check reads the whole rewritten file. (Host rules and Require lines that
 * only the original reads are in the group's sections, and the check reads them there.)
 */
function scopesReadDifferently(doc: ConfigDocument, model: AccessModel): Scope[] {
  const out = new Set<Scope>();
  for (let ix = 0; ix < doc.directives.length; ix++) {
    const d = doc.directives[ix];
    if (!d.parent || !isAccessKey(d.key) || !readDependsOnCompat(d.parent)) continue;
    const onlyOriginal = readersInside(d.parent).has('httpd24compat');
    if (onlyOriginal && (COMPAT_OR_REQUIRE.test(d.key))) continue;
    let sc: Scope | undefined;
    for (let p: SectionNode | null = d.parent; p && !sc; p = p.parent) sc = model.scopeOfSection.get(p);
    out.add(sc ?? model.scopes[0]);
  }
  return [...out];
}
const COMPAT_OR_REQUIRE = /^(order|allow|deny|satisfy|require|authmerging)$/;

/** Names in AllowOverrideList that set access (Require and its containers, Auth*, host rules). */
const ACCESS_IN_LIST = /^<?(require|order|allow|deny|satisfy|auth)/i;

/**
 * The `<Directory>` sections whose `AllowOverride` (its last one) lets `.htaccess` files set access:
 * `All`, `AuthConfig` (Require, AuthType…) or `Limit` (host rules), or an `AllowOverrideList`
 * naming such a directive. With none set anywhere httpd still reads the files but refuses every
 * such line (500 before and after a rewrite alike), so those do not count.
 */
/** The directories of a configuration whose AllowOverride lets .htaccess files set access (see overrideDirs). */
export function openDirectories(doc: ConfigDocument): string[] {
  return [...new Set(overrideDirs(buildModel(doc, 'server')).map((s) => s.pattern))];
}

/**
 * Which of `dirs` (directories of other files of the configuration whose AllowOverride lets
 * .htaccess files set access: openDirectories) an exact rewrite depends on, as htaccessBelow does
 * for the file's own.
 */
export function openDirsTouching(sp: SectionPlan, dirs: readonly string[]): string[] {
  const touches = sp.exact?.touches ?? [];
  return dirs.filter((d) => {
    const s = dirScope(d);
    return touches.some((x) => scopesOverlap(x, s));
  });
}

/** A `<Directory>` of another file of the configuration, as a scope of its own (for overlap tests). */
function dirScope(pattern: string): Scope {
  return emptyScope('directory', null, null, false, pattern, -1);
}

function overrideDirs(model: AccessModel): Scope[] {
  return model.scopes.filter((s) => {
    if (s.kind !== 'directory' || s.regex) return false;
    let open = false;
    for (const d of s.directives) {
      if (d.key === 'allowoverride') open = d.args.some((a) => /^(all|authconfig|limit)$/i.test(a.value));
      else if (d.key === 'allowoverridelist') open = open || d.args.some((a) => ACCESS_IN_LIST.test(a.value));
    }
    return open;
  });
}

function groupsOf(model: AccessModel): Scope[][] {
  const act = model.scopes.filter(decidesAccess);
  // Union-find over indices (typed array, path halving): the pair loop below is quadratic in the
  // number of access sections, so each step must be cheap; pairs already grouped are skipped.
  const parent = new Int32Array(act.length);
  for (let i = 0; i < act.length; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  // Each scope's region looked up once, not twice a pair; two sections of different virtual hosts
  // never meet (regionsOverlap's first test), so those pairs are passed over before any lookup.
  const regions = act.map(cachedRegion);
  // Once every section is in one group no pair can change anything (a <Location> at the top level
  // meets every <Directory>: a large file is often one group after its first few sections).
  let groupCount = act.length;
  outer: for (let i = 0; i < act.length && groupCount > 1; i++) {
    const a = regions[i];
    // (i's root stays a root while j runs: a merge only ever hangs j's root under it.)
    const ri = find(i);
    for (let j = i + 1; j < act.length; j++) {
      const b = regions[j];
      if (a.vhost && b.vhost && a.vhost !== b.vhost) continue;
      const rj = find(j);
      if (ri === rj) continue;
      if (regionsOverlap(a, b)) {
        parent[rj] = ri;
        if (--groupCount === 1) break outer;
      }
    }
  }
  const groups = new Map<number, Scope[]>();
  for (let i = 0; i < act.length; i++) {
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(act[i]);
    else groups.set(r, [act[i]]);
  }
  return [...groups.values()].filter((g) => g.some((s) => s.compat));
}

function titleFor(edits: Map<Scope, ScopeEdit>, x: Scope): string {
  const e = edits.get(x);
  const others = [...edits.keys()].filter((s) => s !== x && (edits.get(s)!.block || edits.get(s)!.merging !== undefined || edits.get(s)!.drop.length));
  const what = e?.block?.length ? `\`${summary(orR(e.block)).slice(0, 120)}\`` : 'nothing (another section decides these requests)';
  const also = others.length ? ` (also updates ${others.map(scopeLabel).join(', ')})` : '';
  return `Replace the 2.2 host rules of ${scopeLabel(x)} with ${what}${also}`;
}

/** The most (request location × client class) pairs one candidate check may evaluate. */
const CHECK_BUDGET = 400_000;
/**
 * Characters of rewritten text one plan may re-read to check its candidates (each check parses
 * the rewritten file). A huge file stops getting exact fixes for its later groups rather than
 * stalling; those say why, and `apacheconf fix` on a smaller file gets them.
 */
const REREAD_BUDGET = 40_000_000;
/** The same for the checks that title the naive mappings (what each one changes). */
const NAIVE_REREAD_BUDGET = 10_000_000;
/**
 * Scopes the naive checks of one plan may look at (finding each section's group and where its
 * requests go, a few passes over the file's scopes each): a file of ten thousand sections stops
 * titling naive mappings after a few hundred instead of spending seconds on it.
 */
const NAIVE_SCOPE_BUDGET = 12_000_000;

const planCache = new WeakMap<ConfigDocument, Map<string, MigrationPlan>>();

/**
 * The migration plan of a file. Plans are cached per parsed document (the rules that use it run
 * on the same tree), so callers must treat the result as read-only.
 */
export function planMigration(doc: ConfigDocument, ctx: FileContext, options: PlanOptions = {}): MigrationPlan {
  const key = `${ctx}|${options.mode ?? 'preserve'}|${options.unchecked ? 1 : 0}|${options.clientsPerPoint ? 1 : 0}|${options.wholeFile ? 1 : 0}|${options.exactOnly ? 1 : 0}|${options.directories?.join('\u0000') ?? ''}|${options.keepLines?.join(',') ?? ''}|${options.keepInherited ? 1 : 0}`;
  let byKey = planCache.get(doc);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const plan = computePlan(doc, ctx, options);
  if (!byKey) planCache.set(doc, (byKey = new Map()));
  byKey.set(key, plan);
  return plan;
}

function codeLineText(doc: ConfigDocument, d: DirectiveNode): string {
  const t = doc.text.slice(d.start, d.end).replace(/\s+/g, ' ');
  return t.length > 60 ? t.slice(0, 57) + '…' : t;
}

/** Directives whose module checks requests in the access phase, beside mod_access_compat's host rules. */
const OTHER_ACCESS_CHECKERS = new Set(['allowmethods', 'sslrequiressl', 'sslrequire']);

/** Parse errors after which the tree's sections may not be the ones the author meant. */
const STRUCTURAL_ERRORS = new Set(['unclosed-section', 'stray-close', 'mismatched-close', 'missing-gt', 'empty-section-name']);

function computePlan(doc: ConfigDocument, ctx: FileContext, options: PlanOptions): MigrationPlan {
  const model = buildModel(doc, ctx);
  if (options.directories?.length) model.knownDirectories = new Set(options.directories.map(normPath));
  const plan: MigrationPlan = { sections: [], notes: [] };
  const unit = indentUnit(doc);
  const byScope = new Map<Scope, SectionPlan>();
  for (const s of model.scopes) {
    if (!s.compat) continue;
    const sp: SectionPlan = { section: s.section, compatDirectives: s.compat.directives };
    plan.sections.push(sp);
    byScope.set(s, sp);
  }
  let reread = 0;
  const splitScopes = scopesReadDifferently(doc, model);
  const openDirs = ctx === 'server' || ctx === 'vhost' ? overrideDirs(model) : [];
  // Section tags that do not pair up: httpd refuses the file, so there is no behaviour to keep, and
  // the tree's nesting is only a guess at what was meant. No rewrite is checked (which also keeps a
  // file of thousands of unclosed sections, each nested in the last, from costing minutes).
  const broken = doc.errors.find((e) => STRUCTURAL_ERRORS.has(e.code));
  // mod_macro's `Use` puts a macro's body in its place, with its parameters filled in: hosts,
  // sections and host rules this file does not show as httpd reads them.
  const use = broken ? undefined : doc.directives.find((d) => d.key === 'use');
  /**
   * Checks of the access phase other than the host rules (see the group loop) that httpd 2.4 reads,
   * each with the section it applies in (null: every request of the server).
   */
  const otherCheckers = doc.directives
    .filter((d) => OTHER_ACCESS_CHECKERS.has(d.key) && readersInside(d.parent).has('httpd24compat'))
    .map((d) => {
      let sc: Scope | undefined;
      for (let p: SectionNode | null = d.parent; p && !sc; p = p.parent) sc = model.scopeOfSection.get(p);
      return { d, scope: sc ?? null };
    });
  /** One of them that may check the same requests as the group, where the group has a Satisfy Any to let users past it. */
  const checkerFor = (group: readonly Scope[]): DirectiveNode | undefined => {
    if (!otherCheckers.length || !group.some((x) => x.compat?.satisfies.some((t) => t.any))) return undefined;
    return otherCheckers.find((c) => !c.scope || !c.scope.section || group.some((x) => x === c.scope || scopesOverlap(x, c.scope!)))?.d;
  };
  // Sections whose host rules stay (keepLines): every one of their compat lines is kept.
  const keep = options.keepLines?.length ? new Set(options.keepLines) : null;
  const kept = (s: Scope) => !!keep && !!s.compat && s.compat.directives.every((d) => keep.has(d.line));
  for (const s of model.scopes) if (kept(s)) byScope.get(s)!.reason = 'its host rules are left to the run of their own file.';
  for (const group of broken || use ? [] : groupsOf(model)) {
    const compat = group.filter((s) => s.compat && !kept(s));
    if (!compat.length) continue;
    const fail = (reason: string) => {
      for (const x of compat) byScope.get(x)!.reason = reason;
    };
    if (keep && compat.some((s) => s.compat!.directives.some((d) => keep.has(d.line)))) {
      fail('a section mixes lines that stay with lines to rewrite.');
      continue;
    }
    const bad = model.problems.find((p) => p.code !== 'provider-unknown' && (p.directive ? group.some((s) => s.directives.includes(p.directive!)) : group.some((s) => p.section && s.section && isInside(p.section, s.section))));
    if (bad) {
      fail(`httpd refuses a line of this configuration as written (${bad.message}); fix it first.`);
      continue;
    }
    // `Satisfy Any` lets a valid user past every check of the access phase, not only the host rules:
    // mod_allowmethods' and mod_ssl's too (httpd 2.4.71: `AllowMethods POST` answered a valid
    // user's GET with 200, the rewrite without Satisfy with 405). `Require` cannot say that.
    const otherChecker = checkerFor(group);
    if (otherChecker) {
      fail(`\`Satisfy Any\` here also lets a valid user past \`${otherChecker.name.value}\` (line ${physicalLine(doc, otherChecker.start) + 1}), which httpd checks in the same phase as the host rules; \`Require\` cannot say that, so the rewrite would refuse users the original lets in.`);
      continue;
    }
    // `env=` with no name never matches (`env=!` always does): a `Require env` line cannot say so,
    // and an empty word there ends httpd's reading of the line.
    const noName = compat.flatMap((x) => [...x.compat!.allow, ...x.compat!.deny]).find((e) => (e.token.kind === 'env' || e.token.kind === 'nenv') && e.token.name === '');
    if (noName) {
      fail(`\`${noName.token.raw}\` names no variable (it ${noName.token.kind === 'env' ? 'never matches' : 'matches every request'}); write the line without it first.`);
      continue;
    }
    if (ctx === 'htaccess' || ctx === 'directory') {
      fail(dirLevelReason(ctx, null));
      continue;
    }
    if (compat.some((x) => !x.section)) {
      fail(topLevelReason(doc, ctx));
      continue;
    }
    const tested = envNamesTested(doc);
    const wrapped = group.find((s) => s.directives.some((d) => isAccessKey(d.key) && inCondWrapper(d, s) && (!SETS_ENV.has(d.key) || setsTested(d, tested))));
    if (wrapped) {
      fail(`some access lines of ${scopeLabel(wrapped)} sit inside a conditional block (<IfModule>, <IfDefine>…), which a rewrite would have to split.`);
      continue;
    }
    // Sections with lines only one of the two servers reads (<IfModule !mod_access_compat.c>…):
    // the original's model holds nothing there, so the request points are made with them too, and
    // the whole rewritten file is read (a projection keeps only what the original's model sees).
    const split = splitScopes.filter((y) => !y.section || group.some((s) => s === y || scopesOverlap(s, y)));
    const extra = split.filter((y) => y.section && !group.includes(y));
    const ps = extra.length ? pointsFor(model, [...group, ...extra], undefined, extra) : pointsFor(model, group);
    if (ps.truncated) {
      fail('too many overlapping sections to check every combination of them.');
      continue;
    }
    const infos = ps.points.map((p) => pointInfo(model, p));
    const mixed = mixedTests(group, infos, settledByFile(doc), tested);
    if (mixed.length > MAX_WORLD_TESTS) {
      fail(`some of the sections that decide these requests sit inside ${mixed.length} tests httpd may or may not pass (${mixed[0].label}…) and others do not: too many ways to check.`);
      continue;
    }
    const ys = group.filter((s) => !s.compat && s.authz && infos.some((i) => i.after.includes(s)));
    const facts: GroupFacts = { model, infos, compat, ys, keepInherited: options.keepInherited };
    const candidates = withKeptLeftAlone(buildCandidates(doc, facts), keep, compat);
    let chosen: Candidate | null = null;
    let lastWhy = 'no rewrite form applies here.';
    // The check reads a projection of the file (projection.ts) when one can be made: the cost of
    // a check then depends on the group, not on the size of the file.
    let view: View | null | undefined;
    for (const cand of candidates) {
      if (keep && [...cand.edits.keys()].some((x) => kept(x))) continue;
      const edits: OffsetEdit[] = [];
      for (const e of cand.edits.values()) edits.push(...scopeEdits(doc, e, unit));
      if (keep && edits.some((e) => { const a = physicalLine(doc, e.start); const b = physicalLine(doc, Math.max(e.start, e.end - 1)); for (let k = a; k <= b; k++) if (keep.has(k)) return true; return false; })) continue;
      let text: string;
      try {
        text = applyEdits(doc.text, edits);
      } catch {
        lastWhy = 'the rewrite would need overlapping edits.';
        continue;
      }
      const lost = lostMethod(doc, edits);
      if (lost !== null) {
        lastWhy = `the rewrite drops the only \`<Limit>\` that names the method \`${lost}\`, which httpd does not know until such a line registers it: without it, httpd answers ${lost} requests with 501 instead of 405, in every section.`;
        continue;
      }
      if (options.unchecked) {
        chosen = cand;
        break;
      }
      if (view === undefined) {
        const closed = onlyGroupApplies(group, infos.map((i) => i.applied.map((a) => a.scope)));
        // (Hosts that reach a server-level directory of the group their own way are not in its projection.)
        view = closed && !options.wholeFile && !split.length && !reachedThroughOtherHosts(model, group) ? viewFor(model, group, ctx) : null;
        if (view) reread += view.proj.text.length;
      }
      const projected = onView(view, edits);
      const on = projected ?? { model, points: ps.points, text };
      // A reason read on the projection names its lines: told as the file's.
      const told = (why: string | undefined) => (projected && why ? linesOfOriginal(why, view!.proj, doc) : why);
      if (reread + on.text.length > REREAD_BUDGET) {
        lastWhy = 'not checked: this file has more access sections than one pass checks (split it into smaller files to get exact fixes for the rest).';
        break;
      }
      reread += on.text.length;
      const rw: Rewritten = { doc: parse(on.text) };
      const limits: CheckLimits = { budget: CHECK_BUDGET, clientLimit: 20000, perPoint: options.clientsPerPoint };
      let r = checkCandidate(on.model, rw, ctx, on.points, limits);
      if (r.ok && mixed.length) {
        // Sections under tests httpd may fail: the rewrite must hold in each way they can go.
        const worlds = checkWorlds(doc, text, ctx, group, extra, mixed, limits, reread, model.knownDirectories);
        reread = worlds.reread;
        r = worlds.result;
      }
      if (r.ok) {
        chosen = cand;
        break;
      }
      if (r.limit) {
        lastWhy = `${told(r.why)}.`;
        break;
      }
      lastWhy = `the candidate rewrite was checked and is not exact: ${told(r.why)}.`;
    }
    if (!chosen) {
      // Checked with host rules that stay (a .htaccess file below, spliced in): say which.
      // Those with host rules are left to their own run; the others (`Require` lines of a file with
      // no host rules, which no run rewrites) stay as they are for good.
      const stay = keep ? group.filter((x) => x.directives.some((d) => keep.has(d.line))) : [];
      const linesOf = (xs: Scope[]) => xs.map((x) => `line ${x.directives.find((d) => keep!.has(d.line))!.line + 1}`).join(', ');
      const later = stay.filter((x) => x.compat);
      if (later.length) {
        lastWhy = `${lastWhy.replace(/\.$/, '')}. It was checked with the lines that stay as they are for now (${linesOf(later)}), which set access for some of the same requests: no rewrite of this file alone keeps what httpd answers with them.`;
      } else if (stay.length) {
        lastWhy = `${lastWhy.replace(/\.$/, '')}. It was checked with lines of other files that no rewrite here changes (${linesOf(stay)}), which set access for some of the same requests.`;
      }
      fail(lastWhy);
      continue;
    }
    const edits: OffsetEdit[] = [];
    for (const e of chosen.edits.values()) edits.push(...scopeEdits(doc, e, unit));
    for (const x of compat) byScope.get(x)!.exact = { title: titleFor(chosen.edits, x), edits, touches: [...chosen.edits.keys()] };
    // The requests whose answers the rewrite may change pass through a section it edits.
    const below = openDirs.filter((d) => [...chosen!.edits.keys()].some((x) => scopesOverlap(x, d)));
    if (below.length) {
      const dirs = [...new Set(below.map((d) => d.pattern))];
      for (const x of compat) byScope.get(x)!.htaccessBelow = dirs;
    }
  }
  if (use) {
    for (const sp of plan.sections) sp.reason = `this file uses a macro (\`${codeLineText(doc, use)}\`, line ${physicalLine(doc, use.start) + 1}), which puts sections and host rules in its place that apacheconf does not expand; migrate the macro's body and check the result on the server.`;
  }
  if (broken) {
    const what = broken.message.replace(/\.$/, '');
    const where = /\(line \d+\)/.test(what) ? what : `line ${physicalLine(doc, broken.start) + 1}: ${what}`;
    for (const sp of plan.sections) sp.reason = `httpd cannot read this file as it stands (${where}), so there is no behaviour to keep and the nesting of its sections is a guess; fix the section tags first.`;
  }
  if (options.exactOnly) return plan;
  plan.notes = accessNotes(doc, ctx, model);
  addNaive(doc, ctx, model, plan, byScope, unit, options, splitScopes);
  void options.mode;
  return plan;
}

const REGISTERING = new WeakMap<ConfigDocument, Map<string, SectionNode[]>>();

/** The `<Limit>`/`<LimitExcept>` tags of the file by each method they name that httpd does not know from the start. */
function registeringTags(doc: ConfigDocument): Map<string, SectionNode[]> {
  let named = REGISTERING.get(doc);
  if (named) return named;
  named = new Map();
  for (const s of doc.sections) {
    if (s.key !== 'limit' && s.key !== 'limitexcept') continue;
    for (const a of s.args) {
      if (BUILTIN_METHODS.has(a.value)) continue;
      const list = named.get(a.value);
      if (list) list.push(s);
      else named.set(a.value, [s]);
    }
  }
  REGISTERING.set(doc, named);
  return named;
}

/** The methods httpd knows from the start (http_protocol.c); HEAD counts as GET. */
const BUILTIN_METHODS = new Set([
  'GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK',
  'VERSION-CONTROL', 'CHECKOUT', 'UNCHECKOUT', 'CHECKIN', 'UPDATE', 'LABEL', 'REPORT', 'MKWORKSPACE', 'MKACTIVITY', 'BASELINE-CONTROL', 'MERGE',
]);

/**
 * A method only `<Limit>`/`<LimitExcept>` tags register (httpd adds a method it does not know when
 * it reads one, for the whole server) that the edits take away: every tag naming it falls in a
 * removed stretch and no new text names it in a tag. Null when none.
 */
function lostMethod(doc: ConfigDocument, edits: readonly OffsetEdit[]): string | null {
  for (const [m, tags] of registeringTags(doc)) {
    if (!tags.every((s) => edits.some((e) => e.start <= s.open.start && s.open.end <= e.end))) continue;
    const written = edits.some((e) => [...e.newText.matchAll(/<Limit(?:Except)?\b([^>\n]*)>/gi)].some((x) => x[1].split(/\s+/).includes(m)));
    if (!written) return m;
  }
  return null;
}

function isInside(inner: SectionNode, outer: SectionNode): boolean {
  for (let p: SectionNode | null = inner; p; p = p.parent) if (p === outer) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// The naive mapping

/** What most guides write: Allow → Require, Deny all → denied, ignoring Order subtleties and other sections. */
function naiveBlock(doc: ConfigDocument, x: Scope): R[] | null {
  const c = x.compat!;
  const allowTokens = c.allow.map((e) => e.token);
  const denyTokens = c.deny.map((e) => e.token);
  let t: R;
  if (allowTokens.some((k) => k.kind === 'all')) t = GRANTED;
  else if (allowTokens.length) t = verdictBlock('deny,allow', allowTokens, [{ kind: 'all', raw: 'all' }]);
  else if (denyTokens.some((k) => k.kind === 'all')) t = verdictBlock('deny,allow', [], denyTokens);
  else if (denyTokens.length) t = verdictBlock('deny,allow', [], denyTokens);
  else t = GRANTED;
  const own = x.authz?.root ? ownR(doc, x) : [];
  const any = c.satisfies.some((s) => s.any);
  if (!own.length) return topItems(t);
  // The section's own Require refusing everyone settles it under Satisfy All (and letting everyone
  // in, under Satisfy Any): the host rules' side would be a line that never changes the result.
  const ownTree = x.authz?.root ? treeR(x.authz.root) : null;
  if (ownTree && (any ? isGranted(ownTree) : isDenied(ownTree))) return topItems(own.length === 1 ? own[0] : orR(own));
  return topItems(any ? rAny([t, ...own]) : isGranted(t) ? orR(own) : rAll([t, orR(own)]));
}

/**
 * What the rewrite of a file read inside a directory needs from the rules that directory inherits
 * (rules this file does not show), besides no later section of the server config setting access
 * for its requests:
 * - `nothing`: it is exact whatever is inherited (the file has its own Require, or its host rules
 *   deny everyone under Satisfy All, or let everyone in under Satisfy Any);
 * - `require`: an inherited 2.4 Require (Satisfy Any with none in effect lets everyone in, §8.3);
 * - `require-or-no-authtype`: an inherited 2.4 Require, or no AuthType either (an AuthType with no
 *   Require answers 500 where the host rules pass, §8.3; the rewrite would answer 200).
 * Verified on httpd by test/httpd/htaccess-forms.test.ts.
 */
export type DirLevelNeeds = 'nothing' | 'require' | 'require-or-no-authtype';

/**
 * For a file read inside a directory (.htaccess, or a file included in <Directory>): the rewrite
 * that is exact when what is inherited is plain 2.4 Require (see DirLevelNeeds) — AuthMerging
 * And/Or with T(C) — offered as a non-preferred fix, since the inherited rules and AllowOverride
 * are not visible from here (§8.4 rule 3).
 */
function dirLevelForm(doc: ConfigDocument, x: Scope, unit: string): { title: string; edits: OffsetEdit[]; needs: DirLevelNeeds; merging?: 'And' | 'Or' } | null {
  const classes = classesOf(x);
  const anyS = classes.some((k) => k.satisfyAny);
  if (anyS && classes.some((k) => !k.satisfyAny)) return null;
  const hasOwn = !!x.authz?.root;
  const merging = x.authz?.merging ?? 'off';
  if (hasOwn && merging !== (anyS ? 'or' : 'and') && merging !== 'off') return null;
  // Whether some method's result depends on what is inherited.
  let inheritedMatters = false;
  const block = perClass(classes, (k) => {
    const t = verdictBlock(k.order, k.allow, k.deny);
    const own = ownR(doc, x, k.methods[0]);
    if (!hasOwn && !(k.satisfyAny ? isGranted(t) : isDenied(t))) inheritedMatters = true;
    if (!own.length) return hasOwn && merging === 'off' ? (k.satisfyAny ? GRANTED : t) : t;
    return k.satisfyAny ? rAny([t, ...own]) : rAll([t, orR(own)]);
  });
  if (!block) return null;
  const needs: DirLevelNeeds = !inheritedMatters ? 'nothing' : anyS ? 'require' : 'require-or-no-authtype';
  // Where what is inherited does not matter (everyone denied under Satisfy All, everyone let in
  // under Satisfy Any), the plain line says it: no AuthMerging.
  const setMerging = (hasOwn && merging === 'off') || (!hasOwn && needs === 'nothing') ? undefined : anyS ? 'Or' : 'And';
  const edits = scopeEdits(doc, { scope: x, drop: x.compat!.directives, moveOwn: hasOwn, block, merging: setMerging }, unit);
  return {
    title: `Rewrite as ${setMerging ? `\`AuthMerging ${setMerging}\` + ` : ''}\`${summary(orR(block)).slice(0, 100)}\` (check the server config first)`,
    edits,
    needs,
    merging: setMerging,
  };
}

/** The end of the reason a file read inside a directory gives when no rewrite form of its sections holds whatever it inherits. */
export const NO_DIR_FORM = 'No rewrite of these lines was found that is right whatever those are.';

/** Why a file read inside a directory gets no exact rewrite, and when the offered one is exact. */
function dirLevelReason(ctx: FileContext, needs: DirLevelNeeds | null): string {
  const where = ctx === 'htaccess' ? 'this .htaccess file' : 'this file (read inside a `<Directory>`)';
  const head = `${where} does not show what its directory inherits, nor what later sections of the server config add.`;
  if (needs === null) return `${head} ${NO_DIR_FORM}`;
  const inherited =
    needs === 'nothing'
      ? 'whatever 2.4 `Require` rules the directory inherits (once the server config, too, has no 2.2 lines left: while a parent still has `Satisfy Any` and host rules under mod_access_compat, deleting this file\'s `Satisfy` changes what they do)'
      : needs === 'require'
        ? 'when the directory inherits a 2.4 `Require` (with none, `Satisfy Any` lets everyone in today, and the rewrite would not)'
        : 'when the directory inherits a 2.4 `Require`, or no `AuthType` either (an `AuthType` without any `Require` answers 500 today where the host rules let a client through; the rewrite would answer 200)';
  const override = ctx === 'htaccess' ? ', and `AllowOverride` allows `AuthConfig` (with only `Limit`, the rewritten file answers 500)' : '';
  return `${head} The rewrite offered is right ${inherited}, provided no later section (a deeper \`<Directory>\`, a \`<DirectoryMatch>\`, \`<Files>\`, \`<Location>\` or \`<If>\`) sets access for these files${override}.`;
}

function addNaive(doc: ConfigDocument, ctx: FileContext, model: AccessModel, plan: MigrationPlan, byScope: Map<Scope, SectionPlan>, unit: string, options: PlanOptions, splitScopes: readonly Scope[]): void {
  const mode = options.mode ?? 'preserve';
  const perPoint = options.clientsPerPoint === true;
  const naiveReread = { left: NAIVE_REREAD_BUDGET };
  const naiveScopes = { left: NAIVE_SCOPE_BUDGET };
  const settled = settledByFile(doc);
  const tested = envNamesTested(doc);
  // A file read inside a directory: each compat section's form (dirLevelForm) is worked out for
  // that section alone. A form "decides alone" when it needs nothing from what comes before it and
  // sets no AuthMerging: for its requests it gives the original's answer whatever else is there.
  // X's form stands when each other section of the file with access lines leaves it alone: it
  // does not overlap X; or it comes after X (the file's top level comes before its sections: the
  // directory walk precedes the others) and its own form decides alone; or it comes before X and
  // X's form decides alone.
  const inDir = ctx === 'htaccess' || ctx === 'directory';
  const dirForms = new Map<Scope, ReturnType<typeof dirLevelForm>>();
  if (inDir) for (const x of byScope.keys()) dirForms.set(x, dirLevelForm(doc, x, unit));
  const decidesAlone = (f: ReturnType<typeof dirLevelForm> | undefined): boolean => !!f && f.needs === 'nothing' && !f.merging;
  const dirFormStands = (x: Scope, f: NonNullable<ReturnType<typeof dirLevelForm>>): boolean =>
    model.scopes.every((s) => {
      if (s === x || !(s.compat || s.authz?.root || s.authz?.merging)) return true;
      if (s.section && x.section && !scopesOverlap(s, x)) return true;
      const sAlone = !!s.compat && decidesAlone(dirForms.get(s));
      if (s.section && x.section) return sAlone && decidesAlone(f);
      return s.section ? sAlone : decidesAlone(f);
    });
  for (const [x, sp] of byScope) {
    // The naive check reads every test as holding (it is not repeated each way): lines under one stay as they are.
    if ([...x.compat!.directives, ...(x.authz?.directives ?? [])].some((d) => inCondWrapper(d, x, false))) continue;
    if (inDir && !sp.exact && !model.problems.some((p) => p.directive && x.directives.includes(p.directive))) {
      const f = dirForms.get(x) ?? null;
      if (f && dirFormStands(x, f)) {
        sp.reason = dirLevelReason(ctx, f.needs);
        sp.naive = { title: f.title, edits: f.edits, changes: sp.reason };
        sp.dirLevel = f.needs;
        continue;
      }
      sp.reason = dirLevelReason(ctx, null);
      if (!x.section) continue;
    } else if (!x.section) continue;
    if (mode === 'intent') {
      // What 2.2 did where 2.4 with mod_access_compat differs: Satisfy Any with no Require in effect.
      const classes = classesOf(x);
      const open = plan.notes.some((n) => n.kind === 'satisfy-any-open' && x.compat!.directives.some((d) => d.start === n.start));
      if (open) {
        const block = perClass(classes, (k) => verdictBlock(k.order, k.allow, k.deny));
        if (block) {
          sp.naive = {
            title: `Keep what httpd 2.2 did: \`${summary(orR(block)).slice(0, 100)}\``,
            edits: scopeEdits(doc, { scope: x, drop: x.compat!.directives, moveOwn: false, block }, unit),
            changes: 'httpd 2.2 refused (403) the clients these host rules refuse when no Require applied; httpd 2.4 with mod_access_compat lets them in. This rewrite keeps the 2.2 behaviour.',
          };
          continue;
        }
      }
    }
    const block = naiveBlock(doc, x);
    if (!block) continue;
    const edits = scopeEdits(doc, { scope: x, drop: x.compat!.directives, moveOwn: !!x.authz?.root, block }, unit);
    let text: string;
    try {
      text = applyEdits(doc.text, edits);
    } catch {
      continue;
    }
    if (sp.exact && sameRewrite(doc.text, sp.exact.edits, edits)) continue;
    // Each check re-reads the rewritten file, or its projection for x's group: past the budget the
    // naive fix is still offered (never as preferred), marked as not checked.
    let changes: { short: string; long: string } | null = NOT_CHECKED;
    // Lines only one of the two servers reads are not in the original's model: what the naive
    // rewrite changes cannot be worked out from it.
    const split = splitScopes.some((y) => !y.section || y === x || scopesOverlap(x, y));
    if (split) changes = NOT_CHECKED_SPLIT;
    else if (naiveReread.left >= 0 && naiveScopes.left >= 0) {
      naiveScopes.left -= 4 * model.scopes.length;
      const group = model.scopes.filter((s) => decidesAccess(s) && (s === x || scopesOverlap(s, x)));
      // Sections under tests httpd may fail: the naive check reads them all as holding.
      for (const g of group) naiveScopes.left -= g.directives.length;
      const full = mixedTests(group, [], settled, tested).length ? null : pointsFor(model, group, 512);
      if (full) naiveScopes.left -= (full.truncated ? 512 : full.points.length) * accessScopes(model).length;
      if (!full) changes = NOT_CHECKED_WORLDS;
      // Points too many to list: nothing to compare on, so the rewritten file is not read.
      else if (full.truncated) changes = TOO_MANY;
      else {
        const closed = !options.wholeFile && onlyGroupApplies(group, full.points.map((pt) => scopesThatApply(model, pt.test, true)));
        const view = closed && !reachedThroughOtherHosts(model, group) ? viewFor(model, group, ctx, 512) : null;
        const on = onView(view, edits);
        const cost = on ? view!.proj.text.length + on.text.length : text.length;
        if (naiveReread.left >= cost) {
          naiveReread.left -= cost;
          changes = naiveChanges(on ?? { model, points: full.points, text }, ctx, perPoint);
          if (on && changes) changes = { ...changes, short: linesOfOriginal(changes.short, view!.proj, doc), long: linesOfOriginal(changes.long, view!.proj, doc) };
        } else naiveReread.left = -1;
      }
    }
    if (changes === null) continue;
    sp.naive = {
      title: `Replace with \`${summary(orR(block)).slice(0, 100)}\` (naive mapping: ${changes.short})`,
      edits,
      changes: changes.long,
    };
  }
  void plan;
}

/**
 * Whether two sets of edits make the same text: outside the stretch they touch between them the
 * text is the original's either way, so only that stretch is rewritten and compared (comparing
 * the two whole texts costs the file's length for every section of a large file).
 */
function sameRewrite(text: string, a: readonly OffsetEdit[], b: readonly OffsetEdit[]): boolean {
  let lo = text.length;
  let hi = 0;
  for (const e of [...a, ...b]) {
    lo = Math.min(lo, e.start);
    hi = Math.max(hi, e.end);
  }
  if (lo > hi) return true;
  const part = text.slice(lo, hi);
  const shift = (es: readonly OffsetEdit[]) => es.map((e) => ({ start: e.start - lo, end: e.end - lo, newText: e.newText }));
  try {
    return applyEdits(part, shift(a)) === applyEdits(part, shift(b));
  } catch {
    return false;
  }
}

const NOT_CHECKED = { short: 'not checked', long: 'Not checked against the rest of this file: it has more access sections than one pass re-reads.' };
const TOO_MANY = { short: 'not checked', long: 'Not checked against the other sections of this file (too many combinations).' };
const NOT_CHECKED_WORLDS = {
  short: 'not checked',
  long: 'Not checked against the rest of this file: some of the sections it is compared with sit under a test httpd may or may not pass (<IfDefine>, <IfFile>, <IfModule>…).',
};
const NOT_CHECKED_SPLIT = {
  short: 'not checked',
  long: 'Not checked against the rest of this file: an overlapping section holds access lines that httpd reads only with mod_access_compat loaded, or only without it.',
};

/** What the naive rewrite of a section changes, read on the projection or on the whole file, at the given points. */
function naiveChanges(on: Reading, ctx: FileContext, perPoint: boolean): { short: string; long: string } | null {
  const { model } = on;
  const rw: Rewritten = { doc: parse(on.text) };
  const m2 = (rw.compat = buildModel(rw.doc, ctx, { reader: 'httpd24compat' }));
  if (m2.scopes.length !== model.scopes.length) return null;
  const bad = m2.problems.find((p) => p.kind === 'invalid-require' && !model.problems.some((q) => q.message === p.message));
  if (bad) return { short: 'httpd refuses it', long: `httpd would refuse to start: ${bad.message}` };
  const r = checkCandidate(model, rw, ctx, on.points, { budget: CHECK_BUDGET, clientLimit: 5000, perPoint });
  if (r.limit) return { short: 'not checked', long: `Not checked: ${r.why}.` };
  if (r.ok) return { short: 'same result here', long: 'Gives the same status for every request this file describes.' };
  return { short: 'changes who gets in', long: `Changes behaviour: ${r.why}.` };
}

/**
 * Whether `edits` leave every answer of `doc` the same, at the request points of the sections that
 * open in [from, to): the check the plan makes of its own rewrites, for a rewrite worked out
 * elsewhere (a .htaccess rewrite found for the virtual hosts, read by the main server too). Null
 * when it holds, else why not. It says no where the plan would not check: too many combinations,
 * sections under tests httpd may or may not pass, lines only one of the two servers reads.
 */
export function checkEditsAt(
  doc: ConfigDocument,
  ctx: FileContext,
  from: number,
  to: number,
  edits: readonly OffsetEdit[],
  directories: readonly string[] = [],
  /** Read the whole file even where a projection is sure (the tests compare both readings). */
  options: { wholeFile?: boolean } = {},
): string | null {
  // (The original's model is made once per file and directories: a file another file includes is
  // checked here once per section of host rules and main file, each time over the same text.)
  const model = checkedModel(doc, ctx, directories);
  let group = model.scopes.filter((s) => s.section && s.section.open.start >= from && s.section.open.start < to);
  if (!group.length) return 'no section of it is read there';
  let text: string;
  try {
    text = applyEdits(doc.text, edits);
  } catch {
    return 'the edits do not apply';
  }
  const split = splitOf(doc, model);
  let rw: ConfigDocument | undefined;
  // Lines only one of the two servers reads: the points below are the original's, which cannot
  // account for them. A rewrite that takes them all out (a `<IfModule !mod_access_compat.c>` half
  // the original never read) leaves none to account for.
  if (split.scopes && scopesReadDifferently((rw = parse(text)), buildModel(rw, ctx, { reader: 'httpd24compat' })).length) {
    return 'some lines are read by only one of the two servers';
  }
  // The span may hold sections with no access line that no edit touches (the test suite's
  // `<Location>`s of `ProxyPass` lines, each in its own `<IfModule mod_lbmethod_*.c>`, a virtual
  // host's dozens of `<Location>`s of handlers): whether a request reaches them changes no answer
  // in either file, as for the planner's groups (groupsOf), so they neither tell points apart nor
  // bring the tests around them to be read both ways.
  const touched = (s: Scope): boolean => edits.some((e) => e.start <= (s.section!.close?.end ?? doc.text.length) && e.end >= s.section!.open.start);
  const deciding = group.filter((s) => hasAccessEffect(s) || touched(s));
  if (deciding.length) group = deciding;
  const ps = pointsFor(model, group);
  if (ps.truncated) return 'there are too many overlapping sections to check every combination of them';
  const infos = ps.points.map((p) => pointInfo(model, p));
  const mixed = mixedTests(group, infos, settledByFile(doc), envNamesTested(doc));
  if (mixed.length > MAX_WORLD_TESTS) return 'some sections sit inside too many tests httpd may or may not pass';
  const limits: CheckLimits = { budget: CHECK_BUDGET, clientLimit: 5000 };
  // The check reads a projection of the file when one is sure (see keptView): its cost then
  // depends on the sections checked, not on the size of the file (a file of hundreds of virtual
  // hosts is checked once per section of host rules and per main file).
  if (!split.scopes && !split.named && !mixed.length && !options.wholeFile) {
    const view = keptView(model, group, infos, ctx);
    const on = onView(view, edits);
    if (on) {
      checkEditsReadings.projected++;
      const r = checkCandidate(on.model, { doc: parse(on.text) }, ctx, on.points, limits);
      return r.ok ? null : linesOfOriginal(r.why ?? 'it changes an answer', view!.proj, doc);
    }
  }
  checkEditsReadings.whole++;
  let r = checkCandidate(model, { doc: (rw ??= parse(text)) }, ctx, ps.points, limits);
  // Sections under tests httpd may fail (an included file's <IfModule mod_status.c> around its
  // <Location>, under a main file's <Directory />): the rewrite must hold in each way they go.
  if (r.ok && mixed.length) r = checkWorlds(doc, text, ctx, group, [], mixed, limits, 0, model.knownDirectories).result;
  return r.ok ? null : (r.why ?? 'it changes an answer');
}

/** How many of checkEditsAt's checks read a projection, and how many the whole file (for the tests and the bench). */
export const checkEditsReadings = { projected: 0, whole: 0 };

/** checkEditsAt's model of a file, per file, context and directories known to hold `.htaccess` files. */
const CHECKED_MODELS = new WeakMap<ConfigDocument, Map<string, AccessModel>>();

function checkedModel(doc: ConfigDocument, ctx: FileContext, directories: readonly string[]): AccessModel {
  const key = `${ctx}\u0000${directories.join('\u0000')}`;
  let byKey = CHECKED_MODELS.get(doc);
  if (!byKey) CHECKED_MODELS.set(doc, (byKey = new Map()));
  let model = byKey.get(key);
  if (!model) {
    model = buildModel(doc, ctx, { reader: 'httpd24compat' });
    if (directories.length) model.knownDirectories = new Set(directories.map(normPath));
    byKey.set(key, model);
  }
  return model;
}

/**
 * Whether some lines of the file are read by only one of the two servers (scopesReadDifferently),
 * and whether the file names mod_access_compat anywhere (a `<IfModule mod_access_compat.c>`
 * around lines that map URLs, say): either way checkEditsAt reads the whole file. Per model.
 */
const SPLIT = new WeakMap<AccessModel, { scopes: boolean; named: boolean }>();

function splitOf(doc: ConfigDocument, model: AccessModel): { scopes: boolean; named: boolean } {
  let v = SPLIT.get(model);
  if (!v) SPLIT.set(model, (v = { scopes: scopesReadDifferently(doc, model).length > 0, named: /access_compat/i.test(doc.text) }));
  return v;
}

/**
 * The projection of the file for checking edits to `group`, keeping whole every other section
 * that applies at one of the group's request points (a main file's `<Directory />`, the virtual
 * host around them): every section left out applies at none of them, which is what a projection
 * needs (projection.ts), so the projection answers those requests as the whole file does. Null
 * where no projection is sure (as viewFor; a server-level directory that other hosts reach their
 * own way).
 */
function keptView(model: AccessModel, group: Scope[], infos: PointInfo[], ctx: FileContext): View | null {
  if (reachedThroughOtherHosts(model, group)) return null;
  const inGroup = new Set(group);
  const kept: Scope[] = [];
  const seen = new Set<Scope>();
  for (const i of infos) {
    for (const a of i.applied) {
      const sc = a.scope;
      if (inGroup.has(sc) || seen.has(sc) || !sc.section) continue;
      seen.add(sc);
      kept.push(sc);
    }
  }
  const view = viewFor(model, group, ctx, undefined, kept);
  // The URL mapping the points are made with must be the file's (points.ts: computeMapping reads
  // the top level and the virtual hosts the points go through, all in the projection; a macro,
  // mod_vhost_alias or an Alias inside a <Location> anywhere makes it unknown): such lines are in it.
  if (view && unfollowedLinesOf(model.doc).some((at) => projectOffset(view.proj, at) < 0)) return null;
  return view;
}

/** Lines anywhere in a file that make its URL mapping unknown to the points (points.ts: unfollowedMapping). */
const UNFOLLOWED_LINES = new WeakMap<ConfigDocument, number[]>();

function unfollowedLinesOf(doc: ConfigDocument): number[] {
  let v = UNFOLLOWED_LINES.get(doc);
  if (!v) {
    v = [];
    const at = doc.linesWithKeys(['use', 'virtualdocumentroot', 'virtualdocumentrootip', 'virtualscriptalias', 'virtualscriptaliasip', 'alias', 'scriptalias', 'aliasmatch', 'scriptaliasmatch']);
    for (let ix = 0; ix < at.length; ix++) {
      const d = doc.lineAt(at[ix]) as DirectiveNode;
      let inLocation = false;
      for (let p = d.parent; p; p = p.parent) if (p.key === 'location' || p.key === 'locationmatch') inLocation = true;
      if (!d.key.includes('alias') || inLocation) v.push(d.start);
    }
    UNFOLLOWED_LINES.set(doc, v);
  }
  return v;
}

/** Apply every exact edit of the plan at once. */
export function migrateText(text: string, ctx: FileContext, options: PlanOptions = {}): { text: string; plan: MigrationPlan } {
  const doc = parse(text);
  const plan = planMigration(doc, ctx, options);
  const seen = new Set<string>();
  const edits: OffsetEdit[] = [];
  for (const sp of plan.sections) {
    for (const e of sp.exact?.edits ?? []) {
      const k = `${e.start}:${e.end}:${e.newText}`;
      if (seen.has(k)) continue;
      seen.add(k);
      edits.push(e);
    }
  }
  return { text: applyEdits(text, edits), plan };
}

export type { AuthzContainer, AuthzLeaf, AuthzNode };

/**
 * Why host rules at a file's top level get no rewrite in a server or virtual host context: httpd
 * refuses them there ("order not allowed here", "deny not allowed in <VirtualHost> context"). A
 * file that has them and no `Listen` line is almost always a piece included inside a section
 * (a bot blocker's list under `<Directory>`), so the way to have it rewritten is said.
 */
function topLevelReason(doc: ConfigDocument, ctx: FileContext): string {
  const where = ctx === 'vhost' ? 'in the body of a `<VirtualHost>`' : 'at the top level of a server configuration';
  const says = ctx === 'vhost' ? 'not allowed in <VirtualHost> context' : 'not allowed here';
  const head = `httpd refuses \`Order\`, \`Allow\`, \`Deny\` and \`Satisfy\` ${where} (it stops at the first with "… ${says}")`;
  if (ctx === 'vhost' || hasDirective(doc, 'listen')) return `${head}: move these lines into the \`<Directory>\` or \`<Location>\` they are meant for.`;
  return (
    `${head}, so this file is most likely included inside a \`<Directory>\` or \`<Location>\`. ` +
    'Give the main file that includes it (`apacheconf fix --root`, or open its folder in the editor) to have these lines planned there, ' +
    'or say the file is the body of a `<Directory>` (`--context directory`, or `fileContexts` in `.apacheconf.json` or the editor\'s settings).'
  );
}
