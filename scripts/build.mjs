// One build script for the three bundles: the VS Code client, the language
// server (IPC for VS Code, --stdio for other editors) and the CLI.
// Usage: node scripts/build.mjs [--watch] [--production]
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

const tests = process.argv.includes('--tests');

const targets = [
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { entryPoints: ['server/src/lsp/main.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];

if (tests) {
  // The editor suite, run inside VS Code or code-server; mocha stays external (loaded from node_modules).
  targets.push(
    { entryPoints: ['test/vscode/suite/index.ts'], outfile: 'out/test/vscode/suite/index.js', external: ['vscode', 'mocha'] },
    { entryPoints: ['test/vscode/suite/extension.test.ts'], outfile: 'out/test/vscode/suite/extension.test.js', external: ['vscode', 'mocha'] },
  );
}

if (process.argv.includes('--bench')) {
  // The benchmark measures the code as it ships: bundled by the same esbuild options, not run through tsx.
  targets.push({ entryPoints: ['bench/run.ts'], outfile: 'out/bench/run.js' });
}

if (watch) {
  for (const t of targets) {
    const ctx = await esbuild.context({ ...common, ...t });
    await ctx.watch();
  }
  console.log('watching for changes…');
} else {
  await Promise.all(targets.map((t) => esbuild.build({ ...common, ...t })));
}
