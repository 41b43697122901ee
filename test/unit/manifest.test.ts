// package.json must agree with the code: settings and their defaults with the
// server, command ids with the client and the server, rule ids with the
// registry, file paths with the files.
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { CONFIGURATION_RULES, DEFAULT_SETTINGS, MAX_DEBOUNCE_MS, MAX_INCLUDE_DEPTH, MAX_INCLUDE_FILES, SECTION } from '../../server/src/lsp/settings';
import { SERVER_COMMAND_IDS } from '../../server/src/lsp/commands';
import { ALL_COMMAND_IDS, CLIENT_COMMANDS, LANGUAGE_ID, SERVER_COMMANDS } from '../../client/src/commands';
import { SERVER_NODE_FLAGS } from '../../client/src/server-flags';
import { RULES } from '../../server/src/rules';
import { SEVERITY_SETTINGS } from '../../server/src/rules/types';
import { FILE_CONTEXTS } from '../../server/src/model/context';

const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const README = fs.existsSync(path.join(ROOT, 'README.md')) ? fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8') : '';

/** The rows of the README table under `## heading` (first cells, backticks removed). */
function readmeTableKeys(heading: string): string[] {
  const at = README.indexOf(`\n## ${heading}\n`);
  if (at < 0) return [];
  const end = README.indexOf('\n## ', at + 4);
  const section = README.slice(at, end < 0 ? undefined : end);
  return [...section.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
}
const contributes = pkg.contributes ?? {};
const properties: Record<string, { default?: unknown; enum?: unknown[]; maximum?: number; additionalProperties?: { enum?: unknown[] }; properties?: Record<string, { enum?: unknown[]; markdownDescription?: string; description?: string }> }> =
  contributes.configuration?.properties ?? {};

/** Settings that only the VS Code client reads (vscode-languageclient's trace option). */
const CLIENT_ONLY_SETTINGS = new Set([`${SECTION}.trace.server`]);

/** `{ validate: { debounceMs: 150 }, rules: {} }` → `{ 'validate.debounceMs': 150, rules: {} }`: empty objects are map-valued settings. */
function flatten(o: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) Object.assign(out, flatten(v as Record<string, unknown>, key));
    else out[key] = v;
  }
  return out;
}

