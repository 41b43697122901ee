/**
 * Abstract requests for the migration check: every combination that matters of
 * "where" (vhost, directory, file name, URL path, <If> branches) and "who"
 * (method, address, host name, environment, credentials, the value of each
 * Require line the model cannot decide).
 *
 * "Where" is built per dimension from the sections' own patterns: for a
 * literal <Directory /a/b> a path under it, for a regex section a free yes/no,
 * and one point outside everything. Directory and URL dimensions are
 * independent (their mapping depends on DocumentRoot/Alias), which can only
 * add combinations httpd never sees: the check stays on the safe side.
 */
import { formatClient, parseSubnetToken, samplesOf, type ClientAddr } from './addr';
import { leaves, normMethod, type AccessModel, type AuthzLeaf, type Scope } from './model';
import { leafKey, type AuthzResult, type Client, type Credentials } from './evaluate';
import { globToRegExp, normPath } from './region';
import { OTHER_METHOD } from './translate';

export interface Point {
  /** Does scope #index (own condition only) apply? */
  test: (s: Scope) => boolean;
  /** A readable description for reasons ("GET /x from …"). */
  label: string;
}

function sampleOfGlob(p: string): string {
  return p.replace(/\[!?([^\]])[^\]]*\]/g, '$1').replace(/\*/g, 'zz').replace(/\?/g, 'z');
}

function fnmatchPath(pattern: string, s: string): boolean {
  const re = globToRegExp(pattern).source.replace(/\.\*/g, '[^/]*').replace(/(^|[^\\])\.(?!\*)/g, '$1[^/]');
  return new RegExp(re).test(s);
}

