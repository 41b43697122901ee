/**
 * The quick pass's findings: one per line, with its message and nothing the engine would add (the
 * full pass's loop below, for a file without plans). Read from the file's index by line: a node is
 * made only for a line whose message is not known yet, so a large file's thousands of host rules
 * cost the editor no objects but their findings.
 */
function quickFindings(doc: ConfigDocument): Finding[] {
  const at = doc.linesWithKeys(COMPAT_KEY_LIST);
  const ids = lineTextIds(doc, at);
  const out = new Array<Finding>(at.length);
  const text = doc.text;
  for (let ix = 0; ix < at.length; ix++) {
    const i = at[ix];
    const start = doc.startOf(i);
    const end = doc.endOf(i);
    const parent = doc.parentOf(i);
    const only22 = only22Inside(parent);
    // (What describedOf answers, with the messages by the line's text number looked at first.)
    const cached = !only22 || readersInside(parent).has('httpd22');
    let message = cached ? describedById[only22 ? 1 : 0].get(ids[ix]) : undefined;
    if (message === undefined) {
      message = describedOf(text, doc.lineAt(i) as DirectiveNode, only22);
      if (cached) describedById[only22 ? 1 : 0].set(ids[ix], message);
    }
    // (The rule's default severity given at once: the service completes a finding in place, and a
    // property added to thousands of objects is a property array more for each.)
    out[ix] = only22
      ? { rule: 'legacy-access', message, start, end, tags: DEPRECATED, severity: 'hint', maxSeverity: 'hint' }
      : { rule: 'legacy-access', message, start, end, tags: DEPRECATED, severity: 'warning' };
  }
  return out;
}

/**
 * `legacy-access`: Order, Allow, Deny and Satisfy, the host-based access
 * control of httpd 2.2 that 2.4 keeps only in mod_access_compat. Each such
 * directive gets its own finding, tagged Deprecated. In branches only 2.2
 * reads (`<IfModule !mod_authz_core.c>`, `<IfVersion < 2.3>`…) the finding is
 * at most a hint: those lines are the 2.2 half of a dual-version file.
 *
 * Fixes come from the access engine's migration plan for the directive's
 * section: the exact rewrite (preferred) when the engine proved one, and the
 * naive mapping most guides give, titled with what it changes.
 */
import type { DirectiveNode, Finding, Fix, HtaccessUnder, Rule } from './types';
import { codeLine, COMPAT_DIRECTIVES, COMPAT_KEY_LIST, in22Branch, readers } from './scope';
import { detached, directivesNamed, hasDirective, IdCache, lineTextIds, SpanCache, type ConfigDocument, type SectionNode } from '../syntax';
import { FRAGMENT_BECAUSE, INCLUDED_NOTE, isBelowDir, lineLabel, openDirsTouching, planMigration, plansAsIncluded, plansInConfiguration, type DirLevelNeeds, type SectionPlan } from '../access';
import { ancestors, looksIncluded } from '../model/context';
import { formerModule, namesNoModule, only22Inside, readersInside, testKeyOf } from '../model/guards';

/**
 * The finding's message: which line, what it is, and what to write instead, in one sentence or
 * two. A file full of 2.2 blocks has thousands of these, and the editor receives every one of
 * them on each change; the longer story (how the two models are merged) is in the hover.
 */
function describe(d: DirectiveNode): string {
  switch (d.key) {
    case 'order':
      return `${quoted(d)} is 2.2 access control, kept in 2.4 only by mod_access_compat and evaluated apart from \`Require\`. Write it with \`Require\`.`;
    case 'allow':
    case 'deny':
      return `${quoted(d)} is 2.2 access control (mod_access_compat); what it does depends on \`Order\`. Write it with \`Require\`.`;
    default:
      return `${quoted(d)} is 2.2 access control (mod_access_compat). Write it with \`<RequireAll>\` (both) or \`<RequireAny>\` (either).`;
  }
}

