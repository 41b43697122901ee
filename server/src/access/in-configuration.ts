/**
 * The migration plan of one file of a configuration, worked out on the whole configuration.
 *
 * A file included by a server config (`conf-enabled/*.conf`, a virtual host of
 * `sites-enabled/`) inherits what the sections before it say: on a stock Debian or Red Hat 2.4
 * install, `<Directory />` holds `Require all denied`, and that `Require` still applies to a
 * `<Directory>` of the included file that has only host rules (`Order allow,deny` + `Allow from
 * all` answers 403 there). The file alone does not show it, so its own plan can be wrong in the
 * configuration. With the configuration at hand (its includes inlined, and where each line comes
 * from), the plan is made on the configuration and each rewrite is carried back to the file:
 * exact when its edits fall in the file's own lines, and the same wherever the file is included.
 */
import { eolOf, parse, physicalLine, type ConfigDocument, type DirectiveNode, type OffsetEdit } from '../syntax';
import { checkEditsAt, planMigration, type PlanNote, type SectionPlan } from './plan';
import type { FileContext } from '../model/context';
import { readersInside } from '../model/guards';
import { COMPAT_KEYS } from './model';
import { PROVIDERS } from '../facts/providers';

/** The configuration a file is read in. */
export interface ConfigurationView {
  /** The whole configuration as one document, its includes inlined (features/explain.ts flattenGraph). */
  doc: ConfigDocument;
  /** For each line of `doc`: the file it comes from and its 0-based line there. */
  origins: ReadonlyArray<{ path: string; line: number }>;
  /** The analysed file's path, spelt as in `origins`. */
  path: string;
  /** The configuration's root file, as messages name it. */
  root: string;
  /** How the configuration itself is read (default `server`; `vhost`: it is the body of one virtual host). */
  context?: FileContext;
  /**
   * Other files of the configuration that are rewritten in the same run (`fix --root` over a
   * folder), each with its own part of a rewrite that spans several files; their paths as in
   * `origins`. A rewrite that edits a file outside them is not carried.
   */
  together?: ReadonlySet<string>;
  /**
   * Directories whose `AllowOverride` lets `.htaccess` files set access, under which every such
   * file is in `doc` (spliced in as a `<Directory>` of its folder, its lines with their file as
   * origin): a rewrite those files could change was checked with them as they are.
   */
  htaccessKnown?: ReadonlySet<string>;
  /** Paths known to be directories (the folders of the `.htaccess` files spliced in). */
  directories?: readonly string[];
  /** Files in `doc` whose host rules stay as they are here (the `.htaccess` files spliced in: their own run rewrites them). */
  kept?: ReadonlySet<string>;
  /** Every `.htaccess` file spliced into `doc` (those kept, and those rewritten with the configuration). */
  spliced?: ReadonlySet<string>;
}

/**
 * The planner's options for a view: its directories, and the lines that stay as they are. Those
 * are the lines of the files it keeps, and of every file with no host-rule line that httpd 2.4
 * reads (one that only sets `Require`, or a dual-version `.htaccess` file whose `Order` and `Deny`
 * sit in a branch only 2.2 reads): no rewrite of that file's own lines would carry an edit into
 * it, so a rewrite is planned and checked with it as it is (see withKeptLeftAlone in plan.ts).
 */
function viewOptions(view: ConfigurationView): { directories?: readonly string[]; keepLines?: number[] } {
  const out: { directories?: readonly string[]; keepLines?: number[] } = {};
  if (view.directories?.length) out.directories = view.directories;
  const carriers = new Set<string>();
  for (const d of view.doc.directives) {
    if (!COMPAT_KEYS.has(d.key) || !readersInside(d.parent).has('httpd24compat')) continue;
    const o = view.origins[d.line];
    if (o) carriers.add(o.path);
  }
  const lines: number[] = [];
  view.origins.forEach((o, k) => {
    if (view.kept?.has(o.path) || !carriers.has(o.path)) lines.push(k);
  });
  if (lines.length) out.keepLines = lines;
  return out;
}

/** A line's text without its line break. */
function lineText(doc: ConfigDocument, line: number): string {
  const a = doc.lineStarts[line];
  const b = line + 1 < doc.lineStarts.length ? doc.lineStarts[line + 1] : doc.text.length;
  let t = doc.text.slice(a, b);
  if (t.endsWith('\n')) t = t.slice(0, -1);
  if (t.endsWith('\r')) t = t.slice(0, -1);
  return t;
}

/** The file a stretch of configuration lines comes from, when it is that file's lines one after the other; else null. */
function fileOfLines(view: ConfigurationView, from: number, to: number): string | null {
  const first = view.origins[from];
  if (!first) return null;
  for (let k = from; k <= to; k++) {
    const o = view.origins[k];
    if (!o || o.path !== first.path || o.line !== first.line + (k - from)) return null;
  }
  return first.path;
}

/**
 * Carries offsets of the configuration to the file: null for an offset in another file's line (or
 * in a line that is not the file's text as it is now, as in an editor's unsaved buffer).
 */
class OffsetMap {
  private readonly checked = new Map<number, boolean>();

  constructor(
    private readonly view: ConfigurationView,
    private readonly file: ConfigDocument,
  ) {}

  /** The file's line that configuration line `k` is, or -1. */
  fileLine(k: number): number {
    const o = this.view.origins[k];
    if (!o || o.path !== this.view.path || o.line >= this.file.lineStarts.length) return -1;
    let same = this.checked.get(k);
    if (same === undefined) {
      same = lineText(this.view.doc, k) === lineText(this.file, o.line);
      this.checked.set(k, same);
    }
    return same ? o.line : -1;
  }

  /** `offset` of the configuration in the file, with the configuration line it sits on; an end offset at a line start counts as the end of the line before. */
  map(offset: number, isEnd: boolean): { at: number; k: number; line: number } | null {
    const starts = this.view.doc.lineStarts;
    let k = physicalLine(this.view.doc, offset);
    if (isEnd && k > 0 && starts[k] === offset) k--;
    const line = this.fileLine(k);
    if (line < 0) return null;
    const at = this.file.lineStarts[line] + (offset - starts[k]);
    const next = line + 1 < this.file.lineStarts.length ? this.file.lineStarts[line + 1] : this.file.text.length;
    if (at > next) return null;
    return { at, k, line };
  }


