/**
 * Which files the CLI looks at: the paths named on the command line, and for
 * a directory every file below it that looks like an httpd configuration
 * file. The walk is sorted, skips `node_modules` and `.git`, follows symbolic
 * links but never enters a directory twice, and reports each file once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConfigDocument } from '../syntax';
import { getDirective, isSectionKey } from '../facts';

/** Base names that are always httpd configuration files. */
const NAMES = new Set(['httpd.conf', 'apache2.conf', '.htaccess', 'htaccess.txt']);

const SKIP_DIRS = new Set(['node_modules', '.git']);

/**
 * True when `file` (any path; only its last segments matter) is one the
 * directory walk should take: the language's file patterns plus `*.conf` and
 * `*.conf.in`.
 */
export function isConfigFile(file: string): boolean {
  return byName(file) || byExtension(file);
}

/** Taken by its name or its place (httpd.conf, .htaccess, a Debian apache2/ folder): an httpd file whatever it holds. */
function byName(file: string): boolean {
  const p = file.replace(/\\/g, '/');
  const base = p.slice(p.lastIndexOf('/') + 1);
  const lower = base.toLowerCase();
  if (NAMES.has(lower)) return true;
  if (lower.endsWith('.htaccess')) return true;
  // Debian layout: anything in apache2/{sites,conf,mods}-{available,enabled}/ (vhosts often have no extension).
  if (/(^|\/)apache2\/(sites|conf|mods)-(available|enabled)\/[^/]+$/.test(p)) return true;
  // Red Hat layout and the stock extra/ files are *.conf, covered by byExtension.
  return false;
}

/** Taken for its extension only (`*.conf`, `*.conf.in`): nginx, CUPS and many daemons use it too. */
function byExtension(file: string): boolean {
  const lower = file.toLowerCase();
  return lower.endsWith('.conf') || lower.endsWith('.conf.in');
}

/**
 * Why a file the walk took for its extension alone is not an httpd configuration, or null when it
 * may be one. Lines of another syntax (`deny all;`, `server {`, `key=value`, XML) or mostly names
 * httpd does not define (a CUPS or daemon file in httpd-like syntax) tell it.
 */
/** Directives and sections of httpd that lookalike formats (CUPS, daemons) do not use. */
const HTTPD_MARKS = new Set([
  'loadmodule', 'ifmodule', 'ifdefine', 'ifversion', 'virtualhost', 'directory', 'directorymatch', 'files', 'filesmatch', 'locationmatch',
  'servername', 'documentroot', 'include', 'includeoptional', 'alias', 'scriptalias', 'rewriteengine', 'rewriterule', 'allowoverride', 'options',
  'directoryindex', 'errordocument', 'sethandler', 'addhandler', 'setoutputfilter', 'addtype', 'header', 'setenvif', 'redirect', 'proxypass',
]);

/**
 * A line no httpd directive is written as: an INI header (`[jail]`), a name then an assignment
 * (`enabled = true`, lighttpd's `alias.url += (`), a quoted first word (`"/x" => "/y",`) or bare
 * punctuation (`)`). Only names httpd does not know count, so a known directive whose first
 * argument happens to be `=` stays httpd's.
 */
