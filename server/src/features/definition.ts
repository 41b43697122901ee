/**
 * Go to definition and find references for the two kinds of names an httpd
 * config defines itself:
 *
 * - `Define NAME [value]` and its uses `${NAME}` (and `<IfDefine NAME>`);
 * - `<Macro Name $a @b>` (mod_macro) and its uses `Use Name …`, plus the
 *   macro's parameters used inside its body.
 *
 * Other documents (files of the same configuration, found through includes)
 * may be passed in; results carry the uri of the document they are in.
 * Defines are case-sensitive in httpd; macro names are not.
 */
import type { ConfigDocument, DirectiveNode, SectionNode, Token } from '../syntax';

export interface NamedDoc {
  uri: string;
  doc: ConfigDocument;
}

export interface Place {
  uri: string;
  start: number;
  end: number;
}

type Target =
  | { kind: 'define'; name: string }
  | { kind: 'macro'; name: string }
  | { kind: 'param'; name: string; macro: SectionNode };

/** Every token of a document with the directive or section that holds it. */
function* tokens(doc: ConfigDocument): Generator<{ token: Token; owner: DirectiveNode | SectionNode; isName: boolean; index: number }> {
  for (let ix = 0; ix < doc.lines.length; ix++) {
    const line = doc.lines[ix];
    if (line.type === 'directive') {
      yield { token: line.name, owner: line, isName: true, index: -1 };
      for (let i = 0; i < line.args.length; i++) yield { token: line.args[i], owner: line, isName: false, index: i };
    } else if (line.type === 'open') {
      yield { token: line.section.name, owner: line.section, isName: true, index: -1 };
      for (let i = 0; i < line.section.args.length; i++) yield { token: line.section.args[i], owner: line.section, isName: false, index: i };
    }
  }
}

/** `${NAME}` occurrences inside a token's raw text, as absolute ranges of NAME. */
function varUses(t: Token): Array<{ name: string; start: number; end: number }> {
  const out: Array<{ name: string; start: number; end: number }> = [];
  // Continuations inside a token would shift offsets; tokens rarely span them, and then raw ≠ source length.
  if (t.end - t.start !== t.raw.length) return out;
  // The pattern takes time quadratic in a run of `${` without `}`: an absurdly long word is skipped.
  if (t.raw.length > 4096) return out;
  const re = /\$\{([^}\s]+)\}/g;
  for (let m = re.exec(t.raw); m; m = re.exec(t.raw)) {
    const start = t.start + m.index + 2;
    out.push({ name: m[1], start, end: start + m[1].length });
  }
  return out;
}

function enclosingMacro(node: { parent: SectionNode | null }): SectionNode | null {
  for (let p = node.parent; p; p = p.parent) if (p.key === 'macro') return p;
  return null;
}

/** What the name under the cursor refers to, and the exact range of the name. */
function targetAt(doc: ConfigDocument, offset: number): { target: Target; start: number; end: number } | null {
  for (const { token, owner, isName, index } of tokens(doc)) {
    if (offset < token.start || offset > token.end) continue;
    for (const u of varUses(token)) {
      if (offset >= u.start - 2 && offset <= u.end + 1) {
        const macro = owner.type === 'directive' ? enclosingMacro(owner) : enclosingMacro(owner);
        const param = macro && macroParams(macro).find((p) => p.value === '${' + u.name + '}' || p.value === '$' + u.name);
        if (macro && param) return { target: { kind: 'param', name: param.value, macro }, start: u.start, end: u.end };
        return { target: { kind: 'define', name: u.name }, start: u.start, end: u.end };
      }
    }
    if (isName) continue;
    if (owner.type === 'directive') {
      if ((owner.key === 'define' || owner.key === 'undefine') && index === 0) return { target: { kind: 'define', name: token.value }, start: token.start, end: token.end };
      if (owner.key === 'use' && index === 0) return { target: { kind: 'macro', name: token.value.toLowerCase() }, start: token.start, end: token.end };
      const macro = enclosingMacro(owner);
      if (macro) {
        const p = macroParams(macro).find((x) => x.value === token.value);
        if (p) return { target: { kind: 'param', name: p.value, macro }, start: token.start, end: token.end };
      }
    } else {
      if (owner.key === 'macro' && index === 0) return { target: { kind: 'macro', name: token.value.toLowerCase() }, start: token.start, end: token.end };
      if (owner.key === 'macro' && index > 0) return { target: { kind: 'param', name: token.value, macro: owner }, start: token.start, end: token.end };
      if (owner.key === 'ifdefine' && index === 0) {
        const name = token.value.replace(/^!/, '');
        const start = token.end - name.length - (token.quote ? 1 : 0);
        return { target: { kind: 'define', name }, start, end: start + name.length };
      }
    }
  }
  return null;
}

