// The extensionTestsPath entry point: VS Code (or code-server) loads this in the extension host
// and calls run(); a rejection becomes a non-zero exit code of the test run.
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: 120_000 });
  mocha.addFile(path.resolve(__dirname, 'extension.test.js'));
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        if (failures) reject(new Error(`${failures} editor test(s) failed`));
        else if (runner.stats && runner.stats.passes === 0) reject(new Error('no editor test ran'));
        else resolve();
      });
    } catch (e) {
      reject(e);
    }
  });
}
