/**
 * The transport-free service facade: the CLI, the language server and the
 * tests all go through it. Every feature takes a parsed analysis and returns
 * plain LSP types; nothing here knows about connections or files on disk.
 */
import {
  CodeAction,
  CodeActionKind,
  Diagnostic,
  DiagnosticSeverity,
  DiagnosticTag,
  Hover,
  Position,
  Range,
  TextEdit,
} from 'vscode-languageserver-types';
import { applyEdits, OffsetEdit, parse, rangeOf, offsetAt, type ConfigDocument } from './syntax';
import { defaultContextFor, type FileContext } from './model/context';
import { NO_DIR_FORM, viewAfterEdits, type ConfigurationView } from './access';
import { migrateHtaccessInContext } from './features/htaccess-context';
import { RULES, getRule, getRuleInfo, collectSuppressions, declaredNote, DECLARED_TITLE, ruleDocsUrl, type Finding, type Rule, type RuleContext, type HtaccessUnder, type Severity, type SeveritySetting, type Fix } from './rules';
import { hoverAt } from './features/hover';
import type { DocumentSymbol, FoldingRange, FormattingOptions, SelectionRange } from 'vscode-languageserver-types';
import { documentSymbols } from './features/symbols';
import { foldingRanges } from './features/folding';
import { selectionRanges } from './features/selection';
import { format, formatOnType } from './features/format';
import type { DocumentLink } from 'vscode-languageserver-types';
import { documentLinks, type LinkOptions } from './features/links';
import { dirname, fileUriToPath } from './features/paths';
import { definitionAt, referencesAt, type Place } from './features/definition';
import type { Location } from 'vscode-languageserver-types';
import { versionFindings } from './features/version';
import { flattenGraph, type ExplainQuery, type ExplainResult } from './features/explain';
import { documentRootOf, explainOnDisk, flatOfDocument, type DiskReader } from './features/explain-disk';
import type { ConfigGraph } from './model/workspace';

export const SOURCE = 'apacheconf';
export const FIX_ALL_KIND = CodeActionKind.SourceFixAll + '.apacheconf';

export interface ServiceSettings {
  /** Per-rule severity: 'ignore' | 'hint' | 'information' | 'warning' | 'error'. */
  rules?: Record<string, SeveritySetting>;
  /** Which access rewrite fix-all applies where the exact and the naive one differ (default preserve). */
  mode?: 'preserve' | 'intent';
  /**
   * What the user declares about the directories of `.htaccess` files (and of files read inside
   * `<Directory>`): they inherit a 2.4 `Require` (`require`), or neither a `Require` nor an
   * `AuthType` (`none`); no later section of the server config sets access for them; and
   * `AllowOverride` allows `AuthConfig`. The rewrites exact on those terms become preferred.
   */
  inherited?: InheritedDeclaration;
  /**
   * Reads the `.htaccess` files under a directory of the configuration (the CLI and the editor do,
   * with the root file known). An access rewrite that such files could make otherwise (AllowOverride
   * lets them set access for its requests) is preferred only when none there sets access.
   */
  htaccessUnder?: (dir: string, below?: boolean) => HtaccessUnder;
  /**
   * The directories of the whole server configuration whose AllowOverride lets .htaccess files set
   * access (the CLI with --root, the editor with the workspace's root file): a rewrite in one file
   * that those files could make otherwise is then marked as such, as with the file's own.
   */
  openDirs?: readonly string[];
}

export type InheritedDeclaration = 'require' | 'none';
export const INHERITED_DECLARATIONS: readonly InheritedDeclaration[] = ['require', 'none'];

export interface AnalyzeInput {
  text: string;
  /** Used for the default context (.htaccess) and as the uri of code action edits. */
  uri?: string;
  /** Overrides the context derived from the uri. */
  context?: FileContext;
  /** `quick` skips the access engine's request-point checks and exact rewrites (see RuleContext.depth). */
  depth?: 'quick' | 'full';
  /** The configuration the file is read in, when known (RuleContext.configuration). */
  configuration?: ConfigurationView;
  /** The root file of a configuration known not to include this file (RuleContext.outsideOf). */
  outsideOf?: string;
  /** Known to be included by another file whose configuration is not at hand (RuleContext.included). */
  included?: boolean;
}

