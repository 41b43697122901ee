/**
 * The exact rewrite of a `.htaccess` file in the configuration it is read in.
 *
 * On its own a `.htaccess` file does not show what its directory inherits, nor the later sections
 * of the server config, so its rewrite is never exact (plan.ts offers forms with conditions). With
 * the server config at hand it can be checked like any section: httpd reads a directory's
 * `.htaccess` right after that directory's `<Directory>` sections, so it acts as one more
 * `<Directory "dir">` placed after the others of its host (as explain-disk.ts splices it). A copy
 * goes at the end of each `<VirtualHost>` (or of the server config when it has none) whose
 * `AllowOverride` lets httpd read the file, and the access engine plans the whole configuration.
 * The rewrite is exact when every copy's sections get an exact rewrite that edits nothing but the
 * copies, and every copy comes out the same.
 */
import { applyEdits, parse, physicalLine, trimEndChars, type ConfigDocument, type OffsetEdit, type SectionNode } from '../syntax';
import { checkEditsAt, COMPAT_KEYS, fnmatchPath, isAccessKey, openDirectories, planMigration, type ConfigurationView } from '../access';
import type { HtaccessUnder } from '../rules';
import { MAX_SERVED_FOLDERS, servedPathOf, type LinkHost } from './served-paths';
import { accessFileIn, accessFileNames, checkHtaccess, directoryCopy, mainServerListen, mayServeFrom, overridesFor, virtualHosts, type Overrides } from './explain-disk';
import { only22Inside } from '../model/guards';

export interface HtaccessInContext {
  /** The rewritten .htaccess text, when it is exact in this configuration. */
  text: string | null;
  /** The edits that make it, on the .htaccess text (present with `text`). */
  edits?: OffsetEdit[];
  /** Why there is none (null text), in a sentence that follows "No exact rewrite in this configuration: ". */
  why?: string;
}

/** What rewriteIn planned: the configuration with the copies spliced in, and where their bodies lie. */
interface Spliced extends HtaccessInContext {
  doc?: ConfigDocument;
  bodies?: Array<{ start: number; end: number }>;
}

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;

/**
 * Whether a text has a host-rule line (Order, Allow, Deny, Satisfy) that httpd 2.4 reads: one
 * inside a branch only 2.2 takes (CodeIgniter's `<IfModule !authz_core_module>` `Deny from all`
 * beside `Require all denied`) needs no mod_access_compat and nothing to migrate. A look at the
 * text first; the file is parsed only when a line starts with one of those words.
 */
export function hasHostRules(text: string): boolean {
  return COMPAT.test(text) && hostRulesIn(parse(text));
}

/** The same for a file already parsed. */
function hostRulesIn(doc: ConfigDocument): boolean {
  return doc.directives.some((d) => COMPAT_KEYS.has(d.key) && !only22Inside(d.parent));
}

/**
 * How the `.htaccess` files around the one checked are read: its parents' and its subdirectories'
 * (httpd reads them on the way down to a file). `listDir` gives a folder's entries, folders ending
 * in '/'.
 */
export interface HtaccessReader {
  readFile(path: string): string | undefined;
  listDir?(path: string): string[] | undefined;
}

/** The most subdirectories looked through for .htaccess files below the one checked. */
export const MAX_SUBDIRECTORIES = 5000;

/**
 * What the `.htaccess` files under `dir` (and `dir` itself) say about access, looking through at
 * most MAX_SUBDIRECTORIES folders: `none` when no file there has an access line (Require, Auth*,
 * host rules, SetEnvIf…), else the first that does, or why it cannot be told (a folder that is not
 * there or cannot be listed, too many folders). A wildcard `dir` (userdir.conf's home folders,
 * say) stands for each folder of this machine it names (foldersMatching).
 */
export function htaccessUnder(
  dir: string,
  reader: HtaccessReader,
  names: readonly string[] = ['.htaccess'],
  below = false,
  /** Whether httpd reads the access files of a folder at all (its `AllowOverride` is not None); default: every folder. */
  reads: (folder: string) => boolean = () => true,
): HtaccessUnder {
  if (!reader.listDir) return { kind: 'unknown', why: 'folders cannot be listed' };
  if (WILDCARD.test(dir)) {
    // A wildcard <Directory> (`/home/*/public_html`): each folder of this machine it names is looked through.
    const folders = foldersMatching(dir, reader);
    if (typeof folders === 'string') return { kind: 'unknown', why: folders };
    let unknown: HtaccessUnder | null = null;
    for (const f of folders) {
      const r = htaccessUnder(f, reader, names, below, reads);
      if (r.kind === 'sets-access') return r;
      if (r.kind === 'unknown') unknown ??= r;
    }
    return unknown ?? { kind: 'none' };
  }
  const root = dir.length > 1 ? trimEndChars(dir, '/') : dir;
  if (!reader.listDir(root)) return { kind: 'unknown', why: `${root} is not a folder this machine can list` };
  let found: string | null = null;
  const walked = walkFolders(root, reader, (d) => {
    // `below`: the subdirectories only (the folder's own file is the one being rewritten).
    if (below && d === root) return false;
    // A file httpd never reads sets nothing (a folder below with `AllowOverride None`).
    if (!reads(d)) return false;
    const f = accessFileIn(d, names, reader);
    if (!f) return false;
    const hdoc = parse(f.body);
    if (hdoc.errors.length || hdoc.directives.some((x) => isAccessKey(x.key))) {
      found = f.file;
      return true;
    }
    return false;
  });
  if (found !== null) return { kind: 'sets-access', file: found };
  if (walked === 'too-many') return { kind: 'unknown', why: `more than ${MAX_SUBDIRECTORIES} folders under ${root}` };
  return { kind: 'none' };
}

