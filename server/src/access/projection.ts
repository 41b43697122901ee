/**
 * A smaller copy of a file on which one group's rewrite can be checked.
 *
 * The migration check of a group of overlapping access sections compares, request by request,
 * the file as written and the file with that group's rewrite. Reading the whole rewritten file
 * for every group makes the check cost (groups × file size); on a file with thousands of access
 * sections it is the whole cost of the full pass. For the check, only part of the file matters:
 *
 *  - the group's sections, whole (the rewrite only edits these);
 *  - the sections around them (VirtualHost, IfModule…), their open and close tags and the
 *    directives they hold directly (DocumentRoot and Alias map URLs to directories);
 *  - everything outside Directory/Files/Location/VirtualHost sections (the top level);
 *  - sections the access model reads for other sections' sake: `<Proxy>` (it makes the URL
 *    mapping unknown), provider aliases, and any section that sets authentication settings
 *    (AuthName, AuthUserFile…) or variables (SetEnvIf) without access lines of its own.
 *
 * Every other Directory/Files/Location/VirtualHost section is left out. An access section outside
 * the group must not apply at any of the group's request points: the caller makes sure of it on
 * the whole file's model (see `onlyGroupApplies`), so it cannot change what those requests get; a section with no
 * access lines and no auth or variable settings does not change any request's status; and a
 * virtual host that holds no section of the group is never one of the group's request locations.
 * Comments and blank lines are left out too. The projection keeps the kept lines' order and
 * text, so the access model of the projection holds the group's sections exactly as written.
 */
import type { ChildNode, ConfigDocument, OffsetEdit, SectionNode } from '../syntax';
import { decidesAccess, MAX_ANALYSED_NESTING, type AccessModel, type Scope } from './model';
import { hasAccessEffect } from './evaluate';

/** Section kinds a projection may leave out when nothing in them is needed. */
const DROPPABLE = new Set(['directory', 'directorymatch', 'files', 'filesmatch', 'location', 'locationmatch', 'virtualhost']);
/** Sections the model reads for the whole file: a subtree holding one is always kept. */
const PINNED = new Set(['proxy', 'proxymatch', 'authzprovideralias', 'authnprovideralias', 'macro']);

export interface Projection {
  /** The projected text. */
  text: string;
  /** Triples [originalStart, originalEnd, projectedStart], one per kept run of the original, in order. */
  pieces: number[];
}

/** Whether a scope sets something other sections' requests read: auth settings or variables, with no access lines. */
function bearsSettings(s: Scope): boolean {
  return hasAccessEffect(s) && !decidesAccess(s);
}

/**
 * Sections that must be kept whatever the group (per model): pinned ones and their ancestors; or
 * null for a file nested deeper than the model reads (the whole file is checked then, and the
 * walk below never recurses past what the model does).
 */
const MUST_KEEP = new WeakMap<AccessModel, Set<SectionNode> | null>();

function mustKeep(model: AccessModel): Set<SectionNode> | null {
  let set = MUST_KEEP.get(model);
  if (set !== undefined) return set;
  if (model.doc.sections.some((s) => s.depth > MAX_ANALYSED_NESTING)) {
    MUST_KEEP.set(model, null);
    return null;
  }
  set = new Set();
  const mark = (s: SectionNode) => {
    for (let p: SectionNode | null = s; p && !set!.has(p); p = p.parent) set!.add(p);
  };
  for (let ix = 0; ix < model.doc.sections.length; ix++) {
    const s = model.doc.sections[ix];
    if (PINNED.has(s.key)) mark(s);
    const sc = model.scopeOfSection.get(s);
    if (sc && bearsSettings(sc)) mark(s);
  }
  MUST_KEEP.set(model, set);
  return set;
}

/**
 * The top-level lines a projection of the file may keep, in order: directives, stray closing
 * tags, and the sections that are not left out unless a group asks for them (wrappers, pinned
 * sections and their ancestors). Per model.
 */
const TOP_KEPT = new WeakMap<AccessModel, ChildNode[]>();

const lineStartOf = (c: ChildNode): number => (c.type === 'section' ? c.open.lineStart : c.lineStart);

function topLevelKept(model: AccessModel, keep: Set<SectionNode>): ChildNode[] {
  let v = TOP_KEPT.get(model);
  if (!v) {
    v = [];
    for (const c of model.doc.children) {
      if (c.type === 'directive' || c.type === 'close') v.push(c);
      else if (c.type === 'section' && !(DROPPABLE.has(c.key) && !keep.has(c))) v.push(c);
    }
    TOP_KEPT.set(model, v);
  }
  return v;
}

/**
 * The projection of `model`'s file for checking `group` (scopes of `model`), or null when the
 * file is not one a projection is sure for (syntax errors, a group scope with no section, sections
 * nested deeper than the model reads).
 */
