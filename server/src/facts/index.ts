/**
 * The directive catalog: facts generated from the httpd 2.4 manual
 * (generated.json, see scripts/gen-catalog.mjs), the 2.2-era entries of
 * legacy.ts, the few directives stock modules register that the manual does
 * not document (undocumented.ts), and descriptions written for this project. Every other layer
 * reads directives and modules through these functions.
 */
import type { DirectiveContext, DirectiveFact, ModuleFact } from './types';
import { BUILTIN_SOURCES, LEGACY_DIRECTIVES, LEGACY_MODULES } from './legacy';
import { UNDOCUMENTED_DIRECTIVES } from './undocumented';
import generated from './generated.json';
import descriptionsAL from './descriptions/directives-a-l.json';
import descriptionsMZ from './descriptions/directives-m-z.json';
import moduleDescriptions from './descriptions/modules.json';
import { detached } from '../syntax';

export type { DirectiveContext, DirectiveFact, DirectiveStatus, ModuleFact } from './types';

/** The shape of generated.json: facts without status or description. */
export interface GeneratedCatalog {
  directives: Array<Omit<DirectiveFact, 'status' | 'description'>>;
  modules: Array<Omit<ModuleFact, 'status' | 'description'>>;
}

export const GENERATED: GeneratedCatalog = generated as unknown as GeneratedCatalog;

function lowerKeys(obj: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(obj)) out.set(k.replace(/^<|>$/g, '').toLowerCase(), v);
  return out;
}

const directiveDescriptions = lowerKeys({ ...descriptionsAL, ...descriptionsMZ } as Record<string, string>);
const moduleDescriptionMap = lowerKeys(moduleDescriptions as Record<string, string>);

function build(): { directives: DirectiveFact[]; byName: Map<string, DirectiveFact> } {
  const legacy = new Map(LEGACY_DIRECTIVES.map((f) => [f.name.toLowerCase(), f]));
  const byName = new Map<string, DirectiveFact>();
  for (const g of GENERATED.directives) {
    const key = g.name.toLowerCase();
    const old = legacy.get(key);
    const fact: DirectiveFact = { ...g, status: 'current', description: directiveDescriptions.get(key) ?? '' };
    if (old) {
      // The manual's facts stay; the migration verdict and its advice come from legacy.ts.
      fact.status = old.status;
      if (old.renamedTo) fact.renamedTo = old.renamedTo;
      if (old.replacement) fact.replacement = old.replacement;
      if (!fact.description) fact.description = old.description;
      legacy.delete(key);
    }
    byName.set(key, fact);
  }
  for (const [key, old] of legacy) {
    byName.set(key, { ...old, description: directiveDescriptions.get(key) ?? old.description });
  }
  // Registered by stock modules, missing from the manual (the manual's facts win if it gains them).
  for (const f of UNDOCUMENTED_DIRECTIVES) if (!byName.has(f.name.toLowerCase())) byName.set(f.name.toLowerCase(), f);
  const directives = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return { directives, byName };
}

function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

const { directives: DIRECTIVES, byName: DIRECTIVE_INDEX } = build();

const MODULES: readonly ModuleFact[] = [
  ...GENERATED.modules.map((m): ModuleFact => ({ ...m, status: 'current', description: moduleDescriptionMap.get(m.name.toLowerCase()) ?? '' })),
  ...LEGACY_MODULES.map((m): ModuleFact => ({ ...m, description: moduleDescriptionMap.get(m.name.toLowerCase()) ?? '' })),
].sort((a, b) => compareNames(a.name, b.name));

/** Lower-cased name, identifier and source file (with and without `.c`) → module. */
const MODULE_INDEX = new Map<string, ModuleFact>();
for (const m of MODULES) {
  for (const k of [m.name, m.id, m.file, m.file.replace(/\.c$/, '')]) {
    const key = k.toLowerCase();
    if (!MODULE_INDEX.has(key)) MODULE_INDEX.set(key, m);
  }
}
const BUILTIN = new Set(BUILTIN_SOURCES.map((s) => s.toLowerCase()));

/** A directive by name, any case; section names with or without `<`, `</` and `>`. */
export function getDirective(name: string): DirectiveFact | undefined {
  // Fast paths: a directive's key (already lower case, nothing to allocate), then a plain name.
  const exact = DIRECTIVE_INDEX.get(name);
  if (exact) return exact;
  const direct = DIRECTIVE_INDEX.get(name.toLowerCase());
  if (direct) return direct;
  const key = name.trim().replace(/^<\/?/, '').replace(/>$/, '').toLowerCase();
  return DIRECTIVE_INDEX.get(key);
}

