/**
 * The project file `.apacheconf.json`, read alike by the CLI and the
 * language server: per-rule severities, the context of files matched by
 * glob, the root file of the configuration, its ServerRoot and the httpd
 * version the configuration is meant for.
 *
 *     {
 *       "rules": { "legacy-access": "error", "unknown-directive": "ignore" },
 *       "fileContexts": { "sites-available/*": "vhost", "**\/htdocs/**\/*.conf": "htaccess" },
 *       "rootFile": "apache2/apache2.conf",
 *       "serverRoot": "apache2",
 *       "httpdVersion": "2.4.6"
 *     }
 *
 * Globs are matched (with picomatch) against the file's path relative to the
 * folder of `.apacheconf.json`, with forward slashes; a glob without a slash
 * matches the base name. The first matching glob wins. `rootFile` and
 * `serverRoot` are relative to that folder too (absolute paths stay as they
 * are). The nearest file in the file's folder or one of its parents applies;
 * failing that, the nearest one from the current directory up.
 *
 * No I/O here: ProjectFiles takes the function that reads a file.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { FILE_CONTEXTS, type FileContext } from './context';
import { SEVERITY_SETTINGS, type SeveritySetting } from '../rules/types';

export const PROJECT_FILE = '.apacheconf.json';

/** The keys a project file may have. */
export const PROJECT_KEYS: readonly string[] = ['rules', 'fileContexts', 'rootFile', 'serverRoot', 'httpdVersion', '$schema'];

export interface ProjectConfig {
  /** Absolute path of the `.apacheconf.json` it came from. */
  file: string;
  rules: Record<string, SeveritySetting>;
  /** Ordered globs → context. */
  contexts: Array<{ glob: string; context: FileContext; test: (rel: string) => boolean }>;
  /** The configuration's root file (absolute). */
  rootFile?: string;
  /** The ServerRoot to resolve relative Include paths against (absolute). */
  serverRoot?: string;
  /** The httpd version the configuration targets, as written ("2.4", "2.4.6"). */
  httpdVersion?: string;
  /** Problems found while reading it (unknown keys, bad values); the usable part still applies. */
  problems: string[];
}

export type HttpdVersion = readonly [major: number, minor: number, patch: number];

/**
 * "2.4" → [2, 4, Infinity] (the newest 2.4), "2.4.6" → [2, 4, 6]; anything
 * else → null. Only 2.x versions are meaningful to the checks.
 */