/** The line as the message quotes it: the directive's usual spelling and its words. */
function quoted(d: DirectiveNode): string {
  const name = d.key === 'order' ? 'Order' : d.key === 'allow' ? 'Allow' : d.key === 'deny' ? 'Deny' : 'Satisfy';
  return codeLine(name + ' ' + d.args.map((a) => a.value).join(' '));
}

/*
 * A file with thousands of these lines is checked again on every keystroke, and most of its lines
 * repeat (`Order allow,deny`, `Allow from all`): the message of a line text is made once and
 * shared, which keeps the garbage the editor waits for small. The caches are bounded.
 */
const DEPRECATED: Array<'deprecated'> = Object.freeze(['deprecated']) as Array<'deprecated'>;

/** Messages by line text: one cache for lines 2.4 reads, one for lines only 2.2 does. */
const described: Array<SpanCache<string>> = [new SpanCache(16384), new SpanCache()];
/** The same, by the text's number (lineTextIds), for the quick pass, which reads lines by index. */
const describedById: Array<IdCache<string>> = [new IdCache(16384), new IdCache(1024)];

/**
 * The message of a line, by its text (the name and the words, and so the message, follow from
 * it). In a branch only 2.2 reads it is a short hint: the line is dead in 2.4.
 */
/** The `<IfModule>` around a line that names one of httpd 2.0's modules, which 2.2 and 2.4 lack (see formerModule). */
function formerGuard(parent: SectionNode | null): { arg: string; name: string; now: string } | null {
  for (let p = parent; p; p = p.parent) {
    const arg = p.key === 'ifmodule' ? p.args[0]?.value : undefined;
    const f = arg ? formerModule(arg) : null;
    if (f) return { arg: arg!, ...f };
  }
  return null;
}

/** Why no server reads a line, when an `<IfModule>` around it names no module as httpd spells them. */
function misnamedModule(d: DirectiveNode): string {
  const old = formerGuard(d.parent);
  if (old) {
    return `: \`<IfModule ${old.arg}>\` names httpd 2.0's ${old.name}, which 2.2 replaced with ${old.now}, so neither 2.2 nor 2.4 reads these lines: they have had no effect since 2.0. Delete them, or write what they meant as \`Require\` outside the test if nothing else does`;
  }
  for (let p = d.parent; p; p = p.parent) {
    const arg = p.key === 'ifmodule' ? p.args[0]?.value : undefined;
    if (arg && namesNoModule(arg)) {
      return ` (\`<IfModule ${arg}>\` names no module: httpd finds one by its file or its identifier spelt exactly, as \`mod_access_compat.c\` or \`access_compat_module\`)`;
    }
  }
  return '';
}

function describedOf(text: string, d: DirectiveNode, only22: boolean): string {
  // A branch no server reads (an <IfModule> name httpd never finds, such as `mod_access_compat` without `.c`).
  const unread = only22 && !readers(d).has('httpd22');
  // Rare, and its words depend on the sections around the line: not cached.
  if (unread) return `${quoted(d)}: no httpd ${formerGuard(d.parent) ? 'since 2.0 ' : ''}reads this branch${misnamedModule(d)}.`;
  const cache = described[only22 ? 1 : 0];
  let v = cache.get(text, d.start, d.end);
  if (v === undefined) {
    // A copy: the cache outlives the document its words were cut from.
    v = detached(only22 ? `${quoted(d)}: only httpd 2.2 reads this branch; 2.4 skips it.` : describe(d));
    cache.set(text, d.start, d.end, v);
  }
  return v;
}

/** Whether a declaration about what a directory inherits meets what a .htaccess form needs. */
function meets(inherited: 'require' | 'none', needs: DirLevelNeeds): boolean {
  return needs === 'nothing' || needs === 'require-or-no-authtype' || (needs === 'require' && inherited === 'require');
}

export const DECLARED_TITLE = { require: 'a directory that inherits a 2.4 `Require`', none: 'a directory that inherits no `Require` and no `AuthType`' } as const;