export interface ReportedFinding extends Finding {
  severity: Severity;
}

export interface Analysis {
  readonly uri: string;
  readonly doc: ConfigDocument;
  readonly context: FileContext;
  /** Findings after settings and disable comments, in document order. */
  readonly findings: ReportedFinding[];
  /** How deep the rules went (see AnalyzeInput.depth). */
  readonly depth: 'quick' | 'full';
}

const RANK: Record<Severity, number> = { hint: 0, information: 1, warning: 2, error: 3 };
const LSP_SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/**
 * The codeDescription of each rule, made once: a file with thousands of findings publishes them
 * all on every change, and one shared object per rule is less for the garbage collector than a
 * new one per diagnostic (the JSON sent is the same). Callers must not modify it.
 */
const codeDescriptions = new Map<string, { href: string }>();
function codeDescriptionOf(rule: string): { href: string } {
  let c = codeDescriptions.get(rule);
  if (!c) codeDescriptions.set(rule, (c = Object.freeze({ href: ruleDocsUrl(rule) })));
  return c;
}

const DEPRECATED_TAGS: readonly DiagnosticTag[] = Object.freeze([DiagnosticTag.Deprecated]);
const UNNECESSARY_TAGS: readonly DiagnosticTag[] = Object.freeze([DiagnosticTag.Unnecessary]);
const BOTH_TAGS: readonly DiagnosticTag[] = Object.freeze([DiagnosticTag.Deprecated, DiagnosticTag.Unnecessary]);

/** Where the declared server configuration of withDeclaredNone puts the .htaccess file. */
const DECLARED_DIR = '/apacheconf-declared/site';
/** What `inherited: none` declares, as a server configuration: the directory allows overrides and sets nothing else. */
const DECLARED_NONE_CONFIG = (): ConfigDocument => (declaredNoneConfig ??= parse(`DocumentRoot "${DECLARED_DIR}"\n<Directory "${DECLARED_DIR}">\n  AllowOverride All\n</Directory>\n`));
let declaredNoneConfig: ConfigDocument | undefined;
/** No other .htaccess file: none in the parent folders, no subfolder (the disk is asked apart, see withDeclaredNone). */
const NO_OTHER_HTACCESS = { readFile: (): string | undefined => undefined, listDir: (): string[] => [] };

/** The LSP tags of a finding's tags (shared, frozen arrays). */
function lspTags(tags: readonly string[]): DiagnosticTag[] {
  const dep = tags.includes('deprecated');
  const unn = tags.includes('unnecessary');
  return (dep && unn ? BOTH_TAGS : dep ? DEPRECATED_TAGS : unn ? UNNECESSARY_TAGS : []) as DiagnosticTag[];
}

/** A message longer than this is checked for text the file put in it at length (shortMessage). */
const LONG_MESSAGE = 400;
/** A run of characters without a blank longer than this is cut in a message. */
const LONG_RUN = 200;
/** No message is longer than this. */
const MAX_MESSAGE = 2000;

/**
 * A message with the file's own text quoted in it, shortened: a name, tag or argument of thousands
 * of characters (a binary file, a generated line) is cut to its head and tail around `…`, so one
 * line cannot make a message of megabytes in the editor's problem list or the CLI's report.
 */
export function shortMessage(message: string): string {
  let out = message.replace(LONG_RUN_RE, (run) => head(run, 120) + '…' + tail(run, 40));
  if (out.length > MAX_MESSAGE) out = head(out, MAX_MESSAGE - 1) + '…';
  return out;
}
const LONG_RUN_RE = new RegExp(`\\S{${LONG_RUN + 1},}`, 'g');
/** The first `n` UTF-16 units of `s`, one fewer where the cut would split a surrogate pair. */
function head(s: string, n: number): string {
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}
/** The last `n` units, one fewer where the cut would split a surrogate pair. */
function tail(s: string, n: number): string {
  const c = s.charCodeAt(s.length - n);
  return s.slice(c >= 0xdc00 && c <= 0xdfff ? s.length - n + 1 : s.length - n);
}

