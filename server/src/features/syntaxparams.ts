/**
 * Reading the manual's syntax lines ("Require [not] entity-name [entity-name] ...",
 * "AuthMerging Off | And | Or", "<Directory directory-path> ... </Directory>")
 * into parameters: good enough for signature help and for value completion,
 * not a grammar.
 */

export interface SyntaxParam {
  /** The parameter as written in the syntax line, e.g. "[entity-name]". */
  label: string;
  /** Offsets of `label` in the syntax line. */
  start: number;
  end: number;
  /** Written in brackets as a whole: `[not]`. */
  optional: boolean;
  /** Followed by `...` (or holds one inside its brackets): it may repeat. */
  repeat: boolean;
  /** For `A|B|C` forms of plain words: the words. */
  alternatives?: string[];
}

export interface ParsedSyntax {
  /** The syntax line, trimmed. */
  label: string;
  /** The directive name as the syntax writes it (without `<`). */
  name: string;
  /** True for `<Name …>` container syntax. */
  section: boolean;
  params: SyntaxParam[];
}

/** Offset of the bracket matching the one at `i` (or -1). */
function matching(s: string, i: number): number {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    if (s[k] === '[') depth++;
    else if (s[k] === ']' && --depth === 0) return k;
  }
  return -1;
}

export function parseSyntax(syntax: string): ParsedSyntax {
  const label = syntax.trim();
  const section = label.startsWith('<');
  let i = section ? 1 : 0;
  while (i < label.length && !/[\s>]/.test(label[i])) i++;
  const name = label.slice(section ? 1 : 0, i);
  let end = label.length;
  if (section) {
    // Parameters end at the `>` of the open tag (outside brackets).
    let depth = 0;
    for (let k = i; k < label.length; k++) {
      if (label[k] === '[') depth++;
      else if (label[k] === ']') depth--;
      else if (label[k] === '>' && depth <= 0) {
        end = k;
        break;
      }
    }
  }

  // Words at bracket depth 0.
  const words: Array<{ start: number; end: number }> = [];
  let k = i;
  while (k < end) {
    while (k < end && /\s/.test(label[k])) k++;
    if (k >= end) break;
    const start = k;
    let depth = 0;
    while (k < end && (depth > 0 || !/\s/.test(label[k]))) {
      if (label[k] === '[') depth++;
      else if (label[k] === ']') depth = Math.max(0, depth - 1);
      k++;
    }
    words.push({ start, end: k });
  }

  // Join `A | B | C` into one word; `...` marks the word before it as repeating.
  const params: SyntaxParam[] = [];
  for (let w = 0; w < words.length; w++) {
    const text = label.slice(words[w].start, words[w].end);
    if (text === '...' || text === '…') {
      if (params.length) params[params.length - 1].repeat = true;
      continue;
    }
    const last = params[params.length - 1];
    if (text === '|' && last && w + 1 < words.length) {
      last.end = words[++w].end;
      last.label = label.slice(last.start, last.end);
      continue;
    }
    if (last && (text.startsWith('|') || last.label.endsWith('|'))) {
      last.end = words[w].end;
      last.label = label.slice(last.start, last.end);
      continue;
    }
    params.push({ label: text, start: words[w].start, end: words[w].end, optional: false, repeat: false });
  }
  for (const p of params) {
    p.optional = p.label.startsWith('[') && matching(p.label, 0) === p.label.length - 1;
    if (/\.\.\.|…/.test(p.label)) p.repeat = true;
    const inner = p.optional ? p.label.slice(1, -1) : p.label;
    const alts = inner.split('|').map((a) => a.trim());
    if (alts.length >= 2 && alts.every((a) => /^[A-Za-z0-9][\w.+*-]*$/.test(a))) p.alternatives = alts;
  }
  return { label, name, section, params };
}

/**
 * The parameter that argument `argIndex` (0-based) fills: by position, the
 * repeating one past the end; past the end of a syntax with no repeat, the
 * last one (or -1 when `strict`).
 */
export function paramIndexFor(params: readonly SyntaxParam[], argIndex: number, strict = false): number {
  if (!params.length) return -1;
  if (argIndex < params.length) return argIndex;
  for (let i = params.length - 1; i >= 0; i--) if (params[i].repeat) return i;
  return strict ? -1 : params.length - 1;
}