/** Every directive: the 2.4 manual's and the legacy ones, sorted by name. */
export function allDirectives(): readonly DirectiveFact[] {
  return DIRECTIVES;
}

/** A module by source name (`mod_ssl`), identifier (`ssl_module`) or file (`mod_ssl.c`), any case. */
export function getModule(nameOrIdOrFile: string): ModuleFact | undefined {
  return MODULE_INDEX.get(nameOrIdOrFile.trim().toLowerCase());
}

/** Every module: 2.4's, then nothing else but the 2.2 (and older) ones 2.4 dropped; sorted by name. */
export function allModules(): readonly ModuleFact[] {
  return MODULES;
}

/** True for a module shipped with httpd 2.4 or 2.2 (in any of its three spellings); false for third-party ones. */
export function isHttpdModule(nameOrIdOrFile: string): boolean {
  const key = nameOrIdOrFile.trim().toLowerCase();
  return MODULE_INDEX.has(key) || BUILTIN.has(key);
}

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal
 * string alignment), giving up once the distance must exceed `max`.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n];
}

/** How many edits a name of this length may be away from a directive and still count as a typo of it. */
function allowedEdits(length: number): number {
  if (length < 4) return 0;
  if (length < 10) return 1;
  if (length < 16) return 2;
  return 3;
}

const SUGGESTIONS = DIRECTIVES.filter((f) => f.status === 'current');

/**
 * The current directive a misspelt name most likely meant (`ServrName` →
 * `ServerName`), or undefined when no directive is close enough. Names that
 * are already known get no suggestion.
 */
/** Suggestions already worked out, by lower-cased name (the same unknown names recur across files). */
const SUGGESTION_CACHE = new Map<string, string | undefined>();

export function suggestDirective(name: string): string | undefined {
  const key = name.trim().replace(/^<\/?/, '').replace(/>$/, '').toLowerCase();
  if (SUGGESTION_CACHE.has(key)) return SUGGESTION_CACHE.get(key);
  const found = computeSuggestion(key);
  if (SUGGESTION_CACHE.size > 10_000) SUGGESTION_CACHE.clear();
  SUGGESTION_CACHE.set(detached(key), found);
  return found;
}

/**
 * Section tags httpd 2.4 accepts beyond those its manual lists as sections: `<MDomain>` (mod_md
 * takes it as well as `<MDomainSet>`) and mod_lua's inline hooks, whose content is Lua code. Found
 * by asking httpd (`apache2 -t`) about every `<Name` string its modules register.
 */
const OTHER_SECTIONS = new Set(['mdomain']);
const CODE_SECTIONS = new Set([
  'luahookaccesschecker',
  'luahookauthchecker',
  'luahookcheckuserid',
  'luahookfixups',
  'luahookmaptostorage',
  'luahookpretranslatename',
  'luahooktranslatename',
  'luahooktypechecker',
  'luaquickhandler',
]);

/** Whether httpd 2.4 (with the module loaded) takes `<Name …>` as a section; `key` is the lower-cased name. */
export function isSectionKey(key: string): boolean {
  return !!getDirective(key)?.section || OTHER_SECTIONS.has(key) || CODE_SECTIONS.has(key);
}

/** A section whose content is code for a module to run (mod_lua's inline hooks), not directives. */
export function holdsCode(key: string): boolean {
  return CODE_SECTIONS.has(key);
}

/** Section names already worked out, by lower-cased name. */
const SECTION_SUGGESTION_CACHE = new Map<string, string | undefined>();
const SECTION_SUGGESTIONS = SUGGESTIONS.filter((f) => f.section);

/**
 * The current section a misspelt section name most likely meant (`Directroy` → `Directory`), or
 * undefined when none is close enough or the name is a known section.
 */
export function suggestSection(name: string): string | undefined {
  const key = name.trim().replace(/^<\/?/, '').replace(/>$/, '').toLowerCase();
  if (SECTION_SUGGESTION_CACHE.has(key)) return SECTION_SUGGESTION_CACHE.get(key);
  const found = isSectionKey(key) ? undefined : computeSuggestion(key, SECTION_SUGGESTIONS);
  if (SECTION_SUGGESTION_CACHE.size > 10_000) SECTION_SUGGESTION_CACHE.clear();
  SECTION_SUGGESTION_CACHE.set(detached(key), found);
  return found;
}