function dirMatchesPath(s: Scope, dir: string): boolean {
  const pat = normPath(s.pattern);
  if (pat === '/') return true;
  const parts = normPath(dir).split('/');
  const want = pat.split('/').length;
  if (parts.length < want) return false;
  const prefix = parts.slice(0, want).join('/');
  return /[*?[]/.test(pat) ? fnmatchPath(pat, prefix) : prefix === pat;
}

function locMatches(s: Scope, uri: string): boolean {
  const p = s.pattern;
  if (/[*?[]/.test(p)) return fnmatchPath(p, uri);
  if (!uri.startsWith(p)) return false;
  return p.endsWith('/') || uri.length === p.length || uri[p.length] === '/';
}

function filesMatches(s: Scope, name: string): boolean {
  return /[*?[]/.test(s.pattern) ? fnmatchPath(s.pattern, name) : s.pattern === name;
}

const isDir = (s: Scope) => s.kind === 'directory' || s.kind === 'directorymatch' || s.kind === 'proxy' || s.kind === 'proxymatch';
const isFiles = (s: Scope) => s.kind === 'files' || s.kind === 'filesmatch';
const isLoc = (s: Scope) => s.kind === 'location' || s.kind === 'locationmatch';
const isIf = (s: Scope) => s.kind === 'if' || s.kind === 'elseif' || s.kind === 'else';

/** The scopes of `group` and all their ancestors. */
function withAncestors(group: Scope[]): Scope[] {
  const set = new Set<Scope>();
  for (const g of group) for (let p: Scope | null = g; p; p = p.parent) set.add(p);
  return [...set].sort((a, b) => a.index - b.index);
}

/** If/ElseIf/Else chains among the scopes (each a list of branch scopes). */
function ifChains(scopes: Scope[], model: AccessModel): Scope[][] {
  const chains: Scope[][] = [];
  const seen = new Set<Scope>();
  for (const s of scopes) {
    if (!isIf(s) || seen.has(s)) continue;
    // Find the chain head and the following ElseIf/Else siblings.
    const sec = s.section!;
    const kids = (sec.parent ? sec.parent.children : model.doc.children).filter((c) => c.type === 'section');
    let i = kids.indexOf(sec);
    while (i > 0 && sec.key !== 'if' && (kids[i] as typeof sec).key !== 'if') i--;
    const chain: Scope[] = [];
    for (let k = i; k < kids.length; k++) {
      const ks = kids[k] as typeof sec;
      if (k > i && ks.key === 'if') break;
      if (k > i && ks.key !== 'elseif' && ks.key !== 'else') break;
      const sc = model.scopeOfSection.get(ks);
      if (sc) {
        chain.push(sc);
        seen.add(sc);
      }
    }
    if (!chain.length) {
      chain.push(s);
      seen.add(s);
    }
    chains.push(chain);
  }
  return chains;
}

export interface PointSet {
  points: Point[];
  /** True when the set had to be cut short (too many combinations). */
  truncated: boolean;
}

/** The request locations that matter for a group of scopes. */
export function pointsFor(model: AccessModel, group: Scope[], limit = 4096): PointSet {
  const scopes = withAncestors(group);
  const vhosts = scopes.filter((s) => s.kind === 'virtualhost');
  const vhostOptions: Array<Scope | null> = [null, ...vhosts];
  const dirLevel = model.context === 'htaccess' || model.context === 'directory';

  const litDirs = scopes.filter((s) => isDir(s) && !s.regex && s.kind !== 'proxy');
  const dirPaths = new Set<string>();
  for (const d of litDirs) {
    const p = normPath(/[*?[]/.test(d.pattern) ? sampleOfGlob(d.pattern) : d.pattern);
    dirPaths.add(p === '/' ? '/zz' : p + '/zz');
  }
  dirPaths.add('/zz-elsewhere/zz');
  const files = scopes.filter((s) => isFiles(s) && !s.regex);
  const names = new Set<string>(['zz-other.html']);
  for (const f of files) names.add(/[*?[]/.test(f.pattern) ? sampleOfGlob(f.pattern) : f.pattern);
  const locs = scopes.filter((s) => isLoc(s) && !s.regex);
  const uris = new Set<string>(['/zz-elsewhere']);
  for (const l of locs) {
    const p = /[*?[]/.test(l.pattern) ? sampleOfGlob(l.pattern) : l.pattern;
    uris.add(p);
    uris.add(p.endsWith('/') ? p + 'zz' : p + '/zz');
  }
  const free = scopes.filter((s) => s.regex || s.kind === 'proxy');
  const chains = ifChains(scopes.filter(isIf), model);

  let total = vhostOptions.length * dirPaths.size * names.size * uris.size * 2 ** free.length;
  for (const c of chains) total *= c.length + (c[c.length - 1].kind === 'else' ? 0 : 1);
  const points: Point[] = [];
  if (total > limit) return { points, truncated: true };

  for (const vh of vhostOptions) {
    for (const dir of dirPaths) {
      for (const name of names) {
        for (const uri of uris) {
          for (let bits = 0; bits < 2 ** free.length; bits++) {
            const chainChoices: number[][] = [[]];
            for (const c of chains) {
              const n = c.length + (c[c.length - 1].kind === 'else' ? 0 : 1);
              const next: number[][] = [];
              for (const prev of chainChoices) for (let k = 0; k < n; k++) next.push([...prev, k]);
              chainChoices.splice(0, chainChoices.length, ...next);
            }
            for (const choice of chainChoices) {
              const freeOn = new Set(free.filter((_, i) => (bits >> i) & 1).map((s) => s.index));
              const ifOn = new Set<number>();
              chains.forEach((c, i) => {
                if (choice[i] < c.length) ifOn.add(c[choice[i]].index);
              });
              const test = (s: Scope): boolean => {
                switch (s.kind) {
                  case 'top':
                    return true;
                  case 'virtualhost':
                    return vh !== null && s.index === vh.index;
                  default:
                }
                if (s.regex || s.kind === 'proxy') return freeOn.has(s.index);
                if (isDir(s)) return dirMatchesPath(s, dir);
                if (isFiles(s)) return filesMatches(s, name);
                if (isLoc(s)) return locMatches(s, uri);
                if (isIf(s)) return ifOn.has(s.index);
                return false;
              };
              const parts = [`${uri}`, `file ${dir}/${name}`];
              if (vh) parts.push(`vhost #${vh.index}`);
              if (free.length) parts.push(`regex sections ${[...freeOn].join(',') || 'none'}`);
              if (chains.length) parts.push(`<If> branches ${[...ifOn].join(',') || 'none'}`);
              points.push({ test, label: parts.join(', ') });
            }
          }
        }
      }
    }
  }
  return { points, truncated: false };
}

// ---------------------------------------------------------------------------------------------
// Clients

export interface ClientSet {
  clients: Client[];
  truncated: boolean;
  /** Undecidable leaves by key (the check tries every assignment). */
  unknownKeys: string[];
}

const KNOWN = new Set(['all', 'env', 'method', 'ip', 'host', 'local', 'valid-user', 'user', 'group']);

function describeClient(c: Client): string {
  const who = c.credentials.kind === 'none' ? 'without credentials' : c.credentials.kind === 'wrong' ? 'with a wrong password' : `as user ${c.credentials.user}`;
  const m = c.method === OTHER_METHOD ? 'another method' : c.method;
  const env = c.env.size ? `, with ${[...c.env].join(', ')} set` : '';
  const host = c.hostName ? ` (${c.hostName})` : '';
  return `${m} from ${formatClient(c.addr)}${host} ${who}${env}`;
}

export { describeClient };

/** Every client class that matters for the scopes of the models given. */
export function clientsFor(models: AccessModel[], scopes: Array<Scope[]>, limit = 20000): ClientSet {
  const ipTokens = new Set<string>();
  const hostTokens = new Set<string>();
  const envNames = new Set<string>();
  const users = new Set<string>();
  const groups = new Set<string>();
  const methods = new Set<string>(['GET', 'POST']);
  const unknown = new Set<string>();
  let local = false;
  const leafList: AuthzLeaf[] = [];
  for (const list of scopes) {
    for (const s of list) {
      for (const e of [...(s.compat?.allow ?? []), ...(s.compat?.deny ?? [])]) {
        const t = e.token;
        if (t.kind === 'ip') ipTokens.add(t.raw);
        else if (t.kind === 'host') hostTokens.add(t.name.replace(/^\./, '').toLowerCase());
        else if (t.kind === 'env' || t.kind === 'nenv') envNames.add(t.name.toLowerCase());
        for (const m of e.mask.methods) methods.add(m);
      }
      for (const o of [...(s.compat?.orders ?? []), ...(s.compat?.satisfies ?? [])]) for (const m of o.mask.methods) methods.add(m);
      if (s.authz?.root) leafList.push(...leaves(s.authz.root));
    }
  }
  for (const l of leafList) {
    for (const m of l.mask.methods) methods.add(m);
    const words = l.args.map((a) => a.value);
    switch (l.provider) {
      case 'ip':
        words.forEach((w) => ipTokens.add(w));
        break;
      case 'host':
        words.forEach((w) => hostTokens.add(w.replace(/^\./, '').toLowerCase()));
        break;
      case 'env':
        words.forEach((w) => envNames.add(w.toLowerCase()));
        break;
      case 'method':
        words.forEach((w) => methods.add(normMethod(w)));
        break;
      case 'local':
        local = true;
        break;
      case 'user':
        words.forEach((w) => users.add(w));
        break;
      case 'group':
        words.forEach((w) => groups.add(w));
        break;
      default:
    }
    if (!KNOWN.has(l.provider) || (l.provider === 'host' && words.some((w) => /%\{|\$/.test(w)))) unknown.add(leafKey(l));
  }
  void models;
  // Addresses: samples inside every network named, and outside all of them.
  const addrs: ClientAddr[] = [];
  const addAddr = (a: ClientAddr) => {
    if (!addrs.some((x) => x.family === a.family && x.bytes.every((b, i) => b === a.bytes[i]))) addrs.push(a);
  };
  let v6 = false;
  for (const t of ipTokens) {
    const r = parseSubnetToken(t);
    if (!r.ok) continue;
    if (r.subnet.family === 6) v6 = true;
    samplesOf(r.subnet).forEach(addAddr);
  }
  addAddr({ family: 4, bytes: [203, 0, 113, 77] });
  if (local) {
    addAddr({ family: 4, bytes: [127, 0, 0, 1] });
    addAddr({ family: 4, bytes: [127, 9, 9, 9] });
  }
  if (v6 || local) addAddr({ family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x77] });
  // Host names: none, each name, a sub-name of each, an unrelated one.
  const hostNames: Array<string | null> = [null];
  if (hostTokens.size) {
    for (const h of hostTokens) {
      hostNames.push(h);
      hostNames.push('zz.' + h);
    }
    hostNames.push('zz-unrelated.invalid');
  }
  // Environment: every subset (or singles and all when there are many).
  const envList = [...envNames];
  const envSets: Array<Set<string>> = [];
  if (envList.length <= 4) {
    for (let b = 0; b < 2 ** envList.length; b++) envSets.push(new Set(envList.filter((_, i) => (b >> i) & 1)));
  } else {
    envSets.push(new Set());
    envSets.push(new Set(envList));
    for (const e of envList) {
      envSets.push(new Set([e]));
      envSets.push(new Set(envList.filter((x) => x !== e)));
    }
  }
  // Credentials and groups: a user per named user, one per named group, one in nothing.
  const membership = new Map<string, Set<string>>();
  const creds: Credentials[] = [{ kind: 'none' }, { kind: 'wrong' }];
  for (const u of users) {
    creds.push({ kind: 'valid', user: u });
    membership.set(u, new Set());
  }
  for (const g of groups) {
    const u = `zz-member-of-${g}`;
    creds.push({ kind: 'valid', user: u });
    membership.set(u, new Set([g]));
  }
  creds.push({ kind: 'valid', user: 'zz-someone' });
  membership.set('zz-someone', new Set());
  const methodList = [...methods, OTHER_METHOD];
  const unknownKeys = [...unknown];
  const assignments: Array<Map<string, AuthzResult>> = [];
  if (unknownKeys.length <= 4) {
    for (let b = 0; b < 2 ** unknownKeys.length; b++) {
      assignments.push(new Map(unknownKeys.map((k, i) => [k, (b >> i) & 1 ? 'granted' : 'denied'] as [string, AuthzResult])));
    }
  }
  const total = methodList.length * addrs.length * hostNames.length * envSets.length * creds.length * Math.max(1, assignments.length);
  if (total > limit || (unknownKeys.length && !assignments.length)) return { clients: [], truncated: true, unknownKeys };
  const clients: Client[] = [];
  const inGroup = (u: string, g: string) => membership.get(u)?.has(g) ?? false;
  for (const method of methodList) {
    for (const addr of addrs) {
      for (const hostName of hostNames) {
        for (const env of envSets) {
          for (const credentials of creds) {
            for (const asg of assignments.length ? assignments : [new Map<string, AuthzResult>()]) {
              clients.push({ method, addr, hostName, env, credentials, inGroup, decide: (k) => asg.get(k) });
            }
          }
        }
      }
    }
  }
  return { clients, truncated: false, unknownKeys };
}
