// Real files, rewritten and run: every file of the shared corpus (real configurations of 51
// projects) whose preferred fixes rewrite access lines is run on httpd twice, the original with
// mod_access_compat and the fixed text without it, and must be answered alike.
//
// Each file is set where Debian includes a package's file: after the stock apache2.conf's
// <Directory /> (closed), <Directory /usr/share> and <Directory /var/www/> (open), read by the
// virtual host the requests go to (each of its <VirtualHost> bodies is a host of its own). Its
// absolute paths are moved under a folder of the run, where every directory it names is made,
// with files in it; each directory also gets an `Alias /_dN/` so that requests reach it whatever
// the file maps. Lines httpd cannot read here are commented out in both texts alike: modules
// this machine does not have, logs, `Include` of files that are not there. Requests go to every
// URL its Alias, Location and Directory lines lead to, from four addresses, with no, right and
// wrong credentials, with GET and POST. A file httpd refuses (`httpd -t`) as it stands is passed
// over and counted; a rewrite httpd refuses while its original runs is a failure.
//
// APACHECONF_REAL_DIRS (folders separated by ':') runs the same over other files, for example a
// package's configuration unpacked with `dpkg-deb -x`.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkConfig, findHttpd, mismatches, startOracle, type Oracle, type OracleCase, type OracleRequestFor } from './harness';
import { AUTHS, BASIC, FROMS, GROUPS, METHODS, USERS, httpdOrSkip } from './migration-cases.test';
import { corpusFiles, needCorpus } from '../support/corpus';
import { createService } from '../../server/src/service';
import { applyEdits, parse, type SectionNode } from '../../server/src/syntax';
import { getDirective } from '../../server/src/facts';
import { mixedOptionsAt } from '../../server/src/rules/upgrade-review';

/** Modules a file's directives may need beyond the harness's own, when this machine has them. */
const MODULE_DIR = '/usr/lib/apache2/modules';

/** Directives that name files or sockets of a real server: commented out here. */
const DROP = new Set([
  'include', 'includeoptional', 'loadmodule', 'loadfile', 'errorlog', 'customlog', 'transferlog', 'pidfile', 'listen', 'user', 'group',
  'rewritemap', 'serverroot', 'lockfile', 'mutex', 'scoreboardfile', 'namevirtualhost', 'wsgisocketprefix', 'sslcertificatefile', 'sslcertificatekeyfile',
  'sslcertificatechainfile', 'sslcacertificatefile', 'sslengine', 'sslproxyengine', 'documentroot', 'suexecusergroup', 'typesconfig',
  // The requests name the oracle's host: the file's own names would send them elsewhere.
  'servername', 'serveralias', 'useCanonicalName'.toLowerCase(),
]);

/** Where a line of the file is one httpd cannot read on this machine (see DROP and modules). */
function dropLine(key: string, loadable: ReadonlySet<string>): boolean {
  if (DROP.has(key)) return true;
  const d = getDirective(key);
  if (!d) return true;
  if (d.module === 'core') return false;
  if (!d.module.startsWith('mod_')) return true;
  return !loadable.has(moduleShort(d.module));
}

function moduleShort(m: string): string {
  return m.replace(/^mod_/, '').replace(/_module$/, '');
}