describe('package.json manifest', () => {
  describe('language and grammar', () => {
    const lang = (contributes.languages ?? []).find((l: { id: string }) => l.id === LANGUAGE_ID);

    it('activates on the language', () => {
      assert.deepEqual(pkg.activationEvents, [`onLanguage:${LANGUAGE_ID}`]);
    });

    it('declares the language with its aliases and a language configuration that exists', () => {
      assert.ok(lang, 'contributes.languages has apacheconf');
      assert.deepEqual(lang.aliases, ['Apache Config', 'apacheconf']);
      assert.ok(lang.configuration, 'a language configuration (VS Code needs one for onLanguage activation)');
      const file = path.join(ROOT, lang.configuration);
      assert.ok(fs.existsSync(file), `${lang.configuration} exists`);
      JSON.parse(fs.readFileSync(file, 'utf8'));
    });

    const names: Array<[string, boolean]> = [
      ['httpd.conf', true],
      ['apache2.conf', true],
      ['.htaccess', true],
      ['htaccess.txt', true],
      ['ports.conf', true],
      ['envvars', false],
    ];
    for (const [name, claimed] of names) {
      it(`${claimed ? 'claims' : 'leaves alone'} ${name}`, () => {
        assert.equal(lang.filenames.includes(name), claimed);
      });
    }

    it('does not claim every *.conf', () => {
      const all = [...(lang.filenamePatterns ?? []), ...(lang.extensions ?? [])];
      for (const p of all) assert.ok(!/^(\*\*\/)?\*\.conf$|^\.conf$/.test(p), `${p} would claim every .conf file`);
      assert.ok(lang.filenamePatterns.includes('**/apache2/sites-available/*'));
      assert.ok(lang.filenamePatterns.includes('*.htaccess'));
    });

    it('points at a grammar file with the declared scope name', () => {
      const g = (contributes.grammars ?? []).find((x: { language: string }) => x.language === LANGUAGE_ID);
      assert.ok(g, 'contributes.grammars has apacheconf');
      assert.equal(g.scopeName, 'source.apacheconf');
      const file = path.join(ROOT, g.path);
      assert.ok(fs.existsSync(file), `${g.path} exists`);
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).scopeName, g.scopeName);
    });

    it('limits itself in untrusted workspaces, and says how', () => {
      assert.equal(pkg.capabilities?.untrustedWorkspaces?.supported, 'limited');
      assert.ok((pkg.capabilities.untrustedWorkspaces.description ?? '').length > 20);
    });

    it('keeps the httpd binary setting out of untrusted workspaces, and hides Check with httpd there', () => {
      assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, [`${SECTION}.httpd.path`]);
      const palette = (contributes.menus?.commandPalette ?? []).find((m: { command: string }) => m.command === SERVER_COMMANDS.checkWithHttpd);
      assert.equal(palette?.when, 'isWorkspaceTrusted');
    });
  });

  describe('settings', () => {
    it('declares exactly the settings the server reads, with its defaults', () => {
      const declared = Object.fromEntries(
        Object.entries(properties)
          .filter(([k]) => !CLIENT_ONLY_SETTINGS.has(k))
          .map(([k, v]) => [k, v.default]),
      );
      const server = Object.fromEntries(Object.entries(flatten(DEFAULT_SETTINGS as unknown as Record<string, unknown>)).map(([k, v]) => [`${SECTION}.${k}`, v]));
      assert.deepEqual(declared, server);
    });

    it('has a description for every setting', () => {
      for (const [k, v] of Object.entries(properties)) {
        const d = (v as { description?: string; markdownDescription?: string }).markdownDescription ?? (v as { description?: string }).description;
        assert.ok(d && d.length > 10, `${k} has a description`);
      }
    });

    it('bounds the debounce as the server clamps it', () => {
      assert.equal(properties[`${SECTION}.validate.debounceMs`].maximum, MAX_DEBOUNCE_MS);
    });

    it('bounds the include limits as the server clamps them', () => {
      assert.equal(properties[`${SECTION}.includes.maxFiles`].maximum, MAX_INCLUDE_FILES);
      assert.equal(properties[`${SECTION}.includes.maxDepth`].maximum, MAX_INCLUDE_DEPTH);
    });

    it('lists every setting in the README settings table, and no other', () => {
      assert.deepEqual(readmeTableKeys('Settings').sort(), Object.keys(properties).sort());
    });

    it('offers the severity words the server accepts for any rule', () => {
      assert.deepEqual(properties[`${SECTION}.rules`].additionalProperties?.enum, [...SEVERITY_SETTINGS]);
    });

    it('offers the file contexts the server knows', () => {
      assert.deepEqual(properties[`${SECTION}.fileContexts`].additionalProperties?.enum, [...FILE_CONTEXTS]);
    });

    const ruleProps = properties[`${SECTION}.rules`]?.properties ?? {};
    for (const rule of RULES) {
      it(`lists rule ${rule.id} with the severity words and its default`, () => {
        const p = ruleProps[rule.id];
        assert.ok(p, `apacheconf.rules.properties has "${rule.id}" (add it to package.json contributes.configuration)`);
        assert.deepEqual(p.enum, [...SEVERITY_SETTINGS]);
        const text = p.markdownDescription ?? p.description ?? '';
        const stated = /Default: (\w+)\./.exec(text)?.[1];
        assert.equal(stated, rule.defaultSeverity, `the description of ${rule.id} says "Default: ${rule.defaultSeverity}."`);
      });
    }

    for (const rule of CONFIGURATION_RULES) {
      it(`lists configuration rule ${rule.id} with its default, and the README rule table has it`, () => {
        const p = ruleProps[rule.id];
        assert.ok(p, `apacheconf.rules.properties has "${rule.id}"`);
        assert.deepEqual(p.enum, [...SEVERITY_SETTINGS]);
        const stated = /Default: (\w+)\./.exec(p.markdownDescription ?? p.description ?? '')?.[1];
        assert.equal(stated, rule.defaultSeverity);
        const row = new RegExp(`id="rule-${rule.id}"></a>\`${rule.id}\` \\| (\\w+) \\|`).exec(README);
        assert.ok(row, `README rule table has a row for ${rule.id}`);
        assert.equal(row[1], rule.defaultSeverity, `README gives ${rule.id} its default`);
      });
    }

    it('lists no rule that neither the registry nor the README rule table knows', () => {
      const known = new Set([...RULES.map((r) => r.id), ...[...README.matchAll(/id="rule-([a-z0-9-]+)"/g)].map((m) => m[1])]);
      for (const id of Object.keys(ruleProps)) assert.ok(known.has(id), `apacheconf.rules.properties.${id} is not a rule`);
    });
  });

  describe('commands', () => {
    const declared: Array<{ command: string; title: string; category: string }> = contributes.commands ?? [];

    it('declares exactly the commands the extension provides', () => {
      assert.deepEqual(declared.map((c) => c.command).sort(), [...ALL_COMMAND_IDS].sort());
    });

    it('puts every command in the Apache category, with a title', () => {
      for (const c of declared) {
        assert.equal(c.category, 'Apache', c.command);
        assert.ok(c.title.length > 5, c.command);
      }
    });

    it('the server executes exactly the commands the client expects from it', () => {
      assert.deepEqual([...SERVER_COMMAND_IDS].sort(), Object.values(SERVER_COMMANDS).sort());
    });

    it('the client registers each of its own commands', () => {
      const source = fs.readFileSync(path.join(ROOT, 'client', 'src', 'extension.ts'), 'utf8');
      for (const key of Object.keys(CLIENT_COMMANDS)) {
        assert.match(source, new RegExp(`registerCommand\\(\\s*CLIENT_COMMANDS\\.${key}\\b`), `extension.ts registers CLIENT_COMMANDS.${key}`);
      }
    });

    it('the README lists every command under its palette title', () => {
      const listed = readmeTableKeys('Commands');
      for (const c of declared) assert.ok(listed.includes(`Apache: ${c.title}`), `README ## Commands has "Apache: ${c.title}"`);
      assert.equal(listed.length, declared.length, 'no README command that the manifest does not declare');
    });

    it('palette conditions name declared commands only', () => {
      const ids = new Set(declared.map((c) => c.command));
      for (const m of contributes.menus?.commandPalette ?? []) assert.ok(ids.has(m.command), m.command);
    });
  });

  it('the README gives other editors the Node flags the extension starts the server with', () => {
    const command = `node ${SERVER_NODE_FLAGS.join(' ')} dist/server.js`;
    assert.ok(SERVER_NODE_FLAGS.length > 0);
    assert.ok(README.replace(/\s+/g, ' ').includes(command), `README says \`${command}\``);
    const extension = fs.readFileSync(path.join(ROOT, 'client', 'src', 'extension.ts'), 'utf8');
    assert.match(extension, /run: \{[^}]*execArgv: \[\.\.\.SERVER_NODE_FLAGS\]/, 'the run configuration passes the flags');
  });

  it('main points at the client bundle the build writes', () => {
    assert.equal(pkg.main, './dist/extension.js');
    const build = fs.readFileSync(path.join(ROOT, 'scripts', 'build.mjs'), 'utf8');
    assert.match(build, /client\/src\/extension\.ts'[^}]*outfile: 'dist\/extension\.js'/);
    assert.match(build, /server\/src\/lsp\/main\.ts'[^}]*outfile: 'dist\/server\.js'/);
  });
});
