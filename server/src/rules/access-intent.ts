/**
 * `access-intent`: say what the host rules really do where it is not what they seem to say:
 * an `Allow` that can never match under `Order allow,deny` + `Deny from all` (everyone gets 403,
 * spec §2.4, §6.4), an `Allow` without effect (no `Order`: deny,allow with nothing denied), a
 * `Deny` without effect, a list separated by commas (`127.0.0.1,` is read as a host name), a
 * `<Files>` pattern with a folder in it, `None` after `from`, an `Order` a later one in the same
 * section replaces, `Satisfy Any` letting everyone in
 * because no `Require` applies or because the host rules refuse no one beside a password, and the
 * differences between httpd 2.2 and 2.4 with mod_access_compat (§7: a section with only
 * `Satisfy` resets the host rules; `Satisfy Any` is no longer inherited). Also, in .htaccess
 * files, what a rewrite to `Require` needs from AllowOverride (§8.4).
 */
import type { ConfigDocument, DirectiveNode, Finding, Rule } from './types';
import { notesOf, toFinding } from './access-support';
import { code, COMPAT_KEY_LIST, in22Branch, readWith, TRANSPARENT } from './scope';
import { classifyHostToken } from '../access';

/**
 * The `Allow` and `Deny` lines whose text holds a comma, or the word `none`: found from the file's
 * index and text, so a file of thousands of host rules makes nodes only for those few lines.
 */
function suspectHostLines(doc: ConfigDocument): DirectiveNode[] {
  const at = doc.linesWithKeys(COMPAT_KEY_LIST);
  const text = doc.text;
  const out: DirectiveNode[] = [];
  for (let ix = 0; ix < at.length; ix++) {
    const i = at[ix];
    const key = doc.keyOf(i);
    if (key !== 'allow' && key !== 'deny') continue;
    const end = doc.endOf(i);
    let hit = false;
    for (let p = doc.startOf(i); p < end && !hit; p++) {
      const c = text.charCodeAt(p);
      // A comma, or an n/N that may start `none`.
      hit = c === 44 || ((c | 32) === 110 && (text.charCodeAt(p + 1) | 32) === 111 && (text.charCodeAt(p + 2) | 32) === 110 && (text.charCodeAt(p + 3) | 32) === 101);
    }
    if (hit) out.push(doc.lineAt(i) as DirectiveNode);
  }
  return out;
}

/**
 * `Allow from 127.0.0.1, 10.0.0.5`: httpd splits the list at blanks only, so `127.0.0.1,` is one
 * word, which is no address and is read as a host name (a client whose name ends so): the
 * address the author meant is never matched (httpd with mod_access_compat: 127.0.0.1 gets 403).
 * Read from the text alone, so the quick pass reports it too.
 */