  /** New text in the file's own line breaks (the configuration's may differ: a CRLF file included by an LF one). */
  private inFileBreaks(t: string): string {
    if (!t.includes('\n')) return t;
    return eolOf(this.file.text) === '\r\n' ? t.replace(/\r?\n/g, '\r\n') : t.replace(/\r\n/g, '\n');
  }

  /** Files other than this one that the last `edits` call left to their own run. */
  others = new Set<string>();

  /**
   * Edits of the configuration as edits of the file, or null when one of them reaches outside the
   * file's lines (edits of a file rewritten in the same run, `together`, are left to that file).
   */
  edits(list: readonly OffsetEdit[], carried: (e: OffsetEdit, path: string) => boolean = () => false): OffsetEdit[] | null {
    const out: OffsetEdit[] = [];
    this.others = new Set();
    for (const e of list) {
      const starts = this.view.doc.lineStarts;
      const k0 = physicalLine(this.view.doc, e.start);
      let k1 = physicalLine(this.view.doc, e.end);
      if (e.end > e.start && k1 > 0 && starts[k1] === e.end) k1--;
      const other = fileOfLines(this.view, k0, k1);
      if (other !== null && other !== this.view.path) {
        // Left to the other file's run only when it runs, and a host-rule line of its own carries this edit.
        if (!this.view.together?.has(other) || !carried(e, other)) return null;
        this.others.add(other);
        continue;
      }
      const a = this.map(e.start, false);
      const b = e.end === e.start ? a : this.map(e.end, true);
      if (!a || !b) return null;
      // Every line the edit spans must be the file's, one after the other (no included file between).
      for (let k = a.k; k <= b.k; k++) if (this.fileLine(k) !== a.line + (k - a.k)) return null;
      out.push({ start: a.at, end: b.at, newText: this.inFileBreaks(e.newText) });
    }
    // A file included in several places gets the same edit from each copy: once is enough, and
    // two different edits of the same lines cannot both be carried.
    out.sort((x, y) => x.start - y.start || x.end - y.end);
    const kept: OffsetEdit[] = [];
    for (const e of out) {
      const last = kept[kept.length - 1];
      if (last && last.start === e.start && last.end === e.end && last.newText === e.newText) continue;
      if (last && (e.start < last.end || (e.start === last.start && e.start === e.end))) return null;
      kept.push(e);
    }
    return kept;
  }
}

/** A file's name as messages give it: its base name, or its whole path for a hidden one (every `.htaccess` has the same name). */
const baseName = (p: string): string => {
  const name = p.slice(p.lastIndexOf('/') + 1);
  return name.startsWith('.') ? p : name;
};

/**
 * How a message names a line of a flattened configuration (0-based `line`, its `origin`): `line N`
 * when it is a line of `self` (the file the message is about) or of no known file, else `NAME
 * line N` in the file it comes from. The one way every message names another file's line.
 */
export function lineLabel(origin: { path: string; line: number } | undefined, line: number, self?: string): string {
  if (!origin || !origin.path) return `line ${line + 1}`;
  return origin.path === self ? `line ${origin.line + 1}` : `${baseName(origin.path)} line ${origin.line + 1}`;
}

/** The modules the lines a rewrite writes need: mod_authz_core for any Require, and each provider's own (facts/providers.ts). */
function modulesNeeded(edits: readonly OffsetEdit[]): string[] {
  const out = new Set<string>();
  for (const e of edits) {
    for (const m of e.newText.matchAll(/^\s*(?:<\s*(Require(?:All|Any|None))\b|(AuthMerging)\b|Require\s+(?:not\s+)?(\S+))/gim)) {
      out.add('authz_core_module');
      const provider = m[3] ? PROVIDERS.find((p) => p.name === m[3]) : undefined;
      if (provider) out.add(provider.module.replace(/^mod_/, '') + '_module');
    }
  }
  return [...out];
}

const key = (edits: readonly OffsetEdit[] | null | undefined): string => (edits ? JSON.stringify(edits.map((e) => [e.start, e.end, e.newText])) : '');

/**
 * The plan of each host-rule line of `file`, worked out on the configuration `view` and carried
 * to the file; null when the configuration holds none of the file's lines (it is not included
 * there, or its text differs from what was read), so the file's own plan is all there is.
 */