/** Absolute paths of the file moved under `root` (in arguments and in regexes). */
function relocate(text: string, root: string): string {
  return text.replace(/(^|[\s"'(|^])(\/(?:usr|var|etc|srv|opt|home|data|www)(?=[/"'\s)|$]))/gm, (_m, pre: string, p: string) => pre + root + p);
}

interface Parts {
  server: string;
  hosts: string[];
}

/** The virtual host a section is in, if any. */
function hostOf(s: SectionNode | null): SectionNode | null {
  for (let p = s; p; p = p.parent) if (p.key === 'virtualhost') return p;
  return null;
}

/**
 * A text's server-level lines and the bodies of its virtual hosts: each body becomes the body of
 * one of the oracle's hosts (its own name, the oracle's port), the rest is read at server level.
 */
function split(text: string): Parts {
  const doc = parse(text);
  const hosts: string[] = [];
  let server = '';
  let at = 0;
  for (const h of doc.sections) {
    if (h.key !== 'virtualhost' || !h.close || hostOf(h.parent)) continue;
    server += text.slice(at, h.open.lineStart);
    hosts.push(text.slice(h.open.lineEnd, h.close.lineStart));
    at = h.close.lineEnd;
  }
  return { server: server + text.slice(at), hosts };
}

interface Prepared {
  id: string;
  /** The text runnable here: its server-level lines and each virtual host's body. */
  original: Parts;
  rewritten: Parts;
  /** A whole configuration (a Listen line): nothing of the stock apache2.conf goes before it. */
  main: boolean;
  dirs: string[];
  /** The files made in each directory. */
  names: string[];
  urls: string[];
  modules: string[];
}

/**
 * The file made runnable here: lines httpd cannot read commented out in both texts alike (the
 * fix does not touch them), paths moved, credentials files the oracle's, split into server-level
 * lines and virtual hosts' bodies; or why it cannot be run.
 */
function prepare(id: string, original: string, rewritten: string, root: string, loadable: ReadonlySet<string>): Prepared | { skip: string } {
  // A template's @placeholders@ (a build fills them in) become paths of their own, the same in both texts.
  original = original.replace(/@([A-Za-z_]+)@/g, '/srv/tpl/$1');
  rewritten = rewritten.replace(/@([A-Za-z_]+)@/g, '/srv/tpl/$1');
  const doc = parse(original);
  if (doc.sections.some((s) => s.key === 'virtualhost' && hostOf(s.parent))) return { skip: 'a <VirtualHost> inside another' };
  if (doc.sections.some((s) => s.key === 'macro' || s.key === 'perl')) return { skip: '<Macro> or <Perl>' };
  const dropText = new Set<string>();
  const modules = new Set<string>();
  for (const d of doc.directives) {
    if (dropLine(d.key, loadable)) dropText.add(original.slice(d.lineStart, d.lineEnd).replace(/\r?\n$/, ''));
    else {
      const m = getDirective(d.key)?.module;
      if (m && m.startsWith('mod_') && m !== 'mod_access_compat' && loadable.has(moduleShort(m))) {
        // A module that needs another loaded first.
        if (m === 'mod_authnz_ldap') modules.add('ldap');
        if (m.startsWith('mod_proxy_')) modules.add('proxy');
        if (m === 'mod_dav_fs') modules.add('dav');
        // `DAV On` serves files through mod_dav_fs's provider.
        if (d.key === 'dav' && /^(on|filesystem)$/i.test(d.args[0]?.value ?? '') && loadable.has('dav_fs')) modules.add('dav').add('dav_fs');
        // Digest authentication asks a module the AuthType line does not name.
        if (d.key === 'authtype' && /^digest$/i.test(d.args[0]?.value ?? '') && loadable.has('auth_digest')) modules.add('auth_digest');
        modules.add(moduleShort(m));
      }
    }
  }
  const fit = (text: string): string =>
    relocate(
      text
        .split(/\r?\n/)
        .map((l) => (dropText.has(l) ? `# (not here) ${l}` : l))
        .join('\n')
        // A LoadModule line the upgrade fixes rename (disk_cache_module → cache_disk_module) is not
        // the original's: the oracle loads its own modules either way.
        .replace(/^([ \t]*Load(?:Module|File)[ \t].*)$/gim, (line) => (line.startsWith('# (not here)') ? line : `# (not here) ${line}`))
        .replace(/^([ \t]*Auth(?:Basic|Digest)?UserFile)[ \t]+.*$/gim, '$1 "@USERS@"')
        .replace(/^([ \t]*AuthGroupFile)[ \t]+.*$/gim, '$1 "@GROUPS@"')
        .replace(/^([ \t]*AuthDBM\w*File)[ \t]+.*$/gim, '# (not here) $1')
        // Users come from the oracle's file whatever the file's provider was (LDAP, a database).
        .replace(/^([ \t]*Auth(?:Basic|Digest|Form)Provider)[ \t]+.*$/gim, '$1 file')
        // A DAV provider of another module (Subversion's `DAV svn`): served as plain files here.
        .replace(/^([ \t]*DAV[ \t]+(?!on\b|off\b|filesystem\b)\S+.*)$/gim, '# (not here) $1')
        // 2.2's Options lines that mix signed and plain words, which 2.4 refuses: plain words here
        // (what they allow changes no access answer).
        .replace(/^([ \t]*Options[ \t]+)(.*)$/gim, (line, head: string, words: string) => (mixedOptionsAt(words.trim().split(/\s+/)) < 0 ? line : head + words.replace(/(^|\s)[+-]/g, '$1'))),
      root,
    );
  const a = fit(original);
  const b = fit(rewritten);
  // Directories and URLs, read from the runnable text.
  const run = parse(a);
  const dirs = new Set<string>();
  const urls = new Set<string>(['/index.html', '/a.html']);
  const names = new Set<string>(['index.html', 'a.html', 'a.php', 'a.txt', 'sub/a.html']);
  for (const s of run.sections) {
    const arg = s.args[0]?.value ?? '';
    if ((s.key === 'directory') && arg.startsWith(root)) dirs.add(arg.replace(/\/+$/, ''));
    if (s.key === 'files' && /^[\w.-]+$/.test(arg)) names.add(arg);
    else if (s.key === 'files' || s.key === 'filesmatch') {
      // Names a pattern may match: its words as names and as extensions (`\.(ini|log)$`, `^\.ht`).
      for (const w of arg.match(/[A-Za-z0-9_]+/g) ?? []) if (w.length > 1) names.add(w).add(`a.${w}`);
      if (/\\?\.ht/.test(arg)) names.add('.htpasswd');
    }
    if (s.key === 'location' && arg.startsWith('/') && !/[*?[]/.test(arg)) {
      urls.add(arg);
      urls.add(arg.replace(/\/?$/, '/') + 'a.html');
    }
  }
  for (const d of run.directives) {
    if ((d.key === 'alias' || d.key === 'scriptalias') && d.args.length === 2 && d.args[1].value.startsWith(root)) {
      const target = d.args[1].value.replace(/\/+$/, '');
      const isFile = /\.\w+$/.test(target) && !dirs.has(target);
      if (isFile) {
        dirs.add(path.dirname(target));
        urls.add(d.args[0].value);
      } else {
        dirs.add(target);
        for (const n of names) urls.add(d.args[0].value.replace(/\/?$/, '/') + n);
      }
    }
  }
  const list = [...dirs].filter((d) => !/[*?[]/.test(d));
  const aliases = list.map((d, i) => `Alias /_d${i}/ "${d}/"`).join('\n');
  list.forEach((_, i) => {
    for (const n of names) urls.add(`/_d${i}/${n}`);
  });
  const pa = split(`${a}\n${aliases}\n`);
  const pb = split(`${b}\n${aliases}\n`);
  if (pa.hosts.length !== pb.hosts.length) return { skip: 'the rewrite has other virtual hosts' };
  return {
    id,
    original: pa,
    rewritten: pb,
    main: doc.directives.some((d) => d.key === 'listen'),
    dirs: list,
    names: [...names],
    urls: [...urls].filter((u) => !/[\s"]/.test(u)),
    modules: [...modules],
  };
}

const STOCK = (root: string) => `<Directory />
  Options FollowSymLinks
  AllowOverride None
  Require all denied
</Directory>
<Directory ${root}/usr/share>
  AllowOverride None
  Require all granted
</Directory>
<Directory ${root}/var/www/>
  Options Indexes FollowSymLinks
  AllowOverride None
  Require all granted
</Directory>
`;

/** The oracle's hosts: one per virtual host of the file (one with an empty body when it has none), the server-level lines with the first. */
function oracleCases(p: Prepared, parts: Parts, root: string): OracleCase[] {
  const serverConfig = (p.main ? '' : STOCK(root)) + parts.server;
  const bodies = parts.hosts.length ? parts.hosts : [''];
  return bodies.map((config, i) => ({ id: `h${i}`, config, ...(i === 0 ? { serverConfig } : {}) }));
}

function requestsOf(p: Prepared): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  const ids = p.original.hosts.length ? p.original.hosts.map((_, i) => `h${i}`) : ['h0'];
  for (const caseId of ids) {
    for (const url of p.urls) for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) out.push({ caseId, path: url, from, method, ...(auth ? { auth } : {}) });
  }
  return out;
}

function makeTree(p: Prepared): void {
  // Every directory first: a file's name may be that of a directory it names deeper down (OTRS's
  // `<Directory …/js/js-cache>` beside a `js-cache` file name), and the directory wins.
  for (const d of p.dirs) fs.mkdirSync(path.join(d, 'sub'), { recursive: true });
  for (const d of p.dirs) {
    for (const n of p.names) {
      const f = path.join(d, n);
      if (fs.existsSync(f) && fs.statSync(f).isDirectory()) continue;
      fs.writeFileSync(f, `${n}\n`);
    }
  }
}

/** The modules this machine's httpd can load for a file's lines. */
function loadableModules(): Set<string> {
  const loadable = new Set(
    fs.existsSync(MODULE_DIR) ? fs.readdirSync(MODULE_DIR).filter((f) => /^mod_.*\.so$/.test(f)).map((f) => f.slice(4, -3)) : [],
  );
  // Modules whose directives need more than loading (a database, a certificate authority).
  for (const m of ['md', 'authn_dbd', 'dbd', 'session_dbd', 'socache_dbm', 'authn_socache', 'cache_disk', 'dav_lock', 'lua', 'suexec']) loadable.delete(m);
  return loadable;
}

/** What the server config of a .htaccess file's directory says, in 2.4 terms: the rewrites offered for .htaccess files are meant to hold under each. */
const PARENTS = ['Require all granted', 'Require all denied', 'Require ip 127.0.0.2', `${BASIC}\nRequire valid-user`];

/**
 * APACHECONF_REAL_INHERITED=none|require runs what `fix --inherited` applies instead, under the
 * parents that fit the declaration: nothing inherited (none), or the parents above (require).
 */
const DECLARED = process.env.APACHECONF_REAL_INHERITED === 'none' || process.env.APACHECONF_REAL_INHERITED === 'require' ? process.env.APACHECONF_REAL_INHERITED : undefined;
const HT_PARENTS = DECLARED === 'none' ? [''] : PARENTS;

/** Every file under the folders, or the corpus. */
function sources(): string[] {
  const dirs = process.env.APACHECONF_REAL_DIRS;
  if (!dirs) return corpusFiles();
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile()) out.push(full);
    }
  };
  for (const d of dirs.split(':')) if (d) walk(d);
  return out;
}

if (typeof describe === 'function') describe('real files: every rewrite of an access line answers as the original on httpd', function () {
  this.timeout(3_600_000);

  it('runs each file whose preferred fixes rewrite access lines, original with mod_access_compat, rewrite without', async function () {
    if (!process.env.APACHECONF_REAL_DIRS && !needCorpus(this)) return;
    if (!httpdOrSkip(this)) return;
    assert.ok(findHttpd());
    const loadable = loadableModules();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-real-'));
    fs.chmodSync(tmp, 0o755);
    const skipped: Record<string, number> = {};
    const failures: string[] = [];
    let run = 0;
    let requests = 0;
    let migratedInPart = 0;
    try {
      for (const file of sources()) {
        const base = path.basename(file);
        if (/htaccess/i.test(base) || base === 'MANIFEST.tsv' || base === 'README.md') continue;
        const original = fs.readFileSync(file, 'latin1');
        if (!/^\s*(order|allow|deny|satisfy)\b/im.test(original)) continue;
        const fixed = withCaveatFixes(original, file);
        if (fixed === original || sameAccess(original, fixed)) continue;
        const root = path.join(tmp, `f${run + Object.values(skipped).reduce((n, k) => n + k, 0)}`);
        const p = prepare(path.relative(path.dirname(path.dirname(file)), file), original, fixed, root, loadable);
        if ('skip' in p) {
          skipped[p.skip] = (skipped[p.skip] ?? 0) + 1;
          console.log(`    passed over ${file}: ${p.skip}`);
          continue;
        }
        makeTree(p);
        const opts = { users: USERS, groups: GROUPS, extraModules: p.modules };
        const before = oracleCases(p, p.original, root);
        const after = oracleCases(p, p.rewritten, root);
        const t1 = await checkConfig(before, { ...opts, compat: true });
        if (!t1.ok) {
          const why = `httpd refuses the original here: ${t1.output.replace(/\s+/g, ' ').slice(0, 400)}`;
          skipped['httpd refuses the original here'] = (skipped['httpd refuses the original here'] ?? 0) + 1;
          console.log(`    passed over ${p.id}: ${why.slice(0, 300)}`);
          continue;
        }
        // A file migrated in part (the sections left have no exact rewrite) still needs
        // mod_access_compat for them: its rewrite runs with it, and must answer as the original did.
        let partly = false;
        const t2 = await checkConfig(after, { ...opts, compat: false });
        if (!t2.ok && /Invalid command '(Order|Allow|Deny|Satisfy)'/i.test(t2.output)) partly = (await checkConfig(after, { ...opts, compat: true })).ok;
        if (!t2.ok && !partly) {
          failures.push(`${p.id}: httpd refuses the rewrite: ${t2.output.slice(0, 400)}`);
          continue;
        }
        let a: Oracle | null = null;
        let b: Oracle | null = null;
        try {
          a = await startOracle(before, { ...opts, compat: true });
          b = await startOracle(after, { ...opts, compat: partly });
          const list = requestsOf(p);
          const ra = await a.requestAll(list);
          const rb = await b.requestAll(list);
          requests += list.length;
          run++;
          const diffs = mismatches(list, ra, rb);
          const counts = new Map<number, number>();
          for (const s of ra) counts.set(s, (counts.get(s) ?? 0) + 1);
          if (partly) migratedInPart++;
          console.log(`    ${p.id}${partly ? ' (migrated in part: the rewrite runs with mod_access_compat too)' : ''}: ${list.length} requests (${[...counts].map(([s, n]) => `${n}×${s}`).join(', ')}), ${diffs.length} differences`);
          for (const d of diffs.slice(0, Number(process.env.APACHECONF_REAL_SHOW ?? 5))) failures.push(`${p.id}: ${d.request.caseId}: ${d.request.method} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}:${d.request.auth.password}` : ''}: original ${d.a}, rewrite ${d.b}`);
        } finally {
          await a?.stop();
          await b?.stop();
        }
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    console.log(`    ${run} files run (${migratedInPart} migrated in part), ${requests} requests; passed over: ${JSON.stringify(skipped)}`);
    assert.deepEqual(failures, []);
    if (!process.env.APACHECONF_REAL_DIRS) assert.ok(run >= 5, `only ${run} corpus files could be run`);
  });

  // A .htaccess file's rewrite is not preferred (the file does not show what its directory
  // inherits), and says under what it holds: whatever 2.4 Require the server config sets for the
  // directory, AllowOverride allowing AuthConfig, no later section setting access. So each is run
  // under four such server configs, AllowOverride All.
  it('.htaccess files: the rewrite offered answers as the original under 2.4 server configs that allow it', async function () {
    if (!process.env.APACHECONF_REAL_DIRS && !needCorpus(this)) return;
    if (!httpdOrSkip(this)) return;
    const loadable = loadableModules();
    const before: OracleCase[] = [];
    const after: OracleCase[] = [];
    const reqs: OracleRequestFor[] = [];
    const names = new Map<string, string>();
    const skipped: Record<string, number> = {};
    const modules = new Set<string>();
    const declaredText = new Map<string, string>();
    for (const file of sources()) {
      if (!/htaccess/i.test(path.basename(file))) continue;
      const text = fs.readFileSync(file, 'latin1');
      if (!/^\s*(order|allow|deny|satisfy)\b/im.test(text)) continue;
      if (DECLARED) {
        const fixed = createService({ inherited: DECLARED }).fixText({ text, uri: 'file://' + file }).text;
        if (fixed === text) {
          skipped['no rewrite on the declared terms'] = (skipped['no rewrite on the declared terms'] ?? 0) + 1;
          continue;
        }
        declaredText.set(file, fixed);
      }
      const a = createService().analyze({ text, uri: 'file://' + file, context: 'htaccess', depth: 'full' });
      const fixes = new Map<string, Array<{ start: number; end: number; newText: string }>>();
      for (const f of a.findings) if (f.rule === 'legacy-access') for (const x of f.fixes ?? []) if (!/naive/.test(x.title)) fixes.set(JSON.stringify(x.edits), x.edits);
      // One rewrite a section (a file of several <FilesMatch> blocks has several): all of them.
      let rewritten: string | null = null;
      try {
        rewritten = declaredText.get(file) ?? (fixes.size ? applyEdits(text, [...fixes.values()].flat()) : null);
      } catch {
        rewritten = null;
      }
      if (rewritten === null) {
        const why = fixes.size ? 'rewrites that overlap' : 'no rewrite offered (nothing to migrate, or no rewrite holds)';
        skipped[why] = (skipped[why] ?? 0) + 1;
        continue;
      }
      const doc = parse(text);
      const drop = new Set<string>();
      for (const d of doc.directives) {
        if (dropLine(d.key, loadable)) drop.add(text.slice(d.lineStart, d.lineEnd).replace(/\r?\n$/, ''));
        else {
          const m = getDirective(d.key)?.module;
          if (m && m.startsWith('mod_') && m !== 'mod_access_compat' && loadable.has(moduleShort(m))) modules.add(moduleShort(m));
        }
      }
      const fit = (t: string): string =>
        t
          .split(/\r?\n/)
          .map((l) => (drop.has(l) ? `# (not here) ${l}` : l))
          .join('\n')
          .replace(/^([ \t]*Auth(?:Basic|Digest)?UserFile)[ \t]+.*$/gim, '$1 "@USERS@"')
          .replace(/^([ \t]*AuthGroupFile)[ \t]+.*$/gim, '$1 "@GROUPS@"')
          .replace(/^([ \t]*Auth(?:Basic|Digest|Form)Provider)[ \t]+.*$/gim, '$1 file');
      const files: Record<string, string> = { 'sub/index.html': 'i\n', 'sub/a.html': 'a\n', 'sub/a.php': 'p\n', 'sub/a.txt': 't\n' };
      const urls = new Set(['/sub/a.html', '/sub/index.html', '/sub/a.php', '/sub/a.txt']);
      for (const s of doc.sections) {
        if (s.key !== 'files' && s.key !== 'filesmatch') continue;
        const arg = s.args[0]?.value ?? '';
        // (`.` and `..` name no file: `<FilesMatch ".">` is a pattern that matches every name.)
        const words = /^[\w.-]+$/.test(arg) && !/^\.\.?$/.test(arg) ? [arg] : (arg.match(/[A-Za-z0-9_]+/g) ?? []).filter((w) => w.length > 1).flatMap((w) => [w, `a.${w}`]);
        if (/\\?\.ht/.test(arg)) words.push('.htpasswd');
        for (const w of words) {
          files[`sub/${w}`] = `${w}\n`;
          urls.add(`/sub/${w}`);
        }
      }
      const id = path.relative(path.dirname(path.dirname(file)), file);
      HT_PARENTS.forEach((parent, k) => {
        const caseId = `x${before.length}`;
        names.set(caseId, `${id} under "${parent.split('\n').pop()}"`);
        const config = `<Directory "@DOCROOT@">\n  AllowOverride All\n  ${parent.split('\n').join('\n  ')}\n</Directory>`;
        before.push({ id: caseId, config, files: { ...files, 'sub/.htaccess': fit(text) } });
        after.push({ id: caseId, config, files: { ...files, 'sub/.htaccess': fit(rewritten) } });
        for (const url of urls) for (const from of FROMS) for (const auth of AUTHS) for (const method of METHODS) reqs.push({ caseId, path: url, from, method, ...(auth ? { auth } : {}) });
        void k;
      });
    }
    console.log(`    ${before.length / HT_PARENTS.length} .htaccess files with rewrites ${DECLARED ? `applied on the declared terms (inherited: ${DECLARED})` : 'offered'}, each under ${HT_PARENTS.length} server configs; passed over: ${JSON.stringify(skipped)}`);
    if (!before.length) return;
    const opts = { users: USERS, groups: GROUPS, extraModules: [...modules] };
    let a: Oracle | null = null;
    let b: Oracle | null = null;
    try {
      a = await startOracle(before, { ...opts, compat: true });
      b = await startOracle(after, { ...opts, compat: false });
      const ra = await a.requestAll(reqs);
      const rb = await b.requestAll(reqs);
      const diffs = mismatches(reqs, ra, rb);
      const counts = new Map<number, number>();
      for (const s of ra) counts.set(s, (counts.get(s) ?? 0) + 1);
      console.log(`    ${reqs.length} requests (${[...counts].map(([s, n]) => `${n}×${s}`).join(', ')}), ${diffs.length} differences`);
      assert.deepEqual(
        diffs.slice(0, 10).map((d) => `${names.get(d.request.caseId)}: ${d.request.method} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}:${d.request.auth.password}` : ''}: original ${d.a}, rewrite ${d.b}`),
        [],
      );
    } finally {
      await a?.stop();
      await b?.stop();
    }
  });
});

/**
 * The file with its preferred fixes applied, and also the rewrites offered as exact unless a
 * .htaccess file sets access (`AllowOverride` lets one): the oracle's tree has no .htaccess file,
 * so those must hold there too. Where the two kinds of edits cannot go together, the preferred alone.
 */
function withCaveatFixes(original: string, file: string): string {
  const service = createService();
  const preferred = service.fixText({ text: original, uri: 'file://' + file, context: 'server' }).text;
  const a = service.analyze({ text: original, uri: 'file://' + file, context: 'server', depth: 'full' });
  const edits = new Map<string, { start: number; end: number; newText: string }>();
  let caveat = false;
  for (const f of a.findings) {
    for (const x of f.fixes ?? []) {
      const take = x.preferred || /exact unless a \.htaccess file/.test(x.title);
      if (!take || (f.rule !== 'legacy-access' && !x.preferred)) continue;
      if (!x.preferred) caveat = true;
      for (const e of x.edits) edits.set(`${e.start}:${e.end}:${e.newText}`, e);
    }
  }
  if (!caveat) return preferred;
  try {
    return applyEdits(original, [...edits.values()]);
  } catch {
    return preferred;
  }
}

/** The access lines of two texts, compared: a fix that only removes other lines is not an access rewrite. */
function sameAccess(a: string, b: string): boolean {
  const pick = (t: string) => t.split(/\r?\n/).filter((l) => /^\s*(order|allow|deny|satisfy|require|<require|authmerging)\b/i.test(l)).join('\n');
  return pick(a) === pick(b);
}
