/**
 * Path and file-URI helpers that need no file system (and no Node APIs), so
 * the features stay usable in a browser. Paths are handled with forward
 * slashes; Windows drive letters and backslashes are accepted on input.
 */
import { trimEndChars } from '../syntax/strings';


/** Windows drive path (`C:\x`, `C:/x`), UNC path (`\\host\share`), or a POSIX absolute path. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** Forward slashes, no `.` segments, `..` folded where possible, no trailing slash (except the root). */
export function normalizePath(p: string): string {
  let s = p.replace(/\\/g, '/');
  let prefix = '';
  const drive = /^[A-Za-z]:\//.exec(s);
  if (drive) {
    prefix = drive[0];
    s = s.slice(prefix.length);
  } else if (s.startsWith('//')) {
    prefix = '//';
    s = s.slice(2);
  } else if (s.startsWith('/')) {
    prefix = '/';
    s = s.slice(1);
  }
  const out: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else if (seg === '..' && prefix) continue; // above the root is the root
    else out.push(seg);
  }
  return prefix + out.join('/');
}

/** `rel` resolved against `base` (when `rel` is not absolute already). */
export function joinPath(base: string, rel: string): string {
  return normalizePath(isAbsolutePath(rel) ? rel : trimEndChars(base, '\\/') + '/' + rel);
}

export function dirname(p: string): string {
  const s = normalizePath(p);
  const i = s.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  if (/^[A-Za-z]:$/.test(s.slice(0, i))) return s.slice(0, i + 1);
  return s.slice(0, i);
}

/** The file-system path of a `file:` URI, or undefined for other schemes. */
export function fileUriToPath(uri: string): string | undefined {
  const m = /^file:\/\/([^/]*)(\/.*)?$/i.exec(uri);
  if (!m) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(m[2] ?? '/');
  } catch {
    return undefined;
  }
  if (m[1] && m[1].toLowerCase() !== 'localhost') return '//' + m[1] + path; // UNC
  if (/^\/[A-Za-z]:/.test(path)) path = path.slice(1); // /C:/x → C:/x
  return path;
}

/** A `file:` URI for an absolute path. */
export function pathToFileUri(p: string): string {
  const s = normalizePath(p);
  if (s.startsWith('//')) {
    const [host, ...rest] = s.slice(2).split('/');
    return 'file://' + host + '/' + rest.map(encodeURIComponent).join('/');
  }
  const drive = /^([A-Za-z]:)\//.exec(s);
  if (drive) return 'file:///' + drive[1] + '/' + s.slice(3).split('/').map(encodeURIComponent).join('/');
  return 'file://' + s.split('/').map(encodeURIComponent).join('/');
}

/** True when a path holds fnmatch wildcards (httpd's Include accepts `*`, `?` and `[…]`). */
export function hasGlob(p: string): boolean {
  return /[*?[]/.test(p);
}
