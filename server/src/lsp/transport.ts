/**
 * The `--stdio` transport's encoder: messages go out as JSON written into one buffer that is kept
 * and used again, message after message.
 *
 * vscode-jsonrpc's own encoder makes the whole message one string (JSON.stringify) and then a new
 * Buffer of it. For a publishDiagnostics of a file with thousands of findings that is a string and
 * a buffer of a megabyte each, every time the user types: fresh memory that the process must be
 * given page by page, and on a virtual machine each page is slow to get (on the machines this is
 * measured on, a fresh megabyte costs about 3 ms to touch, reused memory next to nothing). Here the
 * large arrays are written a slice of elements at a time, each slice a small string, into the kept
 * buffer.
 *
 * The buffer is used again only when the previous message has been written: the message writer
 * holds its lock until the stream has taken the bytes (vscode-jsonrpc's WriteableStreamMessageWriter
 * awaits the write's callback before the next message is encoded).
 */
import type { Message } from 'vscode-languageserver/node';

/**
 * Objects this shallow (the message, its params or result) are written key by key; arrays this
 * shallow with at least SPLIT_LENGTH elements a slice of elements at a time. Everything else is one
 * JSON.stringify: an element of a list (a diagnostic, a completion item) is a small string.
 */
const OPEN_DEPTH = 3;
const SPLIT_LENGTH = 16;
/** Elements per JSON.stringify call when an array is split. */
const CHUNK = 128;
/** The kept buffer grows to this size at most; a larger message gets a buffer of its own. */
const KEEP_LIMIT = 64 * 1024 * 1024;

/** A plain object or an array whose JSON is its own (no toJSON). */
function open(v: unknown): v is Record<string, unknown> | unknown[] {
  if (v === null || typeof v !== 'object') return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return v.length >= SPLIT_LENGTH;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/*
 * Diagnostics, the bulk of what a server sends, are written from a template: the same text as
 * JSON.stringify (checked key by key; anything else goes to JSON.stringify), in half the time,
 * since the strings they repeat (message, code, source) and the shared frozen objects (the rule's
 * codeDescription, the tags) are turned into JSON once.
 */
const DIAGNOSTIC_KEYS = ['range', 'severity', 'code', 'codeDescription', 'source', 'message', 'tags'];
const stringJson = new Map<string, string>();
const frozenJson = new Map<object, string>();
const JSON_CACHE_LIMIT = 8192;

function jsonOfString(s: string): string {
  let j = stringJson.get(s);
  if (j === undefined) {
    j = JSON.stringify(s);
    if (stringJson.size >= JSON_CACHE_LIMIT) stringJson.clear();
    stringJson.set(s, j);
  }
  return j;
}

/** True for a frozen object or array whose own values are all strings, numbers, booleans or null: its JSON cannot change. */
function settled(o: object): boolean {
  if (!Object.isFrozen(o)) return false;
  for (const v of Object.values(o)) if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return false;
  return true;
}

/** The JSON of an object or array, remembered when it cannot change (settled). */
function jsonOfValue(o: object): string | undefined {
  const known = frozenJson.get(o);
  if (known !== undefined) return known;
  if (!settled(o)) return JSON.stringify(o);
  const j = JSON.stringify(o);
  if (j === undefined) return undefined;
  if (frozenJson.size >= JSON_CACHE_LIMIT) frozenJson.clear();
  frozenJson.set(o, j);
  return j;
}

function plainObject(o: unknown): o is Record<string, unknown> {
  return o !== null && typeof o === 'object' && Object.getPrototypeOf(o) === Object.prototype;
}

function isInteger(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n);
}

/** `{"line":…,"character":…}` for a position with exactly those keys, in that order. */
function positionJson(p: unknown): string | undefined {
  if (!plainObject(p)) return undefined;
  let i = 0;
  for (const k in p) {
    if (k !== (i === 0 ? 'line' : 'character')) return undefined;
    i++;
  }
  if (i !== 2 || !isInteger(p.line) || !isInteger(p.character)) return undefined;
  return '{"line":' + p.line + ',"character":' + p.character + '}';
}

/**
 * The JSON.stringify text of a diagnostic shaped as the service makes them (range, severity, code,
 * codeDescription, source, message and maybe tags, in that order, nothing else), or undefined.
 */
