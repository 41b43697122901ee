/**
 * `newer-than-target`: directives and sections that arrived in a later 2.4
 * release than the one the configuration is meant for. httpd 2.4 minors
 * differ: 2.4.6 (still shipped by long-lived distributions) has no
 * `<IfFile>`, `<IfDirective>` or `<IfSection>` (2.4.34) and refuses to
 * start on them ("Invalid command").
 *
 * The release each directive arrived in is the manual's "Compatibility" line
 * (the catalog's `since`). Lines inside `<IfVersion>` blocks that the target
 * skips, and lines only a 2.2 server reads, are not reported.
 */
import type { ConfigDocument, SectionNode, Token } from '../syntax';
import type { Finding } from '../rules/types';
import { getDirective } from '../facts';
import { in22Branch, code } from '../rules/scope';
import { compareVersions, parseHttpdVersion, type HttpdVersion } from '../model/project';

import { NEWER_THAN_TARGET, NEWER_THAN_TARGET_DEFAULT } from '../rules/configuration';

export { NEWER_THAN_TARGET, NEWER_THAN_TARGET_DEFAULT };

function formatVersion(v: HttpdVersion): string {
  return v[2] === Infinity ? `${v[0]}.${v[1]}` : v.join('.');
}

/**
 * What `<IfVersion …>` decides for `target`: true (the block is read),
 * false (skipped) or undefined (a form this check does not evaluate).
 */
export function ifVersionHolds(section: SectionNode, target: HttpdVersion): boolean | undefined {
  const words = section.args.map((a) => a.value);
  if (!words.length) return undefined;
  let negate = false;
  let op = '=';
  let operand: string;
  if (words.length === 1) {
    operand = words[0];
    if (operand.startsWith('!')) {
      negate = true;
      operand = operand.slice(1);
    }
  } else {
    op = words[0];
    if (op.startsWith('!')) {
      negate = true;
      op = op.slice(1) || '=';
    }
    operand = words[1];
  }
  let result: boolean;
  if (op === '~' || (operand.startsWith('/') && operand.endsWith('/') && operand.length > 1)) {
    if (target[2] === Infinity) return undefined; // "2.4" names no single release
    const body = operand.startsWith('/') ? operand.slice(1, -1) : operand;
    try {
      result = new RegExp(body).test(target.join('.'));
    } catch {
      return undefined;
    }
  } else {
    const want = parseHttpdVersion(operand);
    if (!want) return undefined;
    // "2.4" in <IfVersion> means 2.4.0 (httpd fills missing parts with 0).
    const w: HttpdVersion = [want[0], want[1], want[2] === Infinity ? 0 : want[2]];
    const c = compareVersions(target, w);
    switch (op) {
      case '=':
      case '==':
        result = c === 0;
        break;
      case '>':
        result = c > 0;
        break;
      case '>=':
        result = c >= 0;
        break;
      case '<':
        result = c < 0;
        break;
      case '<=':
        result = c <= 0;
        break;
      default:
        return undefined;
    }
  }
  return negate ? !result : result;
}

/** True when an enclosing `<IfVersion>` makes the target skip this line. */
function skippedByTarget(node: { parent: SectionNode | null }, target: HttpdVersion): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.key === 'ifversion' && ifVersionHolds(p, target) === false) return true;
  }
  return false;
}

/**
 * Findings for the directives and section tags of `doc` that are newer than
 * `target` ("2.4.6"). A target of "2.4" (the newest 2.4) or one that does
 * not parse gives none.
 */
export function versionFindings(doc: ConfigDocument, target: string): Finding[] {
  const t = parseHttpdVersion(target);
  if (!t || t[0] !== 2 || t[1] !== 4 || t[2] === Infinity) return [];
  const out: Finding[] = [];
  const check = (name: Token, node: { parent: SectionNode | null }) => {
    const fact = getDirective(name.value);
    if (!fact?.since) return;
    const since = parseHttpdVersion(fact.since);
    if (!since || compareVersions(since, t) <= 0) return;
    if (in22Branch(node) || skippedByTarget(node, t)) return;
    const label = fact.section ? `<${fact.name}>` : fact.name;
    out.push({
      rule: NEWER_THAN_TARGET,
      message:
        `${code(label)} arrived in httpd ${fact.since}; the target version ${formatVersion(t)} does not know it and refuses to start ` +
        `("Invalid command"). Guard it with \`<IfVersion >= ${fact.since}>\`, or set the target (\`httpdVersion\`) to the release you run.`,
      start: name.start,
      end: name.end,
      severity: NEWER_THAN_TARGET_DEFAULT,
      data: { since: fact.since, target: formatVersion(t) },
    });
  };
  for (const d of doc.directives) check(d.name, d);
  // A section's own tag sits in its parent: the section's guards are its ancestors.
  for (const s of doc.sections) check(s.name, { parent: s.parent });
  out.sort((a, b) => a.start - b.start);
  return out;
}