function commaLists(suspects: readonly DirectiveNode[]): Finding[] {
  const out: Finding[] = [];
  for (const d of suspects) {
    if (d.args.length < 2 || d.args[0].value.toLowerCase() !== 'from') continue;
    // Only the words httpd takes as host names: one it refuses (`10.0.0.0/8,`) is invalid-require's.
    const bad = d.args.slice(1).filter((a) => {
      if (!a.value.includes(',')) return false;
      const t = classifyHostToken(a.value);
      return t.ok && t.token.kind === 'host';
    });
    if (!bad.length) continue;
    const words = bad.map((a) => code(a.value)).join(', ');
    const meant = bad.flatMap((a) => a.value.split(',').filter((w) => w !== ''));
    const edits = bad.map((a) => ({ start: a.start, end: a.end, newText: a.value.split(',').filter((w) => w !== '').join(' ') }));
    out.push({
      rule: 'access-intent',
      message: `${bad.length === 1 ? `${words} is one word` : `${words} are words`} with a comma in it: httpd splits this list at blanks only, and reads such a word as a host name, not as the ${meant.length === 1 ? 'address' : 'addresses'} it seems to name (${meant.map(code).join(', ')}), so ${d.name.value.toLowerCase() === 'allow' ? 'those clients are not let in by this line' : 'those clients are not refused by this line'}. Separate the entries with blanks.`,
      start: bad[0].start,
      end: bad[bad.length - 1].end,
      ...(in22Branch(d) ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
      fixes: [{ title: `Separate the entries with blanks (changes who ${d.name.value.toLowerCase() === 'allow' ? 'gets in' : 'is refused'})`, edits }],
    });
  }
  return out;
}

const ACCESS_KEYS = new Set(['order', 'allow', 'deny', 'satisfy', 'require', 'authtype', 'requireall', 'requireany', 'requirenone']);

/**
 * `<Files "data/*">` around access lines: <Files> compares the requested file's name alone, which
 * has no `/`, so such a pattern matches nothing and the lines in it protect nothing (hiki's
 * .htaccess: httpd answers 200 for data/x.txt). Read from the text alone.
 */
function filesWithSlash(doc: ConfigDocument): Finding[] {
  const out: Finding[] = [];
  const text = doc.text;
  for (const s of doc.sections) {
    if (s.key !== 'files') continue;
    // (A tag with no `/` in its text has none in its word: it is not split into words.)
    let slash = false;
    for (let i = doc.startOf(s.lineIndex), end = doc.endOf(s.lineIndex); i < end && !slash; i++) slash = text.charCodeAt(i) === 47;
    if (!slash || s.args.length !== 1 || !s.args[0].value.includes('/')) continue;
    const holds: string[] = [];
    const walk = (sec: typeof s): void => {
      for (const c of sec.children) {
        if (c.type === 'directive' && ACCESS_KEYS.has(c.key)) holds.push(doc.text.slice(c.start, c.end));
        else if (c.type === 'section') {
          if (ACCESS_KEYS.has(c.key)) holds.push(`<${c.name.value}>`);
          walk(c);
        }
      }
    };
    walk(s);
    if (!holds.length) continue;
    out.push({
      rule: 'access-intent',
      message: `\`<Files ${s.args[0].raw}>\` never applies: <Files> compares the name of the requested file alone, without its folder, so a pattern with \`/\` matches nothing, and ${holds.length === 1 ? `\`${holds[0]}\`` : 'the access lines in it'} ${holds.length === 1 ? 'protects' : 'protect'} nothing. To cover a folder, use <Directory> (or <DirectoryMatch>) in the server configuration, or a .htaccess file in that folder.`,
      start: s.args[0].start,
      end: s.args[0].end,
      ...(in22Branch(s) ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
    });
  }
  return out;
}

/**
 * `Allow from None` (phpMyAdmin's upstream file: `Deny from All` then `Allow from None`): there is
 * no such keyword, so httpd reads `None` as a host name, and looks up every client's name to
 * compare it (a reverse and a forward DNS query per request). Nobody is let in by it in practice,
 * which is what the line means: information, not a warning.
 */
function noneWords(suspects: readonly DirectiveNode[]): Finding[] {
  const out: Finding[] = [];
  for (const d of suspects) {
    if (d.args.length < 2 || d.args[0].value.toLowerCase() !== 'from') continue;
    const w = d.args.slice(1).find((a) => a.value.toLowerCase() === 'none');
    if (!w) continue;
    out.push({
      rule: 'access-intent',
      message: `${code(w.value)} is no keyword of ${code(d.name.value)}: httpd reads it as a host name, ${d.name.value.toLowerCase() === 'allow' ? 'letting in' : 'refusing'} only clients whose name is \`none\` or ends in \`.none\`, and looks up every client's name to compare it (a reverse and a forward DNS query per request). To ${d.name.value.toLowerCase() === 'allow' ? 'let no one in' : 'refuse no one'}, delete the line.`,
      start: w.start,
      end: w.end,
      severity: in22Branch(d) ? 'hint' : 'information',
      ...(in22Branch(d) ? { maxSeverity: 'hint' as const } : {}),
    });
  }
  return out;
}