function foreignLine(d: ConfigDocument['directives'][number], text: string): boolean {
  if (getDirective(d.key)) return false;
  const name = d.name.value;
  if (/^\[.*\]$/.test(name) || /^[()[\]{},]+$/.test(name) || /^["']/.test(text)) return true;
  const first = d.args[0]?.value;
  return first === '=' || first === '+=' || first === '=>' || first === ':=';
}

export function notHttpdReason(doc: ConfigDocument): string | null {
  let lines = 0;
  let foreign = 0;
  let unknown = 0;
  let marked = false;
  for (const d of doc.directives) {
    lines++;
    const name = d.name.value;
    const text = doc.text.slice(d.start, d.end);
    if (/[;{}]$/.test(text) || /^[^\s"']*=/.test(name) || name.startsWith('<?') || foreignLine(d, text)) foreign++;
    else if (!getDirective(d.key)) unknown++;
    else if (HTTPD_MARKS.has(d.key)) marked = true;
  }
  let strangeSections = 0;
  for (const s of doc.sections) {
    lines++;
    if (!isSectionKey(s.key)) {
      unknown++;
      strangeSections++;
    } else if (HTTPD_MARKS.has(s.key)) marked = true;
    if (doc.text.slice(s.open.start, s.open.end).endsWith('/>')) foreign++;
  }
  if (lines === 0) return null;
  if (foreign >= 2 && foreign * 4 >= lines) return `${foreign} of its ${lines} lines are not httpd syntax`;
  // Lines only httpd writes (a module loaded, an <IfModule> test, a <Directory>…): httpd's, whatever else it holds.
  if (marked) return null;
  if (lines >= 5 && unknown * 10 >= lines * 6) return `${unknown} of its ${lines} directives are not httpd's`;
  // httpd-like syntax with sections httpd does not define (CUPS's <Policy>) and many other names.
  if (strangeSections > 0 && lines >= 5 && unknown * 5 >= lines) return `${unknown} of its ${lines} directives and sections are not httpd's`;
  return null;
}

export interface FoundFile {
  /** The path to show: as given, or joined onto the directory argument as given. */
  display: string;
  /** Absolute path, for reading and writing. */
  absolute: string;
  /** True when the file was named directly on the command line. */
  explicit: boolean;
  /** Taken by a directory walk for its extension alone (see notHttpdReason). */
  byExtension?: boolean;
  /**
   * Taken by a directory walk because its name is one a checked server configuration gives
   * httpd's per-directory files (`AccessFileName .acl`): read as a .htaccess file.
   */
  accessFile?: boolean;
}

export interface WalkResult {
  files: FoundFile[];
  /** Paths that could not be read (missing, no permission), with the reason. */
  errors: Array<{ path: string; message: string }>;
}

/**
 * Expand the command-line paths (relative to `cwd`) into the files to check, each once.
 * `accessNames`: more base names a walk takes as per-directory files (AccessFileName values).
 */
export function collectFiles(args: readonly string[], cwd: string, accessNames: ReadonlySet<string> = new Set()): WalkResult {
  const files: FoundFile[] = [];
  const errors: WalkResult['errors'] = [];
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();

  const addFile = (display: string, absolute: string, explicit: boolean, extensionOnly = false, accessFile = false): void => {
    let key = absolute;
    try {
      key = fs.realpathSync(absolute);
    } catch {
      // A dangling link: keep the path itself as the key; reading it will report the problem.
    }
    if (seenFiles.has(key)) return;
    seenFiles.add(key);
    files.push({ display, absolute, explicit, ...(extensionOnly ? { byExtension: true } : {}), ...(accessFile ? { accessFile: true } : {}) });
  };

  const walk = (display: string, absolute: string): void => {
    let real: string;
    try {
      real = fs.realpathSync(absolute);
    } catch (e) {
      errors.push({ path: display, message: describeError(e) });
      return;
    }
    if (seenDirs.has(real)) return; // a loop, or the same tree reached twice
    seenDirs.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absolute, { withFileTypes: true });
    } catch (e) {
      errors.push({ path: display, message: describeError(e) });
      return;
    }
    entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const ent of entries) {
      const childAbs = path.join(absolute, ent.name);
      const childDisplay = joinDisplay(display, ent.name);
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      if (ent.isSymbolicLink()) {
        try {
          const st = fs.statSync(childAbs);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue; // a dangling link inside a tree is not ours to report
        }
      }
      if (isDir) {
        if (!SKIP_DIRS.has(ent.name)) walk(childDisplay, childAbs);
      } else if (isFile && byName(childAbs)) {
        addFile(childDisplay, childAbs, false);
      } else if (isFile && accessNames.has(ent.name)) {
        addFile(childDisplay, childAbs, false, false, true);
      } else if (isFile && byExtension(childAbs)) {
        addFile(childDisplay, childAbs, false, true);
      }
    }
  };

  for (const arg of args) {
    const absolute = path.resolve(cwd, arg);
    let st: fs.Stats;
    try {
      st = fs.statSync(absolute);
    } catch (e) {
      errors.push({ path: arg, message: describeError(e) });
      continue;
    }
    if (st.isDirectory()) walk(arg, absolute);
    else addFile(arg, absolute, true);
  }
  return { files, errors };
}

/**
 * The per-directory file names (AccessFileName) the server configurations among `texts` give,
 * other than the ones a walk takes anyway (.htaccess, *.htaccess, htaccess.txt). A name with a
 * slash or a wildcard is not a file name httpd looks for and is left out.
 */
export function accessFileNamesIn(texts: Iterable<{ text: string; context: string }>, parseDoc: (text: string) => ConfigDocument): Set<string> {
  const out = new Set<string>();
  for (const { text, context } of texts) {
    if (context !== 'server' && context !== 'vhost') continue;
    // Most files never name one: a cheap look before parsing.
    if (!/accessfilename/i.test(text)) continue;
    for (const d of parseDoc(text).directives) {
      if (d.key !== 'accessfilename') continue;
      for (const a of d.args) {
        const name = a.value;
        if (!name || /[\\/*?[]/.test(name) || name === '.' || name === '..' || byName(name)) continue;
        out.add(name);
      }
    }
  }
  return out;
}

function joinDisplay(dir: string, name: string): string {
  if (dir === '.' || dir === './') return name;
  return /[\\/]$/.test(dir) ? dir + name : dir + '/' + name;
}

export function describeError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return err?.message ?? String(e);
  }
}