export function severityAtLeast(s: Severity, min: Severity): boolean {
  return RANK[s] >= RANK[min];
}

export class ApacheConfService {
  private settings: ServiceSettings;

  constructor(settings: ServiceSettings = {}) {
    this.settings = settings;
  }

  updateSettings(settings: ServiceSettings): void {
    this.settings = settings;
  }

  getSettings(): ServiceSettings {
    return this.settings;
  }

  /** Parse and run every rule. `doc` may be passed to reuse a cached tree of the same text. */
  analyze(input: AnalyzeInput, doc?: ConfigDocument): Analysis {
    const uri = input.uri ?? 'untitled:config';
    const tree = doc && doc.text === input.text ? doc : parse(input.text);
    const context = input.context ?? defaultContextFor(uri);
    const suppress = collectSuppressions(tree);
    // Each rule's findings, kept first and copied once into a list of their exact number: a list
    // grown by push past a few thousand is copied at each step, and past 16,000 each copy is a
    // large object V8 maps on its own.
    const lists: Finding[][] = [];
    const ofRule: Rule[] = [];
    let total = 0;
    // One context for every rule (none changes it).
    const ctx: RuleContext = { doc: tree, fileContext: context, uri, mode: this.settings.mode, inherited: this.settings.inherited, htaccessUnder: this.settings.htaccessUnder, openDirs: this.settings.openDirs, depth: input.depth ?? 'full', configuration: input.configuration, outsideOf: input.outsideOf, included: input.included };
    for (const rule of RULES) {
      const setting = this.settings.rules?.[rule.id];
      if (setting === 'ignore') continue;
      let raw: Finding[];
      try {
        raw = rule.check(ctx);
      } catch (e) {
        // A rule must never take the whole analysis down; report the failure instead of a clean file.
        if (process.env.APACHECONF_DEBUG) console.error(e);
        raw = [{ rule: rule.id, message: `Internal error in rule ${rule.id}: ${(e as Error).message}`, start: 0, end: 0, severity: 'error' }];
      }
      if (!raw.length) continue;
      lists.push(raw);
      ofRule.push(rule);
      total += raw.length;
    }
    const findings = new Array<ReportedFinding>(total);
    let n = 0;
    for (let r = 0; r < lists.length; r++) {
      const raw = lists[r];
      const rule = ofRule[r];
      const setting = this.settings.rules?.[rule.id];
      // (Indexed loops here and in the rules' hot paths: a for-of over thousands of findings made an
      // iterator result for each, where the function had not been optimised yet.)
      for (let ix = 0; ix < raw.length; ix++) {
        const f = raw[ix];
        if (rule.id !== 'syntax' && suppress.silenced(rule.id, f.start)) continue;
        let sev: Severity = (setting as Severity | undefined) ?? f.severity ?? rule.defaultSeverity;
        if (f.maxSeverity && RANK[sev] > RANK[f.maxSeverity]) sev = f.maxSeverity;
        // Rules hand back new findings on every call, so each is completed in place (a copy of
        // thousands of findings per keystroke is garbage the editor would wait for).
        (f as ReportedFinding).severity = sev;
        if (f.message.length > LONG_MESSAGE) f.message = shortMessage(f.message);
        findings[n++] = f as ReportedFinding;
      }
    }
    findings.length = n;
    findings.sort((a, b) => a.start - b.start || a.end - b.end);
    const a: Analysis = { uri, doc: tree, context, findings, depth: input.depth ?? 'full' };
    return a.depth === 'full' && context === 'htaccess' && this.settings.inherited === 'none' ? this.withDeclaredNone(a) : a;
  }

