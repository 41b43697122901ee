/**
 * "Check with httpd": runs the configured httpd binary as
 * `httpd -t -f ROOT_FILE -d SERVER_ROOT` and turns what it prints into
 * diagnostics (source "httpd", code "httpd-t"). Only the language server
 * runs processes, and only in a trusted workspace (the caller checks).
 *
 * Debian's apache2 reads APACHE_RUN_DIR, APACHE_LOG_DIR… from the
 * environment (apache2ctl sources /etc/apache2/envvars first); `apache2 -t`
 * without them fails on `${APACHE_RUN_DIR}`. When the binary is apache2 and
 * that file exists, the variables it exports are passed along.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as nodePath from 'path';
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';

export const HTTPD_SOURCE = 'httpd';
export const HTTPD_CODE = 'httpd-t';
export const DEBIAN_ENVVARS = '/etc/apache2/envvars';
/** httpd -t reads and parses the configuration only; a minute is ample. */
export const HTTPD_TIMEOUT_MS = 60_000;

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The httpd binary: the setting when it is given (a path, or a name looked
 * up on the PATH), else `apache2` or `httpd` on the PATH or in the usual sbin
 * folders (often not on a user's PATH). Undefined when none is found.
 */
export function findHttpdBinary(setting: string, envPath = process.env.PATH ?? ''): string | undefined {
  const dirs = [...envPath.split(nodePath.delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin', '/usr/local/apache2/bin'];
  const lookup = (name: string): string | undefined => {
    if (name.includes('/') || name.includes('\\')) return isExecutable(name) ? name : undefined;
    for (const d of dirs) {
      const p = nodePath.join(d, name);
      if (isExecutable(p)) return p;
    }
    return undefined;
  };
  if (setting) return lookup(setting);
  return lookup('apache2') ?? lookup('httpd');
}

/**
 * The variables an envvars script exports (`export NAME=value` lines, with
 * `$NAME` / `${NAME}` of variables set earlier in the file expanded, unknown
 * ones (such as Debian's $SUFFIX) empty). Lines that are not plain exports
 * are ignored.
 */
export function parseEnvvars(text: string): Record<string, string> {
  // No prototype: a variable named like one of Object's members (`$constructor`) is simply unset.
  const vars = Object.create(null) as Record<string, string>;
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(raw);
    if (!m) continue;
    let value = m[2].trim();
    if (/^'[^']*'$/.test(value)) value = value.slice(1, -1);
    else {
      if (/^"[^"]*"$/.test(value)) value = value.slice(1, -1);
      value = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? '');
    }
    // Anything still shell-like (command substitution, several words) is not ours to run.
    if (/[`]|\$\(/.test(value)) continue;
    vars[m[1]] = value;
  }
  return Object.fromEntries(Object.entries(vars));
}

/** The environment for the binary: Debian's envvars for apache2, when the file is there. */
export function httpdEnvironment(binary: string, base: NodeJS.ProcessEnv = process.env, envvarsFile = DEBIAN_ENVVARS): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, LANG: 'C' };
  if (!/^apache2(\.exe)?$/i.test(nodePath.basename(binary))) return env;
  let text: string;
  try {
    text = fs.readFileSync(envvarsFile, 'utf8');
  } catch {
    return env;
  }
  return { ...env, ...parseEnvvars(text) };
}

export interface HttpdError {
  /** The file httpd names (absolute, as it printed it). */
  file: string;
  /** 0-based line. */
  line: number;
  message: string;
}

/**
 * The errors in httpd's -t output. Two shapes:
 *
 *     AH00526: Syntax error on line 2 of /etc/apache2/sites-enabled/a.conf:
 *     Invalid command 'Foo', perhaps misspelled or defined by a module not included in the server configuration
 *
 *     apache2: Syntax error on line 6 of /c/root.conf: Syntax error on line 1 of /c/sub.conf: /c/sub.conf:1: <Directory> was not closed.
 *
 * The innermost location of a line is the one reported; the message is the
 * rest of the line, or the next line when the rest is empty.
 */
export function parseHttpdOutput(output: string): HttpdError[] {
  const lines = output.split(/\r?\n/);
  const out: HttpdError[] = [];
  const re = /Syntax error on line (\d+) of (.+?):(?:\s|$)/g;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    let last: RegExpExecArray | null = null;
    re.lastIndex = 0;
    for (let m = re.exec(l); m; m = re.exec(l)) last = m;
    if (!last) continue;
    let message = l.slice(last.index + last[0].length).trim();
    if (!message && i + 1 < lines.length) message = lines[++i].trim();
    // "/c/sub.conf:1: <Directory> was not closed." repeats the place: keep the words.
    message = message.replace(/^\S+:\d+:\s*/, '');
    out.push({ file: last[2], line: Math.max(0, Number(last[1]) - 1), message: message || 'Syntax error' });
  }
  return out;
}

/** The first line of the output that says something (for failures without a file and line). */
export function firstMessage(output: string): string {
  return (
    output
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l && !/^Syntax OK$/i.test(l)) ?? 'httpd -t failed'
  );
}

export interface HttpdRun {
  binary: string;
  args: string[];
  exitCode: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs `binary -t -f root -d serverRoot`. Never rejects. */
export function runHttpdCheck(binary: string, root: string, serverRoot: string, timeoutMs = HTTPD_TIMEOUT_MS): Promise<HttpdRun> {
  const args = ['-t', '-f', root, '-d', serverRoot];
  return new Promise((resolve) => {
    execFile(binary, args, { encoding: 'utf8', timeout: timeoutMs, env: httpdEnvironment(binary), maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
      const exitCode = !e ? 0 : typeof e.code === 'number' ? e.code : null;
      const output = `${stderr ?? ''}${stdout ?? ''}` || (e && typeof e.code === 'string' ? `${e.code}: ${e.message}` : '');
      resolve({ binary, args, exitCode, output, timedOut: !!e?.killed });
    });
  });
}

/**
 * The range of httpd's 0-based line `line` in `text`, in the client's positions: httpd counts lines
 * ended by LF, the client also ends one at a lone CR. A line past the end of the text (httpd read
 * the file from disk, and the buffer is shorter, or the file changed since) lands on the last line
 * that has text; an unknown text gives an empty range at the start of the line.
 */
export function httpdLineRange(text: string | undefined, line: number): Range {
  if (text === undefined) return { start: { line, character: 0 }, end: { line, character: 0 } };
  let start = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    start = nl + 1;
  }
  // After a final line break there is no line: the one before it.
  if (start === text.length && start > 0) start = text.lastIndexOf('\n', start - 2) + 1;
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  const doc = TextDocument.create('', '', 0, text);
  return { start: doc.positionAt(start), end: doc.positionAt(end) };
}

/** httpd diagnostics moved into a document's current text (a range past its end lands on its last line). */
export function clampToText(diagnostics: readonly Diagnostic[], text: string): Diagnostic[] {
  if (!diagnostics.length) return [];
  const doc = TextDocument.create('', '', 0, text);
  const last = doc.lineCount - 1;
  return diagnostics.map((d) => {
    const { start, end } = d.range;
    if (start.line <= last && end.line <= last && doc.positionAt(doc.offsetAt(end)).character === end.character) return d;
    if (start.line > last) return { ...d, range: lastLineRange(doc) };
    return { ...d, range: { start: doc.positionAt(doc.offsetAt(start)), end: doc.positionAt(doc.offsetAt(end)) } };
  });
}

/** The last line of a document that has text (the whole of it), or its first line when it has none. */
function lastLineRange(doc: TextDocument): Range {
  const text = doc.getText();
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 13)) end--;
  const pos = doc.positionAt(end);
  return { start: { line: pos.line, character: 0 }, end: pos };
}

/** One diagnostic per error, grouped by file; `textOf` gives a file's text (open document or disk), for the range. */
export function httpdDiagnostics(run: HttpdRun, root: string, textOf: (file: string) => string | undefined): Map<string, Diagnostic[]> {
  const byFile = new Map<string, Diagnostic[]>();
  const add = (file: string, line: number, message: string) => {
    const list = byFile.get(file) ?? [];
    list.push({
      range: httpdLineRange(textOf(file), line),
      severity: DiagnosticSeverity.Error,
      source: HTTPD_SOURCE,
      code: HTTPD_CODE,
      message,
    });
    byFile.set(file, list);
  };
  if (run.exitCode === 0 && !run.timedOut) return byFile;
  const errors = parseHttpdOutput(run.output);
  for (const e of errors) add(e.file, e.line, e.message);
  if (!errors.length) {
    add(root, 0, run.timedOut ? `httpd -t did not finish within ${HTTPD_TIMEOUT_MS / 1000} s` : firstMessage(run.output));
  }
  return byFile;
}
