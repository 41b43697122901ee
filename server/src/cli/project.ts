/**
 * The project file `.apacheconf.json` for the CLI. The format and the lookup
 * live in ../model/project.ts (the language server reads the same file);
 * this module only supplies the file reading.
 */
import * as fs from 'node:fs';
import { ProjectFiles as SharedProjectFiles } from '../model/project';

export * from '../model/project';

/** Reads a regular file as UTF-8, or undefined when it is missing or not a file. */
export function readIfFile(file: string): string | undefined {
  try {
    return fs.statSync(file).isFile() ? fs.readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Project files found on disk, from each file's folder up (then from `cwd` up). */
export class ProjectFiles extends SharedProjectFiles {
  constructor(cwd: string) {
    super(cwd, readIfFile);
  }
}
