/**
 * `apacheconf explain FILE --url PATH …`: the status httpd answers one
 * request with, and the lines that decided it, in order.
 *
 * A server-context FILE is read with everything its Include lines pull in;
 * `.htaccess` files under `--docroot` are read where AllowOverride lets them
 * in; `--auth valid` takes the first user of the password file the
 * configuration names, and group membership comes from its group files.
 */
import * as nodePath from 'node:path';
import { parse, trimEndChars } from '../syntax';
import { FILE_CONTEXTS, defaultContextFor, type FileContext } from '../model/context';
import { loadConfigGraph } from '../model/workspace';
import { diskHost, diskReader } from '../model/disk';
import { flattenGraph, type CredentialsState, type ExplainQuery, type FlatConfig } from '../features/explain';
import { documentRootOf, explainOnDisk, flatOfDocument } from '../features/explain-disk';

export interface ExplainIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

/** A mistake in the arguments (exit code 2). */
export class ExplainUsageError extends Error {}

export const EXPLAIN_HELP = `explain options (apacheconf explain FILE --url PATH [options]):
  --url PATH                 the request's URL path (required)
  --from IP                  the client's address (default 127.0.0.1)
  --client-host NAME         the client's verified reverse-DNS name
  --auth none|valid|wrong|USER
                             credentials: none (default), a valid password,
                             a wrong one; USER = valid, as that user
  --user NAME                the user for --auth valid (default: the first
                             user of the password file the config names)
  --method M                 HTTP method (default GET)
  --header NAME:VALUE        a request header (repeatable); Host picks the
                             <VirtualHost>
  --env NAME[=VALUE]         a variable already set before the access phase
                             (repeatable)
  --define NAME, -D NAME     a name httpd is started with (repeatable); once
                             one is given, every <IfDefine> is settled
  --docroot DIR              the document root on disk the URL maps onto;
                             .htaccess files under it are read where
                             AllowOverride lets them in (default: the
                             answering host's DocumentRoot, where it exists
                             on this machine)
  --context CONTEXT          server | vhost | directory | htaccess
  --format text|json         output (default text); lines are 1-based
`;

interface ExplainOptions {
  file: string;
  url: string;
  from?: string;
  clientHost?: string;
  auth: CredentialsState;
  user?: string;
  method?: string;
  headers: Record<string, string>;
  env: Record<string, string>;
  defines?: string[];
  docroot?: string;
  context?: FileContext;
  format: 'text' | 'json';
}

export function parseExplainArgs(args: readonly string[]): ExplainOptions {
  const paths: string[] = [];
  const o: ExplainOptions = { file: '', url: '', auth: 'none', headers: {}, env: {}, format: 'text' };
  let authUser: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      paths.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('--') && a !== '-D') {
      paths.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      if (eq > 0) return a.slice(eq + 1);
      if (i + 1 >= args.length) throw new ExplainUsageError(`${name} needs a value`);
      return args[++i];
    };
    switch (name) {
      case '--url':
        o.url = value();
        break;
      case '--from':
        o.from = value();
        break;
      case '--client-host':
        o.clientHost = value();
        break;
      case '--auth': {
        const v = value();
        if (v === 'none' || v === 'valid' || v === 'wrong') o.auth = v;
        else if (v) {
          o.auth = 'valid';
          authUser = v;
        } else throw new ExplainUsageError('--auth needs none, valid, wrong or a user name');
        break;
      }
      case '--user':
        o.user = value();
        break;
      case '--method':
        o.method = value().toUpperCase();
        break;
      case '--header': {
        const v = value();
        const c = v.indexOf(':');
        if (c <= 0) throw new ExplainUsageError(`--header expects NAME:VALUE, got ${JSON.stringify(v)}`);
        o.headers[v.slice(0, c).trim()] = v.slice(c + 1).trim();
        break;
      }
      case '--env': {
        const v = value();
        const e = v.indexOf('=');
        if (e === 0 || !v) throw new ExplainUsageError(`--env expects NAME or NAME=VALUE, got ${JSON.stringify(v)}`);
        if (e > 0) o.env[v.slice(0, e)] = v.slice(e + 1);
        else o.env[v] = '1';
        break;
      }
      case '--define':
      case '-D': {
        const v = value();
        if (!v || /\s/.test(v)) throw new ExplainUsageError(`--define expects a NAME, got ${JSON.stringify(v)}`);
        (o.defines ??= []).push(v);
        break;
      }
      case '--docroot':
        o.docroot = value();
        break;
      case '--context': {
        const v = value();
        if (!(FILE_CONTEXTS as readonly string[]).includes(v)) throw new ExplainUsageError(`--context must be one of ${FILE_CONTEXTS.join(', ')}`);
        o.context = v as FileContext;
        break;
      }
      case '--format': {
        const v = value();
        if (v !== 'text' && v !== 'json') throw new ExplainUsageError('--format must be text or json');
        o.format = v;
        break;
      }
      default:
        throw new ExplainUsageError(`unknown option ${name} for explain`);
    }
  }
  if (authUser) o.user = authUser;
  if (paths.length !== 1) throw new ExplainUsageError('explain takes exactly one configuration file');
  if (!o.url) throw new ExplainUsageError('explain needs --url PATH');
  o.file = paths[0];
  return o;
}

