// Packages the extension with vsce (offline, --no-dependencies) and checks what goes into the .vsix:
// the bundles, grammar, language configuration, manifest, README, LICENSE and icon, and nothing
// else (no sources, no tests, no node_modules, no source maps), under 1 MB.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..');
const MAX_BYTES = 1024 * 1024;

/** The names stored in a zip file, read from its central directory. */
function zipEntries(buf: Buffer): string[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry at ${at}`);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    names.push(buf.toString('utf8', at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

describe('the .vsix package', function () {
  this.timeout(300_000);
  let tmp: string;
  let vsix: string;
  let files: string[];
  let manifest: { icon?: string; main?: string; contributes?: { grammars?: { path: string }[]; languages?: { configuration?: string }[] } };

  before(() => {
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    // vsce runs the manifest's vscode:prepublish (a production build) if there is one; without it,
    // dist/ is packaged as it is, so build it when an earlier step (npm test's build) has not.
    const bundles = ['dist/extension.js', 'dist/server.js'];
    if (!bundles.every((b) => fs.existsSync(path.join(root, b)))) {
      execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-vsix-'));
    vsix = path.join(tmp, 'apacheconf.vsix');
    const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    files = zipEntries(fs.readFileSync(vsix))
      .filter((f) => f.startsWith('extension/'))
      .map((f) => f.slice('extension/'.length));
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const has = (f: string) => files.includes(f);

  it('holds the manifest, README and license', () => {
    assert.ok(has('package.json'), `package.json in ${files.join(', ')}`);
    // vsce stores the README as readme.md and a bare LICENSE as LICENSE.txt.
    assert.ok(files.some((f) => /^readme\.md$/i.test(f)), `a README in ${files.join(', ')}`);
    assert.ok(files.some((f) => /^license(\.txt|\.md)?$/i.test(f)), `a LICENSE in ${files.join(', ')}`);
  });

  it('holds the bundles the manifest points at', () => {
    assert.ok(manifest.main, 'package.json has main');
    assert.ok(has(path.posix.normalize(manifest.main)), `${manifest.main} in ${files.join(', ')}`);
    assert.ok(has('dist/server.js'), 'the language server bundle');
  });

  it('holds the grammar and language configuration the manifest contributes', () => {
    const grammars = manifest.contributes?.grammars ?? [];
    const configs = (manifest.contributes?.languages ?? []).map((l) => l.configuration).filter((c): c is string => !!c);
    assert.ok(grammars.length > 0, 'package.json contributes a grammar');
    assert.ok(configs.length > 0, 'package.json contributes a language configuration');
    for (const p of [...grammars.map((g) => g.path), ...configs]) assert.ok(has(path.posix.normalize(p)), `${p} in ${files.join(', ')}`);
    assert.ok(has('language-configuration.json'));
  });

  it('holds the icon the manifest names', () => {
    assert.ok(manifest.icon, 'package.json has icon');
    assert.ok(has(path.posix.normalize(manifest.icon)), `${manifest.icon} in ${files.join(', ')}`);
    assert.match(manifest.icon, /\.png$/, 'the marketplace wants a PNG icon');
  });

  const forbidden: Array<[string, RegExp]> = [
    ['node_modules', /(^|\/)node_modules\//],
    ['server sources', /^server\/src\//],
    ['client sources', /^client\/src\//],
    ['tests', /^(test|out)\//],
    ['scripts', /^scripts\//],
    ['TypeScript sources', /\.ts$/],
    ['source maps', /\.map$/],
    ['build and CI files', /^(\.ci\/|\.github\/|tsconfig|\.mocharc|package-lock\.json$)/],
    ['README screenshots (the marketplace loads them from the repository)', /^images\/(?!icon\.png$)/],
  ];
  for (const [what, re] of forbidden) {
    it(`leaves out ${what}`, () => {
      assert.deepStrictEqual(files.filter((f) => re.test(f)), []);
    });
  }

  it('stays under 1 MB', () => {
    const size = fs.statSync(vsix).size;
    assert.ok(size < MAX_BYTES, `${size} bytes`);
  });
});
