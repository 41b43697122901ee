/**
 * Command ids of the extension, kept free of `vscode` imports so the
 * manifest test can read them under plain Node.
 */

/** Commands the client registers itself. */
export const CLIENT_COMMANDS = {
  restartServer: 'apacheconf.restartServer',
  showOutput: 'apacheconf.showOutput',
} as const;

/**
 * Commands the server executes. The language client registers them in VS
 * Code from the server's `executeCommandProvider`; the client's middleware
 * adds the active editor's document when the palette runs them without
 * arguments.
 */
export const SERVER_COMMANDS = {
  migrateFile: 'apacheconf.migrateFile',
  migrateWorkspace: 'apacheconf.migrateWorkspace',
  explainAccess: 'apacheconf.explainAccess',
  checkWithHttpd: 'apacheconf.checkWithHttpd',
} as const;

/** Every command id the extension makes available (package.json `contributes.commands` must list exactly these). */
export const ALL_COMMAND_IDS: readonly string[] = [...Object.values(CLIENT_COMMANDS), ...Object.values(SERVER_COMMANDS)];

/** Server commands that act on one document and take its uri as their first argument. */
export const DOCUMENT_COMMANDS: ReadonlySet<string> = new Set<string>([SERVER_COMMANDS.migrateFile]);

/**
 * Server commands about a configuration: their first argument is an object
 * whose optional `uri` says which one (the client fills in the active
 * editor's document when it is an Apache config).
 */
export const CONFIGURATION_COMMANDS: ReadonlySet<string> = new Set<string>([
  SERVER_COMMANDS.migrateWorkspace,
  SERVER_COMMANDS.explainAccess,
  SERVER_COMMANDS.checkWithHttpd,
]);

export const LANGUAGE_ID = 'apacheconf';
export const OUTPUT_CHANNEL_NAME = 'Apache Config';