/** Inside a `<Limit>` or `<LimitExcept>`, where an `Order` sets only the methods it names. */
function inLimit(d: DirectiveNode): boolean {
  for (let p = d.parent; p; p = p.parent) if (p.key === 'limit' || p.key === 'limitexcept') return true;
  return false;
}

/**
 * Two `Order` lines in one section: httpd keeps the last, so the first decides nothing (a
 * jsboard vhost's `Order allow,deny` right above `Order deny,allow`). Only where the later line is
 * read wherever the first is, and neither sits in a `<Limit>` (there an Order sets only the
 * methods named). Read from the text alone.
 */
function shadowedOrders(doc: ConfigDocument): Finding[] {
  const at = doc.linesWithKeys(ORDER_KEY);
  if (at.length < 2) return [];
  // Grouped by section from the file's index (a file of thousands of sections makes nodes only
  // for the Order lines that share one): first the sections that hold two, by a slot per section.
  const sections = doc.sections.length;
  const firstIn = new Int32Array(sections + 1).fill(-1);
  const scopeOfLine = new Int32Array(at.length);
  let shared = false;
  for (let ix = 0; ix < at.length; ix++) {
    let p = doc.parentOf(at[ix]);
    while (p && TRANSPARENT.has(p.key)) p = p.parent;
    const slot = p ? p.index : sections;
    scopeOfLine[ix] = slot;
    if (firstIn[slot] >= 0) shared = true;
    else firstIn[slot] = ix;
  }
  if (!shared) return [];
  const bySection = new Map<number, number[]>();
  for (let ix = 0; ix < at.length; ix++) {
    const slot = scopeOfLine[ix];
    const list = bySection.get(slot);
    if (list) list.push(at[ix]);
    else bySection.set(slot, [at[ix]]);
  }
  const out: Finding[] = [];
  for (const list of bySection.values()) {
    if (list.length < 2) continue;
    const orders = list.map((i) => doc.lineAt(i) as DirectiveNode);
    for (let i = 0; i < orders.length; i++) {
      const first = orders[i];
      if (inLimit(first)) continue;
      const later = orders.slice(i + 1).find((o) => !inLimit(o) && readWith(first, o));
      if (!later) continue;
      out.push({
        rule: 'access-intent',
        message: `This \`Order\` has no effect: the \`Order\` on line ${later.line + 1}, later in the same section, replaces it (httpd keeps the last one). Delete one of the two so the file says which order is meant.`,
        start: first.start,
        end: first.end,
        ...(in22Branch(first) ? { severity: 'hint' as const, maxSeverity: 'hint' as const } : {}),
      });
    }
  }
  return out;
}
const ORDER_KEY: readonly string[] = ['order'];

export const accessIntentRule: Rule = {
  id: 'access-intent',
  defaultSeverity: 'warning',
  summary: 'Host rules that do not do what they seem to (an Allow that never matches, a comma-separated list, Satisfy Any letting everyone in, 2.2 vs 2.4 differences).',
  check(ctx) {
    const suspects = suspectHostLines(ctx.doc);
    const fromText = [...commaLists(suspects), ...filesWithSlash(ctx.doc), ...noneWords(suspects), ...shadowedOrders(ctx.doc)];
    if (ctx.depth === 'quick') return fromText;
    const notes = [...notesOf(ctx, 'access-intent'), ...notesOf(ctx, 'htaccess-override')];
    // A `Satisfy Any` another note already explains (a section with only Satisfy, which resets the
    // host rules in 2.4) is said once, by that note.
    const explained = new Set(notes.filter((n) => n.kind !== 'satisfy-any-skips-require').map((n) => n.start));
    const kept = notes.filter((n) => n.kind !== 'satisfy-any-skips-require' || !explained.has(n.start));
    return [...fromText, ...kept.map((n) => toFinding(ctx.doc, 'access-intent', n))];
  },
};
