/**
 * The `apacheconf.*` settings the language server reads, their defaults, and
 * the checks that turn whatever a client sends into a well-formed value.
 * package.json's `contributes.configuration` must agree with DEFAULT_SETTINGS
 * (test/unit/manifest.test.ts compares them).
 */
import picomatch from 'picomatch';
import { trimEndChars } from '../syntax';
import { FILE_CONTEXTS, type FileContext } from '../model/context';
import { SEVERITY_SETTINGS, type SeveritySetting } from '../rules/types';
import { parseHttpdVersion } from '../model/project';
import { CONFIGURATION_RULES } from '../rules';

export const SECTION = 'apacheconf';

export interface LspSettings {
  /** Rule id → severity, or `ignore` to turn the rule off. */
  rules: Record<string, SeveritySetting>;
  /** Glob → the context a matching file's top level is in. The first matching glob wins. */
  fileContexts: Record<string, FileContext>;
  validate: {
    /** Delay between the last keystroke and the new diagnostics. */
    debounceMs: number;
  };
  /** The configuration's root file, relative to the workspace folder (or absolute); '' = the project file's, else found. */
  rootFile: string;
  /** The ServerRoot for relative Include paths and for `httpd -d`; '' = the project file's, else the root file's ServerRoot line or folder. */
  serverRoot: string;
  includes: {
    /** At most this many files are read from the root file on. */
    maxFiles: number;
    /** At most this many Include levels are followed. */
    maxDepth: number;
  };
  /** The httpd release the configuration is meant for: "2.4" (the newest) or "2.4.N"; '' = the project file's, else "2.4". */
  httpdVersion: string;
  httpd: {
    /** The httpd binary for "check with httpd"; '' = apache2 or httpd found on the PATH (or in /usr/sbin). */
    path: string;
  };
}

export const DEFAULT_SETTINGS: LspSettings = Object.freeze({
  rules: Object.freeze({}) as Record<string, SeveritySetting>,
  fileContexts: Object.freeze({}) as Record<string, FileContext>,
  validate: Object.freeze({ debounceMs: 150 }),
  rootFile: '',
  serverRoot: '',
  includes: Object.freeze({ maxFiles: 1000, maxDepth: 16 }),
  httpdVersion: '',
  httpd: Object.freeze({ path: '' }),
}) as LspSettings;

/** Bounds of the include limits. */
export const MAX_INCLUDE_FILES = 100_000;
export const MAX_INCLUDE_DEPTH = 64;

/**
 * Rules that the server runs outside the per-file rule registry (they need
 * the whole configuration or the target version), with their defaults. They
 * are configured in `apacheconf.rules` like the others.
 */
export { CONFIGURATION_RULES };

/** The longest debounce accepted; anything above is clamped (a typo of 150000 should not freeze diagnostics). */
export const MAX_DEBOUNCE_MS = 10_000;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * A settings object from the client (the `apacheconf` section, or an object
 * holding it under `apacheconf`) made safe to use: unknown severities and
 * contexts are dropped and reported through `warn`, numbers are clamped.
 */
