/**
 * The 2.2 → 2.4 changes that are not a rename or a removal
 * (access-semantics.md §9, the manual's upgrading page), checked against
 * `httpd -t` where httpd refuses the old form:
 *
 * - `changed-syntax`: arguments 2.4 refuses. `CharsetOptions` and
 *   `ExtFilterOptions` lost `DebugLevel=N` ("Invalid … option"; the fix drops
 *   the word: it only set logging); `FilterProvider` takes an expression now
 *   ("takes three arguments"; no automatic rewrite); `Options` may no longer mix
 *   words with `+`/`-` and words without (no automatic rewrite: which 2.2 meant
 *   is not known).
 * - `changed-behavior`: accepted, but does something else in 2.4: piped logs
 *   run without a shell (fix: `|$` asks for the shell 2.2 used), CRL files
 *   are not checked until `SSLCARevocationCheck` says so (fix: `chain`, what
 *   2.2 did), and, without a fix, the things to review by hand: session
 *   identifiers matched exactly by `CacheIgnoreURLSessionIdentifiers`, URL
 *   `CacheEnable … /` on a forward proxy, per-directory `LDAPTrustedClientCert`, the
 *   `DavLockDB` file format, PATH_INFO for `scgi://` back ends.
 * - `changed-default`: a 2.2-era main configuration (it sets `ServerRoot`
 *   and still uses a directive 2.4 removed, renamed or ignores) that
 *   leaves a setting whose default changed to the default: `AllowOverride`
 *   (2.2: All; 2.4 without the directive still reads `.htaccess` files but
 *   allows nothing in them, so any directive there answers 500),
 *   `EnableSendfile` (On → Off), `FileETag` (INode MTime Size → MTime Size).
 */
import type { ConfigDocument, DirectiveNode, Finding, Rule } from './types';
import { code, deleteLine, in22Branch, scopeOf } from './scope';
import { directivesNamed, directivesWhereText, hasDirective } from '../syntax';
import { getDirective } from '../facts';

function only22(d: DirectiveNode): Partial<Finding> {
  return in22Branch(d) ? { severity: 'hint', maxSeverity: 'hint' } : {};
}

/** The indentation of a node's line. */
function indentOf(text: string, lineStart: number): string {
  let i = lineStart;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return text.slice(lineStart, i);
}

/** The line break a file uses. */
function eolOf(text: string): string {
  return /\r\n/.test(text) ? '\r\n' : '\n';
}

const DEBUG_LEVEL_DIRECTIVES = new Set(['charsetoptions', 'extfilteroptions']);

/**
 * Where an `Options` line mixes words with `+`/`-` and words without, as httpd 2.4 refuses it
 * ("Either all Options must start with + or -, or no Option may"; 2.2 took it): a plain word
 * after a signed one, or a signed word after plain ones unless the list starts with `All` or
 * `None` (`Options None +ExecCGI` is accepted). The offending word's index, or -1.
 */
export function mixedOptionsAt(words: readonly string[]): number {
  let signed = false;
  let plain = false;
  const base = words.length > 0 && /^(all|none)$/i.test(words[0]);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w.startsWith('+') || w.startsWith('-')) {
      if (plain && !base) return i;
      signed = true;
    } else {
      if (signed) return i;
      plain = true;
    }
  }
  return -1;
}

/**
 * Whether an `Options` line's text may mix signed and plain words (mixedOptionsAt), read from the
 * text before the line is split into words: the words after the name as blanks separate them.
 * A quote or a backslash (a quoted word, a continued line) is not read here: such a line may.
 */
function mayMixOptions(text: string, start: number, end: number): boolean {
  let i = start;
  for (let c = text.charCodeAt(i); i < end && c !== 32 && c !== 9; c = text.charCodeAt(++i)) if (c < 32) return true;
  let signed = false;
  let plain = false;
  while (i < end) {
    let c = text.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
      continue;
    }
    if (c === 43 || c === 45) signed = true;
    else plain = true;
    // (Other control characters are blanks to httpd too: not read here.)
    for (; i < end && c !== 32 && c !== 9; c = text.charCodeAt(++i)) if (c === 34 || c === 39 || c === 92 || c < 32) return true;
  }
  return signed && plain;
}