const WILDCARD = /[*?[]/;

/**
 * The folders of this machine that a wildcard `<Directory>` path names, each part matched as httpd
 * matches it (a wildcard never crosses '/', and `*` takes a leading dot too), or why they cannot be
 * told: the folder above the first wildcard cannot be listed, no folder matches (the machine is
 * likely not the server), or more than MAX_SUBDIRECTORIES do.
 */
export function foldersMatching(pattern: string, reader: HtaccessReader): string[] | string {
  const parts = pattern.split('/').filter((p) => p.length > 0);
  let at = ['/'];
  for (const part of parts) {
    const next: string[] = [];
    if (!WILDCARD.test(part)) {
      for (const d of at) next.push((d === '/' ? '' : d) + '/' + part);
      at = next;
      continue;
    }
    for (const d of at) {
      const entries = reader.listDir?.(d);
      if (!entries) {
        if (at.length === 1) return `${d} (above the wildcard of ${pattern}) is not a folder this machine can list`;
        continue;
      }
      for (const e of entries) {
        if (!e.endsWith('/') || e === './' || e === '../') continue;
        const name = e.slice(0, -1);
        if (!fnmatchPath(part, name)) continue;
        if (next.length >= MAX_SUBDIRECTORIES) return `more than ${MAX_SUBDIRECTORIES} folders match ${pattern}`;
        next.push((d === '/' ? '' : d) + '/' + name);
      }
    }
    at = next;
  }
  // Only folders that are there: one missing holds no file.
  const there = at.filter((f) => reader.listDir?.(f) !== undefined);
  return there.length ? there : `no folder of this machine matches ${pattern}`;
}

/**
 * Visits `root`, then the folders below it breadth first, until `visit` returns true ('stopped')
 * or more than MAX_SUBDIRECTORIES folders below it turn up ('too-many').
 */
function walkFolders(root: string, reader: HtaccessReader, visit: (dir: string) => boolean): 'done' | 'stopped' | 'too-many' {
  const queue = [root];
  for (let q = 0; q < queue.length; q++) {
    if (visit(queue[q])) return 'stopped';
    for (const e of reader.listDir?.(queue[q]) ?? []) {
      if (!e.endsWith('/') || e === './' || e === '../') continue;
      if (queue.length > MAX_SUBDIRECTORIES) return 'too-many';
      queue.push((queue[q] === '/' ? '' : queue[q]) + '/' + e.slice(0, -1));
    }
  }
  return 'done';
}

/** The reason given for a file without host rules (callers leave such files alone quietly). */
export const NO_HOST_RULES = 'it has no host rules.';

/**
 * `config`: the whole server configuration (includes inlined); `dir`: the absolute directory of the
 * `.htaccess` file (no trailing slash); `htaccess`: its text.
 */
export function migrateHtaccessInContext(
  config: ConfigDocument,
  dir: string,
  htaccess: string,
  /** Where each line of `config` comes from (a flattened configuration), for messages. */
  origins: ReadonlyArray<{ path: string; line: number }> | undefined,
  /**
   * Reads the `.htaccess` files of the parent directories, which httpd reads on the way down and
   * this one inherits from (a password in the parent's, say), and those of its subdirectories,
   * which inherit from it. Without one nothing is known of them, and no rewrite is offered.
   */
  parents: HtaccessReader | undefined,
  /**
   * Real paths and links on the disk: httpd reaches a folder by the path its URL mapping gives,
   * links unresolved, and applies that path's sections (see served-paths.ts). Without it the folder
   * is taken to be reached by `dir` alone (null: a disk held in memory, which has none).
   */
  links: LinkHost | null,
): HtaccessInContext {
  if (links) {
    const real = links.realPath(dir);
    const served = servedPathOf(config, real, links);
    if (served.kind === 'several') return { text: null, why: `httpd reaches its folder by more than one path through symbolic links (one of them ${served.path}), and each path has its own \`<Directory>\` sections and parent .htaccess files: a rewrite checked on one path says nothing of the others.` };
    if (served.kind === 'unknown') return { text: null, why: `the folders its configuration serves are too many (over ${MAX_SERVED_FOLDERS}) to look through for symbolic links that reach it by another path.` };
    if (served.kind === 'one') dir = served.path;
    else if (real !== dir) return { text: null, why: `it is reached through a symbolic link (its folder is ${real}) that no \`DocumentRoot\` or \`Alias\` of the configuration leads through, so which path httpd reaches it by, and which sections apply there, is not known.` };
  }
  if (!parents) return { text: null, why: 'the .htaccess files of its parent directories, which it inherits from, cannot be read.' };
  if (!parents.listDir) return { text: null, why: 'its subdirectories cannot be listed, and a .htaccess file in one of them would inherit from it.' };
  if (!hasHostRules(htaccess)) return { text: null, why: NO_HOST_RULES };
  const hdoc = parse(htaccess);
  if (hdoc.errors.length) return { text: null, why: `it does not parse (${hdoc.errors[0].message})` };
  const where = (line: number): string => {
    const o = origins?.[line];
    return o ? `${o.path}:${o.line + 1}` : `line ${line + 1}`;
  };
  const vhosts = virtualHosts(config);
  // A request one virtual host answers passes through the server config's sections and that
  // host's only: the hosts that do not read the file cannot change what its copies decide, and are
  // left out of the plan (with hundreds of hosts, their sections would make every check huge).
  let inConfig = config;
  let whereIn = where;
  let hosts: Array<SectionNode | null> = vhosts.length ? vhosts : [null];
  // A host whose URLs never reach the folder (its DocumentRoot elsewhere, no Alias or RewriteRule
  // in the configuration) never reads the file either; when none is found to reach it, every
  // host that may read it is kept, as before.
  const allowing = vhosts.filter((v) => overridesFor(config, v, dir) !== null);
  const serving = allowing.filter((v) => mayServeFrom(config, v, dir));
  // No host reaches the folder (each DocumentRoot elsewhere, nothing else mapping URLs) and the main
  // server neither: the configuration never reads the file, and says nothing of what a rewrite
  // of it does (every rewrite would look exact). Another configuration may serve it.
  const mainServes = (!vhosts.length || mainServerListen(config) !== null) && mayServeFrom(config, null, dir);
  if (!serving.length && !mainServes && (allowing.length || !vhosts.length)) return { text: null, why: NOT_SERVED };
  const readers = serving.length ? serving : allowing;
  if (readers.length && readers.length < vhosts.length) {
    const kept = withoutHosts(config, vhosts.filter((v) => !readers.includes(v)));
    inConfig = kept.doc;
    whereIn = (line) => where(kept.lineOf[line] ?? line);
    hosts = virtualHosts(kept.doc);
  }
  const { doc: _d, bodies: _b, ...inHosts } = rewriteIn(inConfig, hosts, dir, htaccess, hdoc, whereIn, parents);
  if (!vhosts.length || inHosts.text === null) return inHosts;
  // The main server answers the connections no <VirtualHost> takes (a Listen address or port none
  // of them covers), with the server config's sections alone: the rewrite must be exact there too.
  const listen = mainServerListen(config);
  if (listen === null || !mayServeFrom(config, null, dir)) return inHosts;
  const main = withoutHosts(config, vhosts);
  // httpd answers 500 below the directory there, for the original and the rewrite alike.
  const mainOv = overridesFor(main.doc, null, dir);
  if (mainOv && checkHtaccess(hdoc, mainOv).fatal && checkHtaccess(parse(inHosts.text), mainOv).fatal) return inHosts;
  const inMain = rewriteIn(main.doc, [null], dir, htaccess, hdoc, (line) => where(main.lineOf[line] ?? line), parents);
  const on = listen.directive ? `\`Listen ${listen.directive.args.map((a) => a.raw).join(' ')}\`, ${where(listen.directive.line)}` : 'no `Listen` in the configuration';
  if (inMain.why === NOT_READ) return inHosts;
  if (inMain.text === null) return { text: null, why: `the main server, which answers what no virtual host takes (${on}), reads it too, and there ${inMain.why}` };
  if (inMain.text === inHosts.text) return inHosts;
  // Another text there (say without the AuthMerging line nothing inherited needs): the virtual
  // hosts' rewrite is checked on the main server as the plan checks its own.
  const b = inMain.bodies?.[0];
  const why =
    inMain.doc && b && mainOv && !checkHtaccess(parse(inHosts.text), mainOv).fatal
      ? checkEditsAt(inMain.doc, 'server', b.start - `<Directory "${dir}">\n`.length, b.end, [{ start: b.start, end: b.start + htaccess.length, newText: inHosts.text }], [dir])
      : 'its directory there does not allow what the rewrite uses';
  if (why === null) return inHosts;
  return { text: null, why: `the main server, which answers what no virtual host takes (${on}), reads it too, and the virtual hosts' rewrite is not exact there (${why}).` };
}

const NOT_READ = 'httpd does not read it (`AllowOverride None` for its directory).';
const NOT_SERVED = 'no host of this configuration serves its folder (each `DocumentRoot` leads elsewhere, and nothing else maps URLs there), so it says nothing of what the file does; check it in the configuration that serves it.';

/** The server config without the virtual hosts given (all of them: what the main server reads), and each line's line in `config`. */
function withoutHosts(config: ConfigDocument, vhosts: readonly SectionNode[]): { doc: ConfigDocument; lineOf: number[] } {
  let text = '';
  let last = 0;
  const lineOf: number[] = [];
  const keep = (from: number, to: number): void => {
    if (from >= to) return;
    const l0 = physicalLine(config, from);
    const chunk = config.text.slice(from, to);
    const n = lineCount(chunk) + (chunk.endsWith('\n') ? 0 : 1);
    for (let i = 0; i < n; i++) lineOf.push(l0 + i);
    text += chunk;
  };
  for (const v of vhosts) {
    // Nested ones (a <VirtualHost> inside another is refused by httpd) go with their parent.
    if (v.open.lineStart < last) continue;
    keep(last, v.open.lineStart);
    last = v.close ? v.close.lineEnd : config.text.length;
  }
  keep(last, config.text.length);
  return { doc: parse(text), lineOf };
}

/** The rewrite of the .htaccess with a copy at the end of each of `hosts` (null: the server config's end). */
function rewriteIn(
  config: ConfigDocument,
  hosts: ReadonlyArray<SectionNode | null>,
  dir: string,
  htaccess: string,
  hdoc: ConfigDocument,
  where: (line: number) => string,
  parents: HtaccessReader,
): Spliced {
  // Where a copy goes (before the host's closing tag, or at the end), for the hosts that read the
  // file, and the parent directories' .htaccess files that go before it there.
  const at: Array<{ pos: number; before: Copy[]; after: Copy[] }> = [];
  const overrides: Overrides[] = [];
  for (const vhost of hosts) {
    const ov = overridesFor(config, vhost, dir);
    if (!ov) continue;
    const { fatal, skip } = checkHtaccess(hdoc, ov);
    if (fatal) return { text: null, why: `httpd cannot read it as it is (${fatal.effect}).` };
    if (skip.length) return { text: null, why: 'httpd skips some of its lines (AllowOverride Nonfatal).' };
    // Require and its containers need AuthConfig (or an AllowOverrideList naming them); the
    // rewritten text is checked against the overrides below, this only saves the work.
    if (!ov.classes.has('AuthConfig') && !ov.list.size) {
      return { text: null, why: 'its directory does not allow `AuthConfig` overrides, which `Require` needs (the rewritten file would answer 500).' };
    }
    const close = vhost?.close;
    if (vhost && !close) return { text: null, why: 'a `<VirtualHost>` of the configuration is not closed.' };
    const before = parentCopies(config, vhost, dir, parents);
    if (!Array.isArray(before)) return { text: null, why: before.why };
    const after = childCopies(config, vhost, dir, parents);
    if (!Array.isArray(after)) return { text: null, why: after.why };
    at.push({ pos: close ? close.lineStart : config.text.length, before, after });
    overrides.push(ov);
  }
  if (!at.length) return { text: null, why: NOT_READ };

  // Splice the copies, remembering where each body lies in the new text.
  const body = htaccess.endsWith('\n') || !htaccess ? htaccess : htaccess + '\n';
  const open = `<Directory "${dir}">\n`;
  const closeTag = '</Directory>\n';
  let text = '';
  let last = 0;
  const bodies: Array<{ start: number; end: number }> = [];
  /** The end of each text spliced in, and how many lines it has. */
  const spliced: Array<{ end: number; lines: number }> = [];
  /** Where the other .htaccess files' copies lie, which the rewrite must leave alone. */
  const others: Array<{ start: number; end: number; file: string }> = [];
  /** Folders that hold a .htaccess file: directories, whatever their names. */
  const folders = [dir];
  /**
   * The copies, by offset: their lines stay as they are. A subdirectory's file with host rules is
   * left to its own run, and no run would carry an edit into one without (a file with `Require`
   * lines only, or with host rules only in a branch 2.2 reads): the rewrite is planned with them
   * as they are, and one that edits them anyway is refused below.
   */
  const kept: Array<{ start: number; end: number }> = [];
  const putCopies = (copies: Copy[]): void => {
    for (const c of copies) {
      folders.push(c.file.slice(0, Math.max(1, c.file.lastIndexOf('/'))));
      others.push({ start: text.length, end: text.length + c.text.length, file: c.file });
      kept.push({ start: text.length, end: text.length + c.text.length });
      text += c.text;
    }
  };
  for (const { pos, before: parentsCopies, after: childrenCopies } of [...at].sort((a, b) => a.pos - b.pos)) {
    let head = config.text.slice(last, pos);
    const before = head || text;
    if (before && !before.endsWith('\n')) head += '\n';
    text += head;
    const from = text.length;
    putCopies(parentsCopies);
    text += open;
    bodies.push({ start: text.length, end: text.length + body.length });
    text += body + closeTag;
    putCopies(childrenCopies);
    spliced.push({ end: text.length, lines: lineCount(text.slice(from)) });
    last = pos;
  }
  text += config.text.slice(last);

  const doc = parse(text);
  const keepLines: number[] = [];
  for (const k of kept) for (let l = physicalLine(doc, k.start), e = physicalLine(doc, k.end - 1); l <= e; l++) keepLines.push(l);
  const plan = planMigration(doc, 'server', { exactOnly: true, directories: folders, ...(keepLines.length ? { keepLines } : {}) });
  /** The line of the configuration as given at an offset of the spliced text (the copies spliced before it pushed it down). */
  const givenLine = (at: number): number => {
    let line = physicalLine(doc, at);
    for (const x of spliced) if (x.end <= at) line -= x.lines;
    return line;
  };
  /** Lines of the spliced text named in a reason, as lines of the files they come from. */
  const told = (why: string): string =>
    why.replace(/\bline (\d+)\b/g, (whole, n: string) => {
      const at = doc.lineStarts[Number(n) - 1];
      if (at === undefined) return whole;
      const other = others.find((o) => o.start <= at && at < o.end);
      // A copy's first line is its <Directory> tag, a line of no file.
      if (other) return `${other.file} line ${Math.max(1, physicalLine(doc, at) - physicalLine(doc, other.start))}`;
      const b = bodies.find((x) => x.start <= at && at < x.end);
      if (b) return `line ${physicalLine(doc, at) - physicalLine(doc, b.start) + 1} of this file`;
      return where(givenLine(at));
    });
  const inside = (off: number) => bodies.some((b) => b.start <= off && off <= b.end);
  const ours = plan.sections.filter((sp) => sp.compatDirectives.some((d) => inside(d.start)));
  if (!ours.length) return { text: null, why: 'apacheconf finds no host rules of it in force here.' };
  const edits: OffsetEdit[] = [];
  const seen = new Set<string>();
  for (const sp of ours) {
    if (!sp.exact) return { text: null, why: sp.reason ? told(sp.reason) : 'no rewrite form applies.' };
    for (const e of sp.exact.edits) {
      const key = `${e.start}:${e.end}:${e.newText}`;
      if (seen.has(key)) continue;
      seen.add(key);
      // An edit that writes back what is there changes nothing (the plan may restate a line).
      if (doc.text.slice(e.start, e.end) === e.newText) continue;
      const other = others.find((o) => o.start <= e.start && e.start < o.end);
      if (other) return { text: null, why: `the rewrite would also change ${other.file}, which is read together with it: rewriting the two together is not supported yet.` };
      if (!inside(e.start) || !inside(e.end)) {
        const line = givenLine(e.start);
        // Host rules of the server config there are for the user to migrate; otherwise a later
        // section sets access for the same requests, and only a joint rewrite would be exact.
        const compatThere = doc.directives.some((d) => d.end > e.start && d.start < Math.max(e.end, e.start + 1) && COMPAT_KEYS.has(d.key));
        return {
          text: null,
          why: compatThere
            ? `the rewrite would also change the server config (${where(line)}): migrate its own host rules first.`
            : `the rewrite would also have to change the server config (${where(line)}), where another section also sets access for the same requests: a .htaccess rewrite alone is not exact there.`,
        };
      }
      edits.push(e);
    }
  }
  // Each copy's body after the edits; they must agree.
  let out: string | null = null;
  let first: OffsetEdit[] = [];
  for (const b of bodies) {
    const mine = edits.filter((e) => e.start >= b.start && e.end <= b.end).map((e) => ({ ...e, start: e.start - b.start, end: e.end - b.start }));
    let t = applyEdits(body, mine);
    if (body !== htaccess) t = t.endsWith('\n') ? t.slice(0, -1) : t;
    if (out === null) {
      out = t;
      first = mine;
    } else if (out !== t) return { text: null, why: 'the virtual hosts that read it would need different rewrites.' };
  }
  if (out === null || out === htaccess) return { text: null, why: 'no rewrite form applies.' };
  // Whatever the rewrite uses (Require, its containers, AuthMerging) must be allowed where it is read.
  const rewritten = parse(out);
  for (const ov of overrides) {
    const { fatal, skip } = checkHtaccess(rewritten, ov);
    if (fatal || skip.length) return { text: null, why: `its directory does not allow what the rewrite uses (${fatal ? fatal.effect : 'AllowOverride Nonfatal would skip some of its lines'}).` };
  }
  // The engine's own edits when they were made on the file as it is (one ending in a line break), else one replacement.
  return { text: out, edits: body === htaccess ? first : [{ start: 0, end: htaccess.length, newText: out }], doc, bodies };
}

/**
 * The `.htaccess` files of the parent directories that httpd reads for `dir` in `vhost` (the
 * directories from `/` down, where AllowOverride lets it), each as a `<Directory>` copy, in order.
 * One with host rules of its own would be rewritten too, and one httpd cannot read makes every
 * answer below it 500: for both, the reason there is no rewrite.
 */
/** Another .htaccess file as a `<Directory>` section, and its path. */
interface Copy {
  file: string;
  text: string;
}

function parentCopies(config: ConfigDocument, vhost: SectionNode | null, dir: string, reader: HtaccessReader): Copy[] | { why: string } {
  const parts = dir.split('/').filter(Boolean);
  const names = accessFileNames(config, vhost);
  const out: Copy[] = [];
  for (let i = 0; i < parts.length; i++) {
    const parent = '/' + parts.slice(0, i).join('/');
    const ov = overridesFor(config, vhost, parent);
    if (!ov) continue;
    const f = accessFileIn(parent, names, reader);
    if (!f) continue;
    const { file, body } = f;
    const pdoc = parse(body);
    if (hostRulesIn(pdoc)) return { why: `the .htaccess of a parent directory (${file}) has host rules of its own, which this file inherits: migrate that one first, then this one.` };
    const { fatal, skip } = checkHtaccess(pdoc, ov);
    if (fatal || skip.length) return { why: `httpd cannot read the .htaccess of a parent directory (${file}) as it is${fatal ? ` (${fatal.effect})` : ''}.` };
    out.push({ file, text: directoryCopy(parent, body) });
  }
  return out;
}

/**
 * The `.htaccess` files below `dir` that httpd reads in `vhost` and that say something about
 * access (host rules, Require, Auth*, SetEnvIf…), each as a `<Directory>` copy: they inherit what
 * the file says, so its rewrite is checked in them too. One with host rules of its own goes in as
 * it is, its lines kept (in 2.2 terms its rules replace the parent's, in 2.4 terms the parent's
 * Require still applies there: the rewrite must answer as before with it still read by
 * mod_access_compat, and it is rewritten afterwards under the result). One httpd cannot read refuses.
 */
function childCopies(config: ConfigDocument, vhost: SectionNode | null, dir: string, reader: HtaccessReader): Copy[] | { why: string } {
  const names = accessFileNames(config, vhost);
  const out: Copy[] = [];
  let refused: string | null = null;
  const walked = walkFolders(dir, reader, (sub) => {
    if (sub === dir) return false;
    const ov = overridesFor(config, vhost, sub);
    if (!ov) return false;
    const f = accessFileIn(sub, names, reader);
    if (!f) return false;
    const { file, body } = f;
    const cdoc = parse(body);
    if (!cdoc.errors.length && !cdoc.directives.some((d) => isAccessKey(d.key))) return false;
    const { fatal, skip } = cdoc.errors.length ? { fatal: null, skip: [] } : checkHtaccess(cdoc, ov);
    if (cdoc.errors.length || fatal || skip.length || /\r(?!\n)/.test(body)) refused = `httpd cannot read the .htaccess of a subdirectory (${file}) as it is${fatal ? ` (${fatal.effect})` : ''}.`;
    if (refused) return true;
    // One with host rules of its own is read as it stays for now (mod_access_compat still reads
    // it): this file's rewrite must answer as before with it, and it is rewritten after this one.
    out.push({ file, text: directoryCopy(sub, body) });
    return false;
  });
  if (refused !== null) return { why: refused };
  if (walked === 'too-many') return { why: `it has more than ${MAX_SUBDIRECTORIES} subdirectories to look through for .htaccess files that inherit from it.` };
  return out;
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The origin given to the `<Directory>` tags wrapped around a spliced `.htaccess` copy: a line of no file. */
export const HTACCESS_WRAPPER = '(.htaccess wrapper)';

/** A configuration with the `.htaccess` files httpd reads in it spliced in, as `spliceHtaccessFiles` makes it. */
export interface WithHtaccess {
  doc: ConfigDocument;
  origins: Array<{ path: string; line: number }>;
  /** The directories whose `AllowOverride` lets `.htaccess` files set access, and under which every such file is spliced in. */
  known: Set<string>;
  /** The `.htaccess` files spliced in. */
  files: Set<string>;
  /** Their folders (directories, whatever their names). */
  directories: string[];
}

/**
 * The server configuration with the `.htaccess` files on disk spliced in where httpd reads them, so
 * that a rewrite of the server config's host rules is planned and checked with them.
 *
 * A `.htaccess` file that sets access under a directory whose `AllowOverride` lets it do so is read
 * together with the server's sections for the requests below it: its host rules replace the
 * server's in 2.2 terms, its `Require` and a rewritten server `Require` replace each other in 2.4
 * terms. Without the file at hand a server rewrite there is never exact (legacy-access says so).
 * With it, each file goes in as one more `<Directory "folder">` at the end of each host that reads
 * it (or of the server config when it has no `<VirtualHost>`), as migrateHtaccessInContext does for
 * a `.htaccess` rewrite, and each of its lines keeps its file and line as origin.
 *
 * A directory is `known` only when every file under it that sets access went in: none that httpd
 * cannot read as it is (a directive its `AllowOverride` refuses answers 500), none under a folder
 * too deep to look through. With virtual hosts and a main server that answers some connections
 * itself, the main server's copies go at the end of the server config, outside every host, and a
 * directory is known only where each host reads the same files as the main server.
 */
export function spliceHtaccessFiles(config: ConfigDocument, origins: ReadonlyArray<{ path: string; line: number }>, dirs: readonly string[], reader: HtaccessReader): WithHtaccess {
  const none: WithHtaccess = { doc: config, origins: [...origins], known: new Set(), files: new Set(), directories: [] };
  if (!dirs.length || !reader.listDir) return none;
  const vhosts = virtualHosts(config);
  if (vhosts.some((v) => !v.close)) return none;
  // The main server answers the connections no <VirtualHost> takes: its copies go at the end of
  // the server config, outside every host (see below).
  const mainToo = vhosts.length > 0 && mainServerListen(config) !== null;
  const hosts: Array<SectionNode | null> = vhosts.length ? (mainToo ? [...vhosts, null] : vhosts) : [null];
  const main = hosts.length - 1;
  /** Per host, the copies to put at its end, by file. */
  const copies = hosts.map(() => new Map<string, { folder: string; body: string }>());
  const known = new Set<string>();
  // A wildcard <Directory> (`/home/*/www`, a UserDir layout) is walked in each folder of the disk
  // it names; it counts as read when every one of them was.
  const roots: Array<{ dir: string; root: string; pattern?: string }> = [];
  const wildcards = new Map<string, number>();
  for (const dir of dirs) {
    if (!WILDCARD.test(dir)) {
      roots.push({ dir, root: dir.length > 1 ? trimEndChars(dir, '/') : dir });
      continue;
    }
    const folders = foldersMatching(dir, reader);
    if (typeof folders === 'string' || !folders.length) continue;
    wildcards.set(dir, folders.length);
    for (const f of folders) roots.push({ dir: f, root: f, pattern: dir });
  }
  const readWhole = new Map<string, number>();
  for (const { dir, root, pattern } of roots) {
    if (!reader.listDir(root)) continue;
    let bad = false;
    const walked = walkFolders(root, reader, (folder) => {
      hosts.forEach((host, h) => {
        // A host whose URLs never reach the folder never reads its files.
        if (!mayServeFrom(config, host, folder)) return;
        const ov = overridesFor(config, host, folder);
        if (!ov) return;
        const f = accessFileIn(folder, accessFileNames(config, host), reader);
        if (!f) return;
        const { file, body } = f;
        const hdoc = parse(body);
        if (!hdoc.errors.length && !hdoc.directives.some((d) => isAccessKey(d.key))) return;
        const { fatal, skip } = hdoc.errors.length ? { fatal: true, skip: [] } : checkHtaccess(hdoc, ov);
        // One httpd cannot read as it is, or with a line break the configuration would count otherwise.
        if (fatal || skip.length || /\r(?!\n)/.test(body)) bad = true;
        else copies[h].set(file, { folder, body });
      });
      // A copy at the top level is read by every virtual host as well (they inherit the main
      // server's sections). Where each of them reads the same file, that changes nothing: its own
      // copy comes after its own sections and sets again what the first one set (a section's host
      // rules replace those before it; its Require lines replace, or join by AuthMerging, which
      // gives the same tree twice over). Where one does not read it, the copy would be wrong there
      // (a host whose URLs never reach the folder does not count: the copy never applies in it).
      if (mainToo) {
        for (const name of accessFileNames(config, null)) {
          const file = (folder === '/' ? '' : folder) + '/' + name;
          if (copies[main].has(file) && !vhosts.every((v, h) => copies[h].has(file) || !mayServeFrom(config, v, folder))) bad = true;
        }
      }
      return bad;
    });
    if (!bad && walked === 'done') {
      known.add(dir);
      if (pattern) readWhole.set(pattern, (readWhole.get(pattern) ?? 0) + 1);
    }
  }
  for (const [pattern, n] of wildcards) if (readWhole.get(pattern) === n) known.add(pattern);
  if (!copies.some((m) => m.size)) return { ...none, known };
  // Splice each host's copies before its closing tag (parents before children), remembering each line's origin.
  const lineAt = (offset: number) => physicalLine(config, offset);
  let text = '';
  const out: Array<{ path: string; line: number }> = [];
  let last = 0;
  const files = new Set<string>();
  const directories = new Set<string>();
  const keep = (to: number) => {
    if (to <= last) return;
    const from = lineAt(last);
    const chunk = config.text.slice(last, to);
    text += chunk;
    // Its lines, the last one counted too when the text ends without a line break.
    const n = lineCount(chunk) + (chunk.endsWith('\n') ? 0 : 1);
    for (let i = 0; i < n; i++) out.push(origins[from + i] ?? { path: HTACCESS_WRAPPER, line: 0 });
    last = to;
  };
  const order = hosts.map((host, h) => ({ h, pos: host?.close ? host.close.lineStart : config.text.length })).sort((a, b) => a.pos - b.pos);
  for (const { h, pos } of order) {
    if (!copies[h].size) continue;
    keep(pos);
    // The configuration's last line, ended so that the copies start a line of their own (its origin is counted).
    if (text && !text.endsWith('\n')) text += '\n';
    const list = [...copies[h]].sort((a, b) => a[1].folder.split('/').length - b[1].folder.split('/').length || (a[0] < b[0] ? -1 : 1));
    for (const [file, { folder, body }] of list) {
      files.add(file);
      directories.add(folder);
      // The tags are lines of no file; the body's lines are the file's.
      const copy = directoryCopy(folder, body);
      text += copy;
      const n = lineCount(copy) - 2;
      out.push({ path: HTACCESS_WRAPPER, line: 0 });
      for (let i = 0; i < n; i++) out.push({ path: file, line: i });
      out.push({ path: HTACCESS_WRAPPER, line: 0 });
    }
  }
  keep(config.text.length);
  const doc = parse(text);
  // Lines counted otherwise than the parser does (a lone CR in the server config): splice nothing.
  if (doc.lineStarts.length !== out.length + (text.endsWith('\n') ? 1 : 0)) return none;
  return { doc, origins: out, known, files, directories: [...directories] };
}

/**
 * Whether a `.htaccess` file spliced into `config` may be rewritten together with the server
 * config, in one plan of the whole (fix --root, when the file is in the run): every host that
 * reads it must allow `AuthConfig` there, which the rewrite's `Require`, `AuthMerging` and
 * `<RequireAll>` lines need (the plan reads the file as a `<Directory>`, where all of them are
 * allowed). The classic 2.2 layout needs it: a server `<Directory>` that lets one client in and a
 * `.htaccess` below with `Allow from all`, where neither can be rewritten while the other keeps
 * its host rules.
 */
export function rewritableWithServer(config: ConfigDocument, file: string): boolean {
  const folder = file.slice(0, file.lastIndexOf('/')) || '/';
  const vhosts = virtualHosts(config);
  const hosts: Array<SectionNode | null> = vhosts.length ? (mainServerListen(config) !== null ? [...vhosts, null] : vhosts) : [null];
  let read = false;
  for (const host of hosts) {
    if (!mayServeFrom(config, host, folder)) continue;
    const ov = overridesFor(config, host, folder);
    if (!ov) continue;
    read = true;
    if (!ov.classes.has('AuthConfig')) return false;
  }
  return read;
}

/**
 * `view` with the `.htaccess` files httpd reads in its configuration spliced in (spliceHtaccessFiles,
 * over the directories whose `AllowOverride` lets them set access): the files are kept as they are,
 * known to be read, and left out of the files rewritten together with it.
 */
export function viewWithHtaccess(view: ConfigurationView, reader: HtaccessReader): ConfigurationView {
  const w = spliceHtaccessFiles(view.doc, view.origins, openDirectories(view.doc), reader);
  const directories = [...new Set([...w.directories, ...directoriesOnDisk(view.doc, reader)])];
  if (!w.files.size && !w.known.size) return directories.length ? { ...view, directories } : view;
  const together = view.together ? new Set([...view.together].filter((p) => !w.files.has(p))) : undefined;
  return { ...view, doc: w.doc, origins: w.origins, htaccessKnown: w.known, directories, kept: w.files, spliced: w.files, ...(together ? { together } : {}) };
}

/**
 * The paths of the configuration's plain `<Directory>` sections that are folders on the disk it
 * is read from. The planner otherwise tries each such path as a file too (a request below it then
 * reaches that file with the rest as path_info, and httpd does not apply the section that names
 * it), and a rewrite that is exact only where the path is a folder is refused.
 */
function directoriesOnDisk(doc: ConfigDocument, reader: HtaccessReader): string[] {
  const out: string[] = [];
  for (const s of doc.sections) {
    if (s.key !== 'directory' || s.args.length !== 1) continue;
    const p = s.args[0].value;
    if (!p.startsWith('/') || /[*?[~]|\$\{/.test(p)) continue;
    const dir = p.length > 1 ? trimEndChars(p, '/') : p;
    if (reader.listDir?.(dir) !== undefined) out.push(dir);
  }
  return out;
}
