/**
 * A `.htaccess` file open in the editor, read in the workspace's server configuration (its root
 * file and what it includes): its rewrite checked there (features/htaccess-context.ts) and, when
 * exact, offered as the preferred fix of its `legacy-access` findings and applied by "Migrate
 * access control in this file".
 */
import * as nodePath from 'node:path';
import type { ConfigDocument, OffsetEdit } from '../syntax';
import type { Analysis, ApacheConfService } from '../service';
import type { FileContext } from '../model/context';
import type { ConfigGraph } from '../model/workspace';
import { flattenGraph } from '../features/explain';
import { migrateHtaccessInContext, NO_HOST_RULES } from '../features/htaccess-context';
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
  /** The rewrite, when it is exact in the configuration; else null and why. */
  text: string | null;
  edits: OffsetEdit[];
  why?: string;
  /** The root file's name, for titles and messages. */
  root: string;
}

/** A .htaccess text in the workspace configuration: its exact rewrite there, or why there is none; null when there is no configuration to read it in (or no host rules). */
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
  // What the parent directories' .htaccess files say counts too (they are not in the graph).
  const parents = { readFile: (p: string) => workspace.readText(p) };
  const dirs = nodePath.dirname(path).split('/').filter(Boolean);
  const parentTexts = dirs.map((_, i) => parents.readFile('/' + dirs.slice(0, i).join('/') + (i ? '/' : '') + '.htaccess') ?? '');
  const key = [path, text, ...parentTexts].join('\u0000');
  let hit = memo.get(key);
  if (hit === undefined) {
    const r = migrateHtaccessInContext(doc, nodePath.dirname(path), text, undefined, parents);
    const root = nodePath.basename(conf.root);
    hit =
      r.text !== null && r.edits
        ? { text: r.text, edits: r.edits, root }
        : r.why && r.why !== NO_HOST_RULES
          ? { text: null, edits: [], why: r.why, root }
          : null;
    if (memo.size >= 64) memo.clear();
    memo.set(key, hit);
  }
  return hit;
}

const answers = new WeakMap<ConfigGraph, Map<string, InContext | null>>();

/** A full analysis of a .htaccess file with its in-context rewrite as the preferred fix (see the service). */
export function withInContextFix(a: Analysis, workspace: ConfigWorkspace, service: ApacheConfService): Analysis {
  if (a.depth === 'quick' || a.context !== 'htaccess' || !a.findings.some((f) => f.rule === 'legacy-access')) return a;
  const r = htaccessInContext(workspace, a.uri, a.doc.text, a.context);
  if (!r) return a;
  return r.text !== null ? service.withRewriteInConfiguration(a, r) : service.withRefusalInConfiguration(a, r.why ?? 'no rewrite form applies.', r.root);
}