function unquote(s: string): string {
  return s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0] ? s.slice(1, -1) : s;
}

/** Paths named by a directive (AuthUserFile, AuthGroupFile) in these texts, resolved against ServerRoot. */
function namedFiles(texts: string[], key: string, serverRoot: string): string[] {
  const out: string[] = [];
  for (const t of texts) {
    for (const node of parse(t).lines) {
      if (node.type !== 'directive' || node.key !== key) continue;
      const arg = node.args[key === 'authgroupfile' || key === 'authuserfile' ? 0 : 0];
      if (!arg) continue;
      const p = unquote(arg.value);
      out.push(nodePath.isAbsolute(p) ? p : nodePath.join(serverRoot, p));
    }
  }
  return [...new Set(out)];
}

/** The users of htpasswd-style files ("user:hash" lines), in order. */
function usersOf(files: string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const line of (diskHost.readFile(f) ?? '').split(/\r?\n/)) {
      const c = line.indexOf(':');
      if (c > 0 && !line.startsWith('#')) out.push(line.slice(0, c).trim());
    }
  }
  return out;
}

/** group → members from AuthGroupFile files ("group: user user" lines). */
function groupsOf(files: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    for (const line of (diskHost.readFile(f) ?? '').split(/\r?\n/)) {
      const c = line.indexOf(':');
      if (c <= 0 || line.trimStart().startsWith('#')) continue;
      const g = line.slice(0, c).trim();
      out.set(g, [...(out.get(g) ?? []), ...line.slice(c + 1).split(/\s+/).filter(Boolean)]);
    }
  }
  return out;
}

/** The .htaccess texts on the way to the file (for the names of password and group files only). */
function htaccessTexts(docroot: string, url: string): string[] {
  const out: string[] = [];
  let dir = '/';
  const parts = (trimEndChars(docroot, '/') + '/' + url.split('?')[0]).split('/').filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const t = diskHost.readFile(nodePath.join(dir, '.htaccess'));
    if (t !== undefined) out.push(t);
    if (i < parts.length) dir = nodePath.join(dir, parts[i]);
  }
  return out;
}

