/**
 * The lossless syntax tree of an httpd configuration file.
 *
 * Every node points into the original text by UTF-16 offsets (the units of
 * JavaScript strings and of LSP positions). The file is cut into logical lines
 * exactly as httpd reads it: a backslash right before the line break (an
 * optional CR between them) joins the next physical line. Each logical line
 * becomes exactly one "line node" (directive, comment, blank, section open or
 * section close tag, or a line the parser could not place), and the line nodes
 * cover the text end to end, so printing them in order gives the input back.
 */

/** One word of a logical line, as httpd's ap_getword_conf splits it. */
export interface Token {
  /** The raw text of the word as written, quotes kept, continuations removed. */
  readonly raw: string;
  /** The word as httpd sees it: quotes stripped, \" and \\ unescaped inside quotes. */
  readonly value: string;
  /** The quote character that opened the word, if any. */
  readonly quote: '"' | "'" | null;
  /** True when a quoted word has no closing quote before the end of the line. */
  readonly unterminated: boolean;
  /** Offset of the first character in the original text. */
  readonly start: number;
  /** Offset just after the last character in the original text. */
  readonly end: number;
}

/** What every line node shares: where its logical line sits in the text. */
export interface LineInfo {
  /** Offset of the first character of the logical line (leading blanks included). */
  readonly lineStart: number;
  /** Offset just after the line break that ends the logical line (or the end of the text). */
  readonly lineEnd: number;
  /** Offset of the first non-blank character. */
  readonly start: number;
  /** Offset just after the last non-blank character before the line break. */
  readonly end: number;
  /** 0-based number of the physical line where the logical line starts. */
  readonly line: number;
  /** Its index in the document's `lines` (see ConfigDocument.lineAt). */
  readonly lineIndex: number;
  /** The enclosing section, or null at the top level. */
  readonly parent: SectionNode | null;
}

export interface DirectiveNode extends LineInfo {
  readonly type: 'directive';
  readonly name: Token;
  /** The directive name in lower case, for case-insensitive lookups. */
  readonly key: string;
  readonly args: Token[];
}

export interface CommentNode extends LineInfo {
  readonly type: 'comment';
  /** The comment text as joined by httpd (continuations removed), starting with '#'. */
  readonly text: string;
}

export interface BlankNode extends LineInfo {
  readonly type: 'blank';
}

/** The opening tag of a section: `<Directory "/srv">`. */
export interface SectionOpen extends LineInfo {
  readonly type: 'open';
  readonly section: SectionNode;
}

/** The closing tag of a section: `</Directory>`. */
export interface SectionClose extends LineInfo {
  readonly type: 'close';
  /** The name written in the tag (without `</` and `>`). */
  readonly name: Token;
  /** The section it closes, or null for a stray closing tag. */
  readonly section: SectionNode | null;
}

export type LineNode = DirectiveNode | CommentNode | BlankNode | SectionOpen | SectionClose;

/** A section: `<Name args…>` … `</Name>`. */
export interface SectionNode {
  readonly type: 'section';
  /** The section name without `<` (for example `Directory`). Its range starts after `<`. */
  readonly name: Token;
  readonly key: string;
  /** The arguments before the closing `>` of the open tag. */
  readonly args: Token[];
  readonly open: SectionOpen;
  /** The closing tag; null when the section is never closed. */
  readonly close: SectionClose | null;
  /** Directives, comments, blanks and nested sections, in order. */
  readonly children: ChildNode[];
  readonly parent: SectionNode | null;
  /** Nesting depth: 1 for a top-level section. */
  readonly depth: number;
  /** The index of its opening tag in the document's `lines`. */
  readonly lineIndex: number;
  /** Its index in the document's `sections` (answers about sections can be kept in arrays by it). */
  readonly index: number;
  /**
   * The opening tag's range in the file, as `open` has it, and the file's text, read without
   * making the tag's node or splitting it into words: what a section's tag says follows from
   * `fileText.slice(openStart, openEnd)`, so answers about it can be cached by that stretch.
   */
  readonly openStart: number;
  readonly openEnd: number;
  readonly fileText: string;
  /**
   * A slot the model layer keeps an answer about the section in (model/guards.ts: which servers
   * read what it holds). Not syntax: a field, because a side table per section (a WeakMap) made
   * every keystroke of a large file pay for its insertions.
   */
  readersMemo?: unknown;
}

/** What a section or the document holds. */
export type ChildNode = DirectiveNode | CommentNode | BlankNode | SectionNode | SectionClose;

export type SyntaxErrorCode =
  | 'unclosed-section'
  | 'stray-close'
  | 'mismatched-close'
  | 'missing-gt'
  | 'empty-section-name'
  | 'unterminated-quote'
  | 'close-has-arguments'
  | 'binary'
  | 'bom';

export interface SyntaxError {
  readonly code: SyntaxErrorCode;
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

/**
 * A parsed file. The tree is kept in columns (one typed array per field of a logical line); the
 * node objects of lines are made the first time they are asked for, and the same object is
 * returned every time after (nodes may be used as keys). Code that looks at a few kinds of line in
 * a large file asks for those (directivesWithKey, lineType and lineAt) rather than for `lines`,
 * `directives` or `children`, which make a node for every line they hold.
 */
export interface ConfigDocument {
  readonly text: string;
  /** Top-level children in order. */
  readonly children: ChildNode[];
  /** Every logical line, in order; together they cover the whole text. */
  readonly lines: LineNode[];
  /** Every section in document order (pre-order). */
  readonly sections: SectionNode[];
  /** Every directive in document order. */
  readonly directives: DirectiveNode[];
  readonly errors: SyntaxError[];
  /** Offsets where each physical line starts (for offset ⇄ position). */
  readonly lineStarts: Int32Array;
  /** The number of logical lines (the length of `lines`). */
  readonly lineCount: number;
  /** The kind of logical line `i` (0-based, as in `lines`), without making its node. */
  lineType(i: number): LineNode['type'];
  /** The node of logical line `i` (`lines[i]`), made on first request. */
  lineAt(i: number): LineNode;
  /** The index of the logical line that holds `offset` (its last line for the end of the text), or -1 for an empty text. */
  lineIndexAt(offset: number): number;
  /** The directives' keys (names in lower case), each once, in the order they first appear. */
  readonly directiveKeys: readonly string[];
  /** The directives with this key, in document order (an empty list for a key the file lacks). */
  directivesWithKey(key: string): readonly DirectiveNode[];
  /** The directives with any of these keys, in document order (one list per set of keys, shared: read it, never change it). */
  directivesWithKeys(keys: readonly string[]): readonly DirectiveNode[];
  /**
   * The line indices of the directives with any of these keys, in document order: with startOf,
   * endOf, parentOf and keyOf, a rule that looks at thousands of lines and reports most of them
   * needs no node for those it only reports. The array is shared by every caller asking for the
   * same keys: read it, never change it.
   */
  linesWithKeys(keys: readonly string[]): Int32Array;
  /** LineInfo.start of line `i`, without its node. */
  startOf(i: number): number;
  /** LineInfo.end of line `i`, without its node. */
  endOf(i: number): number;
  /** LineInfo.parent of line `i`, without its node. */
  parentOf(i: number): SectionNode | null;
  /** The key of directive line `i` (DirectiveNode.key), without its node. */
  keyOf(i: number): string;
}
