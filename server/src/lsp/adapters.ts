/**
 * Adapters for features the service facade has no method for yet
 * (completion, completion resolve, signature help): they call the feature
 * functions with the directive catalog. Also the file-system callbacks the
 * transport-free features take (the server is the only place with I/O).
 * The lead may move the catalog-based calls into service.ts; then this
 * file shrinks to the file-system part.
 */
import * as fs from 'fs';
import * as nodePath from 'path';
import picomatch from 'picomatch';
import type { CompletionItem, Position, SignatureHelp } from 'vscode-languageserver-types';
import { offsetAt } from '../syntax';
import type { Analysis } from '../service';
import { completionAt, resolveCompletion, type Catalog, type CompletionOptions } from '../features/completion';
import { signatureHelpAt } from '../features/signature';
import type { LinkOptions } from '../features/links';
import { dirname, fileUriToPath, hasGlob } from '../features/paths';

/** A catalog with nothing in it, for when none is given: completion still offers Require providers and the like. */
export const EMPTY_CATALOG: Catalog = {
  getDirective: () => undefined,
  allDirectives: () => [],
  allModules: () => [],
};

/** Upper bounds on what one request may read from disk. */
const MAX_DIR_ENTRIES = 1000;
const MAX_GLOB_MATCHES = 2;

export interface FileSystemAccess {
  /** False in an untrusted workspace: no link checks, no path completion. */
  readonly enabled: boolean;
}

export class CatalogFeatures {
  constructor(
    private readonly catalog: Catalog,
    private readonly fsAccess: FileSystemAccess,
  ) {}

  completion(a: Analysis, position: Position): CompletionItem[] {
    const options: CompletionOptions = {};
    const path = fileUriToPath(a.uri);
    if (path) options.baseDir = dirname(path);
    if (this.fsAccess.enabled) options.listDir = listDir;
    return completionAt(a.doc, offsetAt(a.doc, position), a.context, this.catalog, options);
  }

  resolveCompletion(item: CompletionItem): CompletionItem {
    return resolveCompletion(item, this.catalog);
  }

  signatureHelp(a: Analysis, position: Position): SignatureHelp | null {
    return signatureHelpAt(a.doc, offsetAt(a.doc, position), this.catalog);
  }

  /** The callbacks for document links: without file-system access every well-formed path is linked. */
  linkOptions(): LinkOptions {
    return this.fsAccess.enabled ? { exists, resolveGlob } : {};
  }
}

/** Names in a folder, sub-folders with a trailing '/'; hidden files last. Throws when the folder cannot be read. */
export function listDir(dir: string): string[] {
  const entries = fs.readdirSync(dir, { withFileTypes: true }).slice(0, MAX_DIR_ENTRIES);
  return entries
    .map((e) => (e.isDirectory() || (e.isSymbolicLink() && isDir(nodePath.join(dir, e.name))) ? e.name + '/' : e.name))
    .sort((x, y) => Number(x.startsWith('.')) - Number(y.startsWith('.')) || x.localeCompare(y));
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    return fs.existsSync(p);
  } catch {
    return false;
  }
}

/**
 * The files a wildcard path names, when only its last segment has
 * wildcards (httpd allows more, but one folder read per link is the bound
 * here). At most MAX_GLOB_MATCHES are returned: the caller only needs to know
 * whether there is exactly one.
 */
export function resolveGlob(pattern: string): string[] {
  const p = pattern.replace(/\\/g, '/');
  const slash = p.lastIndexOf('/');
  const dir = slash >= 0 ? p.slice(0, slash) || '/' : '.';
  const base = p.slice(slash + 1);
  if (hasGlob(dir) || !base) return [];
  let names: string[];
  try {
    names = fs.readdirSync(dir).slice(0, MAX_DIR_ENTRIES);
  } catch {
    return [];
  }
  const test = picomatch(base, { dot: false });
  const out: string[] = [];
  for (const n of names) {
    if (!test(n)) continue;
    out.push(dir === '/' ? '/' + n : dir + '/' + n);
    if (out.length >= MAX_GLOB_MATCHES) break;
  }
  return out;
}