export function normalizeSettings(raw: unknown, warn: (message: string) => void = () => {}): LspSettings {
  let src = isObject(raw) ? raw : {};
  if (isObject(src[SECTION])) src = src[SECTION] as Record<string, unknown>;

  const rules: Record<string, SeveritySetting> = {};
  if (isObject(src.rules)) {
    for (const [id, value] of Object.entries(src.rules)) {
      const v = typeof value === 'string' ? value.toLowerCase() : value;
      if (SEVERITY_SETTINGS.includes(v as SeveritySetting)) rules[id] = v as SeveritySetting;
      else warn(`apacheconf.rules.${id}: expected one of ${SEVERITY_SETTINGS.join(', ')}, got ${JSON.stringify(value)}`);
    }
  }

  const fileContexts: Record<string, FileContext> = {};
  if (isObject(src.fileContexts)) {
    for (const [glob, value] of Object.entries(src.fileContexts)) {
      if (FILE_CONTEXTS.includes(value as FileContext)) fileContexts[glob] = value as FileContext;
      else warn(`apacheconf.fileContexts["${glob}"]: expected one of ${FILE_CONTEXTS.join(', ')}, got ${JSON.stringify(value)}`);
    }
  }

  let debounceMs = DEFAULT_SETTINGS.validate.debounceMs;
  const validate = isObject(src.validate) ? src.validate : {};
  // Flat dotted keys arrive from some clients (`{"validate.debounceMs": 50}`).
  const rawDebounce = validate.debounceMs ?? src['validate.debounceMs'];
  if (rawDebounce !== undefined) {
    if (typeof rawDebounce === 'number' && Number.isFinite(rawDebounce)) debounceMs = Math.min(Math.max(0, Math.round(rawDebounce)), MAX_DEBOUNCE_MS);
    else warn(`apacheconf.validate.debounceMs: expected a number, got ${JSON.stringify(rawDebounce)}`);
  }

  const str = (key: string, value: unknown, fallback: string): string => {
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'string') return value.trim();
    warn(`apacheconf.${key}: expected a string, got ${JSON.stringify(value)}`);
    return fallback;
  };
  const int = (key: string, value: unknown, fallback: number, max: number): number => {
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'number' && Number.isFinite(value)) return Math.min(Math.max(1, Math.round(value)), max);
    warn(`apacheconf.${key}: expected a number, got ${JSON.stringify(value)}`);
    return fallback;
  };
  const includes = isObject(src.includes) ? src.includes : {};
  const httpd = isObject(src.httpd) ? src.httpd : {};
  const rootFile = str('rootFile', src.rootFile, DEFAULT_SETTINGS.rootFile);
  const serverRoot = str('serverRoot', src.serverRoot, DEFAULT_SETTINGS.serverRoot);
  const maxFiles = int('includes.maxFiles', includes.maxFiles ?? src['includes.maxFiles'], DEFAULT_SETTINGS.includes.maxFiles, MAX_INCLUDE_FILES);
  const maxDepth = int('includes.maxDepth', includes.maxDepth ?? src['includes.maxDepth'], DEFAULT_SETTINGS.includes.maxDepth, MAX_INCLUDE_DEPTH);
  let httpdVersion = str('httpdVersion', src.httpdVersion, DEFAULT_SETTINGS.httpdVersion);
  const v = httpdVersion ? parseHttpdVersion(httpdVersion) : null;
  if (httpdVersion && (!v || v[0] !== 2 || v[1] !== 4)) {
    warn(`apacheconf.httpdVersion: expected "2.4" or a 2.4 release such as "2.4.6", got ${JSON.stringify(httpdVersion)}`);
    httpdVersion = DEFAULT_SETTINGS.httpdVersion;
  }
  const httpdPath = str('httpd.path', httpd.path ?? src['httpd.path'], DEFAULT_SETTINGS.httpd.path);

  return {
    rules,
    fileContexts,
    validate: { debounceMs },
    rootFile,
    serverRoot,
    includes: { maxFiles, maxDepth },
    httpdVersion,
    httpd: { path: httpdPath },
  };
}

/** Compiled `fileContexts` globs, matched against a file's absolute path and its path inside each workspace folder. */
export class FileContextMatcher {
  private readonly entries: Array<{ test: (path: string) => boolean; context: FileContext }>;

  constructor(globs: Record<string, FileContext>) {
    this.entries = [];
    for (const [glob, context] of Object.entries(globs)) {
      try {
        const test = picomatch(glob.replace(/\\/g, '/'), { dot: true, nocase: process.platform === 'win32' });
        this.entries.push({ test, context });
      } catch {
        // An unparsable glob matches nothing.
      }
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** The context of the first glob that matches one of `paths`, or undefined. */
  match(paths: readonly string[]): FileContext | undefined {
    for (const e of this.entries) {
      if (paths.some((p) => e.test(p))) return e.context;
    }
    return undefined;
  }
}

/**
 * The candidate paths a glob is tried against: the absolute path, the path
 * relative to each workspace folder that contains it, and the base name (so
 * `*.inc` works without `**`).
 */
export function candidatePaths(path: string, folders: readonly string[]): string[] {
  const p = path.replace(/\\/g, '/');
  const out = [p];
  for (const f of folders) {
    const root = trimEndChars(f.replace(/\\/g, '/'), '/');
    if (root && p.startsWith(root + '/')) out.push(p.slice(root.length + 1));
  }
  const base = p.slice(p.lastIndexOf('/') + 1);
  if (base && !out.includes(base)) out.push(base);
  return out;
}
