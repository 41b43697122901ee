/**
 * Signature help: inside a directive's arguments (or a section tag's), the
 * syntax line from the catalog, with the parameter that the argument under
 * the cursor fills. After `Require [not] provider`, the provider's own
 * arguments are shown instead.
 */
import { MarkupKind, ParameterInformation, SignatureHelp, SignatureInformation } from 'vscode-languageserver-types';
import type { ConfigDocument, Token } from '../syntax';
import { getProvider } from '../facts/providers';
import type { DirectiveFact } from '../facts/types';
import { lineAt } from './util';
import { parseSyntax, paramIndexFor } from './syntaxparams';

export interface SignatureCatalog {
  getDirective(name: string): DirectiveFact | undefined;
}

export function signatureHelpAt(doc: ConfigDocument, offset: number, catalog: SignatureCatalog): SignatureHelp | null {
  const node = lineAt(doc, offset);
  if (!node || (node.type !== 'directive' && node.type !== 'open')) return null;
  const name = node.type === 'directive' ? node.name : node.section.name;
  const args = node.type === 'directive' ? node.args : node.section.args;
  // Only past the name, and not past the end of the line (or past the `>` of a tag).
  let lineEnd = node.lineEnd;
  if (lineEnd > node.lineStart && doc.text[lineEnd - 1] === '\n') lineEnd--;
  if (lineEnd > node.lineStart && doc.text[lineEnd - 1] === '\r') lineEnd--;
  if (offset <= name.end || offset > lineEnd) return null;
  if (node.type === 'open') {
    const gt = doc.text.lastIndexOf('>', node.end - 1);
    if (gt >= name.end && offset > gt) return null;
  }
  const argIndex = argumentIndex(args, offset);

  const fact = catalog.getDirective(name.value);
  if (!fact) return null;

  if (fact.name.toLowerCase() === 'require') {
    const help = requireSignature(args, argIndex);
    if (help) return help;
  }

  const syntax = parseSyntax(fact.syntax);
  const params = syntax.params;
  const signature: SignatureInformation = {
    label: syntax.label,
    documentation: { kind: MarkupKind.Markdown, value: fact.description },
    parameters: params.map((p) => ParameterInformation.create([p.start, p.end])),
  };
  const active = paramIndexFor(params, argIndex);
  return result(signature, active);
}

/** 0-based index of the argument under (or just before) the cursor; a new one after white space. */
function argumentIndex(args: readonly Token[], offset: number): number {
  let i = 0;
  while (i < args.length && offset > args[i].end) i++;
  return i;
}

function requireSignature(args: readonly Token[], argIndex: number): SignatureHelp | null {
  const negated = args[0]?.value === 'not';
  const pi = negated ? 1 : 0;
  const provider = args[pi] ? getProvider(args[pi].value) : undefined;
  if (!provider || argIndex <= pi) return null;
  const head = `Require ${negated ? 'not ' : ''}${provider.name}`;
  const label = provider.args ? `${head} ${provider.args}` : head;
  const parsed = parseSyntax(label);
  // The provider's parameters come after "Require [not] name".
  const params = parsed.params.slice(pi + 1);
  const active = paramIndexFor(params, argIndex - pi - 1);
  const signature: SignatureInformation = {
    label,
    documentation: { kind: MarkupKind.Markdown, value: provider.description },
    parameters: params.map((p) => ParameterInformation.create([p.start, p.end])),
  };
  return result(signature, active);
}

function result(signature: SignatureInformation, active: number): SignatureHelp {
  const help: SignatureHelp = { signatures: [signature], activeSignature: 0 };
  if (active >= 0) {
    signature.activeParameter = active;
    help.activeParameter = active;
  }
  return help;
}
