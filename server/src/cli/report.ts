/**
 * The three output formats of `apacheconf check`: compiler-style text, a
 * JSON document of LSP diagnostics, and SARIF 2.1.0 for code-scanning tools.
 */
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-types';
import type { Severity } from '../rules/types';
import type { RuleInfo } from '../rules/configuration';
import { ruleDocsUrl } from '../rules/docs';

/** One checked file: its path as shown, and its diagnostics with their severity words. */
export interface FileReport {
  path: string;
  /** Absolute path (for SARIF uris of paths outside the current directory). */
  absolute: string;
  /** The file context the file was checked in. */
  context?: string;
  diagnostics: Array<{ severity: Severity; diagnostic: Diagnostic }>;
}

export type OutputFormat = 'text' | 'json' | 'sarif';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'sarif'];

const ORDER: Severity[] = ['error', 'warning', 'information', 'hint'];

/** A diagnostic's message as plain text (LSP 3.18 allows markup there). */
export function messageText(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

/** One compiler-style line: `path:line:col: severity: message [rule]`, 1-based. */
export function textLine(path: string, severity: Severity, d: Diagnostic): string {
  const message = messageText(d).replace(/\r?\n/g, ' ');
  return `${path}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${severity}: ${message} [${d.code}]\n`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `path:line:col: severity: message [rule]` lines (1-based), then a summary line. */
export function formatText(reports: readonly FileReport[]): string {
  let out = '';
  const counts: Record<Severity, number> = { error: 0, warning: 0, information: 0, hint: 0 };
  let filesWith = 0;
  for (const r of reports) {
    if (r.diagnostics.length) filesWith++;
    for (const { severity, diagnostic: d } of r.diagnostics) {
      counts[severity]++;
      out += textLine(r.path, severity, d);
    }
  }
  const total = ORDER.reduce((n, s) => n + counts[s], 0);
  const files = plural(reports.length, 'file');
  if (total === 0) return out + `No problems found in ${files}.\n`;
  const parts = ORDER.filter((s) => counts[s] > 0).map((s) => plural(counts[s], s === 'information' ? 'info' : s));
  return out + `${plural(total, 'problem')} (${parts.join(', ')}) in ${filesWith} of ${files}.\n`;
}

/** The JSON format: version 1, LSP diagnostics with severity words instead of numbers. */
export function formatJson(reports: readonly FileReport[]): string {
  const doc = {
    version: 1,
    files: reports.map((r) => ({
      path: r.path,
      ...(r.context ? { context: r.context } : {}),
      diagnostics: r.diagnostics.map(({ severity, diagnostic: d }) => {
        const out: Record<string, unknown> = {
          code: d.code,
          severity,
          message: messageText(d),
          range: d.range,
        };
        if (d.source) out.source = d.source;
        if (d.codeDescription) out.codeDescription = d.codeDescription;
        if (d.tags?.length) out.tags = d.tags;
        if (d.relatedInformation?.length) out.relatedInformation = d.relatedInformation;
        if (d.data !== undefined) out.data = d.data;
        return out;
      }),
    })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

/** A relative path as a URI reference (forward slashes, each segment escaped); absolute paths as file: URLs. */
export function sarifUri(display: string, absolute: string): string {
  const p = display.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:\//.test(p)) return pathToFileURL(absolute).href;
  return p
    .split('/')
    .filter((seg, i) => !(seg === '.' && i === 0))
    .map((seg) => encodeURIComponent(seg))
    .join('/');
}

/** SARIF 2.1.0: one run, every registered rule, one result per diagnostic (1-based regions, UTF-16 columns). */
export function formatSarif(reports: readonly FileReport[], rules: readonly RuleInfo[], version: string): string {
  const ruleIndex = new Map<string, number>();
  const sarifRules = rules.map((r, i) => {
    ruleIndex.set(r.id, i);
    return {
      id: r.id,
      name: r.id,
      shortDescription: { text: r.summary.replace(/`/g, '') },
      fullDescription: { text: r.summary },
      helpUri: ruleDocsUrl(r.id),
      help: { text: `See ${ruleDocsUrl(r.id)}`, markdown: `${r.summary}\n\n[Documentation](${ruleDocsUrl(r.id)})` },
      defaultConfiguration: { level: SARIF_LEVEL[r.defaultSeverity] },
    };
  });
  const artifacts = reports.map((r) => ({ location: { uri: sarifUri(r.path, r.absolute) } }));
  const results: unknown[] = [];
  reports.forEach((r, artifactIndex) => {
    for (const { severity, diagnostic: d } of r.diagnostics) {
      const id = String(d.code);
      const result: Record<string, unknown> = {
        ruleId: id,
        level: SARIF_LEVEL[severity],
        message: { text: messageText(d) },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: artifacts[artifactIndex].location.uri, index: artifactIndex },
              region: {
                startLine: d.range.start.line + 1,
                startColumn: d.range.start.character + 1,
                endLine: d.range.end.line + 1,
                endColumn: d.range.end.character + 1,
              },
            },
          },
        ],
      };
      const idx = ruleIndex.get(id);
      if (idx !== undefined) result.ruleIndex = idx;
      results.push(result);
    }
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'apacheconf',
            version,
            semanticVersion: version,
            informationUri: 'https://github.com/apacheconf/apacheconf',
            rules: sarifRules,
          },
        },
        columnKind: 'utf16CodeUnits',
        artifacts,
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}
