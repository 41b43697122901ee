/**
 * The address grammar httpd uses for `Allow from`/`Deny from` and `Require ip`
 * (APR's apr_ipsubnet_create and apr_ipsubnet_test, spec §2.2), and the
 * classification of one Allow/Deny token (mod_access_compat's allow_cmd).
 *
 * Everything here is pure: no DNS, no sockets.
 */
import { detached } from '../syntax';

/** A parsed network: family, the masked address and the mask, as byte arrays (4 or 16 bytes). */
export interface Subnet {
  family: 4 | 6;
  addr: number[];
  mask: number[];
  /** Prefix length when the mask is contiguous, else -1 (a dotted mask such as 255.0.255.0). */
  bits: number;
}

/** A client address as httpd sees it (r->useragent_addr). */
export interface ClientAddr {
  family: 4 | 6;
  bytes: number[];
}

export type SubnetError = 'not-ip' | 'bad-ip' | 'bad-mask';

export type SubnetResult = { ok: true; subnet: Subnet } | { ok: false; error: SubnetError };

/** APR's messages for its two failure codes (what httpd prints with %pm). */
export const APR_BAD_IP = 'The specified IP address is invalid.';
export const APR_BAD_MASK = 'The specified network mask is invalid.';

const isDigit = (c: string) => c >= '0' && c <= '9';

/** looks_like_ip: only digits and dots, or any ':' (taken as IPv6). */
export function looksLikeIp(s: string): boolean {
  if (s.length === 0) return false;
  if (s.includes(':')) return true;
  for (const c of s) if (c !== '.' && !isDigit(c)) return false;
  return true;
}

/** inet_pton for IPv4: exactly four decimal parts 0–255. */
export function parseIpv4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (p.length === 0 || p.length > 3) return null;
    for (const c of p) if (!isDigit(c)) return null;
    const v = Number(p);
    if (v > 255) return null;
    out.push(v);
  }
  return out;
}

/** inet_pton for IPv6 (with an optional dotted IPv4 tail). Returns 16 bytes or null. */
export function parseIpv6(s: string): number[] | null {
  if (s.length === 0 || s.length > 45 || !s.includes(':')) return null;
  let text = s;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    // "::1.2.3.4" keeps its "::"; "a:b::c:1.2.3.4" loses the dotted part only.
    text = s.slice(0, lastColon + 1);
    if (text.endsWith('::')) {
      // fine: the double colon stays
    } else if (text.endsWith(':')) text = text.slice(0, -1);
  }
  const want = tail.length ? 6 : 8;
  const groups = (g: string): number[] | null => {
    if (g === '') return [];
    const out: number[] = [];
    for (const h of g.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(h)) return null;
      out.push(parseInt(h, 16));
    }
    return out;
  };
  let all: number[];
  const dbl = text.indexOf('::');
  if (dbl >= 0) {
    if (text.indexOf('::', dbl + 1) >= 0) return null;
    const left = groups(text.slice(0, dbl));
    const right = groups(text.slice(dbl + 2));
    if (!left || !right) return null;
    const fill = want - left.length - right.length;
    if (fill < 1) return null;
    all = [...left, ...new Array<number>(fill).fill(0), ...right];
  } else {
    const g = groups(text);
    if (!g || g.length !== want) return null;
    all = g;
  }
  const bytes: number[] = [];
  for (const g of all) bytes.push(g >> 8, g & 255);
  return [...bytes, ...tail];
}

function isV4Mapped(b: number[]): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 255 && b[11] === 255;
}

/** parse_network: the legacy partial forms `10`, `10.1`, `10.1.2`, `10.1.` (at most four parts). */
function parseNetwork(s: string): { addr: number[]; mask: number[] } | null {
  if (s.length >= 16) return null;
  const addr = [0, 0, 0, 0];
  const mask = [0, 0, 0, 0];
  let i = 0;
  let octet = 0;
  while (i < s.length) {
    if (!isDigit(s[i])) return null;
    let j = i;
    while (j < s.length && isDigit(s[j])) j++;
    if (j < s.length && s[j] !== '.') return null;
    if (octet > 3) return null;
    const v = Number(s.slice(i, j));
    if (v > 255) return null;
    addr[octet] = v;
    mask[octet] = 255;
    octet++;
    i = j < s.length ? j + 1 : j;
  }
  return { addr, mask };
}

