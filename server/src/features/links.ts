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
import { rangeOf } from '../syntax';
import { hasGlob, isAbsolutePath, joinPath, pathToFileUri } from './paths';

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

type ArgPick = (d: DirectiveNode) => Token[];

const first: ArgPick = (d) => d.args.slice(0, 1);

/** Log targets: not a pipe, not syslog. */
const logFile: ArgPick = (d) => {
  const t = d.args[0];
  if (!t || t.value.startsWith('|') || /^syslog(:|$)/i.test(t.value)) return [];
  return [t];
};

/** Which arguments of which directives are files. */
const FILE_ARGS: Record<string, ArgPick> = {
  include: first,
  includeoptional: first,
  loadmodule: (d) => d.args.slice(1, 2),
  loadfile: (d) => d.args,
  authuserfile: first,
  authgroupfile: first,
  authdbmuserfile: first,
  authdbmgroupfile: first,
  sslcertificatefile: first,
  sslcertificatekeyfile: first,
  sslcertificatechainfile: first,
  sslcacertificatefile: first,
  sslcarevocationfile: first,
  sslcadnrequestfile: first,
  sslproxycacertificatefile: first,
  sslproxycarevocationfile: first,
  sslproxymachinecertificatefile: first,
  sslproxymachinecertificatechainfile: first,
  mdcertificatefile: first,
  mdcertificatekeyfile: first,
  errorlog: logFile,
  customlog: logFile,
  transferlog: logFile,
  scriptlog: first,
  typesconfig: first,
  mimemagicfile: first,
};

/** Replace `${VAR}` from `defines`; undefined when a variable has no known value. */
export function substituteDefines(value: string, defines: ReadonlyMap<string, string>): string | undefined {
  let missing = false;
  const out = value.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
    const v = defines.get(name);
    if (v === undefined) missing = true;
    return v ?? '';
  });
  return missing ? undefined : out;
}

export function documentLinks(doc: ConfigDocument, options: LinkOptions = {}): DocumentLink[] {
  const links: DocumentLink[] = [];
  const defines = new Map<string, string>();
  let serverRoot: string | undefined;

  for (const d of doc.directives) {
    if (d.key === 'define' && d.args.length >= 2) {
      defines.set(d.args[0].value, d.args[1].value);
      continue;
    }
    if (d.key === 'undefine' && d.args[0]) {
      defines.delete(d.args[0].value);
      continue;
    }
    if (d.key === 'serverroot' && d.args[0]) {
      const v = substituteDefines(d.args[0].value, defines);
      const base = options.serverRoot ?? options.baseDir;
      serverRoot = v === undefined ? undefined : isAbsolutePath(v) ? joinPath('/', v) : base ? joinPath(base, v) : undefined;
      continue;
    }
    const pick = FILE_ARGS[d.key];
    if (!pick) continue;
    for (const tok of pick(d)) {
      const value = substituteDefines(tok.value, defines);
      if (!value) continue;
      const root = serverRoot ?? options.serverRoot ?? options.baseDir;
      if (!isAbsolutePath(value) && !root) continue;
      let target = joinPath(root ?? '/', value);
      if (hasGlob(value)) {
        const matches = options.resolveGlob?.(target) ?? [];
        if (matches.length !== 1) continue;
        target = matches[0];
      } else if (options.exists && !options.exists(target)) continue;
      const inner = tok.quote && tok.end - tok.start >= 2 ? [tok.start + 1, tok.unterminated ? tok.end : tok.end - 1] : [tok.start, tok.end];
      links.push({ range: rangeOf(doc, inner[0], inner[1]), target: pathToFileUri(target), tooltip: target });
    }
  }
  return links;
}