export function runExplain(args: readonly string[], io: ExplainIO, cwd: string): number {
  const o = parseExplainArgs(args);
  const abs = nodePath.resolve(cwd, o.file);
  const text = diskHost.readFile(abs);
  if (text === undefined) {
    io.stderr.write(`apacheconf: cannot read ${o.file}\n`);
    return 2;
  }
  const context = o.context ?? defaultContextFor(abs);
  let flat: FlatConfig;
  let serverRoot = nodePath.dirname(abs);
  if (context === 'server') {
    const graph = loadConfigGraph(diskHost, abs);
    flat = flattenGraph(graph);
    serverRoot = graph.serverRoot;
    if (graph.truncated) flat.truncated = true;
  } else {
    flat = flatOfDocument(parse(text), abs);
  }

  // Without --docroot, the DocumentRoot of the host that answers, where it exists on this machine
  // (as the editor's explain does): its .htaccess files and what the disk holds count, as in httpd.
  const hostHeader = Object.entries(o.headers ?? {}).find(([k]) => k.toLowerCase() === 'host')?.[1];
  const configured = !o.docroot && context !== 'htaccess' ? documentRootOf(flat.doc, hostHeader) : undefined;
  const docroot = o.docroot ? nodePath.resolve(cwd, o.docroot) : configured && nodePath.isAbsolute(configured) && diskReader.isDirectory(configured) ? configured : undefined;
  const texts = [flat.doc.text, ...(docroot ? htaccessTexts(docroot, o.url) : [])];
  const users = usersOf(namedFiles(texts, 'authuserfile', serverRoot));
  const groups = groupsOf(namedFiles(texts, 'authgroupfile', serverRoot));
  const user = o.auth === 'valid' ? o.user ?? users[0] ?? 'someone' : undefined;
  const memberOf = user ? [...groups].filter(([, members]) => members.includes(user)).map(([g]) => g) : [];

  const query: ExplainQuery = {
    path: o.url,
    ip: o.from,
    credentials: o.auth,
    user,
    groups: memberOf,
    method: o.method,
    hostName: o.clientHost,
    headers: o.headers,
    env: o.env,
    documentRoot: docroot,
    ...(o.defines ? { defines: o.defines } : {}),
  };
  let result;
  try {
    result = explainOnDisk({ flat, context, query, reader: docroot ? diskReader : undefined });
  } catch (e) {
    throw new ExplainUsageError((e as Error).message);
  }
  const rel = (p: string) => {
    const r = nodePath.relative(cwd, p);
    return r && !r.startsWith('..') && !nodePath.isAbsolute(r) ? r : p;
  };
  const steps = result.steps.map((s) => ({ file: rel(s.file), line: s.line + 1, directive: s.directive, effect: s.effect }));
  const request = {
    method: o.method ?? 'GET',
    url: o.url,
    from: o.from ?? '127.0.0.1',
    ...(o.clientHost ? { clientHost: o.clientHost } : {}),
    credentials: o.auth,
    ...(user ? { user } : {}),
    ...(memberOf.length ? { groups: memberOf } : {}),
    ...(Object.keys(o.headers).length ? { headers: o.headers } : {}),
    ...(Object.keys(o.env).length ? { env: o.env } : {}),
    ...(o.defines ? { defines: o.defines } : {}),
  };
  if (o.format === 'json') {
    io.stdout.write(
      JSON.stringify(
        {
          status: result.status,
          decision: result.decision,
          steps,
          request,
          htaccess: result.htaccess.map(rel),
          ...(result.note ? { note: result.note } : {}),
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  }
  const who = `${request.method} ${o.url} from ${request.from}${o.clientHost ? ` (${o.clientHost})` : ''}, ${
    o.auth === 'none' ? 'no credentials' : o.auth === 'wrong' ? 'wrong credentials' : `valid credentials as ${user}`
  }`;
  const outcome = result.status === null ? 'unknown' : `${result.status} ${result.decision}`;
  const lines = [`${who}`, `  → ${outcome}`];
  if (steps.length) {
    lines.push('', 'Decided by:');
    for (const s of steps) lines.push(`  ${s.file}:${s.line}  ${s.directive}${s.effect ? `  ${s.effect}` : ''}`);
  }
  if (result.htaccess.length) lines.push('', `Read: ${result.htaccess.map(rel).join(', ')}`);
  if (result.note) lines.push('', `Note: ${result.note}`);
  io.stdout.write(lines.join('\n') + '\n');
  return 0;
}