export function diagnosticJson(d: unknown): string | undefined {
  if (!plainObject(d)) return undefined;
  let n = 0;
  for (const k in d) {
    if (k !== DIAGNOSTIC_KEYS[n]) return undefined;
    n++;
  }
  if (n < 6) return undefined;
  const r = d.range;
  if (!plainObject(r)) return undefined;
  let m = 0;
  for (const k in r) {
    if (k !== (m === 0 ? 'start' : 'end')) return undefined;
    m++;
  }
  if (m !== 2) return undefined;
  const start = positionJson(r.start);
  const end = positionJson(r.end);
  const cd = d.codeDescription;
  if (start === undefined || end === undefined || !isInteger(d.severity) || typeof d.code !== 'string' || typeof d.source !== 'string' || typeof d.message !== 'string' || !plainObject(cd)) return undefined;
  const cdJson = jsonOfValue(cd);
  if (cdJson === undefined) return undefined;
  let out = '{"range":{"start":' + start + ',"end":' + end + '},"severity":' + d.severity + ',"code":' + jsonOfString(d.code) + ',"codeDescription":' + cdJson + ',"source":' + jsonOfString(d.source) + ',"message":' + jsonOfString(d.message);
  if (n === 7) {
    const tags = d.tags;
    if (!Array.isArray(tags)) return undefined;
    const t = jsonOfValue(tags);
    if (t === undefined) return undefined;
    out += ',"tags":' + t;
  }
  return out + '}';
}

export class ReusedBufferEncoder {
  readonly name = 'application/json';
  private buf: Buffer = Buffer.allocUnsafeSlow(64 * 1024);
  private off = 0;

  encode(msg: Message, options: { charset: string }): Promise<Uint8Array> {
    if (options.charset !== 'utf-8' && options.charset !== 'utf8') return Promise.resolve(Buffer.from(JSON.stringify(msg), options.charset as BufferEncoding));
    return Promise.resolve(this.bytesOf(msg));
  }

  /** The UTF-8 JSON of `value`, as JSON.stringify writes it; a view of the kept buffer, valid until the next call. */
  bytesOf(value: unknown): Buffer {
    this.off = 0;
    if (!this.value(value, 0)) this.put('null');
    if (this.buf.length > KEEP_LIMIT) {
      // One very large message: hand it out, and keep a buffer of the usual size from now on.
      const out = this.buf.subarray(0, this.off);
      this.buf = Buffer.allocUnsafeSlow(64 * 1024);
      return out;
    }
    return this.buf.subarray(0, this.off);
  }

  /** Writes `v`'s JSON; false, with nothing written, when JSON.stringify would leave it out (undefined, a function, a symbol). */
  private value(v: unknown, depth: number): boolean {
    if (depth < OPEN_DEPTH && open(v)) {
      if (Array.isArray(v)) {
        // Elements are written whole, a slice of them at a time: fewer calls than one by one, and
        // each string small enough to live and die in the young generation.
        this.put('[');
        const parts: string[] = [];
        for (let i = 0; i < v.length; i += CHUNK) {
          if (i > 0) this.put(',');
          const end = Math.min(v.length, i + CHUNK);
          for (let k = i; k < end; k++) {
            const el = v[k];
            const s = diagnosticJson(el) ?? JSON.stringify(el);
            parts.push(s === undefined ? 'null' : s);
          }
          this.put(parts.join(','));
          parts.length = 0;
        }
        this.put(']');
        return true;
      }
      this.put('{');
      let first = true;
      for (const key of Object.keys(v)) {
        const x = v[key];
        // A value written key by key in turn, or whole (left out, with its key, when it has no JSON).
        const nested = depth + 1 < OPEN_DEPTH && open(x);
        const s = nested ? '' : JSON.stringify(x);
        if (s === undefined) continue;
        if (!first) this.put(',');
        first = false;
        this.put(JSON.stringify(key) + ':');
        if (nested) this.value(x, depth + 1);
        else this.put(s);
      }
      this.put('}');
      return true;
    }
    const s = JSON.stringify(v);
    if (s === undefined) return false;
    this.put(s);
    return true;
  }

  private put(s: string): void {
    const need = this.off + s.length * 3;
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.off);
      this.buf = bigger;
    }
    this.off += this.buf.write(s, this.off, 'utf8');
  }
}
