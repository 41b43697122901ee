/**
 * Loads syntaxes/apacheconf.tmLanguage.json into the TextMate engine VS Code
 * uses (vscode-textmate with the Oniguruma WebAssembly build), taken from the
 * dependencies of vscode-tmgrammar-test so that both runners use one engine.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const root = path.resolve(__dirname, '../..');
export const grammarPath = path.join(root, 'syntaxes', 'apacheconf.tmLanguage.json');
export const toolDir = path.dirname(require.resolve('vscode-tmgrammar-test/package.json', { paths: [root] }));

/** require() a package as vscode-tmgrammar-test sees it. */
export function requireFromTool<T>(name: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(require.resolve(name, { paths: [toolDir] })) as T;
}

export interface OnigScanner {
  findNextMatchSync(text: string, start: number): unknown;
  dispose?(): void;
}

interface Oniguruma {
  loadWASM(data: ArrayBuffer): Promise<void>;
  OnigScanner: new (patterns: string[]) => OnigScanner;
  OnigString: new (text: string) => unknown;
}

export interface LineToken {
  startIndex: number;
  endIndex: number;
  scopes: string[];
}

interface TokenizeResult {
  tokens: LineToken[];
  ruleStack: unknown;
}

export interface Grammar {
  tokenizeLine(line: string, state: unknown): TokenizeResult;
}

interface TextMate {
  INITIAL: unknown;
  Registry: new (options: {
    onigLib: Promise<unknown>;
    loadGrammar(scope: string): Promise<unknown>;
  }) => { loadGrammar(scope: string): Promise<Grammar | null> };
  parseRawGrammar(content: string, filePath: string): unknown;
}

let onig: Promise<Oniguruma> | undefined;

/** The Oniguruma engine, initialised once. */
export function oniguruma(): Promise<Oniguruma> {
  if (!onig) {
    const lib = requireFromTool<Oniguruma>('vscode-oniguruma');
    const wasm = fs.readFileSync(path.join(path.dirname(require.resolve('vscode-oniguruma', { paths: [toolDir] })), 'onig.wasm'));
    onig = lib.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength)).then(() => lib);
  }
  return onig;
}

/** The grammar as VS Code would load it (from a file path, so tests may pass a modified copy). */
export async function loadGrammar(file = grammarPath): Promise<{ grammar: Grammar; initial: unknown }> {
  const tm = requireFromTool<TextMate>('vscode-textmate');
  const lib = await oniguruma();
  const registry = new tm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new lib.OnigScanner(patterns),
      createOnigString: (s: string) => new lib.OnigString(s),
    }),
    loadGrammar: async (scope: string) =>
      scope === 'source.apacheconf' ? tm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null,
  });
  const grammar = await registry.loadGrammar('source.apacheconf');
  if (!grammar) throw new Error(`could not load ${file}`);
  return { grammar, initial: tm.INITIAL };
}

/** Tokenizes physical lines in order, carrying the rule stack from line to line. */
export function tokenizeLines(g: { grammar: Grammar; initial: unknown }, lines: readonly string[]): LineToken[][] {
  let state = g.initial;
  return lines.map((line) => {
    const r = g.grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens;
  });
}

/** The scopes of the token that covers column `col`. */
export function scopesAt(tokens: readonly LineToken[], col: number): string[] {
  const t = tokens.find((x) => x.startIndex <= col && col < x.endIndex);
  return t ? t.scopes : [];
}