export function plansInConfiguration(
  view: ConfigurationView,
  file: ConfigDocument,
  mode: 'preserve' | 'intent' = 'preserve',
  /** Only the exact rewrites and the reasons there are none (PlanOptions.exactOnly): a caller that reads nothing else. */
  exactOnly = false,
): Map<DirectiveNode, SectionPlan> | null {
  const map = new OffsetMap(view, file);
  let any = false;
  for (let k = 0; k < view.origins.length && !any; k++) any = map.fileLine(k) >= 0;
  if (!any) return null;
  const planned = planMigration(view.doc, view.context ?? 'server', { mode, ...viewOptions(view), ...(exactOnly ? { exactOnly } : {}) });
  let sections = unified.get(planned.sections);
  if (!sections) unified.set(planned.sections, (sections = unifyCopies(view, planned.sections)));
  const plan = { ...planned, sections };
  // The file's directives by offset, and the configuration's plans that hold copies of them.
  const byStart = new Map<number, DirectiveNode>();
  for (let ix = 0; ix < file.directives.length; ix++) byStart.set(file.directives[ix].start, file.directives[ix]);
  const copies = new Map<DirectiveNode, SectionPlan[]>();
  for (const sp of plan.sections) {
    for (const d of sp.compatDirectives) {
      const at = map.map(d.start, false);
      const mine = at ? byStart.get(at.at) : undefined;
      if (!mine) continue;
      const list = copies.get(mine);
      if (list) list.push(sp);
      else copies.set(mine, [sp]);
    }
  }
  // Which files carry each exact edit: those with a host-rule line whose plan holds it (their run applies it).
  const carriers = new Map<string, Set<string>>();
  const editKey = (e: OffsetEdit) => `${e.start}:${e.end}:${e.newText}`;
  // The sections of a group share one rewrite: its edits are gone through once, with the files of
  // all of them.
  const pathsOf = new Map<readonly OffsetEdit[], Set<string>>();
  for (const sp of plan.sections) {
    if (!sp.exact) continue;
    let paths = pathsOf.get(sp.exact.edits);
    if (!paths) pathsOf.set(sp.exact.edits, (paths = new Set()));
    for (const d of sp.compatDirectives) {
      const o = view.origins[physicalLine(view.doc, d.start)];
      if (o) paths.add(o.path);
    }
  }
  for (const [edits, paths] of pathsOf) {
    for (const e of edits) {
      const set = carriers.get(editKey(e));
      if (set) for (const p of paths) set.add(p);
      else carriers.set(editKey(e), new Set(paths));
    }
  }
  const carriedBy = (e: OffsetEdit, path: string) => carriers.get(editKey(e))?.has(path) ?? false;
  const refused = refusedJointly(view, plan.sections);
  // The modules the configuration loads, when it loads any (then it is the whole server's list).
  const loaded = new Set<string>();
  for (const d of view.doc.directives) if (d.key === 'loadmodule' && d.args[0]) loaded.add(d.args[0].value);
  const unloaded = (edits: readonly OffsetEdit[]): string[] => (loaded.size ? modulesNeeded(edits).filter((m) => !loaded.has(m)) : []);
  const carried = new Map<SectionPlan, SectionPlan>();
  const carry = (sp: SectionPlan): SectionPlan => {
    let c = carried.get(sp);
    if (c) return c;
    const compatDirectives: DirectiveNode[] = [];
    for (const d of sp.compatDirectives) {
      const at = map.map(d.start, false);
      const mine = at ? byStart.get(at.at) : undefined;
      if (mine) compatDirectives.push(mine);
    }
    c = { section: compatDirectives[0]?.parent ?? null, compatDirectives };
    if (sp.dirLevel) c.dirLevel = sp.dirLevel;
    const exact = sp.exact ? map.edits(sp.exact.edits, carriedBy) : null;
    const others = [...map.others];
    const missing = sp.exact ? unloaded(sp.exact.edits) : [];
    const whole = refused.get(sp);
    if (sp.exact && whole) {
      c.reason = whole;
    } else if (sp.exact && exact && missing.length) {
      c.reason = `the rewrite needs ${missing.map((m) => `\`${m}\``).join(' and ')}, which the configuration of ${view.root} does not load (\`LoadModule ${missing[0]} …\`): without it httpd would not start. Load it first.`;
    } else if (sp.exact && exact) {
      c.exact = { title: others.length ? `${sp.exact.title} (with its part in ${others.map(baseName).join(', ')})` : sp.exact.title, edits: exact };
      c.rewriteKey = sp.exact.edits.map((e) => `${e.start}:${e.end}:${e.newText}`).join('\u0000');
      if (others.length) c.partsIn = others;
      if (sp.htaccessBelow) c.htaccessBelow = sp.htaccessBelow;
    } else if (sp.exact) c.reason = `the rewrite that is exact in the configuration of ${view.root} also edits lines of other files.`;
    else c.reason = sp.reason ? relabelLines(sp.reason, view) : `it is not exact in the configuration of ${view.root}.`;
    const naive = sp.naive ? map.edits(sp.naive.edits) : null;
    if (sp.naive && naive) c.naive = { title: sp.naive.title, edits: naive, changes: sp.naive.changes && relabelLines(sp.naive.changes, view) };
    carried.set(sp, c);
    return c;
  };
  const out = new Map<DirectiveNode, SectionPlan>();
  for (const [d, list] of copies) {
    const plans = list.map(carry);
    const first = plans[0];
    // Included in several places: one rewrite must be exact in all of them.
    if (plans.some((p) => key(p.exact?.edits) !== key(first.exact?.edits))) {
      out.set(d, { section: first.section, compatDirectives: first.compatDirectives, reason: `this file is included in several places of the configuration of ${view.root}, and what is exact differs between them.` });
    } else out.set(d, first);
  }
  return out;
}

/**
 * Which copy of its file each configuration line is: the first time a file's line is read is its
 * copy 0, the second time copy 1 (a file included in two places), whatever other files are read
 * in between. `instance[k]` numbers the copy of line k's file (-1: a line of no file), and
 * `instancesOf` lists each file's copies.
 */
function copiesOf(view: ConfigurationView): { instance: Int32Array; instancesOf: Map<string, number[]> } {
  const instance = new Int32Array(view.origins.length);
  let next = 0;
  const instancesOf = new Map<string, number[]>();
  const seenLine = new Map<string, number>();
  for (let k = 0; k < view.origins.length; k++) {
    const o = view.origins[k];
    if (!o) {
      instance[k] = -1;
      continue;
    }
    const lineKey = `${o.line}|${o.path}`;
    const n = seenLine.get(lineKey) ?? 0;
    seenLine.set(lineKey, n + 1);
    let ids = instancesOf.get(o.path);
    if (!ids) instancesOf.set(o.path, (ids = []));
    while (ids.length <= n) ids.push(next++);
    instance[k] = ids[n];
  }
  return { instance, instancesOf };
}

/** unifyCopies by the planner's (cached) sections: each file of a run plans in the same configuration. */
const unified = new WeakMap<readonly SectionPlan[], readonly SectionPlan[]>();

/** The most variants tried per file by unifyCopies, and the most checks of the whole configuration it makes. */
const MAX_COPY_VARIANTS = 4;
const MAX_UNIFY_CHECKS = 24;

/**
 * A file included in several places takes one text, so the rewrites of a configuration must edit
 * each copy of it alike. The planner works on the configuration, where the copies are separate
 * sections (of one rewrite, or of the rewrites of different hosts), and may find a different exact
 * edit for each: the host rules deleted in a copy that another section overrules, rewritten in
 * another. Where the copies of a file differ, this tries each copy's edits in every copy, keeping
 * the rewrites' other edits, and takes the first that the access engine finds exact for every
 * rewrite that edits a copy. Plans are not changed in place (the planner caches them): the
 * sections come back as new objects where they changed.
 */