function computeSuggestion(key: string, among: readonly DirectiveFact[] = SUGGESTIONS): string | undefined {
  const max = allowedEdits(key.length);
  if (!max || (among === SUGGESTIONS && DIRECTIVE_INDEX.has(key))) return undefined;
  let best: DirectiveFact | undefined;
  let bestScore = Infinity;
  for (const f of among) {
    // More than `max` characters apart in length can never be within `max` edits.
    if (Math.abs(f.name.length - key.length) > max) continue;
    const lower = f.name.toLowerCase();
    // A known name with two letters or more put before it is a module's name for its own
    // directive (mod_jk's `JkLogLevel`), not a slip of the keyboard.
    if (key.length - lower.length >= 2 && key.endsWith(lower)) continue;
    const d = editDistance(key, lower, max);
    if (d > max) continue;
    // Prefer fewer edits, then a matching first letter (typos rarely hit it), then the shorter name.
    const score = d * 4 + (f.name[0].toLowerCase() === key[0] ? 0 : 2) + (f.name.length > key.length ? 1 : 0);
    if (score < bestScore || (score === bestScore && best && compareNames(f.name, best.name) < 0)) {
      best = f;
      bestScore = score;
    }
  }
  return best?.name;
}

const CONTEXT_LABELS: Record<DirectiveContext, string> = {
  server: 'server config',
  vhost: 'virtual host',
  directory: 'directory',
  htaccess: '.htaccess',
};

/** The context list in the manual's words. */
export function contextLabel(fact: DirectiveFact): string {
  return fact.contexts
    .map((c) => (c === 'directory' && fact.proxySection ? 'proxy section' : CONTEXT_LABELS[c]))
    .join(', ');
}

/** What a legacy status means for someone reading a hover. */
export function statusNote(fact: DirectiveFact): string | undefined {
  switch (fact.status) {
    case 'removed':
      return `**Removed:** httpd 2.4 does not have \`${fact.name}\` and refuses to start with it.`;
    case 'renamed':
      return `**Renamed:** 2.4 still reads \`${fact.name}\`, but its name is now \`${fact.renamedTo ?? '?'}\`.`;
    case 'compat':
      return `**Deprecated:** 2.4 reads \`${fact.name}\` only while mod_access_compat is loaded.`;
    case 'noop':
      return `**No effect:** 2.4 accepts \`${fact.name}\` but ignores it.`;
    default:
      return undefined;
  }
}

/** Markdown documentation for hover and completion. Legacy directives lead with what replaces them. */
export function directiveDocsMarkdown(fact: DirectiveFact): string {
  const parts: string[] = [];
  const note = statusNote(fact);
  if (note) parts.push(fact.replacement ? `${note} ${fact.replacement}` : note);
  parts.push('```apacheconf\n' + fact.syntax + '\n```');
  if (fact.description) parts.push(fact.description);
  const facts: string[] = [];
  const mods = fact.modules && fact.modules.length ? ` (${fact.modules.join(', ')})` : '';
  facts.push(`Module: \`${fact.module}\`${mods}`);
  facts.push(`Context: ${contextLabel(fact)}`);
  if (fact.override) facts.push(`Override: ${fact.override}`);
  if (fact.default) facts.push(`Default: \`${fact.default}\``);
  if (fact.since) facts.push(`Since: httpd ${fact.since}`);
  if (fact.manualStatus === 'Experimental' || fact.manualStatus === 'Deprecated') facts.push(`Status: ${fact.manualStatus}`);
  parts.push(facts.join('  \n'));
  const manual = /\/docs\/2\.4\//.test(fact.url) ? 'httpd 2.4 manual' : /\/docs\/2\.2\//.test(fact.url) ? 'httpd 2.2 manual' : 'httpd manual';
  parts.push(`[${fact.name} in the ${manual}](${fact.url})`);
  return parts.join('\n\n');
}

/** Markdown documentation for a module (hover on <IfModule> and LoadModule). */
export function moduleDocsMarkdown(m: ModuleFact): string {
  const parts: string[] = [];
  if (m.status === 'removed') {
    const head = `**Removed:** httpd 2.4 does not ship \`${m.name}\`.`;
    parts.push(m.replacement ? `${head} ${m.replacement}` : head);
  }
  parts.push(`**${m.name}** — identifier \`${m.id}\`, source \`${m.file}\``);
  if (m.description) parts.push(m.description);
  const manual = /\/docs\/2\.4\//.test(m.url) ? 'httpd 2.4 manual' : 'httpd manual';
  parts.push(`[${m.name} in the ${manual}](${m.url})`);
  return parts.join('\n\n');
}

/** The catalog as completion (and other features taking an injected catalog) expect it. */
export const catalog = {
  getDirective,
  allDirectives,
  allModules,
  directiveDocsMarkdown,
};