/** Whether a line of changedSyntaxRule's directives may hold what it reports (see directivesWhereText). */
function maySyntax(key: string, text: string, start: number, end: number): boolean {
  if (key === 'options') return mayMixOptions(text, start, end);
  // (A backslash may stand between the letters of a word as written: such a line is read in words.)
  if (DEBUG_LEVEL_DIRECTIVES.has(key)) return /debuglevel=|\\/i.test(text.slice(start, end));
  return true;
}

export const changedSyntaxRule: Rule = {
  id: 'changed-syntax',
  defaultSeverity: 'error',
  summary: 'Arguments 2.4 refuses at start-up: `DebugLevel=N` of `CharsetOptions`/`ExtFilterOptions` (fix drops it), the 2.2 form of `FilterProvider`, `Options` that mix signed and plain words.',
  check({ doc }) {
    const out: Finding[] = [];
    const read = directivesWhereText(doc, (k) => DEBUG_LEVEL_DIRECTIVES.has(k) || k === 'filterprovider' || k === 'options', maySyntax);
    for (let ix = 0; ix < read.length; ix++) {
      const d = read[ix];
      if (DEBUG_LEVEL_DIRECTIVES.has(d.key)) {
        const bad = d.args.filter((a) => /^debuglevel=/i.test(a.value));
        if (!bad.length) continue;
        const alone = bad.length === d.args.length;
        const edits = alone
          ? [deleteLine(d)]
          : bad.map((a) => {
              // Take the word and the blanks before it.
              let s = a.start;
              while (s > 0 && (doc.text[s - 1] === ' ' || doc.text[s - 1] === '\t')) s--;
              return { start: s, end: a.end, newText: '' };
            });
        out.push({
          rule: 'changed-syntax',
          message: `${code(d.name.value)} has no ${code('DebugLevel')} option in httpd 2.4, which refuses to start with it ("Invalid ${d.name.value} option"). It only set how much the module logged; use \`LogLevel\` for that module instead.`,
          start: bad[0].start,
          end: bad[bad.length - 1].end,
          ...only22(d),
          data: { directive: d.name.value, option: 'DebugLevel' },
          ...(in22Branch(d) ? {} : { fixes: [{ title: alone ? `Delete ${d.name.value} (DebugLevel was its only option)` : 'Drop DebugLevel (2.4 has no such option)', edits, preferred: true }] }),
        });
      } else if (d.key === 'options') {
        const at = mixedOptionsAt(d.args.map((a) => a.value));
        if (at < 0) continue;
        out.push({
          rule: 'changed-syntax',
          message: `${code('Options')} mixes words with \`+\` or \`-\` and words without: httpd 2.4 refuses to start with it ("Either all Options must start with + or -, or no Option may"; in a .htaccess file every request answers 500), where 2.2 took it. Write every word with \`+\`/\`-\` (changes to what the directory inherits) or none (the whole list); a list may start with \`All\` or \`None\` and go on with signed words.`,
          start: d.args[0].start,
          end: d.args[d.args.length - 1].end,
          ...only22(d),
          data: { directive: 'Options' },
        });
      } else if (d.key === 'filterprovider' && d.args.length === 4) {
        out.push({
          rule: 'changed-syntax',
          message: `${code('FilterProvider')} takes three arguments in httpd 2.4 (filter, provider and an expression), and refuses to start with the 2.2 form (dispatch and match). Write the condition as an expression, for example \`"%{CONTENT_TYPE} =~ m#^text/html#"\`.`,
          start: d.args[2].start,
          end: d.args[3].end,
          ...only22(d),
          data: { directive: 'FilterProvider' },
        });
      }
    }
    return out;
  },
};