function unifyCopies(view: ConfigurationView, sections: readonly SectionPlan[]): readonly SectionPlan[] {
  if (view.kept?.size) return sections;
  const { instance, instancesOf } = copiesOf(view);
  if (![...instancesOf.values()].some((l) => l.length > 1)) return sections;
  const doc = view.doc;
  const starts = doc.lineStarts;
  /** The configuration line of copy `i` of a file's line. */
  const lineOf = new Map<string, number>();
  for (let k = 0; k < view.origins.length; k++) if (view.origins[k]) lineOf.set(`${instance[k]}|${view.origins[k].line}`, k);
  const place = (offset: number, isEnd: boolean): [number, number] => {
    let k = physicalLine(doc, offset);
    if (isEnd && k > 0 && starts[k] === offset && offset > 0) k--;
    return [view.origins[k]?.line ?? -1, offset - starts[k]];
  };
  interface Placed {
    from: [number, number];
    to: [number, number];
    text: string;
  }
  const setKey = (edits: readonly OffsetEdit[]) => edits.map((e) => `${e.start}:${e.end}:${e.newText}`).join('\u0000');
  // The distinct rewrites (a rewrite's sections share its edits), each with its edits as they stand.
  const current = new Map<string, OffsetEdit[]>();
  for (const sp of sections) if (sp.exact) current.set(setKey(sp.exact.edits), [...sp.exact.edits]);
  const initial = new Map([...current].map(([k, v]) => [k, v]));
  /** The file an edit falls in and the copy of it, or null for an edit that spans files. */
  const whereIs = (e: OffsetEdit): { file: string; copy: number } | null => {
    const k0 = physicalLine(doc, e.start);
    let k1 = physicalLine(doc, e.end);
    if (e.end > e.start && k1 > 0 && starts[k1] === e.end) k1--;
    const file = fileOfLines(view, k0, k1);
    return file === null ? null : { file, copy: instance[k0] };
  };
  let checks = MAX_UNIFY_CHECKS;
  for (const [file, copies] of instancesOf) {
    if (copies.length < 2) continue;
    // Each copy's edits as places of the file, and the rewrites that edit it.
    const byCopy = new Map<number, { edits: Placed[]; sets: Set<string> }>();
    let spans = false;
    for (const [key, edits] of current) {
      for (const e of edits) {
        const w = whereIs(e);
        if (!w) {
          if (edits.some((x) => whereIs(x)?.file === file)) spans = true;
          continue;
        }
        if (w.file !== file) continue;
        const c = byCopy.get(w.copy) ?? { edits: [], sets: new Set<string>() };
        c.edits.push({ from: place(e.start, false), to: place(e.end, true), text: e.newText });
        c.sets.add(key);
        byCopy.set(w.copy, c);
      }
    }
    // Only where every copy is edited, each by one rewrite (a copy left alone keeps host rules a rewrite of it would have to match).
    if (spans || byCopy.size < copies.length || [...byCopy.values()].some((c) => c.sets.size !== 1)) continue;
    const variantKey = (l: Placed[]) => l.map((x) => `${x.from}-${x.to}:${x.text}`).sort().join('\u0000');
    const variants = new Map<string, Placed[]>();
    for (const c of byCopy.values()) variants.set(variantKey(c.edits), c.edits);
    if (variants.size < 2) continue;
    // The copies that keep most of their lines' meaning first: a copy whose host rules are only
    // deleted (another section overrules them there) rarely holds for the others.
    const weight = (l: Placed[]) => l.reduce((n, x) => n + x.text.length, 0);
    const tried = [...variants.values()].sort((x, y) => weight(y) - weight(x)).slice(0, MAX_COPY_VARIANTS);
    const sets = new Set([...byCopy.values()].map((c) => [...c.sets][0]));
    for (const v of tried) {
      const next = new Map<string, OffsetEdit[]>();
      let ok = true;
      for (const key of sets) {
        const edits = current.get(key)!;
        const candidate = edits.filter((e) => whereIs(e)?.file !== file);
        for (const [copy, c] of byCopy) {
          if (!c.sets.has(key)) continue;
          for (const x of v) {
            const a = lineOf.get(`${copy}|${x.from[0]}`);
            const b = lineOf.get(`${copy}|${x.to[0]}`);
            if (a === undefined || b === undefined) ok = false;
            else candidate.push({ start: starts[a] + x.from[1], end: starts[b] + x.to[1], newText: x.text });
          }
        }
        candidate.sort((x, y) => x.start - y.start || x.end - y.end);
        if (!ok || checks-- <= 0 || checkEditsAt(doc, view.context ?? 'server', 0, doc.text.length + 1, candidate, view.directories ?? []) !== null) {
          ok = false;
          break;
        }
        next.set(key, candidate);
      }
      if (!ok) continue;
      for (const [key, edits] of next) current.set(key, edits);
      break;
    }
  }
  return sections.map((sp) => {
    if (!sp.exact) return sp;
    const key = setKey(sp.exact.edits);
    const now = current.get(key);
    return now && now !== initial.get(key) ? { ...sp, exact: { ...sp.exact, edits: now } } : sp;
  });
}

/**
 * The exact rewrites of the configuration that cannot be made whole, each with why.
 *
 * A rewrite may edit several files (the root file's `<Directory />` and an included site), and
 * each file's run applies its own part: the part of a file is made when a host-rule line of that
 * file sits in a rewrite that the file's run accepts. A part that one file's run declines (it is
 * included in several places and what is exact differs between them, or it is not rewritten in
 * this run) must take the other files' parts with it: half a rewrite needs mod_access_compat for
 * the half left behind, and answers otherwise without it. This works out, on the configuration,
 * which rewrites every file they touch would accept, dropping until nothing changes (a dropped
 * rewrite may leave another one's part without a file to carry it).
 */
