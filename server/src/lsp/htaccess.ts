/**
 * A `.htaccess` file open in the editor, read in the workspace's server configuration (its root
 * file and what it includes): its rewrite checked there (features/htaccess-context.ts) and, when
 * exact, offered as the preferred fix of its `legacy-access` findings and applied by "Migrate
 * access control in this file".
 */
import * as nodePath from 'node:path';
import type { ConfigDocument, OffsetEdit } from '../syntax';
import type { Analysis, ReportedFinding } from '../service';
import type { FileContext } from '../model/context';
import type { ConfigGraph } from '../model/workspace';
import { flattenGraph } from '../features/explain';
import { migrateHtaccessInContext } from '../features/htaccess-context';
import { fileUriToPath } from '../features/paths';
import type { ConfigWorkspace } from './workspace';

/** The flattened text of each graph (null when the graph was cut at the limits: nothing is exact then). */
const flats = new WeakMap<ConfigGraph, ConfigDocument | null>();

function flatOf(graph: ConfigGraph): ConfigDocument | null {
  let d = flats.get(graph);
  if (d === undefined) {
    const flat = flattenGraph(graph);
    d = flat.truncated || graph.truncated ? null : flat.doc;
    flats.set(graph, d);
  }
  return d;
}

export interface InContext {
  text: string;
  edits: OffsetEdit[];
  /** The root file's name, for titles and messages. */
  root: string;
}

/** The exact rewrite of a .htaccess text in the workspace configuration, or null. */
export function htaccessInContext(workspace: ConfigWorkspace, uri: string, text: string, context: FileContext): InContext | null {
  if (context !== 'htaccess') return null;
  const path = fileUriToPath(uri);
  if (!path) return null;
  const conf = workspace.configurationFor(path);
  if (!conf?.graph || !conf.root) return null;
  const doc = flatOf(conf.graph);
  if (!doc) return null;
  // The engine reads the whole configuration: answers are kept per graph, directory and text.
  let memo = answers.get(conf.graph);
  if (!memo) answers.set(conf.graph, (memo = new Map()));
  const key = `${path}\u0000${text}`;
  let hit = memo.get(key);
  if (hit === undefined) {
    const r = migrateHtaccessInContext(doc, nodePath.dirname(path), text);
    hit = r.text === null || !r.edits ? null : { text: r.text, edits: r.edits, root: nodePath.basename(conf.root) };
    if (memo.size >= 64) memo.clear();
    memo.set(key, hit);
  }
  return hit;
}

const answers = new WeakMap<ConfigGraph, Map<string, InContext | null>>();

/**
 * A full analysis of a .htaccess file with the in-context rewrite as the preferred fix of each of
 * its legacy-access findings (outside branches only httpd 2.2 reads) that has none.
 */
export function withInContextFix(a: Analysis, workspace: ConfigWorkspace): Analysis {
  if (a.depth === 'quick' || a.context !== 'htaccess') return a;
  const open = (f: ReportedFinding) => f.rule === 'legacy-access' && !(f.data as { only22?: boolean } | undefined)?.only22 && !f.fixes?.some((x) => x.preferred);
  if (!a.findings.some(open)) return a;
  const r = htaccessInContext(workspace, a.uri, a.doc.text, a.context);
  if (!r) return a;
  const fix = { title: `Rewrite as \`Require\` (exact in the configuration of ${r.root})`, edits: r.edits, preferred: true };
  const findings = a.findings.map((f) =>
    open(f)
      ? {
          ...f,
          message: f.message.replace(/ No exact rewrite is offered: [\s\S]*$/, '') + ` Its rewrite was checked in the configuration of ${r.root}, where it is exact.`,
          fixes: [fix, ...(f.fixes ?? [])],
        }
      : f,
  );
  return { ...a, findings };
}
