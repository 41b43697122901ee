/**
 * "Who gets in" for a section tag: the hover on `<Directory …>`,
 * `<Location …>`, `<Files …>` (and their *Match forms) or `<VirtualHost …>`
 * adds a short table of the HTTP status a GET request that lands in that
 * section gets, for a few classes of clients: anyone, each address, network
 * or host name the configuration names, from this machine when `Require
 * local` is used; without credentials and with valid ones when
 * authentication is involved.
 *
 * The access engine does the work: the scopes that apply to the request are
 * merged as httpd merges them and the merged configuration is evaluated for
 * each client. The request lands in the hovered section and in no narrower
 * one; other sections join when they match it (a literal `<Directory>`
 * prefix of the hovered one, `<Location />`, …). Only this file is read.
 */
import type { ConfigDocument, SectionNode } from '../syntax';
import { wordTable } from '../syntax';
import type { FileContext } from '../model/context';
import {
  appliedScopes,
  buildModel,
  decidesAccess,
  dirApplies,
  evaluateApplied,
  filesApplies,
  formatClient,
  leaves,
  locationApplies,
  normPath,
  sampleOfGlob,
  parseSubnetToken,
  samplesOf,
  type AccessModel,
  type ClientAddr,
  type Client,
  type Credentials,
  type Scope,
} from '../access';

/** The sections that get a summary. */
const SUMMARY_KINDS = new Set(['directory', 'directorymatch', 'files', 'filesmatch', 'location', 'locationmatch', 'virtualhost']);

/** A documentation address (TEST-NET-3): a client no rule names. */
const ANYONE: ClientAddr = { family: 4, bytes: [203, 0, 113, 77] };
const MAX_ROWS = 8;

export interface ClientClass {
  label: string;
  addr: ClientAddr;
  hostName: string | null;
}

export interface CredentialColumn {
  label: string;
  credentials: Credentials;
  /** Group membership of that user. */
  groups: ReadonlySet<string>;
}

export interface AccessSummary {
  /** The request, in words ("GET /admin/…"). */
  request: string;
  columns: CredentialColumn[];
  rows: Array<{ client: ClientClass; statuses: Array<200 | 401 | 403 | 500 | null> }>;
}


const isDir = (s: Scope) => s.kind === 'directory' || s.kind === 'directorymatch';
const isFiles = (s: Scope) => s.kind === 'files' || s.kind === 'filesmatch';
const isLoc = (s: Scope) => s.kind === 'location' || s.kind === 'locationmatch';

/** A request that lands in `target`: the file name and URL path it implies (null: not known). */
function landing(target: Scope): { file: string | null; dirKnown: boolean; name: string | null; uri: string | null } {
  let dir: string | null = null;
  let name: string | null = null;
  let uri: string | null = null;
  for (let s: Scope | null = target; s; s = s.parent) {
    const literal = s.regex ? s.literal ?? null : s.pattern;
    if (isDir(s) && !s.regex && dir === null) dir = normPath(sampleOfGlob(s.pattern));
    if (isFiles(s) && literal !== null && name === null) name = sampleOfGlob(literal);
    if (isLoc(s) && literal !== null && uri === null) uri = sampleOfGlob(literal);
  }
  const base = name ?? 'zz-page.html';
  const file = dir !== null ? `${dir === '/' ? '' : dir}/${base}` : name !== null ? `/zz-somewhere/${name}` : null;
  return { file, dirKnown: dir !== null, name, uri };
}

/** The scopes that apply to the request landing in `target`, in merge order. */
function scopesFor(model: AccessModel, target: Scope) {
  const chain = new Set<Scope>();
  for (let s: Scope | null = target; s; s = s.parent) chain.add(s);
  const below = (s: Scope): boolean => {
    for (let p = s.parent; p; p = p.parent) if (p === target) return true;
    return false;
  };
  const land = landing(target);
  return appliedScopes(model, (s) => {
    if (chain.has(s)) return true;
    if (below(s)) return false;
    switch (s.kind) {
      case 'top':
        return true;
      case 'virtualhost':
        return false;
      case 'directory':
      case 'directorymatch':
        if (s.regex) return false;
        return land.file !== null && land.dirKnown ? dirApplies(s, land.file) : normPath(s.pattern) === '/';
      case 'files':
      case 'filesmatch':
        if (s.regex && s.literal === undefined) return false;
        return land.file !== null ? filesApplies(s, land.file) : false;
      case 'location':
      case 'locationmatch':
        if (s.regex && s.literal === undefined) return false;
        return land.uri !== null ? locationApplies(s, land.uri) : !s.regex && s.pattern === '/';
      default:
        // <If> branches and <Proxy> sections the request is not known to be in.
        return false;
    }
  });
}

