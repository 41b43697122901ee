/**
 * Document symbols: the outline of a configuration file.
 *
 * Every section is a symbol named like its tag (`<VirtualHost *:443>`), so the
 * outline reads like the file. A few directives are listed under their
 * section because they name or wire things a reader looks for: where a site
 * lives and what it is called (ServerName, DocumentRoot), what else gets read
 * (Include, IncludeOptional), variables (Define), ports (Listen), URL space
 * mappings (Alias*, ScriptAlias*, ProxyPass*), rewrite maps and macro uses.
 * Rewrite rules, access rules, LoadModule and the like are left out on
 * purpose: they come by the dozen (a WordPress or Magento .htaccess has
 * scores of RewriteRule lines, a distribution httpd.conf 60 LoadModule lines)
 * and would bury the structure the outline is there to show.
 *
 * The walk is iterative, and sections nested deeper than MAX_DEPTH are listed
 * flat under their ancestor at that depth, so a pathological file cannot
 * overflow the stack here or in whatever serializes the result.
 */
import { DocumentSymbol, SymbolKind } from 'vscode-languageserver-types';
import type { ChildNode, ConfigDocument, DirectiveNode, SectionNode } from '../syntax';
import { rangeOf, wordTable } from '../syntax';
import { argsText, clip, CONDITIONAL_SECTIONS, sectionEnd } from './util';

export const MAX_SYMBOL_DEPTH = 64;

const SECTION_KINDS: Readonly<Record<string, SymbolKind | undefined>> = wordTable({
  virtualhost: SymbolKind.Namespace,
  directory: SymbolKind.Package,
  directorymatch: SymbolKind.Package,
  files: SymbolKind.File,
  filesmatch: SymbolKind.File,
  location: SymbolKind.Module,
  locationmatch: SymbolKind.Module,
  proxy: SymbolKind.Interface,
  proxymatch: SymbolKind.Interface,
  limit: SymbolKind.Struct,
  limitexcept: SymbolKind.Struct,
  requireall: SymbolKind.Operator,
  requireany: SymbolKind.Operator,
  requirenone: SymbolKind.Operator,
  macro: SymbolKind.Function,
  authnprovideralias: SymbolKind.Class,
  authzprovideralias: SymbolKind.Class,
});

/** Directives shown in the outline, with their kind. */
const NOTABLE: Readonly<Record<string, SymbolKind | undefined>> = wordTable({
  servername: SymbolKind.Property,
  documentroot: SymbolKind.Property,
  include: SymbolKind.File,
  includeoptional: SymbolKind.File,
  define: SymbolKind.Constant,
  listen: SymbolKind.Event,
  alias: SymbolKind.Field,
  aliasmatch: SymbolKind.Field,
  scriptalias: SymbolKind.Field,
  scriptaliasmatch: SymbolKind.Field,
  proxypass: SymbolKind.Field,
  proxypassmatch: SymbolKind.Field,
  rewritemap: SymbolKind.Variable,
  use: SymbolKind.Function,
});

function sectionKind(key: string): SymbolKind {
  if (CONDITIONAL_SECTIONS.has(key)) return SymbolKind.Boolean;
  return SECTION_KINDS[key] ?? SymbolKind.Object;
}

/** The names a virtual host answers to: its ServerName and ServerAlias values, also inside conditional sections. */
export function virtualHostNames(section: SectionNode): string[] {
  const names: string[] = [];
  const aliases: string[] = [];
  const stack: ChildNode[][] = [section.children];
  let budget = 10000;
  while (stack.length && budget-- > 0) {
    const list = stack.pop()!;
    for (const c of list) {
      if (c.type === 'section') {
        if (CONDITIONAL_SECTIONS.has(c.key)) stack.push(c.children);
      } else if (c.type === 'directive') {
        if (c.key === 'servername' && c.args[0]) names.push(c.args[0].value);
        else if (c.key === 'serveralias') for (const a of c.args) aliases.push(a.value);
      }
    }
  }
  return [...names, ...aliases];
}

function sectionSymbol(doc: ConfigDocument, s: SectionNode): DocumentSymbol {
  const args = argsText(s.args);
  const name = `<${clip(s.name.raw)}${args ? ' ' + args : ''}>`;
  let detail: string | undefined;
  if (s.key === 'virtualhost') {
    const names = virtualHostNames(s);
    if (names.length) detail = clip(names.join(' '), 120);
  }
  const range = rangeOf(doc, s.open.lineStart, Math.max(sectionEnd(doc, s), s.name.end));
  const selectionRange = rangeOf(doc, s.name.start, s.name.end);
  const sym: DocumentSymbol = { name, kind: sectionKind(s.key), range, selectionRange, children: [] };
  if (detail !== undefined) sym.detail = detail;
  return sym;
}

function directiveSymbol(doc: ConfigDocument, d: DirectiveNode): DocumentSymbol | undefined {
  const kind = NOTABLE[d.key];
  if (kind === undefined) return undefined;
  const first = d.args[0];
  const name = first ? `${clip(d.name.raw)} ${argsText([first], 60)}` : clip(d.name.raw);
  const rest = argsText(d.args.slice(1));
  const sym: DocumentSymbol = {
    name,
    kind,
    range: rangeOf(doc, d.lineStart, d.end),
    selectionRange: rangeOf(doc, d.name.start, first ? first.end : d.name.end),
  };
  if (rest) sym.detail = rest;
  return sym;
}

export function documentSymbols(doc: ConfigDocument): DocumentSymbol[] {
  const root: DocumentSymbol[] = [];
  // Each frame: the children still to visit, where their symbols go, and the depth of the owner.
  const stack: Array<{ nodes: ChildNode[]; i: number; out: DocumentSymbol[]; depth: number }> = [
    { nodes: doc.children, i: 0, out: root, depth: 0 },
  ];
  while (stack.length) {
    const f = stack[stack.length - 1];
    if (f.i >= f.nodes.length) {
      stack.pop();
      continue;
    }
    const c = f.nodes[f.i++];
    if (c.type === 'section') {
      const sym = sectionSymbol(doc, c);
      f.out.push(sym);
      if (f.depth + 1 < MAX_SYMBOL_DEPTH) {
        stack.push({ nodes: c.children, i: 0, out: sym.children!, depth: f.depth + 1 });
      } else {
        // Too deep: list what is inside at this same level.
        stack.push({ nodes: c.children, i: 0, out: f.out, depth: f.depth });
      }
    } else if (c.type === 'directive') {
      const sym = directiveSymbol(doc, c);
      if (sym) f.out.push(sym);
    }
  }
  return root;
}