  /**
   * A .htaccess file under the declaration `inherited: none` (`--inherited none`) with host rules
   * that no form of one section rewrites whatever the directory inherits (deny everyone, then
   * `<Files>` sections that let some files through): the whole file is planned as httpd reads it
   * in a server configuration that is just what was declared (its directory allows overrides and
   * has no Require, no AuthType and no other access line, nothing after it), as a .htaccess file is
   * planned in a real one (features/htaccess-context.ts). When the engine finds that rewrite
   * exact there, it is the preferred fix of each legacy-access finding outside 2.2-only branches,
   * in place of the forms of single sections. The .htaccess files of its subdirectories inherit
   * from it: where one sets access, nothing changes.
   */
  private withDeclaredNone(a: Analysis): Analysis {
    const open = (f: ReportedFinding) => f.rule === 'legacy-access' && f.maxSeverity !== 'hint';
    if (!a.findings.some((f) => open(f) && f.message.includes(NO_DIR_FORM))) return a;
    let r: ReturnType<typeof migrateHtaccessInContext>;
    try {
      r = migrateHtaccessInContext(DECLARED_NONE_CONFIG(), DECLARED_DIR, a.doc.text, undefined, NO_OTHER_HTACCESS, null);
    } catch {
      return a;
    }
    if (r.text === null || !r.edits?.length) return a;
    const path = a.uri.startsWith('file://') ? fileUriToPath(a.uri) : null;
    const below = path ? this.settings.htaccessUnder?.(dirname(path), true) : undefined;
    if (below?.kind === 'sets-access') {
      const note = ` On the declared terms the whole file has an exact rewrite, but ${below.file} sets access below and inherits from this file.`;
      return { ...a, findings: a.findings.map((f) => (open(f) && f.message.includes(NO_DIR_FORM) ? { ...f, message: f.message + note } : f)) };
    }
    const fix = { title: `Rewrite as \`Require\` (exact for ${DECLARED_TITLE.none})`, edits: r.edits, preferred: true };
    const findings = a.findings.map((f) =>
      open(f)
        ? {
            ...f,
            message: f.message.replace(/ (No exact rewrite is offered: |The rewrite offered is exact on the terms declared)[\s\S]*$/, '') + ` ${declaredNote('none', true)}`,
            fixes: [fix, ...(f.fixes ?? []).map((x) => (x.preferred ? { ...x, preferred: false } : x))],
          }
        : f,
    );
    return { ...a, findings };
  }

  /**
   * The analysis with findings that do not come from the per-file rules
   * added (configuration-wide rules, `newer-than-target`, httpd's own
   * errors): the rule settings and disable comments apply to them as to the
   * others; a finding equal to one already there (same rule and range) is
   * dropped. The rule's default severity is the finding's `severity`, else
   * the registered rule's, else warning.
   */
  /**
   * A full analysis of a .htaccess file whose rewrite was found exact in its server configuration
   * (features/htaccess-context.ts): that rewrite becomes the preferred fix of each legacy-access
   * finding outside 2.2-only branches that has none, and the message says where it was checked.
   */
  withRewriteInConfiguration(a: Analysis, rewrite: { edits: OffsetEdit[]; root: string }): Analysis {
    if (a.depth === 'quick') return a;
    const open = (f: ReportedFinding) => f.rule === 'legacy-access' && f.maxSeverity !== 'hint' && !f.fixes?.some((x) => x.preferred);
    if (!a.findings.some(open)) return a;
    const fix = { title: `Rewrite as \`Require\` (exact in the configuration of ${rewrite.root})`, edits: rewrite.edits, preferred: true };
    const findings = a.findings.map((f) =>
      open(f)
        ? {
            ...f,
            message: f.message.replace(/ No exact rewrite is offered: [\s\S]*$/, '') + ` Its rewrite was checked in the configuration of ${rewrite.root}, where it is exact.`,
            fixes: [fix, ...(f.fixes ?? [])],
          }
        : f,
    );
    return { ...a, findings };
  }

  /** The same, when the rewrite is not exact there: the legacy-access findings say why, in place of the standalone reason. */
  withRefusalInConfiguration(a: Analysis, why: string, root: string): Analysis {
    if (a.depth === 'quick') return a;
    const findings = a.findings.map((f) =>
      f.rule === 'legacy-access' && / No exact rewrite is offered: /.test(f.message)
        ? { ...f, message: f.message.replace(/ No exact rewrite is offered: [\s\S]*$/, ` No exact rewrite is offered in the configuration of ${root}: ${why}`) }
        : f,
    );
    return { ...a, findings };
  }

