import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkFilesParallel } from '../../server/src/cli/parallel';
import { formatHtml, formatMarkdown, summarize, type ReportFile } from '../../server/src/cli/upgrade-report';

const FILES: Record<string, string> = {
  'apache2.conf': 'NameVirtualHost *:80\nMaxClients 150\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n',
  'sites/one.conf': '<Directory /srv/a>\n  Order allow,deny\n  Allow from all\n</Directory>\n<Directory /srv/a/b>\n  Require valid-user\n</Directory>\n',
  'clean.conf': 'ServerName example.org\n',
};

describe('cli: the upgrade report', () => {
  let dir: string;
  let files: ReportFile[];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-report-'));
    for (const [rel, text] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    const jobs = Object.keys(FILES).sort().map((rel) => ({ path: rel, absolute: path.join(dir, rel), context: 'server' as const }));
    jobs.push({ path: 'missing.conf', absolute: path.join(dir, 'missing.conf'), context: 'server' });
    files = await checkFilesParallel(jobs);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('summarizes per rule, exact fixes and what needs a human', () => {
    const s = summarize(files);
    assert.equal(s.files, 4);
    assert.equal(s.unreadable, 1);
    const byRule = Object.fromEntries(s.byRule.map((r) => [r.rule, r]));
    assert.equal(byRule['obsolete-directive'].exact, 1);
    assert.equal(byRule['renamed-directive'].exact, 1);
    assert.equal(byRule['legacy-access'].total, 4);
    // <Directory /> deny all is exact; /srv/a has a later Require section under it, which the engine must handle or refuse.
    assert.ok(byRule['legacy-access'].exact >= 2);
    assert.equal(s.exact + s.manual <= files.flatMap((f) => f.findings).length, true);
  });

  it('markdown: totals, a table per rule, a section per file, the human list', () => {
    const md = formatMarkdown(files);
    assert.match(md, /^# httpd 2\.2 → 2\.4 upgrade report/);
    assert.match(md, /4 files checked, 2 with findings, 1 could not be read\./);
    assert.match(md, /\| \[`legacy-access`\]\(https:\/\/github\.com\/apacheconf\/apacheconf#rule-legacy-access\) \| 4 \|/);
    assert.match(md, /### `apache2\.conf`/);
    assert.match(md, /### `missing\.conf`\n\nContext: server\. Could not be read: ENOENT\./);
    assert.doesNotMatch(md, /### `clean\.conf`/);
  });

  it('html: one self-contained page', () => {
    const html = formatHtml(files);
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|<link|src=/);
    assert.match(html, /<code>apache2\.conf<\/code>/);
    assert.ok(!html.includes('<Directory />'), 'config text is escaped');
  });
});

import { spawnSync } from 'node:child_process';
import { runCli } from '../../server/src/cli/cli';

function capture(): { io: { stdout: { write(s: string | Uint8Array): boolean }; stderr: { write(s: string | Uint8Array): boolean }; cwd: string }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const w = (add: (s: string) => void) => ({ write: (s: string | Uint8Array) => (add(typeof s === 'string' ? s : Buffer.from(s).toString()), true) });
  return { io: { stdout: w((s) => (out += s)), stderr: w((s) => (err += s)), cwd: process.cwd() }, out: () => out, err: () => err };
}

describe('cli: check --report and --root', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-root-'));
    fs.mkdirSync(path.join(dir, 'sites'));
    fs.writeFileSync(path.join(dir, 'httpd.conf'), 'ServerRoot "' + dir + '"\nLoadModule mpm_event_module modules/mod_mpm_event.so\nLoadModule authz_core_module modules/mod_authz_core.so\n<VirtualHost *:80>\n  Include sites/body.conf\n</VirtualHost>\n');
    fs.writeFileSync(path.join(dir, 'sites', 'body.conf'), 'ServerName a.example\nRewriteEngine On\n<Directory /srv>\n  Order deny,allow\n  Deny from all\n</Directory>\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--root follows includes, gives the included file its context and checks the whole configuration', async () => {
    const c = capture();
    c.io.cwd = dir;
    const code = await runCli(['check', '--root', 'httpd.conf', '--format', 'json'], c.io);
    assert.equal(code, 1, c.err());
    const json = JSON.parse(c.out()) as { files: Array<{ path: string; context: string; diagnostics: Array<{ code: string; message: string }> }> };
    const body = json.files.find((f) => f.path.endsWith('body.conf'))!;
    assert.equal(body.context, 'vhost');
    assert.ok(body.diagnostics.some((d) => d.code === 'module-not-loaded' && /RewriteEngine/.test(d.message)), JSON.stringify(body.diagnostics));
    assert.ok(body.diagnostics.some((d) => d.code === 'legacy-access'));
  });

  it('--report prints Markdown by default and HTML on request; other formats are a usage error', async () => {
    const md = capture();
    assert.equal(await runCli(['check', '--report', '--exit-zero', dir], md.io), 0);
    assert.match(md.out(), /^# httpd 2\.2 → 2\.4 upgrade report/);
    const html = capture();
    await runCli(['check', '--report', '--format', 'html', dir], html.io);
    assert.match(html.out(), /^<!doctype html>/);
    const bad = capture();
    assert.equal(await runCli(['check', '--report', '--format', 'sarif', dir], bad.io), 2);
  });

  it('the bundled CLI checks a large tree on worker threads with the same result', function () {
    this.timeout(120_000);
    const cli = path.resolve(__dirname, '../../dist/cli.js');
    if (!fs.existsSync(cli)) this.skip();
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-tree-'));
    try {
      for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(tree, `site${String(i).padStart(3, '0')}.conf`), `<Directory /srv/s${i}>\n  Order allow,deny\n  Allow from all\n</Directory>\nMaxClients ${i + 1}\n`);
      const r = spawnSync(process.execPath, [cli, 'check', '--report', '--exit-zero', tree], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /150 files checked, 150 with findings\./);
      assert.match(r.stdout, /\| \[`legacy-access`\][^|]*\| 300 \| 300 \| 0 \|/);
      assert.match(r.stdout, /\| \[`renamed-directive`\][^|]*\| 150 \| 150 \| 0 \|/);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});
