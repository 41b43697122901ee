// Words of a user's file that are also names of members of JavaScript's Object (`constructor`,
// `__proto__`, `toString`…) must mean nothing special: looked up in a plain object literal they
// found Object's own members, which made `<constructor>` a Require container ("httpd refuses to
// start"), gave document symbols a function as their kind, and made completion throw.
import assert from 'node:assert/strict';
import { createService } from '../../server/src/service';
import { CatalogFeatures } from '../../server/src/lsp/adapters';
import { catalog } from '../../server/src/facts';
import { parseEnvvars } from '../../server/src/lsp/httpd';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__'];

const service = createService();
const features = new CatalogFeatures(catalog, { enabled: false });

/** A section and directives of that name, beside ordinary access lines. */
function fileWith(name: string): string {
  return `<${name} x>\n${name} a b\n  Order allow,deny\n  Allow from all\n</${name}>\n<Directory /x>\n${name} on\n${name}\n</Directory>\nLoadModule ${name} modules/x.so\n`;
}

/** Every value in `v` that is a function (never valid in a protocol answer). */
function functionsIn(v: unknown, at = '$', out: string[] = []): string[] {
  if (typeof v === 'function') out.push(at);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) functionsIn(x, `${at}.${k}`, out);
  return out;
}

describe('names of Object members in a file', () => {
  for (const name of NAMES) {
    for (const context of ['server', 'htaccess'] as const) {
      it(`${name} (${context}): no error, every answer well-formed, nothing throws`, () => {
        const a = service.analyze({ text: fileWith(name), uri: `file:///w/${context}.conf`, context });
        const errors = a.findings.filter((f) => f.severity === 'error' || f.rule === 'invalid-require' || f.rule === 'removed-module');
        assert.deepEqual(errors.map((f) => `${f.rule}: ${f.message}`), []);
        const symbols = service.documentSymbols(a);
        const kinds: unknown[] = [];
        const walk = (xs: Array<{ kind: unknown; children?: unknown[] }>) => xs.forEach((x) => (kinds.push(x.kind), walk((x.children ?? []) as typeof xs)));
        walk(symbols as unknown as Array<{ kind: unknown }>);
        assert.ok(kinds.length >= 2, 'both sections are symbols');
        assert.ok(kinds.every((k) => typeof k === 'number'), `symbol kinds: ${kinds.map((k) => typeof k).join(', ')}`);
        const answers: unknown[] = [symbols, service.diagnostics(a), service.foldingRanges(a), service.documentLinks(a)];
        for (let line = 0; line < 10; line++) {
          for (let character = 0; character < 16; character++) {
            const p = { line, character };
            answers.push(service.hover(a, p), features.completion(a, p), features.signatureHelp(a, p), service.codeActions(a, { start: p, end: p }));
          }
        }
        assert.deepEqual(functionsIn(answers), []);
      });
    }
  }

  it('a Require group named like an Object member is an ordinary group', () => {
    for (const name of NAMES) {
      const text = `<Location />\n    AuthType Basic\n    AuthName x\n    AuthUserFile /u\n    AuthGroupFile /g\n    Require group ${name}\n</Location>\n`;
      const a = service.analyze({ text, uri: 'file:///lone.conf', context: 'server' });
      const ask = (groups?: string[]) => service.explain({ path: '/', credentials: 'valid', user: 'bob', ...(groups ? { groups } : {}) }, { analysis: a }).status;
      assert.equal(ask(), 401, `${name}: bob is in no group`);
      assert.equal(ask([name]), 200, `${name}: bob is in ${name}`);
      assert.equal(ask(['staff']), 401, `${name}: bob is only in staff`);
    }
  });

  it('an envvars variable named like an Object member is unset until exported', () => {
    assert.deepEqual({ ...parseEnvvars('export A=$constructor/x\nexport B=${toString}\n') }, { A: '/x', B: '' });
    assert.equal(parseEnvvars('export constructor=1\n').constructor, '1');
  });
});