function maskFromBits(bits: number, len: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < len; i++) {
    const b = Math.max(0, Math.min(8, bits - i * 8));
    out.push(b === 0 ? 0 : (0xff << (8 - b)) & 0xff);
  }
  return out;
}

function bitsOfMask(mask: number[]): number {
  let bits = 0;
  let ended = false;
  for (const m of mask) {
    for (let k = 7; k >= 0; k--) {
      const on = (m >> k) & 1;
      if (on && ended) return -1;
      if (on) bits++;
      else ended = true;
    }
  }
  return bits;
}

/** strtol(…, 10) followed by "*endptr == '\0'": a whole decimal number, or null. */
function wholeDecimal(s: string): number | null {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)$/.exec(s);
  return m ? Number(m[1]) : null;
}

/**
 * apr_ipsubnet_create(addr, mask): `mask` is the text after the first '/', or
 * undefined when the token has none.
 */
export function createSubnet(addr: string, mask?: string): SubnetResult {
  if (!looksLikeIp(addr)) return { ok: false, error: 'not-ip' };
  let family: 4 | 6;
  let bytes: number[];
  let m: number[];
  const v6 = parseIpv6(addr);
  if (v6) {
    if (isV4Mapped(v6)) return { ok: false, error: 'bad-ip' };
    family = 6;
    bytes = v6;
    m = maskFromBits(128, 16);
  } else {
    const v4 = parseIpv4(addr);
    if (v4) {
      family = 4;
      bytes = v4;
      m = maskFromBits(32, 4);
    } else {
      if (mask !== undefined) return { ok: false, error: 'bad-ip' };
      const net = parseNetwork(addr);
      if (!net) return { ok: false, error: 'bad-ip' };
      family = 4;
      bytes = net.addr;
      m = net.mask;
    }
  }
  if (mask !== undefined) {
    const max = family === 6 ? 128 : 32;
    const bits = wholeDecimal(mask);
    if (bits !== null && bits > 0 && bits <= max) m = maskFromBits(bits, family === 6 ? 16 : 4);
    else if (family === 4) {
      const dotted = parseIpv4(mask);
      if (!dotted) return { ok: false, error: 'bad-mask' };
      m = dotted;
    } else return { ok: false, error: 'bad-mask' };
  }
  const masked = bytes.map((b, i) => b & m[i]);
  return { ok: true, subnet: { family, addr: masked, mask: m, bits: bitsOfMask(m) } };
}

/** Parse a whole token the way allow_cmd and Require ip do: split at the first '/'. */
export function parseSubnetToken(token: string): SubnetResult {
  const slash = token.indexOf('/');
  if (slash >= 0) return createSubnet(token.slice(0, slash), token.slice(slash + 1));
  return createSubnet(token);
}

/** apr_ipsubnet_test: an IPv4 subnet also matches an IPv4-mapped IPv6 client. */
export function subnetMatches(s: Subnet, c: ClientAddr): boolean {
  let bytes = c.bytes;
  if (s.family === 4) {
    if (c.family === 6) {
      if (!isV4Mapped(c.bytes)) return false;
      bytes = c.bytes.slice(12);
    }
  } else if (c.family !== 6) return false;
  for (let i = 0; i < s.addr.length; i++) if ((bytes[i] & s.mask[i]) !== s.addr[i]) return false;
  return true;
}

/**
 * Which of `nets` contain a client address, as subnetMatches answers it for each, without
 * testing every network: the networks are filed by family and mask, and an address is masked
 * once per distinct mask and looked up. Returns the indices of the matching networks, ascending.
 * Thousands of `Allow from`/`Deny from` networks (a blocklist) then cost time linear in their
 * number instead of quadratic.
 */