  addFindings(a: Analysis, extra: Finding[]): Analysis {
    if (!extra.length) return a;
    const suppress = collectSuppressions(a.doc);
    const have = new Set(a.findings.map((f) => `${f.rule}:${f.start}:${f.end}`));
    const findings = [...a.findings];
    for (const f of extra) {
      const setting = this.settings.rules?.[f.rule];
      if (setting === 'ignore') continue;
      const key = `${f.rule}:${f.start}:${f.end}`;
      if (have.has(key) || suppress.silenced(f.rule, f.start)) continue;
      have.add(key);
      let sev: Severity = (setting as Severity | undefined) ?? f.severity ?? getRuleInfo(f.rule)?.defaultSeverity ?? 'warning';
      if (f.maxSeverity && RANK[sev] > RANK[f.maxSeverity]) sev = f.maxSeverity;
      findings.push({ ...f, severity: sev });
    }
    findings.sort((x, y) => x.start - y.start || x.end - y.end);
    return { ...a, findings };
  }

  /** `newer-than-target` findings for a target httpd release ("2.4.6"); none for "2.4". */
  versionFindings(a: Analysis, target: string): Finding[] {
    return versionFindings(a.doc, target);
  }

  /**
   * Explain access for one request as httpd answers it: over a whole configuration when `graph`
   * is given (included files spliced in where they are included), else over the analysed
   * document alone; the virtual host picked by the Host (`query.serverName`) as httpd picks it.
   * With `disk`, the `.htaccess` files on the way to the file are read where AllowOverride lets
   * them in: under `query.documentRoot`, else under the answering host's DocumentRoot when that
   * is a directory `disk` can see.
   */
  explain(query: ExplainQuery, target: { graph: ConfigGraph } | { analysis: Analysis }, disk?: DiskReader): ExplainResult & { htaccess: string[] } {
    const graph = 'graph' in target ? target.graph : null;
    const a = 'analysis' in target ? target.analysis : null;
    const context: FileContext = a ? a.context : 'server';
    const flat = graph ? flattenGraph(graph) : flatOfDocument(a!.doc, a!.uri);
    let documentRoot = query.documentRoot;
    if (disk && !documentRoot && context !== 'htaccess') {
      // A relative DocumentRoot is under a ServerRoot this machine may not have: left alone.
      const root = documentRootOf(flat.doc, query.serverName);
      if (root && root.startsWith('/') && disk.isDirectory(root)) documentRoot = root;
    }
    const r = explainOnDisk({ flat, context, query: documentRoot ? { ...query, documentRoot } : query, reader: documentRoot ? disk : undefined, host: query.serverName });
    if (!graph) return { ...r, scope: 'file' };
    const notes = [r.note, graph.truncated && !flat.truncated ? 'the configuration is larger than the limits: part of it was not read' : undefined].filter(Boolean);
    return { ...r, scope: 'configuration', root: graph.root, ...(notes.length ? { note: notes.join('; ') } : {}) };
  }

  /**
   * Every preferred (exact) fix of each file, for a workspace migration:
   * the new text of each file that changes (files that do not change are
   * left out).
   */
  migrateFiles(files: AnalyzeInput[]): Array<{ uri: string; before: string; after: string; fixes: number; rewrites: string[] }> {
    const out: Array<{ uri: string; before: string; after: string; fixes: number; rewrites: string[] }> = [];
    for (const f of files) {
      const fixed = this.fixText(f);
      // (rewrites: those of the whole configuration whose part in this file was made, see fixText.)
      if (fixed.text !== f.text) out.push({ uri: f.uri ?? 'untitled:config', before: f.text, after: fixed.text, fixes: fixed.applied, rewrites: [...fixed.rewrites] });
    }
    return out;
  }

  diagnostics(a: Analysis): Diagnostic[] {
    return a.findings.map((f) => this.toDiagnostic(a, f));
  }