export function projectForGroup(model: AccessModel, group: readonly Scope[]): Projection | null {
  const doc = model.doc;
  if (doc.errors.length) return null;
  const whole = new Set<SectionNode>();
  const around = new Set<SectionNode>();
  for (const s of group) {
    if (!s.section) return null;
    whole.add(s.section);
  }
  for (const s of whole) for (let p = s.parent; p; p = p.parent) around.add(p);
  const keep = mustKeep(model);
  if (!keep) return null;
  const text = doc.text;
  const pieces: number[] = [];
  let length = 0;
  const emit = (from: number, to: number): void => {
    if (to <= from) return;
    const n = pieces.length;
    if (n && pieces[n - 2] === from) pieces[n - 2] = to;
    else pieces.push(from, to, length);
    length += to - from;
  };
  const visit = (c: ChildNode): void => {
    switch (c.type) {
      case 'directive':
      case 'close':
        // A section's closing tag is its last child; a stray one stays where it is.
        emit(c.lineStart, c.lineEnd);
        break;
      case 'section': {
        if (whole.has(c)) {
          emit(c.open.lineStart, c.close!.lineEnd);
          break;
        }
        // Inside a section of the group's ancestors, or a wrapper: keep the tags and look inside.
        if (!around.has(c) && DROPPABLE.has(c.key) && !keep.has(c)) break;
        emit(c.open.lineStart, c.open.lineEnd);
        for (const k of c.children) visit(k);
        break;
      }
      default:
        // Comments and blank lines do not change what httpd does.
        break;
    }
  };
  // The top level: the lines every projection keeps (topLevelKept), and the group's own top-level
  // sections (those a walk of every line would not skip), in the file's order. A file of thousands
  // of sections is not walked for each group.
  const always = topLevelKept(model, keep);
  const own: SectionNode[] = [];
  const seenTop = new Set<SectionNode>();
  for (const s of [...whole, ...around]) {
    let t = s;
    while (t.parent) t = t.parent;
    if (!seenTop.has(t) && DROPPABLE.has(t.key) && !keep.has(t)) own.push(t);
    seenTop.add(t);
  }
  own.sort((a, b) => a.open.lineStart - b.open.lineStart);
  for (let i = 0, j = 0; i < always.length || j < own.length; ) {
    if (j >= own.length || (i < always.length && lineStartOf(always[i]) < own[j].open.lineStart)) visit(always[i++]);
    else visit(own[j++]);
  }
  let out = '';
  for (let i = 0; i < pieces.length; i += 3) out += text.slice(pieces[i], pieces[i + 1]);
  return { text: out, pieces };
}

/** The projected offset of original offset `o`, or -1 when it falls in a part left out. */
export function projectOffset(p: Projection, o: number): number {
  const i = pieceAt(p, o);
  return i < 0 ? -1 : p.pieces[i + 2] + (o - p.pieces[i]);
}

/** The index (of the triple) of the kept run that holds `o` (its end included), or -1. */
function pieceAt(p: Projection, o: number): number {
  const ps = p.pieces;
  let lo = 0;
  let hi = ps.length / 3 - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ps[mid * 3] <= o) lo = mid;
    else hi = mid - 1;
  }
  const i = lo * 3;
  return ps[i] <= o && o <= ps[i + 1] ? i : -1;
}

/** The edits moved onto the projection, or null when one touches a part left out (or spans two runs). */
export function projectEdits(p: Projection, edits: readonly OffsetEdit[]): OffsetEdit[] | null {
  const out: OffsetEdit[] = [];
  for (const e of edits) {
    const i = pieceAt(p, e.start);
    if (i < 0 || e.end > p.pieces[i + 1]) return null;
    const shift = p.pieces[i + 2] - p.pieces[i];
    out.push({ start: e.start + shift, end: e.end + shift, newText: e.newText });
  }
  return out;
}

/** The sections of a parsed projection by the original offset of their open tag. */
export function sectionsByOrigin(p: Projection, projected: ConfigDocument): Map<number, SectionNode> {
  const out = new Map<number, SectionNode>();
  let k = 0;
  for (const s of projected.sections) {
    const at = s.open.lineStart;
    // Runs are in order and sections come in document order: walk the runs along.
    while (k + 3 < p.pieces.length && p.pieces[k + 5] <= at) k += 3;
    out.set(p.pieces[k] + (at - p.pieces[k + 2]), s);
  }
  return out;
}

/**
 * True when, at every one of the points (as read on the whole file's model), the only access
 * sections that apply are the group's: the condition under which a projection reads the same.
 * `applied` gives the scopes that apply at each point.
 */
export function onlyGroupApplies(group: readonly Scope[], applied: Iterable<readonly Scope[]>): boolean {
  const inGroup = new Set(group);
  for (const list of applied) {
    for (const s of list) if (decidesAccess(s) && !inGroup.has(s)) return false;
  }
  return true;
}
