/**
 * The upgrade report of `apacheconf check --report`: what a whole tree needs
 * for httpd 2.4, per file and per rule, which findings have an exact fix
 * (`apacheconf fix` applies them) and which need a human, and why. Markdown
 * by default, or one self-contained HTML page. Pure formatting: the caller
 * gathers the summaries (in parallel, see parallel.ts).
 */
import type { Severity } from '../rules/types';
import { ruleDocsUrl } from '../rules/docs';

/** One finding, reduced to what the report needs (small, so that 10,000 files fit in memory). */
export interface ReportFinding {
  rule: string;
  severity: Severity;
  /** 1-based line. */
  line: number;
  message: string;
  /** The title of the preferred (exact) fix, when there is one. */
  exactFix?: string;
}

export interface ReportFile {
  path: string;
  context: string;
  findings: ReportFinding[];
  /** Set when the file could not be read or decoded. */
  error?: string;
}

export interface ReportSummary {
  files: number;
  filesWithFindings: number;
  unreadable: number;
  bySeverity: Record<Severity, number>;
  byRule: Array<{ rule: string; total: number; exact: number; manual: number }>;
  exact: number;
  manual: number;
}

const SEVERITIES: Severity[] = ['error', 'warning', 'information', 'hint'];

export function summarize(files: readonly ReportFile[]): ReportSummary {
  const bySeverity: Record<Severity, number> = { error: 0, warning: 0, information: 0, hint: 0 };
  const rules = new Map<string, { total: number; exact: number; manual: number }>();
  let exact = 0;
  let manual = 0;
  let withFindings = 0;
  let unreadable = 0;
  for (const f of files) {
    if (f.error) unreadable++;
    if (f.findings.length) withFindings++;
    for (const x of f.findings) {
      bySeverity[x.severity]++;
      let r = rules.get(x.rule);
      if (!r) rules.set(x.rule, (r = { total: 0, exact: 0, manual: 0 }));
      r.total++;
      if (x.exactFix) {
        r.exact++;
        exact++;
      } else if (x.severity === 'error' || x.severity === 'warning') {
        r.manual++;
        manual++;
      }
    }
  }
  const byRule = [...rules.entries()].map(([rule, v]) => ({ rule, ...v })).sort((a, b) => b.total - a.total || (a.rule < b.rule ? -1 : 1));
  return { files: files.length, filesWithFindings: withFindings, unreadable, bySeverity, byRule, exact, manual };
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Backquoted code in our messages, shown as code in HTML. */
function htmlMessage(s: string): string {
  return htmlEscape(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function sortedFiles(files: readonly ReportFile[]): ReportFile[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function formatMarkdown(files: readonly ReportFile[], title = 'httpd 2.2 → 2.4 upgrade report'): string {
  const s = summarize(files);
  const out: string[] = [];
  out.push(`# ${title}`, '');
  out.push(`${s.files} files checked, ${s.filesWithFindings} with findings${s.unreadable ? `, ${s.unreadable} could not be read` : ''}.`, '');
  out.push(`| errors | warnings | information | hints | exact fixes (\`apacheconf fix\`) | need a human |`, '|---:|---:|---:|---:|---:|---:|');
  out.push(`| ${s.bySeverity.error} | ${s.bySeverity.warning} | ${s.bySeverity.information} | ${s.bySeverity.hint} | ${s.exact} | ${s.manual} |`, '');
  if (s.byRule.length) {
    out.push('## By rule', '', '| rule | findings | exact fix | need a human |', '|---|---:|---:|---:|');
    for (const r of s.byRule) out.push(`| [\`${r.rule}\`](${ruleDocsUrl(r.rule)}) | ${r.total} | ${r.exact} | ${r.manual} |`);
    out.push('');
  }
  const withFindings = sortedFiles(files).filter((f) => f.findings.length || f.error);
  if (withFindings.length) {
    out.push('## By file', '');
    for (const f of withFindings) {
      const counts = SEVERITIES.map((sv) => [sv, f.findings.filter((x) => x.severity === sv).length] as const).filter(([, n]) => n).map(([sv, n]) => `${n} ${sv}`);
      out.push(`### \`${f.path}\``, '', `Context: ${f.context}. ${f.error ? `Could not be read: ${f.error}.` : counts.join(', ') + '.'}`, '');
      if (!f.findings.length) continue;
      out.push('| line | severity | rule | finding | fix |', '|---:|---|---|---|---|');
      for (const x of f.findings) {
        const fix = x.exactFix ? `exact: ${mdEscape(x.exactFix)}` : x.severity === 'error' || x.severity === 'warning' ? '**needs a human**' : '—';
        out.push(`| ${x.line} | ${x.severity} | \`${x.rule}\` | ${mdEscape(x.message)} | ${fix} |`);
      }
      out.push('');
    }
  }
  const manual = sortedFiles(files).flatMap((f) => f.findings.filter((x) => !x.exactFix && (x.severity === 'error' || x.severity === 'warning')).map((x) => ({ f, x })));
  if (manual.length) {
    out.push('## What needs a human, and why', '');
    for (const { f, x } of manual) out.push(`- \`${f.path}:${x.line}\` (\`${x.rule}\`): ${x.message.replace(/\r?\n/g, ' ')}`);
    out.push('');
  }
  return out.join('\n');
}

export function formatHtml(files: readonly ReportFile[], title = 'httpd 2.2 → 2.4 upgrade report'): string {
  const s = summarize(files);
  const h: string[] = [];
  h.push('<!doctype html>', '<html lang="en"><head><meta charset="utf-8">', `<title>${htmlEscape(title)}</title>`);
  h.push('<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}th{background:#f3f3f3}.n{text-align:right}.error{color:#b00020}.warning{color:#8a5a00}.information{color:#0b5394}.hint{color:#555}code{background:#f5f5f5;padding:0 .2em}.human{font-weight:600}</style>');
  h.push('</head><body>', `<h1>${htmlEscape(title)}</h1>`);
  h.push(`<p>${s.files} files checked, ${s.filesWithFindings} with findings${s.unreadable ? `, ${s.unreadable} could not be read` : ''}.</p>`);
  h.push('<table><tr><th>errors</th><th>warnings</th><th>information</th><th>hints</th><th>exact fixes</th><th>need a human</th></tr>');
  h.push(`<tr><td class="n">${s.bySeverity.error}</td><td class="n">${s.bySeverity.warning}</td><td class="n">${s.bySeverity.information}</td><td class="n">${s.bySeverity.hint}</td><td class="n">${s.exact}</td><td class="n">${s.manual}</td></tr></table>`);
  if (s.byRule.length) {
    h.push('<h2>By rule</h2><table><tr><th>rule</th><th>findings</th><th>exact fix</th><th>need a human</th></tr>');
    for (const r of s.byRule) h.push(`<tr><td><a href="${htmlEscape(ruleDocsUrl(r.rule))}"><code>${htmlEscape(r.rule)}</code></a></td><td class="n">${r.total}</td><td class="n">${r.exact}</td><td class="n">${r.manual}</td></tr>`);
    h.push('</table>');
  }
  const withFindings = sortedFiles(files).filter((f) => f.findings.length || f.error);
  if (withFindings.length) {
    h.push('<h2>By file</h2>');
    for (const f of withFindings) {
      h.push(`<h3><code>${htmlEscape(f.path)}</code></h3><p>Context: ${htmlEscape(f.context)}.${f.error ? ` Could not be read: ${htmlEscape(f.error)}.` : ''}</p>`);
      if (!f.findings.length) continue;
      h.push('<table><tr><th>line</th><th>severity</th><th>rule</th><th>finding</th><th>fix</th></tr>');
      for (const x of f.findings) {
        const fix = x.exactFix ? `exact: ${htmlMessage(x.exactFix)}` : x.severity === 'error' || x.severity === 'warning' ? '<span class="human">needs a human</span>' : '—';
        h.push(`<tr><td class="n">${x.line}</td><td class="${x.severity}">${x.severity}</td><td><code>${htmlEscape(x.rule)}</code></td><td>${htmlMessage(x.message)}</td><td>${fix}</td></tr>`);
      }
      h.push('</table>');
    }
  }
  h.push('</body></html>', '');
  return h.join('\n');
}
