/**
 * Document links: file paths in Include, IncludeOptional, LoadModule and the
 * directives whose argument is a file (password and group files, TLS
 * certificates and keys, log files, MIME tables).
 *
 * Like httpd (ap_server_root_relative), a relative path is taken from the
 * ServerRoot in effect at that line of the file; without one, from the
 * `serverRoot` option; without that, from the document's folder. `${VAR}`
 * is replaced when a `Define VAR value` earlier in the file gives it a value;
 * other variables (environment, defines made elsewhere) leave no link.
 * Wildcard paths are linked only when `resolveGlob` finds exactly one file.
 * Piped logs (`|command`) and syslog targets are not files. Directories
 * (DocumentRoot, SSLCACertificatePath) are not linked.
 *
 * No file system access happens here: `exists` and `resolveGlob` are given
 * by the caller.
 */
import { DocumentLink } from 'vscode-languageserver-types';
import type { ConfigDocument, DirectiveNode, Token } from '../syntax';
import { rangeOf, wordTable } from '../syntax';
import { hasGlob, isAbsolutePath, joinPath, normalizePath, pathToFileUri } from './paths';

export interface LinkOptions {
  /** The document's folder (absolute). The last resort for relative paths. */
  baseDir?: string;
  /** The ServerRoot to assume when the file states none before a path. */
  serverRoot?: string;
  /** When given, only paths for which it returns true are linked. */
  exists?: (path: string) => boolean;
  /** Expands a wildcard path to the files it matches; a link is made when there is exactly one. */
  resolveGlob?: (pattern: string) => string[];
}

/** Which argument of which directive is a file path: an index, or 'all' for every argument. */
export const FILE_ARGUMENTS: Readonly<Record<string, number | 'all' | undefined>> = wordTable({
  include: 0,
  includeoptional: 0,
  loadmodule: 1,
  loadfile: 'all',
  authuserfile: 0,
  authgroupfile: 0,
  authdbmuserfile: 0,
  authdbmgroupfile: 0,
  sslcertificatefile: 0,
  sslcertificatekeyfile: 0,
  sslcertificatechainfile: 0,
  sslcacertificatefile: 0,
  sslcarevocationfile: 0,
  sslcadnrequestfile: 0,
  sslproxycacertificatefile: 0,
  sslproxycarevocationfile: 0,
  sslproxymachinecertificatefile: 0,
  sslproxymachinecertificatechainfile: 0,
  mdcertificatefile: 0,
  mdcertificatekeyfile: 0,
  errorlog: 0,
  customlog: 0,
  transferlog: 0,
  scriptlog: 0,
  typesconfig: 0,
  mimemagicfile: 0,
});

const LOGS = new Set(['errorlog', 'customlog', 'transferlog']);

/** Whether a value given to a directive names a file (a log target may be a pipe or syslog instead). */
export function isFileValue(key: string, value: string): boolean {
  if (LOGS.has(key)) return !value.startsWith('|') && !/^syslog(:|$)/i.test(value);
  return true;
}

/** The file-path arguments of a directive. */
function fileTokens(d: DirectiveNode): Token[] {
  const which = FILE_ARGUMENTS[d.key];
  if (which === undefined) return [];
  const toks = which === 'all' ? d.args : d.args.slice(which, which + 1);
  return toks.filter((t) => isFileValue(d.key, t.value));
}

/** Replace `${VAR}` from `defines`; undefined when a variable has no known value. */
export function substituteDefines(value: string, defines: ReadonlyMap<string, string>): string | undefined {
  // The pattern takes time quadratic in a run of `${` without `}`: no path is that long.
  if (value.length > 4096) return undefined;
  let missing = false;
  const out = value.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
    const v = defines.get(name);
    if (v === undefined) missing = true;
    return v ?? '';
  });
  return missing ? undefined : out;
}

/** What relative paths and variables mean at one directive. */
export interface PathEnvironment {
  /** The folder relative paths start from, when one is known. */
  root: string | undefined;
  /** Variables given a value by `Define` earlier in the file. */
  defines: ReadonlyMap<string, string>;
}

/**
 * Walk the directives in file order, tracking Define / UnDefine and the
 * ServerRoot in effect, and call `visit` with each directive and what paths
 * mean there. `visit` returns false to stop.
 */
export function walkPathEnvironment(
  doc: ConfigDocument,
  options: LinkOptions,
  visit: (d: DirectiveNode, env: PathEnvironment) => boolean | void,
): void {
  const defines = new Map<string, string>();
  let serverRoot: string | undefined;
  for (let ix = 0; ix < doc.directives.length; ix++) {
    const d = doc.directives[ix];
    if (visit(d, { root: serverRoot ?? options.serverRoot ?? options.baseDir, defines }) === false) return;
    if (d.key === 'define' && d.args.length >= 2) defines.set(d.args[0].value, d.args[1].value);
    else if (d.key === 'undefine' && d.args[0]) defines.delete(d.args[0].value);
    else if (d.key === 'serverroot' && d.args[0]) {
      const v = substituteDefines(d.args[0].value, defines);
      const base = options.serverRoot ?? options.baseDir;
      serverRoot = v === undefined ? undefined : isAbsolutePath(v) ? normalizePath(v) : base ? joinPath(base, v) : undefined;
    }
  }
}

/** Resolve a path value as httpd would at that point; undefined when it cannot be known. */
export function resolvePathValue(value: string, env: PathEnvironment): string | undefined {
  const v = substituteDefines(value, env.defines);
  if (!v) return undefined;
  if (isAbsolutePath(v)) return normalizePath(v);
  return env.root ? joinPath(env.root, v) : undefined;
}

export function documentLinks(doc: ConfigDocument, options: LinkOptions = {}): DocumentLink[] {
  const links: DocumentLink[] = [];
  walkPathEnvironment(doc, options, (d, env) => {
    for (const tok of fileTokens(d)) {
      let target = resolvePathValue(tok.value, env);
      if (!target) continue;
      if (hasGlob(target)) {
        const matches = options.resolveGlob?.(target) ?? [];
        if (matches.length !== 1) continue;
        target = matches[0];
      } else if (options.exists && !options.exists(target)) continue;
      const [start, end] = innerRange(tok);
      links.push({ range: rangeOf(doc, start, end), target: pathToFileUri(target), tooltip: target });
    }
  });
  return links;
}

/** The range of a word without its quotes. */
export function innerRange(tok: Token): [number, number] {
  if (!tok.quote || tok.end - tok.start < 2) return [tok.start, tok.end];
  return [tok.start + 1, tok.unterminated ? tok.end : tok.end - 1];
}
