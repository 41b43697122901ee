/**
 * Hover: documentation for the word under the cursor.
 *
 * - A directive name, or the name in a section's opening or closing tag: the
 *   catalog's documentation (legacy directives lead with their replacement).
 * - The provider after `Require` (or `Require not`): what that provider checks.
 * - The module in `<IfModule …>` or the identifier after `LoadModule`: the module.
 * - An access section's tag (`<Directory>`, `<Location>`, `<Files>`, their
 *   *Match forms, `<VirtualHost>`): who gets in, from ./access-hover.ts
 *   (after the docs on the name, alone on the arguments).
 *
 * Every other position gives no hover. The range is the hovered word.
 */
import { MarkupKind, type Hover } from 'vscode-languageserver-types';
import type { ConfigDocument, LineNode, Token } from '../syntax';
import { rangeOf } from '../syntax';
import type { FileContext } from '../model/context';
import { directiveDocsMarkdown, getDirective, getModule, moduleDocsMarkdown } from '../facts';
import { getProvider, type ProviderFact } from '../facts/providers';
import { lineAt } from './util';
import { accessHoverMarkdown } from './access-hover';

function hover(doc: ConfigDocument, token: Token, markdown: string): Hover {
  return { contents: { kind: MarkupKind.Markdown, value: markdown }, range: rangeOf(doc, token.start, token.end) };
}

/** The word of `tokens` under `offset`: one containing it, else one ending right there. */
function tokenAt(tokens: readonly Token[], offset: number): Token | undefined {
  return tokens.find((t) => t.start <= offset && offset < t.end) ?? tokens.find((t) => t.end === offset && t.end > t.start);
}

function providerMarkdown(p: ProviderFact, negated: boolean): string {
  const parts: string[] = [];
  parts.push(`**Require ${p.name}** — authorization provider of \`${p.module}\``);
  parts.push('```apacheconf\nRequire ' + (negated ? 'not ' : '') + p.name + (p.args ? ' ' + p.args : '') + '\n```');
  parts.push(p.description);
  if (negated) parts.push('With `not` the line can only refuse: it fails for the clients the provider matches and is neutral for the rest. httpd refuses it directly in a `<RequireAny>` (which plain Require lines form), so put it in a `<RequireAll>` next to a line that grants.');
  parts.push(`[Require ${p.name} in the httpd 2.4 manual](${p.url})`);
  return parts.join('\n\n');
}

function moduleHover(doc: ConfigDocument, token: Token, name: string): Hover | null {
  const m = getModule(name);
  return m ? hover(doc, token, moduleDocsMarkdown(m)) : null;
}

function hoverOnLine(doc: ConfigDocument, node: LineNode, offset: number, context: FileContext): Hover | null {
  switch (node.type) {
    case 'directive': {
      const token = tokenAt([node.name, ...node.args], offset);
      if (!token) return null;
      if (token === node.name) {
        const fact = getDirective(token.value);
        return fact ? hover(doc, token, directiveDocsMarkdown(fact)) : null;
      }
      if (node.key === 'require') {
        const negated = node.args.length > 0 && node.args[0].value.toLowerCase() === 'not';
        const providerToken = negated ? node.args[1] : node.args[0];
        if (token !== providerToken) return null;
        const p = getProvider(token.value);
        return p ? hover(doc, token, providerMarkdown(p, negated)) : null;
      }
      if (node.key === 'loadmodule' && token === node.args[0]) return moduleHover(doc, token, token.value);
      return null;
    }
    case 'open': {
      const s = node.section;
      const token = tokenAt([s.name, ...s.args], offset);
      if (!token) return null;
      if (token === s.name) {
        const fact = getDirective(token.value);
        const access = accessHoverMarkdown(doc, s, context);
        const parts = [fact ? directiveDocsMarkdown(fact) : null, access].filter((x): x is string => !!x);
        return parts.length ? hover(doc, token, parts.join('\n\n---\n\n')) : null;
      }
      if (s.key === 'ifmodule' && token === s.args[0]) return moduleHover(doc, token, token.value.replace(/^!/, ''));
      // The section's arguments (its path or pattern): who gets in, when it is an access section.
      const access = accessHoverMarkdown(doc, s, context);
      return access ? hover(doc, token, access) : null;
    }
    case 'close': {
      const token = tokenAt([node.name], offset);
      if (!token) return null;
      const fact = getDirective(token.value);
      return fact ? hover(doc, token, directiveDocsMarkdown(fact)) : null;
    }
    default:
      return null;
  }
}

export function hoverAt(doc: ConfigDocument, offset: number, context: FileContext): Hover | null {
  const node = lineAt(doc, offset);
  if (!node || offset < node.start || offset > node.end) return null;
  return hoverOnLine(doc, node, offset, context);
}
