// The editor's view of a workspace configuration (lsp/workspace.ts), on a temporary tree.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigWorkspace } from '../../server/src/lsp/workspace';
import { diskHost } from '../../server/src/model/disk';
import { parse } from '../../server/src/syntax';

describe('lsp workspace: files the configuration does not include', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-ws-unit-'));
    fs.mkdirSync(path.join(tmp, 'sites-enabled'));
    fs.writeFileSync(path.join(tmp, 'apache2.conf'), 'IncludeOptional sites-enabled/*.conf\n');
    fs.writeFileSync(path.join(tmp, 'sites-enabled', 'default'), '<VirtualHost *:80>\n</VirtualHost>\n');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // Each analysis of an open file outside the configuration listed the Include folders again
  // (disk work on every keystroke); they are listed once per reading of the configuration.
  it('lists the folders once per reading of the configuration, not once per analysis', () => {
    let listed = 0;
    const host = { ...diskHost, listDir: (p: string) => (listed++, diskHost.listDir(p)) };
    const ws = new ConfigWorkspace(() => true, () => {}, () => undefined, host);
    ws.setFolders([tmp]);
    const file = path.join(tmp, 'sites-enabled', 'default');
    const doc = parse(fs.readFileSync(file, 'utf8'));
    const first = ws.findingsFor(file, doc);
    assert.deepEqual(first.map((f) => f.rule), ['not-included']);
    const after1 = listed;
    for (let i = 0; i < 5; i++) assert.deepEqual(ws.findingsFor(file, parse(doc.text + `# edit ${i}\n`)).map((f) => f.rule), ['not-included']);
    assert.equal(listed, after1, 'no folder listed again');
  });
});