const LOG_DIRECTIVES = new Set(['customlog', 'errorlog', 'transferlog', 'globallog']);
/** The other directives changed-behavior looks at (each has a branch below). */
const BEHAVIOR_KEYS = new Set(['sslcarevocationfile', 'sslcarevocationpath', 'cacheignoreurlsessionidentifiers', 'cacheenable', 'ldaptrustedclientcert', 'davlockdb', 'proxypass', 'proxypassmatch']);
/** Characters a shell gives meaning to; a plain program with arguments has none. */
const SHELL_CHARS = /[;&|<>`$(){}*?~\[\]\\'"]/;

/** `CacheEnable TYPE /`: in 2.2 it also cached forward-proxy content; 2.4 needs the scheme for that. */
function cacheEnableRoot(d: DirectiveNode): boolean {
  return d.args.length >= 2 && d.args[1].value === '/';
}

export const changedBehaviorRule: Rule = {
  id: 'changed-behavior',
  defaultSeverity: 'information',
  summary: 'Accepted by 2.4 but working differently: piped logs without a shell, CRLs not checked without `SSLCARevocationCheck` (both with fixes), and things to review (`CacheIgnoreURLSessionIdentifiers`, `CacheEnable /` with a forward proxy, `LDAPTrustedClientCert`, `DavLockDB`, scgi PATH_INFO).',
  check({ doc }) {
    const out: Finding[] = [];
    let eolMemo: string | undefined;
    const eolText = (): string => (eolMemo ??= eolOf(doc.text));
    const forwardProxy = directivesNamed(doc, 'proxyrequests').some((d) => d.args[0]?.value.toLowerCase() === 'on');
    const hasRevocationCheck = hasDirective(doc, 'sslcarevocationcheck');
    let crlReported = false;
    // Only a log line with a `|` can name a piped log: the others get no node.
    const read = directivesWhereText(doc, (k) => LOG_DIRECTIVES.has(k) || BEHAVIOR_KEYS.has(k), hasPipeIfLog);
    for (let ix = 0; ix < read.length; ix++) {
      const d = read[ix];
      if (LOG_DIRECTIVES.has(d.key)) {
        if (!d.args[0]) continue;
        const target = d.args[0];
        const v = target.value;
        if (v.startsWith('|') && !v.startsWith('|$') && !v.startsWith('||') && SHELL_CHARS.test(v.slice(1))) {
          const bar = target.start + target.raw.indexOf('|');
          out.push({
            rule: 'changed-behavior',
            severity: 'warning',
            message: `httpd 2.4 runs a piped log program directly, not through \`/bin/sh -c\` as 2.2 did, and this command uses shell syntax. Write \`|$\` to have the shell run it as before.`,
            start: target.start,
            end: target.end,
            ...only22(d),
            data: { directive: d.name.value, kind: 'piped-log' },
            ...(!in22Branch(d) ? { fixes: [{ title: 'Run the command through the shell (|$), as 2.2 did', edits: [{ start: bar, end: bar + 1, newText: '|$' }], preferred: true }] } : {}),
          });
        }
      } else if ((d.key === 'sslcarevocationfile' || d.key === 'sslcarevocationpath') && !hasRevocationCheck && !crlReported) {
        crlReported = true;
        const eol = eolText();
        const indent = indentOf(doc.text, d.lineStart);
        out.push({
          rule: 'changed-behavior',
          severity: 'warning',
          message: `httpd 2.4 does not check certificates against ${code(d.name.value)} until \`SSLCARevocationCheck\` turns it on (2.2 checked the whole chain). Add \`SSLCARevocationCheck chain\` to keep revoked client certificates out.`,
          start: d.name.start,
          end: d.name.end,
          ...only22(d),
          data: { directive: d.name.value, kind: 'crl-check' },
          ...(!in22Branch(d) ? { fixes: [{ title: 'Add SSLCARevocationCheck chain (what 2.2 did)', edits: [{ start: d.lineEnd, end: d.lineEnd, newText: `${indent}SSLCARevocationCheck chain${eol}` }], preferred: true }] } : {}),
        });
        if (doc.text.slice(d.lineStart, d.lineEnd).endsWith('\n') === false) {
          // The directive is the file's last line without a line break: put one before the new line.
          const f = out[out.length - 1].fixes?.[0];
          if (f) f.edits[0].newText = eol + f.edits[0].newText.slice(0, -eol.length);
        }
      } else if (d.key === 'cacheignoreurlsessionidentifiers') {
        out.push(review(d, `${code('CacheIgnoreURLSessionIdentifiers')} matches each identifier exactly in httpd 2.4 against the query string (2.2 accepted a partial match): list the full names the application uses.`));
      } else if (d.key === 'cacheenable' && forwardProxy && cacheEnableRoot(d)) {
        out.push(review(d, `${code('CacheEnable ' + d.args[0].value + ' /')} no longer caches forward-proxy content in httpd 2.4 (2.2's \`/\` matched everything): add \`CacheEnable ${d.args[0].value} http://\` (and \`https://\`) for it.`));
      } else if (d.key === 'ldaptrustedclientcert' && scopeOf(d) === null) {
        out.push(review(d, `${code('LDAPTrustedClientCert')} is a per-directory setting in httpd 2.4: move it into the \`<Directory>\` or \`<Location>\` that authenticates against LDAP.`));
      } else if (d.key === 'davlockdb') {
        out.push(review(d, `The lock database of ${code('DavLockDB')} has a new format in httpd 2.4: delete the old file before the first start.`));
      } else if ((d.key === 'proxypass' || d.key === 'proxypassmatch') && d.args.some((a) => /^scgi:\/\//i.test(a.value))) {
        out.push(review(d, `httpd 2.4 no longer works out PATH_INFO for \`scgi://\` back ends; set the \`proxy-scgi-pathinfo\` variable (\`SetEnv proxy-scgi-pathinfo 1\`) if the application needs it.`));
      }
    }
    return out;
  },
};

