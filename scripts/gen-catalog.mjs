#!/usr/bin/env node
/**
 * Build server/src/facts/generated.json from the offline httpd 2.4 manual.
 *
 *   node scripts/gen-catalog.mjs [manual-mod-dir] [output-file]
 *
 * The manual folder defaults to $APACHE_MANUAL_DIR, then to where Debian's
 * apache2-doc package installs the English module pages. Only facts are kept
 * (names, contexts, syntax, defaults, versions, links); the manual's prose is
 * left out on purpose. The output is sorted so that running the script twice
 * gives the same bytes.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const DEBIAN_DIR = '/usr/share/doc/apache2-doc/manual/en/mod';
const manualDir = process.argv[2] || process.env.APACHE_MANUAL_DIR || DEBIAN_DIR;
const outFile = process.argv[3] || resolve(here, '../server/src/facts/generated.json');
const DOCS = 'https://httpd.apache.org/docs/2.4/mod/';

/** The pages of the catalog: the core, the shared MPM page, every MPM and every module. */
function isModulePage(file) {
  return /^(core|mpm_common|event|worker|prefork|mpm_netware|mpm_winnt|mpmt_os2|mod_[a-z0-9_]+)\.html$/.test(file);
}

const NAMED_ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ', para: '', ccedil: 'ç', eacute: 'é', hellip: '…', mdash: '—', ndash: '–' };

function decode(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code === 160 ? ' ' : String.fromCodePoint(code);
    }
    const v = NAMED_ENTITIES[e.toLowerCase()];
    return v === undefined ? all : v;
  });
}

/** Table cell HTML → plain text on one line. */
function text(html) {
  return decode(html.replace(/<br\s*\/?>/gi, ' ').replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
}

/** The rows `<tr><th>…#Key…</th><td>value</td></tr>` of a manual fact table. */
function rows(tableHtml, dict) {
  const out = {};
  const re = new RegExp(`<tr><th><a href="${dict}\\.html#(\\w+)">[^<]*</a></th><td>([\\s\\S]*?)</td></tr>`, 'g');
  for (const m of tableHtml.matchAll(re)) out[m[1]] = m[2];
  return out;
}

const CONTEXTS = new Map([
  ['server config', 'server'],
  ['virtual host', 'vhost'],
  ['directory', 'directory'],
  ['.htaccess', 'htaccess'],
  // <Proxy> sections hold per-directory configuration; `proxySection` records the restriction.
  ['proxy section', 'directory'],
]);
const CONTEXT_ORDER = ['server', 'vhost', 'directory', 'htaccess'];

function parseContexts(cell, where) {
  const set = new Set();
  let proxySection = false;
  for (const part of text(cell).split(',')) {
    const p = part.trim();
    const c = CONTEXTS.get(p);
    if (!c) throw new Error(`${where}: unknown context "${p}"`);
    if (p === 'proxy section') proxySection = true;
    set.add(c);
  }
  return { contexts: CONTEXT_ORDER.filter((c) => set.has(c)), proxySection };
}

/**
 * The first release that has the directive, when the compatibility note is
 * about the directive as a whole (not one of its arguments). Releases before
 * 2.4.0 are left out: every 2.4 server has those.
 */
function parseSince(note, name) {
  const v = '(\\d+\\.\\d+(?:\\.\\d+)?)';
  const product = '(?:version |httpd |Apache (?:HTTP Server |httpd )?)?';
  const patterns = [
    new RegExp(`^Available in ${product}${v} and later`, 'i'),
    new RegExp(`^${name.replace(/[<>]/g, '')} is only available in ${product}${v} and (?:later|newer)`, 'i'),
    new RegExp(`^Only available from ${product}${v} and later`, 'i'),
    new RegExp(`^Directive supported in ${v} and later`, 'i'),
  ];
  for (const re of patterns) {
    const m = re.exec(note);
    if (!m) continue;
    // Only 2.4.x releases count: older ones are in every 2.4 server, and a few
    // notes give a bundled module's own version (mod_http2 "2.5.1"), not httpd's.
    return m[1].startsWith('2.4.') ? m[1] : undefined;
  }
  return undefined;
}

function parsePage(file) {
  const page = file.replace(/\.html$/, '');
  const html = readFileSync(join(manualDir, file), 'utf8');
  const modTable = /<table class="module">([\s\S]*?)<\/table>/.exec(html);
  if (!modTable) throw new Error(`${file}: no module table`);
  const mrow = rows(modTable[1], 'module-dict');
  let module;
  if (mrow.ModuleIdentifier && mrow.SourceFile) {
    // A few pages list several sources or forget the extension: keep the main one, as <IfModule> spells it.
    let source = text(mrow.SourceFile).split(/\s+/)[0];
    if (!/\.c$/.test(source)) source += '.c';
    module = { name: page, id: text(mrow.ModuleIdentifier), file: source, manualStatus: text(mrow.Status), url: DOCS + file };
  } else if (page === 'core') {
    // The core page has no identifier row; httpd names it core_module, built from core.c.
    module = { name: 'core', id: 'core_module', file: 'core.c', manualStatus: text(mrow.Status), url: DOCS + file };
  }

  const directives = [];
  const sections = html.split('<div class="directive-section">').slice(1);
  for (const sec of sections) {
    const head = /<h2 id="([^"]+)"><span id="[^"]*">([\s\S]*?)<\/span>/.exec(sec);
    if (!head) throw new Error(`${file}: directive section without a heading`);
    const anchor = head[1];
    const shown = text(head[2]);
    const section = shown.startsWith('<');
    const name = shown.replace(/^<|>$/g, '');
    const table = /<table class="directive">([\s\S]*?)<\/table>/.exec(sec);
    if (!table) throw new Error(`${file}#${anchor}: no fact table`);
    const r = rows(table[1], 'directive-dict');
    const where = `${file}#${anchor}`;
    if (!r.Syntax || !r.Context || !r.Module || !r.Status) throw new Error(`${where}: missing a required row`);
    const { contexts, proxySection } = parseContexts(r.Context, where);
    const fact = { name, module: page };
    if (section) fact.section = true;
    fact.contexts = contexts;
    if (proxySection) fact.proxySection = true;
    if (r.Override) fact.override = text(r.Override);
    fact.syntax = text(r.Syntax);
    if (r.Default) fact.default = text(r.Default);
    fact.manualStatus = text(r.Status);
    const implementers = text(r.Module).split(',').map((s) => s.trim()).filter(Boolean);
    if (implementers.length !== 1 || implementers[0] !== page) fact.modules = implementers;
    if (r.Compatibility) {
      const since = parseSince(text(r.Compatibility), name);
      if (since) fact.since = since;
    }
    fact.url = DOCS + file + '#' + anchor;
    directives.push(fact);
  }
  return { module, directives };
}

