/**
 * The shared corpus (real configuration files from other projects), for tests that read it. It is
 * not part of the project: a user's clone has none, and those tests skip with a message there; in
 * CI (CI=true) its absence is a failure.
 *
 * APACHECONF_CORPUS_EXTRA (folders separated by ':') adds every regular file under those folders,
 * walked recursively in sorted order, after the corpus files: for example the Apache files of
 * Debian's packages, unpacked with `apt-get download` and `dpkg-deb -x`. The extra files only add
 * to the corpus: without it the tests still skip (or fail in CI).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const corpusDir = path.resolve(__dirname, '../../../shared/corpus');

/** Files that describe the corpus and are not configuration files. */
const NOT_CONFIG = new Set(['MANIFEST.tsv', 'README.md']);

/** Every regular file under a folder, recursively, sorted by name at each level; empty when it is absent. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, ent.name);
    if (ent.isDirectory()) out.push(...filesUnder(full));
    else if (ent.isFile() && !NOT_CONFIG.has(ent.name)) out.push(full);
  }
  return out;
}

/** The folders of APACHECONF_CORPUS_EXTRA, resolved; a folder that is not there is an error. */
function extraDirs(): string[] {
  const dirs = (process.env.APACHECONF_CORPUS_EXTRA ?? '').split(':').filter(Boolean).map((d) => path.resolve(d));
  for (const d of dirs) {
    if (!fs.existsSync(d) || !fs.statSync(d).isDirectory()) throw new Error(`APACHECONF_CORPUS_EXTRA: no folder at ${d}`);
  }
  return dirs;
}

/**
 * Every corpus file (one folder per project), in a stable order, then the extra files; empty when
 * the corpus is absent.
 */
export function corpusFiles(): string[] {
  const out: string[] = [];
  if (!fs.existsSync(corpusDir)) return out;
  for (const dir of fs.readdirSync(corpusDir).sort()) {
    const full = path.join(corpusDir, dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const f of fs.readdirSync(full).sort()) if (fs.statSync(path.join(full, f)).isFile()) out.push(path.join(full, f));
  }
  for (const dir of extraDirs()) out.push(...filesUnder(dir));
  return out;
}

const inside = (dir: string, file: string): boolean => file.startsWith(dir + path.sep);

/**
 * A file's name for messages: relative to the corpus for a corpus file ("project/file"), relative to
 * the parent of its extra folder for an extra file ("folder/…/file").
 */
export function corpusRelative(file: string): string {
  const full = path.resolve(file);
  if (inside(corpusDir, full)) return path.relative(corpusDir, full);
  const extra = extraDirs().find((d) => inside(d, full));
  return path.relative(extra ? path.dirname(extra) : corpusDir, full);
}

/** Skip the running test (or fail it in CI) when the corpus is absent; true when it is there. */
export function needCorpus(ctx: Mocha.Context): boolean {
  if (fs.existsSync(corpusDir)) return true;
  if (process.env.CI === 'true') throw new Error(`corpus missing at ${corpusDir} (required when CI=true)`);
  console.log(`    (skipped: no corpus at ${corpusDir}; it is not part of the project)`);
  ctx.skip();
  return false;
}