function refusedJointly(view: ConfigurationView, sections: readonly SectionPlan[]): Map<SectionPlan, string> {
  const doc = view.doc;
  const starts = doc.lineStarts;
  const allowed = (p: string) => p === view.path || (view.together?.has(p) ?? false);
  const fileOf = (from: number, to: number) => fileOfLines(view, from, to);
  /** An offset as a place of its file, `[line, column]`: the same for each copy of an included file. */
  const place = (offset: number, isEnd: boolean): [number, number] => {
    let k = physicalLine(doc, offset);
    if (isEnd && k > 0 && starts[k] === offset && offset > 0) k--;
    return [view.origins[k]?.line ?? -1, offset - starts[k]];
  };
  interface Parts {
    /** Each file's part of the edits, as a key that is the same for each copy of the file. */
    shares: Map<string, string>;
    /** Each edit's key by file, for the files whose host rules are not in the rewrite. */
    edits: Map<string, string[]>;
    /** The host-rule lines, as `file|line:column`, and their files. */
    lines: string[];
    files: Set<string>;
    /** Why the rewrite cannot be carried at all (an edit spans files, or reaches a file not rewritten). */
    broken?: string;
    /** Its edits by the copy of a file they fall in (see `instance`), as keys the same for each copy. */
    byInstance: Map<number, string[]>;
  }
  // Which copy of its file each configuration line is. A file read in several places must come out
  // the same in each copy.
  const { instance, instancesOf } = copiesOf(view);
  const parts = new Map<SectionPlan, Parts>();
  const copies = new Map<string, SectionPlan[]>();
  // Every copy of a host-rule line, with or without an exact rewrite: a file included in several
  // places takes a rewrite only if each copy of its lines gets the same one.
  for (const sp of sections) {
    if (sp.exact) continue;
    for (const d of sp.compatDirectives) {
      const o = view.origins[physicalLine(doc, d.start)];
      if (!o) continue;
      const line = `${o.path}|${place(d.start, false).join(':')}`;
      const list = copies.get(line);
      if (list) list.push(sp);
      else copies.set(line, [sp]);
    }
  }
  /** A rewrite's edits by file (see Parts), worked out once per rewrite. */
  const byEdits = new Map<readonly OffsetEdit[], Pick<Parts, 'shares' | 'edits' | 'byInstance' | 'broken'>>();
  const editParts = (edits: readonly OffsetEdit[]): Pick<Parts, 'shares' | 'edits' | 'byInstance' | 'broken'> => {
    const q: Pick<Parts, 'shares' | 'edits' | 'byInstance' | 'broken'> = { shares: new Map(), edits: new Map(), byInstance: new Map() };
    const byFile = new Map<string, Array<{ from: [number, number]; to: [number, number]; text: string }>>();
    for (const e of edits) {
      const k0 = physicalLine(doc, e.start);
      let k1 = physicalLine(doc, e.end);
      if (e.end > e.start && k1 > 0 && starts[k1] === e.end) k1--;
      const file = fileOf(k0, k1);
      if (file === null) {
        q.broken ??= `the rewrite that is exact in the configuration of ${view.root} edits lines of several files at once.`;
        continue;
      }
      if (!allowed(file)) q.broken ??= `the rewrite that is exact in the configuration of ${view.root} also edits lines of other files.`;
      const list = byFile.get(file);
      const edit = { from: place(e.start, false), to: place(e.end, true), text: e.newText };
      if (list) list.push(edit);
      else byFile.set(file, [edit]);
      const at = instance[k0];
      const mine = q.byInstance.get(at);
      const ek = `${edit.from.join(':')}-${edit.to.join(':')}:${edit.text}`;
      if (mine) mine.push(ek);
      else q.byInstance.set(at, [ek]);
    }
    const cmp = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
    for (const [file, list] of byFile) {
      list.sort((x, y) => cmp(x.from, y.from) || cmp(x.to, y.to) || (x.text < y.text ? -1 : x.text > y.text ? 1 : 0));
      const keys: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const e = list[i];
        const prev = list[i - 1];
        // Each copy of an included file makes the same edit: once is enough.
        if (prev && cmp(prev.from, e.from) === 0 && cmp(prev.to, e.to) === 0 && prev.text === e.text) continue;
        // Two different edits of the same lines (each copy wants its own) cannot both be made in one file.
        if (prev && (cmp(e.from, prev.to) < 0 || cmp(e.from, prev.from) === 0)) {
          q.broken ??= `${file === view.path ? 'this file is' : `its part is in ${baseName(file)}, which is`} included in several places of the configuration of ${view.root}, and what is exact differs between them; one file cannot hold both.`;
        }
        keys.push(`${e.from.join(':')}-${e.to.join(':')}:${e.text}`);
      }
      q.shares.set(file, keys.join('\u0000'));
      q.edits.set(file, keys);
    }
    return q;
  };
  for (const sp of sections) {
    if (!sp.exact) continue;
    const p: Parts = { shares: new Map(), edits: new Map(), lines: [], files: new Set(), byInstance: new Map() };
    for (const d of sp.compatDirectives) {
      const k = physicalLine(doc, d.start);
      const o = view.origins[k];
      if (!o) continue;
      const line = `${o.path}|${place(d.start, false).join(':')}`;
      p.lines.push(line);
      p.files.add(o.path);
      const list = copies.get(line);
      if (list) list.push(sp);
      else copies.set(line, [sp]);
    }
    // The sections of a group share one rewrite: its edits are sorted out once.
    let q = byEdits.get(sp.exact.edits);
    if (!q) byEdits.set(sp.exact.edits, (q = editParts(sp.exact.edits)));
    p.shares = q.shares;
    p.edits = q.edits;
    p.byInstance = q.byInstance;
    if (q.broken) p.broken = q.broken;
    parts.set(sp, p);
  }
  const out = new Map<SectionPlan, string>();
  for (const [sp, p] of parts) if (p.broken) out.set(sp, p.broken);
  const name = (p: string) => (p === view.path ? 'this file' : baseName(p));
  // The rewrites that hold an edit of a file, found by the file: for each, the sections of the
  // rewrites with host rules there and the same edits (most share one), and those edits' keys.
  const orderOf = new Map<SectionPlan, number>();
  const holders = new Map<string, Array<{ keys: Map<string, Set<string>>; shared: object; plans: SectionPlan[] }>>();
  for (const [sp, p] of parts) {
    orderOf.set(sp, orderOf.size);
    for (const file of p.files) {
      let list = holders.get(file);
      if (!list) holders.set(file, (list = []));
      let g = list.find((x) => x.shared === p.edits);
      if (!g) {
        const keys = new Map<string, Set<string>>();
        for (const [f, ks] of p.edits) keys.set(f, new Set(ks));
        list.push((g = { keys, shared: p.edits, plans: [] }));
      }
      g.plans.push(sp);
    }
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [sp, p] of parts) {
      if (out.has(sp)) continue;
      let why: string | null = null;
      // Each host-rule line's file accepts the rewrite only if every copy of that line is rewritten with the same part.
      for (const line of p.lines) {
        const file = line.slice(0, line.lastIndexOf('|'));
        for (const other of copies.get(line) ?? []) {
          if (other === sp) continue;
          if (out.has(other) || !parts.has(other) || parts.get(other)!.shares.get(file) !== p.shares.get(file)) {
            why = `${file === view.path ? 'this file is' : `its part is in ${name(file)}, which is`} included in several places of the configuration of ${view.root}, and what is exact differs between them; half a rewrite would still need mod_access_compat.`;
            break;
          }
        }
        if (why) break;
      }
      // A file with no host-rule line in the rewrite makes its part only through another accepted rewrite holding the same edit.
      if (!why) {
        for (const [file, list] of p.edits) {
          if (p.files.has(file)) continue;
          for (const ek of list) {
            let held = false;
            /** Why a rewrite of that file that holds the edit was dropped, when one was. */
            let dropped: string | undefined;
            /** The first such rewrite in the order of the sections (its reason is the one told). */
            let first = Infinity;
            for (const g of holders.get(file) ?? []) {
              if (!g.keys.get(file)?.has(ek)) continue;
              for (const other of g.plans) {
                if (other === sp) continue;
                if (!out.has(other)) {
                  held = true;
                  break;
                }
                const at = orderOf.get(other)!;
                if (at < first) {
                  first = at;
                  dropped = out.get(other);
                }
              }
              if (held) break;
            }
            if (!held) {
              why = dropped ?? `its part in ${name(file)} has no rewrite there to carry it. Half a rewrite would still need mod_access_compat.`;
              break;
            }
          }
          if (why) break;
        }
      }
      if (why) {
        out.set(sp, why);
        changed = true;
      }
    }
    // Each file read in several places: every copy must get the same edits from the rewrites kept
    // (a copy whose lines one host's rewrite deletes and another's keeps cannot be one file).
    for (const [file, list] of instancesOf) {
      if (list.length < 2 || !file) continue;
      const edits = new Map<number, Set<string>>(list.map((i) => [i, new Set<string>()]));
      const touching: SectionPlan[] = [];
      for (const [sp, p] of parts) {
        if (out.has(sp)) continue;
        let touches = p.files.has(file);
        for (const i of list) {
          const mine = p.byInstance.get(i);
          if (!mine) continue;
          touches = true;
          for (const ek of mine) edits.get(i)!.add(ek);
        }
        if (touches) touching.push(sp);
      }
      const keyOf = (i: number) => [...edits.get(i)!].sort().join('\u0000');
      const first = keyOf(list[0]);
      if (list.every((i) => keyOf(i) === first)) continue;
      for (const sp of touching) {
        out.set(sp, `${file === view.path ? 'this file is' : `its part is in ${name(file)}, which is`} included in several places of the configuration of ${view.root}, and the rewrites would leave its copies different; one file cannot be both.`);
        changed = true;
      }
    }
  }
  return out;
}

