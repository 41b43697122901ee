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
    assert.match(md, /\| \[`legacy-access`\]\(https:\/\/github\.com\/apacheconf\/apacheconf\/blob\/main\/README\.md#rule-legacy-access\) \| 4 \|/);
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