/** Client classes for the rules of the scopes that apply. */
function clientClasses(scopes: Scope[]): ClientClass[] {
  const out: ClientClass[] = [{ label: 'anyone', addr: ANYONE, hostName: null }];
  const seen = new Set<string>();
  const addNet = (raw: string) => {
    if (seen.has('ip ' + raw)) return;
    seen.add('ip ' + raw);
    const r = parseSubnetToken(raw);
    if (!r.ok) return;
    const sample = samplesOf(r.subnet)[0];
    if (!sample) return;
    const text = formatClient(sample);
    out.push({ label: text === raw ? raw : `${raw} (${text})`, addr: sample, hostName: null });
  };
  const addHost = (name: string) => {
    const n = name.replace(/^\./, '').toLowerCase();
    if (!n || seen.has('host ' + n)) return;
    seen.add('host ' + n);
    const host = name.startsWith('.') ? `www.${n}` : n;
    out.push({ label: `host ${host}`, addr: ANYONE, hostName: host });
  };
  let local = false;
  for (const s of scopes) {
    for (const e of [...(s.compat?.allow ?? []), ...(s.compat?.deny ?? [])]) {
      if (e.token.kind === 'ip') addNet(e.token.raw);
      else if (e.token.kind === 'host') addHost(e.token.name);
    }
    for (const l of leaves(s.authz?.root ?? null)) {
      const words = l.args.map((a) => a.value);
      if (l.provider === 'ip') words.forEach(addNet);
      else if (l.provider === 'host') words.filter((w) => !/[%$]/.test(w)).forEach(addHost);
      else if (l.provider === 'local') local = true;
    }
  }
  if (local) out.push({ label: 'this machine (127.0.0.1)', addr: { family: 4, bytes: [127, 0, 0, 1] }, hostName: 'localhost' });
  return out.slice(0, MAX_ROWS);
}

/** Credential columns: without credentials always; valid ones when a rule or an AuthType asks for a user. */
function credentialColumns(scopes: Scope[]): CredentialColumn[] {
  const cols: CredentialColumn[] = [{ label: 'no credentials', credentials: { kind: 'none' }, groups: new Set() }];
  const users: string[] = [];
  const groups: string[] = [];
  let wantsUser = false;
  for (const s of scopes) {
    if (s.authn.authType) wantsUser = true;
    for (const l of leaves(s.authz?.root ?? null)) {
      const words = l.args.map((a) => a.value);
      if (l.provider === 'valid-user') wantsUser = true;
      if (l.provider === 'user') {
        wantsUser = true;
        users.push(...words);
      }
      if (l.provider === 'group' || l.provider === 'dbm-group') {
        wantsUser = true;
        groups.push(...words);
      }
    }
  }
  if (!wantsUser) return cols;
  cols.push({ label: 'valid user', credentials: { kind: 'valid', user: 'zz-someone' }, groups: new Set() });
  if (users.length) cols.push({ label: `user ${users[0]}`, credentials: { kind: 'valid', user: users[0] }, groups: new Set() });
  if (groups.length) cols.push({ label: `member of ${groups[0]}`, credentials: { kind: 'valid', user: 'zz-member' }, groups: new Set([groups[0]]) });
  return cols;
}

/** The summary for a section, or null when it is not an access section or the file has no access rules at all. */
export function accessSummary(doc: ConfigDocument, section: SectionNode, context: FileContext): AccessSummary | null {
  if (!SUMMARY_KINDS.has(section.key)) return null;
  const model = buildModel(doc, context);
  const target = model.scopeOfSection.get(section);
  if (!target) return null;
  if (!model.scopes.some(decidesAccess)) return null;
  const applied = scopesFor(model, target);
  const scopes = applied.map((a) => a.scope);
  const columns = credentialColumns(scopes);
  const rows = clientClasses(scopes).map((client) => ({
    client,
    statuses: columns.map((col) => {
      const c: Client = {
        method: 'GET',
        addr: client.addr,
        hostName: client.hostName,
        env: new Set(),
        credentials: col.credentials,
        inGroup: (_u, g) => col.groups.has(g),
      };
      return evaluateApplied(applied, c).status;
    }),
  }));
  const land = landing(target);
  const where: string[] = [];
  if (land.uri !== null) where.push(`GET ${land.uri}`);
  if (land.file !== null) where.push(`file ${land.file}`);
  if (target.kind === 'virtualhost') where.push(`a request for this virtual host`);
  if (!where.length) where.push('a request that lands in this section');
  return { request: where.join(', '), columns, rows };
}

const STATUS_TEXT: Readonly<Record<string, string | undefined>> = wordTable({
  '200': '200 in',
  '401': '401 login',
  '403': '403 refused',
  '500': '500 error',
  null: 'depends',
});

export function accessSummaryMarkdown(summary: AccessSummary): string {
  const lines: string[] = [];
  lines.push(`**Who gets in** — ${summary.request} (this file only, httpd 2.4 with mod_access_compat)`);
  lines.push('');
  lines.push(`| client | ${summary.columns.map((c) => c.label).join(' | ')} |`);
  lines.push(`|---|${summary.columns.map(() => '---').join('|')}|`);
  for (const r of summary.rows) lines.push(`| ${r.client.label} | ${r.statuses.map((s) => STATUS_TEXT[String(s)]).join(' | ')} |`);
  lines.push('');
  if (summary.rows.some((r) => r.statuses.includes(null))) lines.push('`depends`: on a condition or a provider the editor cannot evaluate.');
  lines.push('**Apache: Explain access** follows one request step by step, across the included files.');
  return lines.join('\n');
}

/** The markdown to add to a section tag's hover, or null. */
export function accessHoverMarkdown(doc: ConfigDocument, section: SectionNode, context: FileContext): string | null {
  try {
    const s = accessSummary(doc, section, context);
    return s ? accessSummaryMarkdown(s) : null;
  } catch {
    // A hover must never fail because of the summary.
    return null;
  }
}
