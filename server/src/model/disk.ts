/**
 * The configuration files on this machine's disk, for the CLI and the language server alike:
 * regular files decoded as the parser expects them, folder listings (a link to a folder counts
 * as a folder, as httpd's Include follows it), and whether a path is a folder.
 */
import * as fs from 'fs';
import * as nodePath from 'path';
import { decode } from '../syntax';
import type { WorkspaceHost } from './workspace';

/** Files larger than this are not read into a configuration (a log or a dump named *.conf). */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** Reads regular files (decoded as the parser expects) and folders from disk. */
export const diskHost: WorkspaceHost = {
  readFile(p) {
    try {
      const st = fs.statSync(p);
      if (!st.isFile() || st.size > MAX_CONFIG_FILE_BYTES) return undefined;
      return decode(fs.readFileSync(p)).text;
    } catch {
      return undefined;
    }
  },
  listDir(p) {
    try {
      return fs.readdirSync(p, { withFileTypes: true }).map((e) => {
        if (e.isDirectory()) return e.name + '/';
        if (e.isSymbolicLink()) {
          try {
            if (fs.statSync(nodePath.join(p, e.name)).isDirectory()) return e.name + '/';
          } catch {
            // a dangling link is a (missing) file
          }
        }
        return e.name;
      });
    } catch {
      return undefined;
    }
  },
  realPath(p) {
    return fs.realpathSync(p);
  },
};

/** Files and folders as explain reads them (the `.htaccess` files on the way to a requested file). */
export const diskReader = {
  readFile: (p: string): string | undefined => diskHost.readFile(p),
  isDirectory(p: string): boolean {
    try {
      return fs.statSync(p).isDirectory();
    } catch {
      return false;
    }
  },
};

/** Real paths and symbolic links on disk, for the plans of a server config with its `.htaccess` files (features/joint-htaccess.ts). */
export const diskLinks = {
  realPath(p: string): string {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  },
  entries(dir: string): Array<{ name: string; directory: boolean; link: boolean }> | undefined {
    try {
      return fs.readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, directory: e.isDirectory(), link: e.isSymbolicLink() }));
    } catch {
      return undefined;
    }
  },
};

/** The same as diskLinks, as an object of its own: what is worked out from the disk's links is kept per such object (features/served-paths.ts), so one made per command reads the disk again. */
export function freshDiskLinks(): typeof diskLinks {
  return { realPath: diskLinks.realPath, entries: diskLinks.entries };
}