/** Order of preference when two pages document the same name: the shared MPM page, then core, then the rest by name. */
function pageRank(module) {
  return module === 'mpm_common' ? 0 : module === 'core' ? 1 : 2;
}

function merge(a, b) {
  const keep = pageRank(a.module) < pageRank(b.module) || (pageRank(a.module) === pageRank(b.module) && a.module <= b.module) ? a : b;
  const other = keep === a ? b : a;
  const contexts = CONTEXT_ORDER.filter((c) => a.contexts.includes(c) || b.contexts.includes(c));
  const modules = new Set([...(keep.modules ?? [keep.module]), ...(other.modules ?? [other.module])]);
  const out = { ...keep, contexts };
  const list = [...modules].sort();
  if (list.length !== 1 || list[0] !== keep.module) out.modules = list;
  if (!out.override && other.override) out.override = other.override;
  if (!out.default && other.default) out.default = other.default;
  return out;
}

function sortKeys(fact, order) {
  const out = {};
  for (const k of order) if (fact[k] !== undefined) out[k] = fact[k];
  for (const k of Object.keys(fact).sort()) if (!(k in out)) out[k] = fact[k];
  return out;
}

const DIRECTIVE_KEYS = ['name', 'module', 'section', 'contexts', 'proxySection', 'override', 'syntax', 'default', 'manualStatus', 'modules', 'since', 'url'];
const MODULE_KEYS = ['name', 'id', 'file', 'manualStatus', 'url'];
const byKey = (x) => x.name.toLowerCase() + '\u0000' + x.name;
const compare = (a, b) => (byKey(a) < byKey(b) ? -1 : byKey(a) > byKey(b) ? 1 : 0);

const files = readdirSync(manualDir).filter(isModulePage).sort();
if (!files.includes('core.html')) throw new Error(`no module pages in ${manualDir}`);
const facts = new Map();
const modules = [];
for (const file of files) {
  const { module, directives } = parsePage(file);
  if (module) modules.push(sortKeys(module, MODULE_KEYS));
  for (const d of directives) {
    const key = d.name.toLowerCase();
    const prev = facts.get(key);
    facts.set(key, prev ? merge(prev, d) : d);
  }
}
const out = {
  source: 'Apache HTTP Server 2.4 manual (module pages); facts only',
  directives: [...facts.values()].map((f) => sortKeys(f, DIRECTIVE_KEYS)).sort(compare),
  modules: modules.sort(compare),
};
writeFileSync(outFile, JSON.stringify(out, null, 1) + '\n');
process.stdout.write(`${out.directives.length} directives, ${out.modules.length} modules → ${outFile}\n`);
