/**
 * A copy of `s` that keeps nothing else alive. V8 makes a substring of 13 characters or more a
 * view into the string it was cut from, so a name or word of a document kept in a long-lived
 * cache keeps that whole version of the document in memory, and an editor that checks a file on
 * every keystroke adds a version per keystroke. Caches that outlive a document store their keys
 * (and any text in their values) through this.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * A constant table looked up by words from a user's file (directive and section names, module
 * ids). It has no prototype, so a word such as `constructor` or `__proto__` finds nothing instead
 * of one of Object's own members.
 */
export function wordTable<T>(entries: Record<string, T>): Readonly<Record<string, T | undefined>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/**
 * `s` without the characters of `chars` at its end. A loop, not `/\/+$/`: V8 tries such a pattern
 * at every position of a run of those characters that does not end the string, which is time
 * quadratic in the run (a 200 KB path of slashes took 39 s).
 */
export function trimEndChars(s: string, chars: string): string {
  let e = s.length;
  while (e > 0 && chars.includes(s[e - 1])) e--;
  return e === s.length ? s : s.slice(0, e);
}
