/**
 * The Node flags the extension starts the language server with.
 *
 * On every change of a file of thousands of lines the server builds a new tree and new findings
 * (tens of thousands of objects) that live until the next change. With V8's default young
 * generation most of them are copied at almost every scavenge; semi-spaces of 32 MB make those
 * collections rarer (the bench's 10,000-line file: didChange → publishDiagnostics went from a
 * median of about 28 ms to about 22 ms), for up to about 64 MB more resident memory while busy.
 * Other editors can start `node` with the same flags (see the README); the bench measures the
 * server both ways.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