export function parseHttpdVersion(text: string): HttpdVersion | null {
  const m = /^\s*(\d+)\.(\d+)(?:\.(\d+))?\s*$/.exec(text);
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), m[3] === undefined ? Infinity : Number(m[3])];
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: HttpdVersion, b: HttpdVersion): number {
  for (let i = 0; i < 3; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

/** Parse the text of a project file. Never throws: problems are listed. */
export function parseProjectConfig(text: string, file: string): ProjectConfig {
  const cfg: ProjectConfig = { file, rules: {}, contexts: [], problems: [] };
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    cfg.problems.push(`not valid JSON: ${(e as Error).message}`);
    return cfg;
  }
  if (!isObject(json)) {
    cfg.problems.push('expected an object with "rules" and/or "fileContexts"');
    return cfg;
  }
  for (const key of Object.keys(json)) {
    if (!PROJECT_KEYS.includes(key)) cfg.problems.push(`unknown key "${key}"`);
  }
  if (json.rules !== undefined) {
    if (!isObject(json.rules)) {
      cfg.problems.push('"rules" must be an object of rule id → severity');
    } else {
      for (const [id, sev] of Object.entries(json.rules)) {
        if (typeof sev === 'string' && (SEVERITY_SETTINGS as readonly string[]).includes(sev)) {
          cfg.rules[id] = sev as SeveritySetting;
        } else {
          cfg.problems.push(`rule "${id}": severity must be one of ${SEVERITY_SETTINGS.join(', ')}`);
        }
      }
    }
  }
  if (json.fileContexts !== undefined) {
    if (!isObject(json.fileContexts)) {
      cfg.problems.push('"fileContexts" must be an object of glob → context');
    } else {
      for (const [glob, ctx] of Object.entries(json.fileContexts)) {
        if (typeof ctx === 'string' && (FILE_CONTEXTS as readonly string[]).includes(ctx)) {
          const test = picomatch(glob, { dot: true, basename: !glob.includes('/') });
          cfg.contexts.push({ glob, context: ctx as FileContext, test });
        } else {
          cfg.problems.push(`fileContexts "${glob}": context must be one of ${FILE_CONTEXTS.join(', ')}`);
        }
      }
    }
  }
  const dir = path.dirname(file);
  for (const key of ['rootFile', 'serverRoot'] as const) {
    const v = json[key];
    if (v === undefined) continue;
    if (typeof v === 'string' && v.trim()) cfg[key] = path.resolve(dir, v.trim());
    else cfg.problems.push(`"${key}" must be a non-empty path (relative to the folder of ${PROJECT_FILE})`);
  }
  if (json.httpdVersion !== undefined) {
    const v = json.httpdVersion;
    const parsed = typeof v === 'string' ? parseHttpdVersion(v) : null;
    if (parsed && parsed[0] === 2 && parsed[1] === 4) cfg.httpdVersion = (v as string).trim();
    else cfg.problems.push(`"httpdVersion" must be "2.4" or a 2.4 release such as "2.4.6", got ${JSON.stringify(v)}`);
  }
  return cfg;
}

/** The context a project file assigns to `absolute`, if one of its globs matches. */
export function contextFromProject(cfg: ProjectConfig, absolute: string): FileContext | undefined {
  const rel = path.relative(path.dirname(cfg.file), absolute).split(path.sep).join('/');
  for (const c of cfg.contexts) if (c.test(rel)) return c.context;
  return undefined;
}

/** Reads a file's text, or undefined when it is missing or not a regular file. */
export type ReadTextFile = (file: string) => string | undefined;

/** Finds and caches project files by folder. */
export class ProjectFiles {
  private byDir = new Map<string, ProjectConfig | null>();
  private loaded = new Map<string, ProjectConfig>();

  constructor(
    private readonly cwd: string,
    private readonly read: ReadTextFile,
  ) {}

  /** The project file that applies to `absolute`, or null. */
  forFile(absolute: string): ProjectConfig | null {
    return this.nearest(path.dirname(absolute)) ?? this.nearest(this.cwd);
  }

  /** The project file in `dir` itself (not its parents), or null. */
  inFolder(dir: string): ProjectConfig | null {
    const d = path.resolve(dir);
    const candidate = path.join(d, PROJECT_FILE);
    const have = this.loaded.get(candidate);
    if (have) return have;
    const text = this.read(candidate);
    if (text === undefined) return null;
    const cfg = parseProjectConfig(text, candidate);
    this.loaded.set(candidate, cfg);
    return cfg;
  }

  /** Every project file read so far, for reporting their problems once. */
  all(): ProjectConfig[] {
    return [...this.loaded.values()];
  }

  /** Forget what was read (a project file changed on disk). */
  clear(): void {
    this.byDir.clear();
    this.loaded.clear();
  }

  private nearest(dir: string): ProjectConfig | null {
    const visited: string[] = [];
    let found: ProjectConfig | null = null;
    for (let d = path.resolve(dir); ; ) {
      const cached = this.byDir.get(d);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      visited.push(d);
      const candidate = path.join(d, PROJECT_FILE);
      const text = this.read(candidate);
      if (text !== undefined) {
        found = parseProjectConfig(text, candidate);
        this.loaded.set(candidate, found);
        break;
      }
      const up = path.dirname(d);
      if (up === d) break;
      d = up;
    }
    for (const d of visited) this.byDir.set(d, found);
    return found;
  }
}
