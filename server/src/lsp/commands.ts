/**
 * The commands the server executes (workspace/executeCommand), as a table:
 * each entry owns its id and a handler that gets a small context instead of
 * the connection, so new commands need no change in server.ts.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { TextEdit, type WorkspaceEdit } from 'vscode-languageserver-types';
import type { Analysis, ApacheConfService } from '../service';

export interface CommandContext {
  readonly service: ApacheConfService;
  /** The open document with this uri, if any. */
  document(uri: string): TextDocument | undefined;
  /** The cached analysis of an open document's current version. */
  analysis(doc: TextDocument): Analysis;
  /** Sends workspace/applyEdit; resolves to whether the client applied it. */
  applyEdit(label: string, edit: WorkspaceEdit): Promise<boolean>;
  /** Builds the edit for one document (documentChanges with the version when the client supports them). */
  documentEdit(doc: TextDocument, edits: TextEdit[]): WorkspaceEdit;
  log(message: string): void;
}

export interface ServerCommand {
  readonly id: string;
  /** What the command does, for logs and docs. */
  readonly description: string;
  run(ctx: CommandContext, args: readonly unknown[]): Promise<unknown>;
}

export class CommandError extends Error {}

/** What `apacheconf.migrateFile` answers. */
export interface MigrateResult {
  uri: string;
  /** How many fixes the new text holds (0: nothing to change). */
  fixes: number;
  /** False when there was nothing to do or the client refused the edit. */
  applied: boolean;
}

/**
 * The document a command is about. Accepted forms: a uri string, `{ uri }`,
 * `{ textDocument: { uri } }` (VS Code, Neovim and plain JSON-RPC clients pass
 * different shapes).
 */
export function uriArgument(args: readonly unknown[]): string | undefined {
  const a = args[0];
  if (typeof a === 'string') return a;
  if (typeof a === 'object' && a !== null) {
    const o = a as { uri?: unknown; textDocument?: { uri?: unknown } };
    if (typeof o.uri === 'string') return o.uri;
    if (typeof o.textDocument?.uri === 'string') return o.textDocument.uri;
  }
  return undefined;
}

/**
 * The smallest single replacement that turns `before` into `after`: the
 * common head and tail stay untouched, so the cursor and folds outside the
 * changed lines do not move.
 */
export function minimalEdit(doc: TextDocument, after: string): TextEdit | undefined {
  const before = doc.getText();
  if (before === after) return undefined;
  let head = 0;
  const max = Math.min(before.length, after.length);
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  // Never split a CRLF pair or a surrogate pair.
  while (head > 0 && (isLowSurrogate(before.charCodeAt(head)) || (before[head] === '\n' && before[head - 1] === '\r'))) head--;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  while (tail > 0 && (isLowSurrogate(before.charCodeAt(before.length - tail)) || (before[before.length - tail] === '\n' && before[before.length - tail - 1] === '\r'))) tail--;
  return TextEdit.replace(
    { start: doc.positionAt(head), end: doc.positionAt(before.length - tail) },
    after.slice(head, after.length - tail),
  );
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

export const MIGRATE_FILE = 'apacheconf.migrateFile';

const migrateFile: ServerCommand = {
  id: MIGRATE_FILE,
  description: 'Apply every preferred (exact) fix of a document, through workspace/applyEdit.',
  async run(ctx, args) {
    const uri = uriArgument(args);
    if (!uri) throw new CommandError(`${MIGRATE_FILE} needs the document uri as its argument`);
    const doc = ctx.document(uri);
    if (!doc) throw new CommandError(`${MIGRATE_FILE}: ${uri} is not open`);
    const a = ctx.analysis(doc);
    const fixed = ctx.service.fixText({ text: doc.getText(), uri, context: a.context });
    const edit = minimalEdit(doc, fixed.text);
    const result: MigrateResult = { uri, fixes: fixed.applied, applied: false };
    if (!edit) return result;
    result.applied = await ctx.applyEdit('Migrate access control to 2.4', ctx.documentEdit(doc, [edit]));
    ctx.log(`${MIGRATE_FILE} ${uri}: ${fixed.applied} fix(es), ${result.applied ? 'applied' : 'not applied by the client'}`);
    return result;
  },
};

export const SERVER_COMMANDS: readonly ServerCommand[] = [migrateFile];

/** The ids the server announces in executeCommandProvider. */
export const SERVER_COMMAND_IDS: readonly string[] = SERVER_COMMANDS.map((c) => c.id);

export function findCommand(id: string): ServerCommand | undefined {
  return SERVER_COMMANDS.find((c) => c.id === id);
}