  toDiagnostic(a: Analysis, f: ReportedFinding): Diagnostic {
    const d: Diagnostic = {
      range: rangeOf(a.doc, f.start, f.end),
      severity: LSP_SEVERITY[f.severity],
      code: f.rule,
      codeDescription: codeDescriptionOf(f.rule),
      source: SOURCE,
      message: f.message,
    };
    if (f.tags?.length) {
      const tags = lspTags(f.tags);
      if (tags.length) d.tags = tags;
    }
    if (f.related?.length) {
      d.relatedInformation = f.related.map((r) => ({
        location: { uri: r.uri ?? a.uri, range: r.uri ? { start: Position.create(0, 0), end: Position.create(0, 0) } : rangeOf(a.doc, r.start, r.end) },
        message: r.message,
      }));
    }
    if (f.data) d.data = f.data;
    return d;
  }

  /** Quick fixes for the findings that overlap `range` (or match `only` diagnostics), plus fix-all when asked. */
  codeActions(
    a: Analysis,
    range: Range,
    context: { diagnostics?: Diagnostic[]; only?: string[] } = {},
    /** The text every exact fix makes, as the editor plans it (in the workspace's configuration); by default, of the file alone. */
    fixedText?: () => string,
  ): CodeAction[] {
    // Fixes of the access engine exist only in a full analysis (the tree is reused, so its plan cache hits).
    if (a.depth === 'quick') a = this.analyze({ text: a.doc.text, uri: a.uri, context: a.context }, a.doc);
    const out: CodeAction[] = [];
    const wantsQuickFix = !context.only || context.only.some((k) => CodeActionKind.QuickFix.startsWith(k) || k === CodeActionKind.QuickFix);
    const wantsFixAll = context.only?.some((k) => FIX_ALL_KIND.startsWith(k) && k !== '' ) ?? false;
    if (wantsQuickFix) {
      const start = offsetAt(a.doc, range.start);
      const end = offsetAt(a.doc, range.end);
      for (const f of a.findings) {
        if (!f.fixes?.length) continue;
        const overlaps = f.start <= end && f.end >= start;
        const matches = context.diagnostics?.some(
          (d) => d.code === f.rule && offsetAt(a.doc, d.range.start) === f.start && offsetAt(a.doc, d.range.end) === f.end,
        );
        if (!overlaps && !matches) continue;
        const diag = this.toDiagnostic(a, f);
        for (const fix of f.fixes) {
          out.push({
            title: fix.title,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diag],
            isPreferred: fix.preferred === true,
            edit: { changes: { [a.uri]: this.textEdits(a, fix.edits) } },
          });
        }
      }
    }
    if (wantsFixAll) {
      const fixed = fixedText ? fixedText() : this.fixText({ text: a.doc.text, uri: a.uri, context: a.context }).text;
      if (fixed !== a.doc.text) {
        out.push({
          title: 'Apply every exact apacheconf fix',
          kind: FIX_ALL_KIND,
          edit: { changes: { [a.uri]: [TextEdit.replace(rangeOf(a.doc, 0, a.doc.text.length), fixed)] } },
        });
      }
    }
    return out;
  }

  textEdits(a: Analysis, edits: OffsetEdit[]): TextEdit[] {
    return edits.map((e) => TextEdit.replace(rangeOf(a.doc, e.start, e.end), e.newText));
  }

  /**
   * Apply every preferred (exact) fix until nothing changes. Fixes that would
   * overlap an earlier one wait for the next round, which sees the new text.
   */
  fixText(input: AnalyzeInput, maxRounds = 8): { text: string; applied: number; analysis: Analysis; rewrites: Set<string> } {
    let text = input.text;
    let applied = 0;
    /** The rewrites of the whole configuration whose part in this file was made (Fix.rewriteKey), from the first round (planned on the configuration as given). */
    const rewrites = new Set<string>();
    let analysis = this.analyze({ ...input, text });
    for (let round = 0; round < maxRounds; round++) {
      const chosen: OffsetEdit[] = [];
      const taken: Array<[number, number]> = [];
      for (const f of analysis.findings) {
        const fix = f.fixes?.find((x: Fix) => x.preferred);
        if (!fix || fix.edits.length === 0) continue;
        const clash = fix.edits.some((e, i) => taken.some(([s, t]) => (e.start < t && s < e.end) || e.start === s) || fix.edits.some((o, j) => j < i && ((e.start < o.end && o.start < e.end) || e.start === o.start)));
        if (clash) continue;
        for (const e of fix.edits) {
          chosen.push(e);
          taken.push([e.start, e.end]);
        }
        if (round === 0 && fix.rewriteKey) rewrites.add(fix.rewriteKey);
        applied++;
      }
      if (!chosen.length) break;
      const next = applyEdits(text, chosen);
      if (next === text) break;
      // The configuration the file is read in holds the file's text too: the next round plans on the new one.
      if (input.configuration) input = { ...input, configuration: viewAfterEdits(input.configuration, analysis.doc, chosen, next) };
      text = next;
      analysis = this.analyze({ ...input, text });
    }
    return { text, applied, analysis, rewrites };
  }

  hover(a: Analysis, position: Position): Hover | null {
    return hoverAt(a.doc, offsetAt(a.doc, position), a.context);
  }

  /** The outline: sections (with their tag as the name) and a few notable directives. */
  documentSymbols(a: Analysis): DocumentSymbol[] {
    return documentSymbols(a.doc);
  }

  /** Sections, comment runs and continued lines. */
  foldingRanges(a: Analysis): FoldingRange[] {
    return foldingRanges(a.doc);
  }

  /** One chain per position: word, line, section body, section, enclosing sections, document. */
  selectionRanges(a: Analysis, positions: Position[]): SelectionRange[] {
    return selectionRanges(a.doc, positions.map((p) => offsetAt(a.doc, p)));
  }

  /** Re-indent by section depth (the whole document, or the lines `range` touches). Only leading white space changes. */
  format(a: Analysis, options: FormattingOptions, range?: Range): TextEdit[] {
    return format(a.doc, options, range);
  }

  /** On-type formatting: `>` that completes a section tag re-indents that line. */
  formatOnType(a: Analysis, position: Position, ch: string, options: FormattingOptions): TextEdit[] {
    return formatOnType(a.doc, offsetAt(a.doc, position), ch, options);
  }

  /**
   * Links for Include*, LoadModule and file-valued directives. `baseDir`
   * defaults to the folder of a `file:` uri; `exists` / `resolveGlob` are the
   * caller's (the service does no I/O).
   */
  /** Where a `${VAR}` / `<IfDefine>` name, a `Use`d macro or a macro parameter is defined; `others` are more files of the same configuration. */
  definition(a: Analysis, position: Position, others: Analysis[] = []): Location[] {
    const all = [a, ...others.filter((o) => o.uri !== a.uri)];
    return toLocations(definitionAt(all.map((x) => ({ uri: x.uri, doc: x.doc })), offsetAt(a.doc, position)), all);
  }

  /** Every use of that name (with its definitions when `includeDeclaration`). */
  references(a: Analysis, position: Position, includeDeclaration = true, others: Analysis[] = []): Location[] {
    const all = [a, ...others.filter((o) => o.uri !== a.uri)];
    return toLocations(referencesAt(all.map((x) => ({ uri: x.uri, doc: x.doc })), offsetAt(a.doc, position), includeDeclaration), all);
  }

  documentLinks(a: Analysis, options: LinkOptions = {}): DocumentLink[] {
    const path = fileUriToPath(a.uri);
    return documentLinks(a.doc, { ...options, baseDir: options.baseDir ?? (path ? dirname(path) : undefined) });
  }
}

function toLocations(places: Place[], docs: Analysis[]): Location[] {
  const byUri = new Map(docs.map((d) => [d.uri, d]));
  const out: Location[] = [];
  for (const p of places) {
    const a = byUri.get(p.uri);
    if (a) out.push({ uri: p.uri, range: rangeOf(a.doc, p.start, p.end) });
  }
  return out;
}

export function createService(settings?: ServiceSettings): ApacheConfService {
  return new ApacheConfService(settings);
}

export { getRule, RULES };
