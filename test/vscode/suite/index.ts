// Entry point that VS Code (or code-server) loads as extensionTestsPath: runs the mocha suite in the extension host.
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60000 });
  mocha.addFile(path.resolve(__dirname, 'extension.test.js'));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} editor test(s) failed`)) : resolve()));
  });
}
