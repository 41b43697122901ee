// README screenshots taken from a real VS Code workbench (code-server) with the extension loaded
// from the working tree: diagnostics on a 2.2 config, the quick fix menu, a hover, the outline.
// Usage: npm run build && node --import tsx test/editors/code-server/screenshots.ts [outDir]
// (needs scripts/setup-code-server.sh; writes images/*.png by default)
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findToolchain, launchChromium, remoteUri, repoRoot, startCodeServer, workbenchUrl, type Page } from './harness';

const SAMPLE = [
  '# Intranet site, written for Apache httpd 2.2',
  'NameVirtualHost *:80',
  '<VirtualHost *:80>',
  '    ServerName intranet.example.org',
  '    DocumentRoot /srv/intranet',
  '    LockFile /var/lock/apache2/accept.lock',
  '',
  '    <Directory /srv/intranet>',
  '        Options -Indexes +FollowSymLinks',
  '        AllowOverride None',
  '        Order deny,allow',
  '        Deny from all',
  '        Allow from 10.0.0.0/8',
  '    </Directory>',
  '',
  '    <Location /server-status>',
  '        SetHandler server-status',
  '        Order allow,deny',
  '        Allow from 127.0.0.1',
  '    </Location>',
  '</VirtualHost>',
  '',
].join('\n');

const SETTINGS = {
  'workbench.colorTheme': 'Default Dark Modern',
  'editor.minimap.enabled': false,
  'editor.fontSize': 14,
  'editor.hover.delay': 200,
  'editor.stickyScroll.enabled': false,
  'window.commandCenter': false,
  'workbench.layoutControl.enabled': false,
  'workbench.editor.showTabs': 'single',
  'breadcrumbs.enabled': false,
  'explorer.openEditors.visible': 0,
  'outline.collapseItems': 'alwaysExpand',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.statusBar.visible': true,
};

const VIEWPORT = { width: 1100, height: 640 };

async function shot(page: Page, out: string, name: string): Promise<void> {
  const file = path.join(out, name);
  await page.screenshot({ path: file });
  console.log(`wrote ${file} (${fs.statSync(file).size} bytes)`);
}

/** The editor line whose text starts (after indentation) with `start`. */
function line(page: Page, start: string) {
  return page.locator('.monaco-editor .view-lines .view-line', { hasText: start }).first();
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? path.join(repoRoot, 'images'));
  const ext = path.resolve(process.env.APACHECONF_EXTENSION ?? repoRoot);
  const tc = findToolchain();
  if ('missing' in tc) throw new Error(tc.missing);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-shots-'));
  const workspace = path.join(tmp, 'intranet');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'httpd.conf'), SAMPLE);
  fs.mkdirSync(out, { recursive: true });

  // Without the smoke-test driver option the workbench ignores extensionDevelopmentPath in the payload.
  const server = await startCodeServer(tc, { settings: SETTINGS, args: ['--vscode-option', 'enable-smoke-test-driver'] });
  const browser = await launchChromium(tc);
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    page.on('pageerror', (e: Error) => console.log('page error:', e.message));
    await page.goto(workbenchUrl(server, workspace, [['extensionDevelopmentPath', remoteUri(server, ext)], ['skipWelcome', 'true']]), { timeout: 300_000 });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 300_000 });
    // A wider side bar, so the outline's entries are not cut off.
    const bar = await page.locator('.part.sidebar').first().boundingBox();
    if (bar) {
      const y = bar.y + bar.height / 2;
      await page.mouse.move(bar.x + bar.width + 1, y);
      await page.mouse.down();
      await page.mouse.move(bar.x + bar.width + 90, y, { steps: 5 });
      await page.mouse.up();
    }
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'httpd.conf' }).first().click();
    await page.waitForSelector('.monaco-editor .squiggly-warning', { state: 'attached', timeout: 300_000 });
    await page.waitForSelector('.monaco-editor .squiggly-error', { state: 'attached', timeout: 60_000 });

    // 1. Diagnostics: squiggles in the editor and the Problems panel.
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: 60_000 });
    await line(page, 'Deny from all').click();
    await shot(page, out, 'diagnostics.png');
    await page.keyboard.press('Control+J');
    await page.waitForSelector('.markers-panel', { state: 'hidden', timeout: 60_000 });

    // 2. The quick fix menu on a 2.2 access line.
    await line(page, 'Order deny,allow').click();
    await page.keyboard.press('Control+.');
    await page.waitForSelector('.action-widget .monaco-list-row', { timeout: 60_000 });
    await shot(page, out, 'quickfix.png');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.action-widget .monaco-list-row', { state: 'hidden', timeout: 60_000 });

    // 3. Hover documentation of a directive.
    const word = page.locator('.monaco-editor .view-line span', { hasText: 'AllowOverride' }).first();
    await word.hover();
    await page.waitForSelector('.monaco-hover .hover-contents', { timeout: 60_000 });
    await shot(page, out, 'hover.png');
    await page.mouse.move(5, VIEWPORT.height - 5);
    await page.keyboard.press('Escape');

    // 4. The outline of the file in the explorer.
    await page.locator('.pane-header', { hasText: 'Outline' }).first().click();
    await page.waitForSelector('.outline-pane .monaco-list-row', { timeout: 60_000 });
    await page.locator('.outline-pane .monaco-list-row', { hasText: 'Location' }).first().waitFor({ timeout: 60_000 });
    await shot(page, out, 'outline.png');
  } catch (e) {
    await page.screenshot({ path: path.join(out, 'failed.png') }).catch(() => undefined);
    throw e;
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
