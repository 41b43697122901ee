// Renders images/icon.svg to images/icon.png (128×128, transparent corners) with Debian's chromium.
// Usage: node --import tsx test/editors/code-server/render-icon.ts   (needs scripts/setup-code-server.sh)
import * as fs from 'fs';
import * as path from 'path';
import { findToolchain, launchChromium, repoRoot } from './harness';

async function main(): Promise<void> {
  const tc = findToolchain();
  if ('missing' in tc) throw new Error(tc.missing);
  const svg = fs.readFileSync(path.join(repoRoot, 'images', 'icon.svg'), 'utf8');
  const browser = await launchChromium(tc);
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
    const html = `<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`;
    await page.goto(`data:text/html;base64,${Buffer.from(html).toString('base64')}`);
    const out = path.join(repoRoot, 'images', 'icon.png');
    await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: 128, height: 128 } });
    console.log(`wrote ${path.relative(repoRoot, out)} (${fs.statSync(out).size} bytes)`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