function macroParams(macro: SectionNode): Token[] {
  return macro.args.slice(1);
}

function definitions(target: Target, docs: NamedDoc[]): Place[] {
  const out: Place[] = [];
  if (target.kind === 'param') {
    const uri = docs[0].uri;
    const p = macroParams(target.macro).find((x) => x.value === target.name);
    if (p) out.push({ uri, start: p.start, end: p.end });
    return out;
  }
  for (const { uri, doc } of docs) {
    if (target.kind === 'define') {
      for (const d of doc.directives) if (d.key === 'define' && d.args[0]?.value === target.name) out.push({ uri, start: d.args[0].start, end: d.args[0].end });
    } else {
      for (const s of doc.sections) if (s.key === 'macro' && s.args[0]?.value.toLowerCase() === target.name) out.push({ uri, start: s.args[0].start, end: s.args[0].end });
    }
  }
  return out;
}

function references(target: Target, docs: NamedDoc[]): Place[] {
  const out: Place[] = [];
  const list = target.kind === 'param' ? docs.slice(0, 1) : docs;
  for (const { uri, doc } of list) {
    for (const { token, owner, isName, index } of tokens(doc)) {
      if (target.kind === 'define') {
        for (const u of varUses(token)) if (u.name === target.name) out.push({ uri, start: u.start, end: u.end });
        if (!isName && owner.type === 'section' && owner.key === 'ifdefine' && index === 0 && token.value.replace(/^!/, '') === target.name) {
          const start = token.end - target.name.length - (token.quote ? 1 : 0);
          out.push({ uri, start, end: start + target.name.length });
        }
      } else if (target.kind === 'macro') {
        if (!isName && owner.type === 'directive' && owner.key === 'use' && index === 0 && token.value.toLowerCase() === target.name) out.push({ uri, start: token.start, end: token.end });
      } else {
        const inside = owner.type === 'directive' ? enclosingMacro(owner) === target.macro : owner !== target.macro && enclosingMacro(owner) === target.macro;
        if (!inside) continue;
        const bare = target.name.startsWith('$') ? target.name.slice(1) : null;
        if (bare) for (const u of varUses(token)) if (u.name === bare) out.push({ uri, start: u.start, end: u.end });
        if (token.value === target.name) out.push({ uri, start: token.start, end: token.end });
        else if (bare && token.raw.includes('${' + bare + '}')) continue;
        else if (token.raw.includes(target.name) && token.end - token.start === token.raw.length) {
          let i = token.raw.indexOf(target.name);
          while (i >= 0) {
            out.push({ uri, start: token.start + i, end: token.start + i + target.name.length });
            i = token.raw.indexOf(target.name, i + target.name.length);
          }
        }
      }
    }
  }
  return out;
}

/** Where the name at `offset` is defined. `docs[0]` is the document the cursor is in. */
export function definitionAt(docs: NamedDoc[], offset: number): Place[] {
  if (!docs.length) return [];
  const hit = targetAt(docs[0].doc, offset);
  return hit ? definitions(hit.target, docs) : [];
}

/** Every use of the name at `offset` (and its definitions when `includeDeclaration`). */
export function referencesAt(docs: NamedDoc[], offset: number, includeDeclaration = true): Place[] {
  if (!docs.length) return [];
  const hit = targetAt(docs[0].doc, offset);
  if (!hit) return [];
  const defs = includeDeclaration ? definitions(hit.target, docs) : [];
  const uses = references(hit.target, docs);
  const seen = new Set<string>();
  return [...defs, ...uses].filter((p) => {
    const k = `${p.uri}:${p.start}:${p.end}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