export function subnetIndex(nets: readonly Subnet[]): (c: ClientAddr) => number[] {
  const groups = new Map<string, { family: 4 | 6; mask: number[]; byAddr: Map<string, number[]> }>();
  nets.forEach((n, i) => {
    const k = n.family + '/' + n.mask.join('.');
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { family: n.family, mask: n.mask, byAddr: new Map() }));
    const a = n.addr.join('.');
    const list = g.byAddr.get(a);
    if (list) list.push(i);
    else g.byAddr.set(a, [i]);
  });
  const all = [...groups.values()];
  return (c) => {
    const out: number[] = [];
    const v4 = c.family === 4 ? c.bytes : isV4Mapped(c.bytes) ? c.bytes.slice(12) : null;
    for (const g of all) {
      const bytes = g.family === 4 ? v4 : c.family === 6 ? c.bytes : null;
      if (!bytes) continue;
      const masked: number[] = new Array(g.mask.length);
      for (let i = 0; i < g.mask.length; i++) masked[i] = bytes[i] & g.mask[i];
      const hit = g.byAddr.get(masked.join('.'));
      if (hit) for (const i of hit) out.push(i);
    }
    return out.sort((x, y) => x - y);
  };
}

/** A literal client address ("10.1.2.3", "::1", "::ffff:10.1.2.3"), or null. */
export function parseClient(s: string): ClientAddr | null {
  const v4 = parseIpv4(s);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(s);
  if (v6) return { family: 6, bytes: v6 };
  return null;
}

export function formatClient(c: ClientAddr): string {
  if (c.family === 4) return c.bytes.join('.');
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((c.bytes[i] << 8) | c.bytes[i + 1]).toString(16));
  return g.join(':');
}