/**
 * Line numbers in a text written about the configuration (`(line 12)`, `line 12:`), as lines of
 * the files they come from: `line N` where the line is the file's own, `NAME line N` where it
 * is another file's.
 */
export function relabelLines(text: string, view: ConfigurationView): string {
  const labelled = text.replace(/\bline (\d+)\b/g, (whole, n: string) => {
    const o = view.origins[Number(n) - 1];
    if (!o) return whole;
    return lineLabel(o, Number(n) - 1, view.path);
  });
  // A list of lines that name one file's line twice (a .htaccess file read by a virtual host and
  // by the main server has a copy for each): once.
  return labelled.replace(/\(([^()]*\bline \d+)\)/g, (whole, inner: string) => {
    const items = inner.split(', ');
    if (!items.every((i) => /\bline \d+$/.test(i))) return whole;
    return `(${[...new Set(items)].join(', ')})`;
  });
}

/**
 * The access engine's notes (invalid-require, dead-require, access-intent, mixed-access…) on the
 * lines of `file`, worked out on the whole configuration: a `Require` of an included file that
 * the host rules of the root file's `<Directory />` still gate, a provider an
 * `<AuthzProviderAlias>` of another file defines. Null when the configuration holds none of the
 * file's lines (its own notes are all there are). Each note is carried to the file's offsets; a
 * related place in another file is named in the message instead, and a fix that edits another
 * file's lines is dropped.
 */
