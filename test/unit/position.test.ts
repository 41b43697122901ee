// Offsets and LSP positions (syntax/position.ts): lines as the client counts them (LF, CRLF and a
// lone CR end a line), and a character past a line's end meaning the end of that line's text.
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { offsetAt, parse, positionAt } from '../../server/src/syntax';

describe('positions', () => {
  const texts: Array<[string, string]> = [
    ['LF', 'Listen 80\nServerName x\n'],
    ['CRLF', 'Listen 80\r\nServerName x\r\n'],
    ['lone CR', 'Listen 80\rServerName x\r'],
    ['mixed, no final break', 'Listen 80\r\n\rServerName x\nA'],
    ['empty', ''],
  ];
  for (const [name, text] of texts) {
    it(`${name}: every position maps as the client's own text document maps it, past the line's end too`, () => {
      const doc = parse(text);
      const client = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
      for (let line = -1; line <= client.lineCount + 1; line++) {
        for (let character = 0; character <= 16; character++) {
          const pos = { line, character };
          assert.equal(offsetAt(doc, pos), client.offsetAt(pos), `${JSON.stringify(text)} ${line}:${character}`);
        }
      }
      for (let o = 0; o <= text.length; o++) assert.deepEqual(positionAt(doc, o), client.positionAt(o), `${JSON.stringify(text)} offset ${o}`);
    });
  }
});
