/**
 * The shared corpus (real configuration files from other projects), for tests that read it. It is
 * not part of the project: a user's clone has none, and those tests skip with a message there; in
 * CI (CI=true) its absence is a failure.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const corpusDir = path.resolve(__dirname, '../../../shared/corpus');

/** Every corpus file (one folder per project), in a stable order; empty when the corpus is absent. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  if (!fs.existsSync(corpusDir)) return out;
  for (const dir of fs.readdirSync(corpusDir).sort()) {
    const full = path.join(corpusDir, dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const f of fs.readdirSync(full).sort()) if (fs.statSync(path.join(full, f)).isFile()) out.push(path.join(full, f));
  }
  return out;
}

/** Skip the running test (or fail it in CI) when the corpus is absent; true when it is there. */
export function needCorpus(ctx: Mocha.Context): boolean {
  if (fs.existsSync(corpusDir)) return true;
  if (process.env.CI === 'true') throw new Error(`corpus missing at ${corpusDir} (required when CI=true)`);
  console.log(`    (skipped: no corpus at ${corpusDir}; it is not part of the project)`);
  ctx.skip();
  return false;
}