export function notesInConfiguration(view: ConfigurationView, file: ConfigDocument): PlanNote[] | null {
  const map = new OffsetMap(view, file);
  let any = false;
  for (let k = 0; k < view.origins.length && !any; k++) any = map.fileLine(k) >= 0;
  if (!any) return null;
  const plan = planMigration(view.doc, view.context ?? 'server', viewOptions(view));
  const out: PlanNote[] = [];
  const seen = new Set<string>();
  for (const n of plan.notes) {
    const a = map.map(n.start, false);
    const b = n.end === n.start ? a : map.map(n.end, true);
    if (!a || !b || b.at < a.at) continue;
    const related: NonNullable<PlanNote['related']> = [];
    for (const r of n.related ?? []) {
      const ra = map.map(r.start, false);
      const rb = r.end === r.start ? ra : map.map(r.end, true);
      if (ra && rb && rb.at >= ra.at) related.push({ start: ra.at, end: rb.at, message: relabelLines(r.message, view) });
    }
    const fixes: NonNullable<PlanNote['fixes']> = [];
    for (const f of n.fixes ?? []) {
      const edits = map.edits(f.edits);
      if (edits && !map.others.size) fixes.push({ ...f, edits });
    }
    const note: PlanNote = { ...n, message: relabelLines(n.message, view), start: a.at, end: b.at };
    if (related.length) note.related = related;
    else delete note.related;
    if (fixes.length) note.fixes = fixes;
    else delete note.fixes;
    // A file included in several places: the same note once.
    const key = `${note.rule}|${note.start}|${note.end}|${note.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(note);
  }
  return out;
}

/**
 * The view after `edits` turned the file `before` into `after`: every stretch of the configuration
 * that is the file's text (each place it is included) now holds the new text, so a second round
 * of fixes is planned on what the first round made.
 */
export function viewAfterEdits(view: ConfigurationView, before: ConfigDocument, edits: readonly OffsetEdit[], after: string): ConfigurationView {
  const map = new OffsetMap(view, before);
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const delta = (e: OffsetEdit) => e.newText.length - (e.end - e.start);
  // New offset of a stretch's start (an insertion there belongs to the stretch) and of its end (one there does not).
  const startOf = (x: number) => x + sorted.reduce((n, e) => n + (e.end <= x && e.start < x ? delta(e) : 0), 0);
  const endOf = (x: number) => x + sorted.reduce((n, e) => n + (e.start < x ? delta(e) : 0), 0);
  const afterStarts = [0];
  for (let i = 0; i < after.length; i++) if (after.charCodeAt(i) === 10) afterStarts.push(i + 1);
  const afterLines = Int32Array.from(afterStarts);
  const fileEnd = (line: number) => (line + 1 < before.lineStarts.length ? before.lineStarts[line + 1] : before.text.length);
  const parts: string[] = [];
  const origins: Array<{ path: string; line: number }> = [];
  const starts = view.doc.lineStarts;
  const n = view.origins.length;
  const lineEnd = (k: number) => (k + 1 < starts.length ? starts[k + 1] : view.doc.text.length);
  for (let k = 0; k < n; ) {
    const first = map.fileLine(k);
    if (first < 0) {
      parts.push(view.doc.text.slice(starts[k], lineEnd(k)));
      origins.push(view.origins[k]);
      k++;
      continue;
    }
    // A stretch of the file's lines, one after the other.
    let m = k;
    while (m + 1 < n && map.fileLine(m + 1) === first + (m + 1 - k)) m++;
    const last = first + (m - k);
    const a = startOf(before.lineStarts[first]);
    const b = endOf(fileEnd(last));
    let seg = after.slice(a, b);
    // The configuration ends each inlined file with a line break.
    if (seg.length && !seg.endsWith('\n')) seg += '\n';
    parts.push(seg);
    let line = physicalLine({ lineStarts: afterLines, text: after }, a);
    for (let i = 0; i < seg.length; i++) if (seg.charCodeAt(i) === 10) origins.push({ path: view.path, line: line++ });
    k = m + 1;
  }
  const text = parts.join('');
  // The other files of the run are planned on the configuration as it was: a rewrite spanning
  // them is carried only from that plan, whose other parts their runs apply.
  return { ...view, doc: parse(text), origins, together: undefined };
}

/**
 * Main files a file that another includes is checked under when the main file is not known: its
 * sections inherit from `<Directory />` there, which may set nothing, refuse everyone (Debian's
 * and Red Hat's stock `apache2.conf`/`httpd.conf`), or ask for a password.
 */
const MAIN_FILES: ReadonlyArray<{ label: string; text: string }> = [
  { label: 'refuses everyone', text: '<Directory />\n    Require all denied\n</Directory>\n' },
  { label: 'asks for a password', text: '<Directory />\n    AuthType Basic\n    AuthName "main"\n    AuthUserFile /dev/null\n    Require valid-user\n</Directory>\n' },
  {
    label: "Debian's",
    text: '<Directory />\n    Require all denied\n</Directory>\n<Directory /usr/share>\n    Require all granted\n</Directory>\n<Directory /var/www/>\n    Require all granted\n</Directory>\n<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n',
  },
  {
    label: "Red Hat's",
    text: '<Directory />\n    Require all denied\n</Directory>\n<Directory "/var/www">\n    Require all granted\n</Directory>\n<Directory "/var/www/html">\n    Require all granted\n</Directory>\n<Directory "/var/www/cgi-bin">\n    Require all granted\n</Directory>\n<Files ".ht*">\n    Require all denied\n</Files>\n',
  },
];
/**
 * Why a server-config file whose folder says nothing is still one another file includes: httpd
 * does not start without a `Listen` line, so a file with none that includes no other file is never
 * a whole configuration (Debian's `/etc/PACKAGE/apache.conf`, linked from `conf-enabled/`).
 */
export const FRAGMENT_BECAUSE = 'this file has no `Listen` line and includes no other file, so httpd cannot run it alone: another file includes it';

/** Why a file in one of the folders only an Include reads is one another file includes. */
const IN_INCLUDED_FOLDER = 'this file sits in a folder that another file includes';

const capitalized = (t: string): string => t[0].toUpperCase() + t.slice(1);

/** The note of a rewrite found right under every main file, for a file that another file includes because of `because`. */
function includedNote(because: string): string {
  return (
    `${capitalized(because)}, which is not at hand: the rewrite is right under a main file that sets access only in sections read before this file's ` +
    '(`<Directory />` and the other directories that enclose these paths: nothing, `Require all denied`, a password, or Debian\'s and Red Hat\'s stock files), not where a later section of it ' +
    '(a deeper `<Directory>`, `<Files>`, `<Location>`, `<If>`) sets access for these requests. Give the main file (`apacheconf fix --root`, or open its folder) to have it checked there.'
  );
}

export const INCLUDED_NOTE = includedNote(IN_INCLUDED_FOLDER);
const MAIN_PATH = '(main file)';

/** The main file's text with the line breaks `file` uses (a rewrite planned there writes them). */
function inBreaksOf(main: string, file: ConfigDocument): string {
  return file.text.includes('\r\n') ? main.replace(/\n/g, '\r\n') : main;
}

