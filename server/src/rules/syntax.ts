/** `syntax`: what the parser could not place. A file that does not parse is never reported clean. */
import { MAX_ANALYSED_NESTING } from '../access/model';
import { HTACCESS_REPAIR_NOTE } from '../access/analysis';
import type { ConfigDocument, DirectiveNode, Finding, Rule } from './types';
import { ARITY } from '../facts/arity';
import { REFUSED_IN, type Place } from '../facts/places';
import type { SectionNode } from '../syntax';
import { COMPAT_KEY_LIST, CONDITIONS, in22Branch } from './scope';

/**
 * Lines of a directive given a number of words httpd refuses for it (facts/arity.ts: `ServerAdmin
 * admin example.org`, `ErrorDocument 404`, a comment after `DocumentRoot /srv`: httpd has no
 * comments after a directive). The words are counted from the file's index and text (countWords);
 * only a line with a backslash or a stray quote becomes a node. Not the access
 * directives (invalid-require's), nor lines with `${…}` (a variable may hold blanks).
 */
function argumentCounts(doc: ConfigDocument): Finding[] {
  const text = doc.text;
  const out: Finding[] = [];
  // Key by key (the order of findings is the service's to make): one key's lines are a view of the
  // file's grouping by key, where a list for many keys is a merge of theirs.
  for (const key of doc.directiveKeys) {
    const arity = ARITY.get(key);
    if (!arity || ACCESS_OWN.has(key) || UPGRADE_OWN.has(key)) continue;
    const { refused, says } = arity;
    // Counting stops where the verdict can no longer change: at 1 for "at least one", else past the
    // highest count that is allowed (4 stands for 4 or more).
    let cap = 4;
    while (cap > 0 && refused.has(cap) === refused.has(cap - 1)) cap--;
    const at = doc.linesWithKeys([key]);
    for (let ix = 0; ix < at.length; ix++) {
      const i = at[ix];
      // (The name is as long as its key: the count starts after it.)
      const words = countWords(text, doc.startOf(i) + key.length, doc.endOf(i), cap);
      if (words === VARIABLE || (words >= 0 && !refused.has(Math.min(words, 4)))) continue;
      const d = doc.lineAt(i) as DirectiveNode;
      const n = d.args.length;
      if (!refused.has(Math.min(n, 4)) || d.args.some((a) => a.raw.includes('${'))) continue;
      const hash = d.args.findIndex((a, k) => k > 0 && a.raw.startsWith('#'));
      const shown = n > 4 ? d.args.slice(0, 3).map((a) => a.raw).join(' ') + ' …' : d.args.map((a) => a.raw).join(' ');
      out.push({
        rule: 'syntax',
        message: n
          ? `\`${d.name.raw}\` ${says}, and this line gives ${n} (\`${shown.length > 80 ? shown.slice(0, 79) + '…' : shown}\`): httpd refuses it${hash >= 0 ? '. httpd has no comments at the end of a directive line: the words from `#` on are read as more arguments, so put the comment on a line of its own' : n > 1 ? '; quote a value that holds blanks' : ''}.`
          : `\`${d.name.raw}\` ${says}, and this line gives none: httpd refuses it.`,
        start: d.start,
        end: d.end,
        data: { kind: 'argument-count' },
        ...(in22Branch(d) ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
      });
    }
  }
  return out;
}

/** The sections that make a place for the directives in their body. */
const PLACE_OF: ReadonlyMap<string, Place> = new Map<string, Place>([
  ['virtualhost', 'vhost'],
  ['directory', 'directory'],
  ['directorymatch', 'directory'],
  ['location', 'location'],
  ['locationmatch', 'location'],
  ['files', 'files'],
  ['filesmatch', 'files'],
]);
const PLACES: readonly Place[] = ['vhost', 'directory', 'location', 'files'];
/** Keys the access rules speak for (a compat line in a <VirtualHost> body is legacy-access's). */
const ACCESS_OWN = new Set([...COMPAT_KEY_LIST, 'require', 'authmerging']);
/** Keys whose 2.2 forms changed-syntax explains (FilterProvider's four words). */
const UPGRADE_OWN = new Set(['filterprovider']);

/** The place of a directive's body: its nearest section that makes one, or null (top level, or under <If>, <Limit>, <Proxy>…). */
function placeOf(parent: SectionNode | null): { place: Place; section: SectionNode } | null {
  for (let p = parent; p; p = p.parent) {
    const place = PLACE_OF.get(p.key);
    if (place) return { place, section: p };
    if (!CONDITIONS.has(p.key)) return null;
  }
  return null;
}

const PLACE_WORDS: Record<Place, string> = { vhost: 'a <VirtualHost>', directory: 'a <Directory>', location: 'a <Location>', files: 'a <Files>' };

/**
 * Directives in the body of a section httpd refuses them in (facts/places.ts, each refusal seen on
 * httpd -t): `DocumentRoot` in a <Directory>, `AuthType` right in a <VirtualHost>, `Alias` in a
 * <Files>. The server does not start; in a .htaccess file every request answers 500. Found from
 * the file's index: only lines of such directives become nodes.
 */
function misplaced(doc: ConfigDocument, htaccess: boolean): Finding[] {
  const out: Finding[] = [];
  // Each section's place, worked out once (its index in `sections`: 0 not yet, 1 none, else 2 + PLACES' index).
  let codes: Uint8Array | null = null;
  for (const key of doc.directiveKeys) {
    const refused = REFUSED_IN.get(key);
    if (!refused || ACCESS_OWN.has(key)) continue;
    const at = doc.linesWithKeys([key]);
    for (let ix = 0; ix < at.length; ix++) {
      const i = at[ix];
      const parent = doc.parentOf(i);
      if (!parent) continue;
      codes ??= new Uint8Array(doc.sections.length);
      let code = codes[parent.index];
      if (code === 0) {
        const w = placeOf(parent);
        code = codes[parent.index] = w ? 2 + PLACES.indexOf(w.place) : 1;
      }
      if (code === 1 || !refused.has(PLACES[code - 2])) continue;
      const where = placeOf(parent)!;
      const d = doc.lineAt(i) as DirectiveNode;
      out.push({
        rule: 'syntax',
        message: `\`${d.name.raw}\` is not allowed inside ${PLACE_WORDS[where.place]} section (\`<${where.section.name.raw}>\`, line ${where.section.open.line + 1}): httpd refuses it there${htaccess ? ', and every request under this .htaccess answers 500' : ' and does not start'}. Move it to where httpd takes it.`,
        start: d.start,
        end: d.end,
        data: { kind: 'not-allowed-here' },
        ...(in22Branch(d) ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
      });
    }
  }
  return out;
}

/**
 * Whether the opening tag shows something after the section's name (read from the text: asking for
 * `args` would split every tag of a file into words).
 */
function tagHasWords(sec: SectionNode): boolean {
  const text = sec.fileText;
  let end = sec.openEnd;
  if (text.charCodeAt(end - 1) === 62) end--;
  for (let p = sec.openStart + 1 + sec.key.length; p < end; p++) if (!isBlank(text.charCodeAt(p))) return true;
  return false;
}

/** countWords: the line holds `${…}` (a variable may hold blanks: not judged). */
const VARIABLE = -2;

/**
 * The words after the directive name in text[start, end), quoted words counted as one, up to
 * `cap` (the count stops there); -1 where the line needs the parser's reading (a backslash, a
 * quote inside a word, an unclosed quote).
 */
function countWords(text: string, start: number, end: number, cap = 4): number {
  let p = start;
  while (p < end && !isBlank(text.charCodeAt(p))) p++;
  let words = 0;
  while (p < end) {
    if (words >= cap) return words;
    let c = text.charCodeAt(p);
    if (isBlank(c)) {
      p++;
      continue;
    }
    words++;
    if (c === 34 || c === 39) {
      const q = c;
      for (p++; p < end && (c = text.charCodeAt(p)) !== q; p++) {
        if (c === 92) return -1;
        if (c === 36 && text.charCodeAt(p + 1) === 123) return VARIABLE;
      }
      if (p >= end) return -1;
      p++;
      if (p < end && !isBlank(text.charCodeAt(p))) return -1;
      continue;
    }
    for (; p < end && !isBlank((c = text.charCodeAt(p))); p++) {
      if (c === 92 || c === 34 || c === 39) return -1;
      if (c === 36 && text.charCodeAt(p + 1) === 123) return VARIABLE;
    }
  }
  return words;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/**
 * Sections httpd refuses to read without an argument (`httpd -t`: "directive requires additional
 * arguments", or an invalid version or empty name): the server does not start, and in a .htaccess
 * file every request under it answers 500. (`<Proxy>` and `<Else>` take none; `<Limit>` and the
 * `<Require…>` containers are invalid-require's.)
 */
const NEEDS_ARGUMENT: ReadonlyMap<string, string> = new Map([
  ['directory', 'a directory path'],
  ['directorymatch', 'a regular expression'],
  ['files', 'a file name or wildcard'],
  ['filesmatch', 'a regular expression'],
  ['location', 'a URL path'],
  ['locationmatch', 'a regular expression'],
  ['virtualhost', 'an address'],
  ['ifmodule', 'a module name'],
  ['ifdefine', 'a parameter name'],
  ['ifversion', 'a version'],
  ['iffile', 'a file path'],
  ['ifdirective', 'a directive name'],
  ['ifsection', 'a section name'],
  ['if', 'an expression'],
  ['elseif', 'an expression'],
  ['macro', 'a macro name'],
  ['authnprovideralias', 'a provider and an alias'],
  ['authzprovideralias', 'a provider, an alias and its arguments'],
]);

/** Lines a version-control merge leaves: `<<<<<<< ours`, `=======`, `>>>>>>> theirs` (git, Mercurial). */
function conflictMarkers(doc: ConfigDocument): Array<{ start: number; end: number; text: string }> {
  // The parser reads `=======` and `>>>>>>> rev` as directives: the file's list of keys says
  // whether to look at all (a search of the whole text took 4% of a quick pass of a large file).
  if (!doc.directiveKeys.some((k) => k === '=======' || k.startsWith('>>>>>>>'))) return [];
  const text = doc.text;
  const out: Array<{ start: number; end: number; text: string }> = [];
  const re = /^(?:<{7}|>{7})(?:[ \t][^\r\n]*)?$|^={7}[ \t]*$/gm;
  for (let m = re.exec(text); m && out.length < 1000; m = re.exec(text)) {
    const t = m[0].replace(/[ \t]+$/, '');
    out.push({ start: m.index, end: m.index + t.length, text: t });
  }
  // A lone `=======` (a ruler in a comment block is `#=======`) counts only beside a real marker.
  return out.some((m) => m.text[0] !== '=') ? out : [];
}

export const syntaxRule: Rule = {
  id: 'syntax',
  defaultSeverity: 'error',
  summary: 'Section tags that are unclosed, mismatched or stray, a tag without its closing `>` or without the argument it needs, a directive given a number of arguments httpd refuses, a directive in a section httpd refuses it in, merge-conflict markers, NUL bytes, a byte order mark.',
  check({ doc, fileContext }) {
    const markers = conflictMarkers(doc);
    const markerAt = new Set(markers.map((m) => m.start));
    const out: Finding[] = markers.map((m) => ({
      rule: 'syntax',
      message: `An unresolved merge conflict: \`${m.text.length > 40 ? m.text.slice(0, 39) + '…' : m.text}\` is a marker a version-control merge left in the file, and httpd refuses the line${fileContext === 'htaccess' ? ' (every request under this .htaccess answers 500)' : ' (the server does not start)'}. Keep the side that is meant and delete the markers.`,
      start: m.start,
      end: m.end,
      data: { kind: 'conflict-marker' },
    }));
    for (const e of doc.errors) {
      // The parser's own words for a marker line (`<<<<<<<` read as a section tag) are left out.
      if (markerAt.has(e.start)) continue;
      out.push({
        rule: 'syntax',
        message: e.message,
        start: e.start,
        end: e.end,
        data: { kind: e.code },
        // Deleting the mark is what httpd needs and changes nothing else; in a .htaccess file, where the
        // mark makes every request under the folder answer 500, it changes that (offered, not applied by `fix`).
        ...(e.code === 'bom'
          ? { fixes: [fileContext === 'htaccess' ? { title: 'Remove the byte order mark' + HTACCESS_REPAIR_NOTE, edits: [{ start: e.start, end: e.end, newText: '' }] } : { title: 'Remove the byte order mark', edits: [{ start: e.start, end: e.end, newText: '' }], preferred: true }] }
          : {}),
      });
    }
    for (const sec of doc.sections) {
      const what = NEEDS_ARGUMENT.get(sec.key);
      if (!what || tagHasWords(sec) || sec.args.length) continue;
      out.push({
        rule: 'syntax',
        message: `\`<${sec.name.raw}>\` needs ${what}: httpd refuses to read the section without one${fileContext === 'htaccess' ? ' (in a .htaccess file every request under it answers 500)' : ', so the server does not start'}.`,
        start: sec.name.start - 1,
        end: sec.openEnd,
        data: { kind: 'missing-argument' },
      });
    }
    out.push(...argumentCounts(doc), ...misplaced(doc, fileContext === 'htaccess'));
    // The first section nested deeper than the engine models (a top-level section has depth 1).
    const deep = doc.sections.find((sec) => sec.depth > MAX_ANALYSED_NESTING + 1);
    if (deep) {
      out.push({
        rule: 'syntax',
        message: `Sections are nested more than ${MAX_ANALYSED_NESTING} levels deep here; apacheconf does not check access control below this depth.`,
        start: deep.open.start,
        end: deep.open.end,
        severity: 'warning',
        data: { kind: 'too-deep' },
      });
    }
    return out;
  },
};