/** A few addresses inside a subnet (low, high and middle hosts), to stand for its members. */
export function samplesOf(s: Subnet): ClientAddr[] {
  const n = s.addr.length;
  const hostBits: Array<[number, number]> = []; // [byte, bit] of every host bit, most significant first
  for (let i = 0; i < n; i++) for (let k = 7; k >= 0; k--) if (!((s.mask[i] >> k) & 1)) hostBits.push([i, k]);
  const withBits = (set: Array<[number, number]>) => {
    const b = [...s.addr];
    for (const [i, k] of set) b[i] |= 1 << k;
    return b;
  };
  const cands: number[][] = [];
  if (hostBits.length === 0) cands.push([...s.addr]);
  else {
    const lowest = hostBits[hostBits.length - 1];
    cands.push(withBits([lowest]));
    if (hostBits.length >= 2) {
      cands.push(withBits(hostBits.slice(0, -1)));
      cands.push(withBits([hostBits[0], lowest]));
      cands.push(withBits(hostBits.filter((_, j) => j % 2 === 1)));
    }
  }
  const out: ClientAddr[] = [];
  for (const b of cands) {
    if (!out.some((o) => o.bytes.every((x, i) => x === b[i]))) out.push({ family: s.family, bytes: b });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Allow/Deny tokens and Require ip arguments

export type HostToken =
  | { kind: 'all'; raw: string }
  | { kind: 'env'; name: string; raw: string }
  | { kind: 'nenv'; name: string; raw: string }
  | { kind: 'ip'; subnet: Subnet; raw: string }
  | { kind: 'host'; name: string; raw: string };

export type TokenResult = { ok: true; token: HostToken } | { ok: false; message: string };

/**
 * Answers for words seen before: the same few words (`all`, `127.0.0.1`, `10.0.0.0/8`) recur in
 * every file, and a result is never changed once made. Bounded: cleared when it grows large.
 */
const HOST_TOKENS = new Map<string, TokenResult>();
const REQUIRE_IPS = new Map<string, { ok: true; subnet: Subnet } | { ok: false; message: string }>();
const MEMO_LIMIT = 4096;

function memo<T>(cache: Map<string, T>, word: string, make: (w: string) => T): T {
  let r = cache.get(word);
  if (r === undefined) {
    if (cache.size >= MEMO_LIMIT) cache.clear();
    // Made from a copy: the cache (and the words its results keep) outlive the document.
    const own = detached(word);
    r = make(own);
    cache.set(own, r);
  }
  return r;
}

/** allow_cmd's classification of one word after `from` (spec §2.2, in that order). Results are shared: never change one. */
export function classifyHostToken(word: string): TokenResult {
  return memo(HOST_TOKENS, word, classifyHostTokenAnew);
}

function classifyHostTokenAnew(word: string): TokenResult {
  const lower = word.toLowerCase();
  if (lower.startsWith('env=!')) return { ok: true, token: { kind: 'nenv', name: word.slice(5), raw: word } };
  if (lower.startsWith('env=')) return { ok: true, token: { kind: 'env', name: word.slice(4), raw: word } };
  if (lower === 'all') return { ok: true, token: { kind: 'all', raw: word } };
  const slash = word.indexOf('/');
  if (slash >= 0) {
    const r = createSubnet(word.slice(0, slash), word.slice(slash + 1));
    if (!r.ok) return { ok: false, message: r.error === 'not-ip' ? 'An IP address was expected' : r.error === 'bad-ip' ? APR_BAD_IP : APR_BAD_MASK };
    return { ok: true, token: { kind: 'ip', subnet: r.subnet, raw: word } };
  }
  const r = createSubnet(word);
  if (r.ok) return { ok: true, token: { kind: 'ip', subnet: r.subnet, raw: word } };
  if (r.error !== 'not-ip') return { ok: false, message: r.error === 'bad-ip' ? APR_BAD_IP : APR_BAD_MASK };
  if (word.includes('#')) return { ok: false, message: 'No comments are allowed here' };
  return { ok: true, token: { kind: 'host', name: word, raw: word } };
}

/** mod_authz_host's parser for one `Require ip` argument: anything not IP-like is an error. */
export function parseRequireIp(word: string): { ok: true; subnet: Subnet } | { ok: false; message: string } {
  return memo(REQUIRE_IPS, word, parseRequireIpAnew);
}

function parseRequireIpAnew(word: string): { ok: true; subnet: Subnet } | { ok: false; message: string } {
  const slash = word.indexOf('/');
  const addr = slash >= 0 ? word.slice(0, slash) : word;
  const r = slash >= 0 ? createSubnet(addr, word.slice(slash + 1)) : createSubnet(word);
  if (r.ok) return r;
  if (r.error === 'not-ip') return { ok: false, message: `ip address '${addr}' appears to be invalid` };
  return { ok: false, message: `ip address '${addr}' appears to be invalid: ${r.error === 'bad-ip' ? APR_BAD_IP : APR_BAD_MASK}` };
}

/**
 * Which of `domains` a host name is in, as inDomain answers it for each, without trying every
 * domain: the name itself and what follows each of its dots are looked up (domains that start
 * with a dot, which inDomain matches by suffix alone, are tried one by one). Returns the indices
 * of the matching domains, ascending.
 */
export function domainIndex(domains: readonly string[]): (host: string) => number[] {
  const byName = new Map<string, number[]>();
  const dotted: Array<[string, number]> = [];
  domains.forEach((d, i) => {
    const k = d.toLowerCase();
    if (k.startsWith('.')) dotted.push([k, i]);
    else if (k.length) {
      const list = byName.get(k);
      if (list) list.push(i);
      else byName.set(k, [i]);
    }
  });
  return (host) => {
    const h = host.toLowerCase();
    const out: number[] = [];
    for (let from = 0; ; ) {
      const hit = byName.get(h.slice(from));
      if (hit) for (const i of hit) out.push(i);
      const dot = h.indexOf('.', from);
      if (dot < 0) break;
      from = dot + 1;
    }
    for (const [d, i] of dotted) if (inDomain(d, h)) out.push(i);
    return out.sort((x, y) => x - y);
  };
}

/** in_domain: a case-insensitive suffix match on a label boundary (`.example.org` or `example.org`). */
export function inDomain(domain: string, host: string): boolean {
  const d = domain.toLowerCase();
  const h = host.toLowerCase();
  if (d.length === 0) return false;
  if (d.length > h.length) return false;
  if (!h.endsWith(d)) return false;
  if (d.length === h.length) return true;
  return d[0] === '.' || h[h.length - d.length - 1] === '.';
}