/** `file` read after the main file `main`, as a configuration view. */
function viewUnder(main: string, file: ConfigDocument, path: string): ConfigurationView {
  main = inBreaksOf(main, file);
  const text = file.text.endsWith('\n') ? file.text : file.text + '\n';
  const origins: Array<{ path: string; line: number }> = [];
  let line = 0;
  for (let i = 0; i < main.length; i++) if (main.charCodeAt(i) === 10) origins.push({ path: MAIN_PATH, line: line++ });
  line = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) origins.push({ path, line: line++ });
  return { doc: parse(main + text), origins, path, root: MAIN_PATH };
}

/** The file read after the main file `main` (its text in the file's line breaks), and how far the file is shifted in it. */
interface Under {
  doc: ConfigDocument;
  shift: number;
}

function under(main: string, file: ConfigDocument): Under {
  main = inBreaksOf(main, file);
  if (!main) return { doc: file, shift: 0 };
  const text = file.text.endsWith('\n') ? file.text : file.text + '\n';
  return { doc: parse(main + text), shift: main.length };
}

/** Why a check of `edits` fails there (null: it holds), over the sections from `from` to `to` of the file. */
function failsUnder(u: Under, from: number, to: number, edits: readonly OffsetEdit[]): string | null {
  const n = u.shift;
  return checkEditsAt(u.doc, 'server', from + n, to + n, edits.map((e) => ({ start: e.start + n, end: e.end + n, newText: e.newText })));
}

/**
 * The plans of a server-config file that another file includes, when that file is not known
 * (`fix` without `--root`, an editor without the main file in its workspace): a rewrite is exact
 * only if it is exact whatever the main file's `<Directory />` says (nothing, `Require all
 * denied`, a password). The one planned on the file alone is tried first, then the one planned
 * under a closed `<Directory />` (it keeps what is inherited with `AuthMerging`); the first that
 * the engine's check holds under all three is kept. Otherwise the section gets no exact rewrite, and
 * the file-alone one is offered as a rewrite that holds only where the main file sets no access.
 */
export function plansAsIncluded(
  file: ConfigDocument,
  path: string,
  mode: 'preserve' | 'intent' = 'preserve',
  /** Why the file is taken for one another includes, when not its folder (see FRAGMENT_BECAUSE). */
  because?: string,
): Map<DirectiveNode, SectionPlan> {
  const reason = because ?? IN_INCLUDED_FOLDER;
  const note = because ? includedNote(because) : INCLUDED_NOTE;
  const alone = planMigration(file, 'server', { mode });
  // Planned under the closed main file only when the rewrites tried before do not hold everywhere.
  let closed: Map<DirectiveNode, SectionPlan> | null | undefined;
  const underClosed = (d: DirectiveNode) => (closed === undefined ? (closed = plansInConfiguration(viewUnder(MAIN_FILES[0].text, file, path), file, mode, true)) : closed)?.get(d);
  // Each main file with the file after it, parsed once for all the checks (and only when one is made).
  let unders: Under[] | undefined;
  const verdicts = new Map<string, boolean>();
  // A rewrite planned on the file alone was checked there already (the main file that says
  // nothing): only the other main files are left to check.
  const holds = (sp: SectionPlan, edits: readonly OffsetEdit[], plannedAlone: boolean): boolean => {
    const k = `${plannedAlone ? 1 : 0}|${key(edits)}`;
    let ok = verdicts.get(k);
    if (ok === undefined) {
      // The sections the rewrite touches, and its own.
      let from = sp.section?.open.start ?? Infinity;
      let to = sp.section ? sp.section.open.end : -Infinity;
      for (const e of edits) {
        from = Math.min(from, e.start);
        to = Math.max(to, e.end);
      }
      const start = file.sections.filter((s) => s.open.start <= from && (s.close?.end ?? file.text.length) >= from).reduce((m, s) => Math.min(m, s.open.start), from);
      unders ??= ['', ...MAIN_FILES.map((m) => m.text)].map((m) => under(m, file));
      ok = unders.every((u, i) => (plannedAlone && i === 0) || failsUnder(u, start, Math.max(to, start + 1), edits) === null);
      verdicts.set(k, ok);
    }
    return ok;
  };
  const out = new Map<DirectiveNode, SectionPlan>();
  // The file alone again, each section keeping what it inherits (`AuthMerging And`): the form
  // that most often holds whatever the main file's `<Directory />` says.
  let inherit: Map<DirectiveNode, SectionPlan> | undefined;
  const keepingInherited = (d: DirectiveNode) => {
    if (!inherit) {
      inherit = new Map();
      for (const p of planMigration(file, 'server', { mode, keepInherited: true, exactOnly: true }).sections) for (const x of p.compatDirectives) inherit.set(x, p);
    }
    return inherit.get(d);
  };
  for (const sp of alone.sections) {
    for (const d of sp.compatDirectives) {
      let robust = sp.exact && holds(sp, sp.exact.edits, true) ? sp.exact : undefined;
      // (Only where the file alone has a rewrite: where it has none, its reason is the file's own.)
      if (!robust && sp.exact) {
        const other = keepingInherited(d)?.exact;
        if (other && other !== sp.exact && holds(sp, other.edits, true)) robust = other;
      }
      if (!robust) {
        const other = underClosed(d)?.exact;
        if (other && holds(sp, other.edits, false)) robust = other;
      }
      if (robust) {
        out.set(d, { ...sp, exact: { title: robust.title, edits: robust.edits }, reason: undefined, note });
        continue;
      }
      const why =
        `${reason}, and its sections inherit what that main file says before them (on Debian and Red Hat, \`<Directory />\` refuses everyone). ` +
        'No rewrite of these lines was found that is right under every such main file (nothing, `Require all denied`, a password, Debian\'s and Red Hat\'s stock files): give the main file (`apacheconf fix --root`, or open its folder in the editor) to have them planned in it.';
      const naive = sp.exact
        ? { title: `${sp.exact.title} (exact only where the main file sets no access for these paths)`, edits: sp.exact.edits, changes: why }
        : sp.naive;
      // A file with no rewrite of its own says why (the section tags do not pair up, say): under a main file it has none either.
      out.set(d, { section: sp.section, compatDirectives: sp.compatDirectives, reason: sp.exact ? why : (sp.reason ?? why), ...(naive ? { naive } : {}), ...(sp.dirLevel ? { dirLevel: sp.dirLevel } : {}) });
    }
  }
  return out;
}
