/**
 * The project file `.apacheconf.json`: per-rule severities and the context of
 * files matched by glob, for the files below the folder that holds it.
 *
 *     {
 *       "rules": { "legacy-access": "error", "unknown-directive": "ignore" },
 *       "fileContexts": { "sites-available/*": "vhost", "**\/htdocs/**\/*.conf": "htaccess" }
 *     }
 *
 * Globs are matched (with picomatch) against the file's path relative to the
 * folder of `.apacheconf.json`, with forward slashes; a glob without a slash
 * matches the base name. The first matching glob wins. The nearest file in
 * the file's folder or one of its parents applies; failing that, the nearest
 * one from the current directory up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { FILE_CONTEXTS, type FileContext } from '../model/context';
import { SEVERITY_SETTINGS, type SeveritySetting } from '../rules/types';

export const PROJECT_FILE = '.apacheconf.json';

export interface ProjectConfig {
  /** Absolute path of the `.apacheconf.json` it came from. */
  file: string;
  rules: Record<string, SeveritySetting>;
  /** Ordered globs → context. */
  contexts: Array<{ glob: string; context: FileContext; test: (rel: string) => boolean }>;
  /** Problems found while reading it (unknown keys, bad values); the usable part still applies. */
  problems: string[];
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
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    cfg.problems.push('expected an object with "rules" and/or "fileContexts"');
    return cfg;
  }
  const obj = json as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key !== 'rules' && key !== 'fileContexts' && key !== '$schema') cfg.problems.push(`unknown key "${key}"`);
  }
  if (obj.rules !== undefined) {
    if (!obj.rules || typeof obj.rules !== 'object' || Array.isArray(obj.rules)) {
      cfg.problems.push('"rules" must be an object of rule id → severity');
    } else {
      for (const [id, sev] of Object.entries(obj.rules as Record<string, unknown>)) {
        if (typeof sev === 'string' && (SEVERITY_SETTINGS as readonly string[]).includes(sev)) {
          cfg.rules[id] = sev as SeveritySetting;
        } else {
          cfg.problems.push(`rule "${id}": severity must be one of ${SEVERITY_SETTINGS.join(', ')}`);
        }
      }
    }
  }
  if (obj.fileContexts !== undefined) {
    if (!obj.fileContexts || typeof obj.fileContexts !== 'object' || Array.isArray(obj.fileContexts)) {
      cfg.problems.push('"fileContexts" must be an object of glob → context');
    } else {
      for (const [glob, ctx] of Object.entries(obj.fileContexts as Record<string, unknown>)) {
        if (typeof ctx === 'string' && (FILE_CONTEXTS as readonly string[]).includes(ctx)) {
          const test = picomatch(glob, { dot: true, basename: !glob.includes('/') });
          cfg.contexts.push({ glob, context: ctx as FileContext, test });
        } else {
          cfg.problems.push(`fileContexts "${glob}": context must be one of ${FILE_CONTEXTS.join(', ')}`);
        }
      }
    }
  }
  return cfg;
}

/** The context a project file assigns to `absolute`, if one of its globs matches. */
export function contextFromProject(cfg: ProjectConfig, absolute: string): FileContext | undefined {
  const rel = path.relative(path.dirname(cfg.file), absolute).split(path.sep).join('/');
  for (const c of cfg.contexts) if (c.test(rel)) return c.context;
  return undefined;
}

/** Finds and caches project files by folder. */
export class ProjectFiles {
  private byDir = new Map<string, ProjectConfig | null>();
  private loaded = new Map<string, ProjectConfig>();

  constructor(private readonly cwd: string) {}

  /** The project file that applies to `absolute`, or null. */
  forFile(absolute: string): ProjectConfig | null {
    return this.nearest(path.dirname(absolute)) ?? this.nearest(this.cwd);
  }

  /** Every project file read so far, for reporting their problems once. */
  all(): ProjectConfig[] {
    return [...this.loaded.values()];
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
      let text: string | null = null;
      try {
        if (fs.statSync(candidate).isFile()) text = fs.readFileSync(candidate, 'utf8');
      } catch {
        text = null;
      }
      if (text !== null) {
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