/** Whether a line of changedBehaviorRule's directives may hold what it reports: a log line only with a `|`. */
function hasPipeIfLog(key: string, text: string, start: number, end: number): boolean {
  if (!LOG_DIRECTIVES.has(key)) return true;
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 124) return true;
  return false;
}

function review(d: DirectiveNode, message: string): Finding {
  return { rule: 'changed-behavior', message, start: d.name.start, end: d.name.end, ...only22(d), data: { directive: d.name.value, kind: 'review' } };
}

/** The directive that marks a main configuration (its ServerRoot), read by 2.4. */
function mainConfigMarker(doc: ConfigDocument): DirectiveNode | undefined {
  return directivesNamed(doc, 'serverroot').find((d) => !in22Branch(d));
}

export const changedDefaultRule: Rule = {
  id: 'changed-default',
  defaultSeverity: 'information',
  summary: 'A 2.2-era main configuration relying on a default 2.4 changed: `AllowOverride` (All → none allowed, and `.htaccess` files still read), `EnableSendfile` (On → Off), `FileETag` (INode MTime Size → MTime Size).',
  check({ doc, fileContext }) {
    if (fileContext !== 'server') return [];
    const marker = mainConfigMarker(doc);
    if (!marker) return [];
    // Only a configuration written for 2.2 relies on 2.2's defaults: one that still uses a
    // directive 2.4 removed, renamed, ignores or keeps only for compatibility.
    const from22 = doc.directiveKeys.some((key) => {
      const st = getDirective(key)?.status;
      return (st === 'removed' || st === 'renamed' || st === 'noop' || st === 'compat') && doc.directivesWithKey(key).some((d) => !in22Branch(d));
    });
    if (!from22) return [];
    const has = (key: string) => hasDirective(doc, key);
    const out: Finding[] = [];
    const at = { start: marker.name.start, end: marker.name.end };
    if (!has('allowoverride') && !has('allowoverridelist')) {
      out.push({
        rule: 'changed-default',
        severity: 'warning',
        ...at,
        message: 'This configuration never sets `AllowOverride`. 2.2 allowed everything in `.htaccess` files by default; 2.4 without the directive still reads them but allows nothing, so a directory with a `.htaccess` answers 500. Set `AllowOverride` where `.htaccess` files are used (`None` to ignore them), unless an included file does.',
        data: { setting: 'AllowOverride' },
      });
    }
    if (!has('enablesendfile')) {
      out.push({
        rule: 'changed-default',
        ...at,
        message: '`EnableSendfile` defaults to Off in httpd 2.4 (2.2: On). Files are still served, through a read and write instead of sendfile; set `EnableSendfile On` for 2.2\'s behaviour where the file system supports it.',
        data: { setting: 'EnableSendfile' },
      });
    }
    if (!has('fileetag')) {
      out.push({
        rule: 'changed-default',
        ...at,
        message: '`FileETag` defaults to `MTime Size` in httpd 2.4 (2.2 also used the inode), so every ETag changes once after the upgrade and caches fetch each file again.',
        data: { setting: 'FileETag' },
      });
    }
    return out;
  },
};