export function declaredNote(inherited: 'require' | 'none', htaccess: boolean): string {
  return (
    `The rewrite offered is exact on the terms declared (inherited: ${inherited}): the directory inherits ` +
    (inherited === 'require' ? 'a 2.4 `Require`' : 'neither a `Require` nor an `AuthType`') +
    ', no later section of the server config sets access for these files' +
    (htaccess ? ', no .htaccess file of a subdirectory sets access' : '') +
    (htaccess ? ', and `AllowOverride` allows `AuthConfig`.' : '.')
  );
}

/** The path of a uri (a file: uri decoded; anything else as it is). */
function uriPath(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/** The directory of a file: uri's path, or null for any other uri. */
function dirOfUri(uri: string | undefined): string | null {
  if (!uri?.startsWith('file://')) return null;
  const p = uriPath(uri);
  if (p === uri) return null;
  const i = p.lastIndexOf('/');
  return i > 0 ? p.slice(0, i) : '/';
}

/** A list of directories in a sentence. */
function dirList(dirs: readonly string[]): string {
  const q = dirs.slice(0, 3).map((d) => `\`${d}\``);
  return q.join(', ') + (dirs.length > 3 ? ` and ${dirs.length - 3} more` : '');
}

/**
 * The note on a rewrite that `.htaccess` files under `dirs` could make otherwise, and what looking
 * at them found (null: nobody looked).
 */
function htaccessNote(dirs: readonly string[], scans: readonly HtaccessUnder[] | null): string {
  const found = scans?.find((s): s is Extract<HtaccessUnder, { kind: 'sets-access' }> => s.kind === 'sets-access');
  const unknown = scans?.find((s): s is Extract<HtaccessUnder, { kind: 'unknown' }> => s.kind === 'unknown');
  const head =
    `The rewrite is exact as far as the configuration shows, but \`AllowOverride\` lets .htaccess files under ${dirList(dirs)} set access for some of these requests: ` +
    'in 2.2 terms their lines are read apart from these host rules, in 2.4 terms their `Require` and the rewrite\'s replace each other. It holds where none of them sets access';
  if (found) return `${head}, and ${found.file} does: it is not offered as exact.`;
  if (unknown) return `${head}; whether any does is not known (${unknown.why}).`;
  return `${head}: check them (\`apacheconf fix --root\` with the server's root file looks on the disk).`;
}

/**
 * An `<IfModule>` test of a module that the same configuration loads only later with `LoadModule`
 * (nothing included before the test could have loaded it): httpd reads the test before the module
 * is loaded, so it fails (and its `!` form holds), where the engine takes the module as loaded.
 */
function earlyModuleTest(doc: ConfigDocument): { test: SectionNode; load: DirectiveNode } | null {
  // Keyed as guards.ts keys module tests (`module:access_compat` for both spellings).
  const loads = new Map<string, DirectiveNode>();
  for (const d of directivesNamed(doc, 'loadmodule')) {
    const id = d.args[0]?.value;
    const key = id ? 'module:' + id.toLowerCase().replace(/_module$/, '') : '';
    if (key && !loads.has(key)) loads.set(key, d);
  }
  if (!loads.size) return null;
  const firstInclude = directivesNamed(doc, 'include', 'includeoptional')[0]?.start ?? Infinity;
  for (const s of doc.sections) {
    if ((s.key !== 'ifmodule' && s.key !== 'ifdirective') || !s.args.length || s.open.start > firstInclude) continue;
    const key = s.key === 'ifdirective' ? DIRECTIVE_MODULE[s.args[0].value.replace(/^!/, '').toLowerCase()] : testKeyOf(s)?.key;
    const load = key ? loads.get(key) : undefined;
    if (load && load.start > s.open.start) return { test: s, load };
  }
  return null;
}

/** The module of the directives an `<IfDirective>` before the module's LoadModule may test here. */
const DIRECTIVE_MODULE: Readonly<Record<string, string>> = {
  order: 'module:access_compat', allow: 'module:access_compat', deny: 'module:access_compat', satisfy: 'module:access_compat',
  require: 'module:authz_core', authmerging: 'module:authz_core',
};

/** A plan made where a module test comes before the module is loaded (see earlyModuleTest). */
function withEarlyTest(sp: SectionPlan, early: { test: SectionNode; load: DirectiveNode }, where: (line: number) => string = (l) => `line ${l + 1}`): SectionPlan {
  if (!sp.exact) return sp;
  const why =
    `\`<${early.test.name.value} ${early.test.args[0].raw}>\` (${where(early.test.open.line)}) comes before \`LoadModule ${early.load.args[0]?.raw ?? ''}\` (${where(early.load.line)}): ` +
    'httpd reads that test before the module is loaded, so it does not hold there (and its `!` form does). Move the LoadModule line above the test to have these lines rewritten.';
  return { section: sp.section, compatDirectives: sp.compatDirectives, reason: why, ...(sp.dirLevel ? { dirLevel: sp.dirLevel } : {}) };
}

/** The first Include line of a server config whose files are not read with it (null: none). */
function unreadInclude(doc: ConfigDocument): DirectiveNode | null {
  for (const d of directivesNamed(doc, 'include', 'includeoptional')) if (!in22Branch(d)) return d;
  return null;
}

/**
 * A plan made on a file whose Include lines were not followed: the included files may hold
 * sections that set access for the same requests (a `<Location>` with `Require`, host rules that
 * also have to go before mod_access_compat can), so a rewrite is exact only in the configuration.
 */
function withoutIncluded(sp: SectionPlan, inc: DirectiveNode): SectionPlan {
  if (!sp.exact) return sp;
  const line = `\`${inc.name.value} ${inc.args.map((a) => a.raw).join(' ')}\` (line ${inc.line + 1})`;
  const why =
    `this file includes other files (${line}) that were not read with it, and their sections may set access for the same requests. ` +
    'Give it as the configuration\'s root (`apacheconf fix --root FILE`), or open its folder in the editor, to have the rewrite checked with them.';
  return {
    section: sp.section,
    compatDirectives: sp.compatDirectives,
    reason: why,
    naive: { title: `${sp.exact.title} (exact only if the included files set no access for these requests)`, edits: sp.exact.edits, changes: why },
    ...(sp.dirLevel ? { dirLevel: sp.dirLevel } : {}),
  };
}

/** INCLUDED_NOTE for a file the known configuration does not include: no main file is missing, the file is outside it. */
function outsideNote(root: string): string {
  return INCLUDED_NOTE.replace(/^This file sits in a folder that another file includes, which is not at hand:/, `This file is not part of the configuration of ${root}, which includes nothing of it (see not-included); planned as a file another includes,`).replace(/ Give the main file \(.*$/, ' Once it is included, check it again with its main file.');
}

/**
 * Whether httpd could run the file as its whole configuration: it has a `Listen` line, or an
 * Include that may bring one (httpd does not start without one; see FRAGMENT_BECAUSE).
 */
function mayRunAlone(doc: ConfigDocument): boolean {
  // (By key: no node is made for the file's other lines.)
  return hasDirective(doc, 'listen', 'include', 'includeoptional');
}

export const legacyAccessRule: Rule = {
  id: 'legacy-access',
  defaultSeverity: 'warning',
  summary: '`Order`, `Allow`, `Deny`, `Satisfy`: 2.2 access control that 2.4 keeps only in mod_access_compat. Exact quick fix to `Require` where one exists.',
  check({ doc, fileContext, mode, depth, inherited, htaccessUnder, openDirs, uri, configuration, outsideOf, included }) {
    if (depth === 'quick') return quickFindings(doc);
    const compat = directivesNamed(doc, ...COMPAT_DIRECTIVES);
    if (!compat.length) return [];
    let plans = new Map<DirectiveNode, SectionPlan>();
    /** The configuration the plans were made in, when not the file alone. */
    let inConfiguration: string | null = null;
    /** This file's module test that comes before the module's LoadModule (see earlyModuleTest). */
    let earlyHere: SectionNode | null = null;
    /** A file another includes by its folder (or the editor's graph), not by its lack of a Listen line. */
    let byFolder = false;
    // (The quick pass, above, leaves the exact rewrites, the costly part, to the full pass.)
    try {
      // A server-config file read in its configuration: planned there (it inherits what the root file says).
      const there = configuration && (fileContext === 'server' || fileContext === 'vhost' || fileContext === 'directory') ? plansInConfiguration(configuration, doc, mode ?? 'preserve') : null;
      if (there) {
        plans = there;
        inConfiguration = configuration!.root;
        const early = earlyModuleTest(configuration!.doc);
        if (early) {
          // Lines of the configuration, told by the file they come from.
          const where = (line: number) => lineLabel(configuration!.origins[line], line);
          for (const [d, sp] of plans) plans.set(d, withEarlyTest(sp, early, where));
          const o = configuration!.origins[early.test.open.line];
          if (o && o.path === configuration!.path) earlyHere = doc.sections.find((s) => s.open.line === o.line && s.key === early.test.key) ?? null;
        }
      } else if (included && !configuration && fileContext !== 'server') {
        // Part of a configuration that cannot be read whole, in a host or a directory: what
        // surrounds it there is not known, so no rewrite is planned.
        plans = new Map();
      } else if (fileContext === 'server' && !configuration && uri && ((byFolder = !!included || looksIncluded(uriPath(uri))) || !mayRunAlone(doc))) {
        // A file another includes, that file not at hand: only rewrites right under any main file.
        plans = plansAsIncluded(doc, uriPath(uri), mode ?? 'preserve', byFolder ? undefined : FRAGMENT_BECAUSE);
      } else {
        const plan = planMigration(doc, fileContext, { mode: mode ?? 'preserve' });
        const unread = fileContext === 'server' || fileContext === 'vhost' ? unreadInclude(doc) : null;
        const early = fileContext === 'server' || fileContext === 'vhost' ? earlyModuleTest(doc) : null;
        earlyHere = early?.test ?? null;
        for (const sp of plan.sections) for (const d of sp.compatDirectives) plans.set(d, unread ? withoutIncluded(sp, unread) : early ? withEarlyTest(sp, early) : sp);
      }
    } catch {
      // The engine failing must not hide the findings; they simply get no fix.
      plans = new Map();
    }
    const out: Finding[] = [];
    const text = doc.text;
    for (let ix = 0; ix < compat.length; ix++) {
      const d = compat[ix];
      // A `!` test read before its module is loaded holds: 2.4 reads the branch after all.
      const only22 = in22Branch(d) && !(earlyHere && earlyHere.args[0]?.value.startsWith('!') && ancestors(d).includes(earlyHere));
      const sp = plans.get(d);
      let message = describedOf(text, d, only22);
      let fixes: Fix[] | undefined;
      if (!only22 && sp) {
        // A .htaccess form whose need the user's declaration meets is exact on those terms.
        let declared = !sp.exact && !!sp.naive && !!sp.dirLevel && !!inherited && meets(inherited, sp.dirLevel);
        // The .htaccess files of the subdirectories inherit from this one: the declaration says
        // nothing of them, so they are looked at where the disk is at hand.
        // (The declaration covers them; what the disk shows overrules it.)
        let subdirs: HtaccessUnder | null = null;
        if (declared && fileContext === 'htaccess' && htaccessUnder) {
          const dir = dirOfUri(uri);
          subdirs = dir ? htaccessUnder(dir, true) : null;
          if (subdirs?.kind === 'sets-access') declared = false;
        }
        // In intent mode the naive mapping (what the author most likely meant) wins where it differs.
        const intent = mode === 'intent' && !!sp.naive;
        fixes = [];
        const all = sp.exact ? [...new Set([...(sp.htaccessBelow ?? []), ...(openDirs?.length && (fileContext === 'server' || fileContext === 'vhost') ? openDirsTouching(sp, openDirs) : [])])] : undefined;
        // Directories whose .htaccess files were read with the configuration (the rewrite was checked with them).
        // (Those with none that sets access are looked at as before: the title says none does.)
        const known = inConfiguration ? configuration?.htaccessKnown : undefined;
        const kept = [...(configuration?.spliced ?? configuration?.kept ?? [])];
        const read = (d: string) => !!known?.has(d) && kept.some((f) => isBelowDir(f, d));
        const below = known ? all?.filter((d) => !read(d)) : all;
        const withThem = all && below ? all.filter((d) => !below.includes(d)) : [];
        // Files read with the configuration whose host rules the same rewrite changes (fix --root over them too).
        const keptSet = configuration?.kept;
        const rewrittenWith = (d: string) => kept.some((f) => isBelowDir(f, d) && !keptSet?.has(f));
        if (sp.exact && withThem.length && withThem.some(rewrittenWith)) message += ` The .htaccess files under ${dirList(withThem)}, which \`AllowOverride\` lets set access for these requests, were read with the configuration, and the rewrite changes those with host rules too: each file makes its part in the same run.`;
        else if (sp.exact && withThem.length) message += ` The .htaccess files under ${dirList(withThem)}, which \`AllowOverride\` lets set access for these requests, were read with the configuration: the rewrite is exact with them as they are.`;
        if (sp.exact && below?.length) {
          // Exact where no .htaccess file below sets access: preferred only when a look at them says so.
          const scans = htaccessUnder ? below.map((dir) => htaccessUnder(dir)) : null;
          if (scans?.every((s) => s.kind === 'none')) {
            fixes.push({ title: `${sp.exact.title} (no .htaccess file below sets access)`, edits: sp.exact.edits, preferred: !intent, ...(sp.rewriteKey ? { rewriteKey: sp.rewriteKey } : {}) });
            message += ` The .htaccess files under ${dirList(below)}, which \`AllowOverride\` lets set access for these requests, were looked at: none does, so the rewrite is exact.`;
          } else {
            fixes.push({ title: `${sp.exact.title} (exact unless a .htaccess file under ${below.length === 1 ? below[0] : 'its directories'} sets access)`, edits: sp.exact.edits, preferred: false });
            message += ` ${htaccessNote(below, scans)}`;
          }
        } else if (sp.exact) fixes.push({ title: sp.exact.title, edits: sp.exact.edits, preferred: !intent, ...(sp.rewriteKey ? { rewriteKey: sp.rewriteKey } : {}) });
        else if (declared) message += ` ${declaredNote(inherited!, fileContext === 'htaccess')}`;
        else if (sp.reason && inConfiguration) message += ` No exact rewrite is offered in the configuration of ${inConfiguration}: ${sp.reason}`;
        else if (sp.reason) message += ` No exact rewrite is offered: ${sp.reason}`;
        if (sp.exact && inConfiguration) message += ` Its rewrite was checked in the configuration of ${inConfiguration}, which this file is part of.`;
        if (sp.exact && sp.note) message += ` ${outsideOf && sp.note === INCLUDED_NOTE ? outsideNote(outsideOf) : sp.note}`;
        if (subdirs?.kind === 'sets-access') message += ` The declared terms would make it exact, but ${subdirs.file} sets access below and inherits from this file.`;
        if (declared) fixes.push({ title: sp.naive!.title.replace(/ \(check the server config first\)$/, ` (exact for ${DECLARED_TITLE[inherited!]})`), edits: sp.naive!.edits, preferred: true });
        else if (sp.naive) fixes.push({ title: sp.naive.title, edits: sp.naive.edits, preferred: intent });
        if (!fixes.length) fixes = undefined;
      }
      // The fields a finding has are those it needs (no key set to undefined: the worker's
      // findings are compared with the service's as JSON).
      const f: Finding = only22
        ? { rule: 'legacy-access', message, start: d.start, end: d.end, tags: DEPRECATED, severity: 'hint', maxSeverity: 'hint' }
        : { rule: 'legacy-access', message, start: d.start, end: d.end, tags: DEPRECATED };
      if (fixes) f.fixes = fixes;
      out.push(f);
    }
    return out;
  },
};
