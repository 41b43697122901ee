// The server class in this process, over a pair of streams: settings that
// need a fake catalog or a file system to show (fileContexts, untrusted
// workspaces), and the pieces the server is built from.
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionItem, CompletionList, DocumentLink } from 'vscode-languageserver-protocol';
import type { DirectiveFact } from '../../server/src/facts/types';
import type { Catalog } from '../../server/src/features/completion';
import { ApacheConfServer } from '../../server/src/lsp/server';
import { EMPTY_CATALOG, resolveGlob } from '../../server/src/lsp/adapters';
import { minimalEdit, uriArgument } from '../../server/src/lsp/commands';
import { AnalysisCache, ValidationScheduler } from '../../server/src/lsp/documents';
import { candidatePaths, DEFAULT_SETTINGS, FileContextMatcher, normalizeSettings } from '../../server/src/lsp/settings';
import { createService } from '../../server/src/service';
import { TestClient, fileUri, type StartOptions } from './lsp-client';

function fact(name: string, contexts: DirectiveFact['contexts']): DirectiveFact {
  return { name, module: 'core', contexts, syntax: `${name} value`, status: 'current', description: `${name} for tests.`, url: 'https://example.invalid/' + name };
}

const FAKE: Catalog = {
  getDirective: (n) => FACTS.find((f) => f.name.toLowerCase() === n.toLowerCase()),
  allDirectives: () => FACTS,
  allModules: () => [],
};
const FACTS = [fact('OnlyServer', ['server']), fact('OnlyVhost', ['server', 'vhost']), fact('OnlyHtaccess', ['htaccess'])];

async function inProcess(options: StartOptions & { catalog?: Catalog }): Promise<{ client: TestClient; server: ApacheConfServer }> {
  let server!: ApacheConfServer;
  const client = await TestClient.connect((input, output) => {
    const connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
    server = new ApacheConfServer(connection, { catalog: options.catalog ?? FAKE });
    server.listen();
  }, options);
  return { client, server };
}

async function labelsAt(client: TestClient, uri: string, text: string, offset = text.length): Promise<string[]> {
  const doc = await client.open(uri, text);
  const r = await client.request<CompletionItem[] | CompletionList>('textDocument/completion', { textDocument: { uri }, position: doc.positionAt(offset) });
  return (Array.isArray(r) ? r : r.items).map((i) => i.label);
}

describe('server settings in process', () => {
  describe('apacheconf.fileContexts', () => {
    const cases: Array<{ name: string; globs: Record<string, string>; file: string; context: string }> = [
      { name: 'no globs: by file name', globs: {}, file: '/ws/conf/site.inc', context: 'server' },
      { name: 'no globs: .htaccess', globs: {}, file: '/ws/www/.htaccess', context: 'htaccess' },
      { name: 'a ** glob on the absolute path', globs: { '**/*.inc': 'htaccess' }, file: '/ws/conf/site.inc', context: 'htaccess' },
      { name: 'a glob relative to the workspace folder', globs: { 'conf/*.inc': 'vhost' }, file: '/ws/conf/site.inc', context: 'vhost' },
      { name: 'a bare file-name glob', globs: { '*.inc': 'directory' }, file: '/ws/conf/deep/site.inc', context: 'directory' },
      { name: 'a glob that does not match', globs: { 'other/*.inc': 'vhost' }, file: '/ws/conf/site.inc', context: 'server' },
      { name: 'the first matching glob wins', globs: { '**/conf/**': 'vhost', '*.inc': 'htaccess' }, file: '/ws/conf/site.inc', context: 'vhost' },
      { name: 'an invalid context is ignored', globs: { '*.inc': 'nowhere' }, file: '/ws/conf/site.inc', context: 'server' },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { client, server } = await inProcess({ settings: { fileContexts: c.globs }, workspaceFolder: '/ws' });
        try {
          const uri = fileUri(c.file);
          // Wait for the pulled settings to be in: the first diagnostics come after them.
          await client.open(uri, 'ServerName a\n');
          await client.diagnosticsFor(uri, 1);
          assert.equal(server.contextFor(uri), c.context);
        } finally {
          await client.dispose();
        }
      });
    }

    it('decides which directives completion offers at the top level', async () => {
      const { client } = await inProcess({ settings: { fileContexts: { '**/*.inc': 'htaccess' } } });
      try {
        const inc = 'file:///ws/a.inc';
        await client.open(inc, '');
        await client.diagnosticsFor(inc, 1);
        assert.deepEqual(await labelsAt(client, 'file:///ws/b.inc', ''), ['OnlyHtaccess']);
        assert.deepEqual((await labelsAt(client, 'file:///ws/httpd.conf', '')).sort(), ['OnlyServer', 'OnlyVhost']);
        assert.deepEqual(await labelsAt(client, 'file:///ws/v.conf', '<VirtualHost *:80>\n\n</VirtualHost>\n', '<VirtualHost *:80>\n'.length), ['OnlyVhost']);
      } finally {
        await client.dispose();
      }
    });
  });

  describe('untrusted workspaces (initializationOptions.trusted = false)', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-lsp-'));
      fs.mkdirSync(path.join(dir, 'conf.d'));
      fs.writeFileSync(path.join(dir, 'conf.d', 'one.conf'), 'ServerName a\n');
      fs.writeFileSync(path.join(dir, 'ports.conf'), 'Listen 80\n');
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const text = 'Include conf.d/\nInclude missing.conf\nInclude conf.d/*.conf\n';
    const cases: Array<{ trusted: boolean; completions: string[]; links: string[] }> = [
      // A folder is a valid Include; the missing file is not linked; the glob names exactly one file.
      { trusted: true, completions: ['one.conf'], links: ['conf.d', 'conf.d/one.conf'] },
      // No disk access: nothing to complete, and every plain path is linked unchecked (a glob cannot be resolved).
      { trusted: false, completions: [], links: ['conf.d', 'missing.conf'] },
    ];
    for (const c of cases) {
      it(`trusted=${c.trusted}: path completion and document links`, async () => {
        const { client } = await inProcess({ initializationOptions: { trusted: c.trusted }, catalog: EMPTY_CATALOG });
        try {
          const uri = fileUri(path.join(dir, 'httpd.conf'));
          assert.deepEqual(await labelsAt(client, uri, text, 'Include conf.d/'.length), c.completions);
          const links = await client.request<DocumentLink[]>('textDocument/documentLink', { textDocument: { uri } });
          const targets = links.map((l) => decodeURIComponent(l.target ?? '').slice(fileUri(dir).length + 1));
          assert.deepEqual(targets.map((t) => t.replace(/\/$/, '')), c.links);
        } finally {
          await client.dispose();
        }
      });
    }
  });
});

describe('lsp building blocks', () => {
  describe('normalizeSettings', () => {
    const cases: Array<{ name: string; raw: unknown; expect: unknown; warnings: number }> = [
      { name: 'nothing', raw: undefined, expect: DEFAULT_SETTINGS, warnings: 0 },
      { name: 'the section itself', raw: { rules: { syntax: 'hint' } }, expect: { ...DEFAULT_SETTINGS, rules: { syntax: 'hint' } }, warnings: 0 },
      { name: 'wrapped in apacheconf', raw: { apacheconf: { rules: { syntax: 'ignore' } } }, expect: { ...DEFAULT_SETTINGS, rules: { syntax: 'ignore' } }, warnings: 0 },
      { name: 'severity in capitals', raw: { rules: { syntax: 'Warning' } }, expect: { ...DEFAULT_SETTINGS, rules: { syntax: 'warning' } }, warnings: 0 },
      { name: 'an unknown severity is dropped', raw: { rules: { syntax: 'loud', 'legacy-access': 'error' } }, expect: { ...DEFAULT_SETTINGS, rules: { 'legacy-access': 'error' } }, warnings: 1 },
      { name: 'an unknown context is dropped', raw: { fileContexts: { '*.inc': 'vhost', '*.x': 'site' } }, expect: { ...DEFAULT_SETTINGS, fileContexts: { '*.inc': 'vhost' } }, warnings: 1 },
      { name: 'debounce', raw: { validate: { debounceMs: 20 } }, expect: { ...DEFAULT_SETTINGS, validate: { debounceMs: 20 } }, warnings: 0 },
      { name: 'debounce as a dotted key', raw: { 'validate.debounceMs': 0 }, expect: { ...DEFAULT_SETTINGS, validate: { debounceMs: 0 } }, warnings: 0 },
      { name: 'debounce clamped', raw: { validate: { debounceMs: -5 } }, expect: { ...DEFAULT_SETTINGS, validate: { debounceMs: 0 } }, warnings: 0 },
      { name: 'debounce clamped above', raw: { validate: { debounceMs: 1e9 } }, expect: { ...DEFAULT_SETTINGS, validate: { debounceMs: 10000 } }, warnings: 0 },
      { name: 'debounce not a number', raw: { validate: { debounceMs: 'soon' } }, expect: DEFAULT_SETTINGS, warnings: 1 },
      { name: 'garbage', raw: 42, expect: DEFAULT_SETTINGS, warnings: 0 },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const warnings: string[] = [];
        assert.deepEqual(normalizeSettings(c.raw, (m) => warnings.push(m)), c.expect);
        assert.equal(warnings.length, c.warnings, warnings.join('\n'));
      });
    }
  });

  describe('candidatePaths and FileContextMatcher', () => {
    it('tries the absolute path, the workspace-relative path and the base name', () => {
      assert.deepEqual(candidatePaths('/ws/conf/a.inc', ['/ws', '/other']), ['/ws/conf/a.inc', 'conf/a.inc', 'a.inc']);
      assert.deepEqual(candidatePaths('C:\\ws\\a.inc', ['C:\\ws\\']), ['C:/ws/a.inc', 'a.inc']);
    });
    it('matches dot files with ** globs', () => {
      assert.equal(new FileContextMatcher({ '**/www/**': 'htaccess' }).match(['/srv/www/.htaccess']), 'htaccess');
    });
  });

  describe('uriArgument', () => {
    const cases: Array<[unknown[], string | undefined]> = [
      [['file:///a'], 'file:///a'],
      [[{ uri: 'file:///b' }], 'file:///b'],
      [[{ textDocument: { uri: 'file:///c' } }], 'file:///c'],
      [[], undefined],
      [[42], undefined],
      [[{ path: '/x' }], undefined],
    ];
    for (const [args, want] of cases) it(JSON.stringify(args), () => assert.equal(uriArgument(args), want));
  });

  describe('minimalEdit', () => {
    const cases: Array<{ name: string; before: string; after: string; newText: string }> = [
      { name: 'one line replaced', before: 'a\nOrder x\nb\n', after: 'a\nRequire y\nb\n', newText: 'Require y' },
      { name: 'lines removed', before: 'a\nb\nc\nd\n', after: 'a\nd\n', newText: '' },
      { name: 'CRLF kept whole', before: 'a\r\nb\r\n', after: 'a\nb\r\n', newText: '\n' },
      { name: 'a surrogate pair kept whole', before: 'x\u{1F600}y', after: 'x\u{1F601}y', newText: '\u{1F601}' },
      { name: 'appended', before: 'a\n', after: 'a\nb\n', newText: 'b\n' },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const doc = TextDocument.create('file:///t', 'apacheconf', 1, c.before);
        const edit = minimalEdit(doc, c.after)!;
        assert.equal(TextDocument.applyEdits(doc, [edit]), c.after);
        assert.equal(edit.newText.length <= c.newText.length + 1, true, JSON.stringify(edit));
      });
    }
    it('gives nothing for the same text', () => {
      assert.equal(minimalEdit(TextDocument.create('file:///t', 'apacheconf', 1, 'a'), 'a'), undefined);
    });
  });

  describe('AnalysisCache', () => {
    it('analyses each version once, again after invalidate, and reuses the tree of the same text', () => {
      const service = createService();
      const calls: Array<{ version: number; reused: boolean }> = [];
      const cache = new AnalysisCache((doc, previous) => {
        calls.push({ version: doc.version, reused: !!previous && previous.text === doc.getText() });
        return service.analyze({ text: doc.getText(), uri: doc.uri }, previous);
      });
      const doc = TextDocument.create('file:///c.conf', 'apacheconf', 1, 'ServerName a\n');
      const a1 = cache.get(doc);
      assert.equal(cache.get(doc), a1);
      cache.invalidate();
      const a2 = cache.get(doc);
      assert.notEqual(a2, a1);
      assert.equal(a2.doc, a1.doc, 'same text: the parse tree is reused');
      TextDocument.update(doc, [{ text: 'Listen 80\n' }], 2);
      cache.get(doc);
      cache.get(doc);
      assert.deepEqual(calls, [
        { version: 1, reused: false },
        { version: 1, reused: true },
        { version: 2, reused: false },
      ]);
      cache.delete(doc.uri);
      assert.equal(cache.size, 0);
    });
  });

  describe('ValidationScheduler', () => {
    it('with no delay, runs at once; a pending run is replaced by a newer one', async () => {
      const runs: string[] = [];
      const s = new ValidationScheduler((uri) => runs.push(uri), () => 0);
      s.schedule('a');
      s.schedule('a');
      assert.deepEqual(runs, ['a', 'a']);
      let done!: () => void;
      const finished = new Promise<void>((r) => (done = r));
      const s2 = new ValidationScheduler((uri) => {
        runs.push(uri);
        if (runs.length === 4) done();
      }, () => 5);
      s2.schedule('b'); // after a quiet spell: at once
      assert.deepEqual(runs, ['a', 'a', 'b']);
      s2.schedule('b'); // in the burst: waits
      s2.schedule('b'); // replaces the waiting one
      assert.equal(s2.pending('b'), true);
      await finished;
      assert.deepEqual(runs, ['a', 'a', 'b', 'b']);
      s2.schedule('c');
      s2.schedule('c');
      s2.forget('c');
      s2.dispose();
      assert.equal(s2.pending('c'), false);
    });

    it('leading and trailing: the first change of a quiet spell at once, a burst once after the pause; cheap documents never wait', () => {
      const table: Array<{ name: string; events: Array<[number, 'change']>; delay: number; immediate: number; waiting: boolean; cost?: number; costs?: number[] }> = [
        { name: 'a single edit', events: [[1000, 'change']], delay: 150, immediate: 1, waiting: false },
        { name: 'two edits 10 ms apart', events: [[1000, 'change'], [1010, 'change']], delay: 150, immediate: 1, waiting: true },
        { name: 'two edits 200 ms apart', events: [[1000, 'change'], [1200, 'change']], delay: 150, immediate: 2, waiting: false },
        { name: 'a burst of five', events: [[1000, 'change'], [1020, 'change'], [1040, 'change'], [1060, 'change'], [1080, 'change']], delay: 150, immediate: 1, waiting: true },
        // A document validated in under a fifth of the delay is validated on every change.
        { name: 'a burst of five, 5 ms per validation', events: [[1000, 'change'], [1020, 'change'], [1040, 'change'], [1060, 'change'], [1080, 'change']], delay: 150, immediate: 5, waiting: false, cost: 5 },
        { name: 'a burst of five, 29 ms per validation', events: [[1000, 'change'], [1020, 'change'], [1040, 'change'], [1060, 'change'], [1080, 'change']], delay: 150, immediate: 5, waiting: false, cost: 29 },
        { name: 'a burst of five, 30 ms per validation (a fifth): debounced', events: [[1000, 'change'], [1020, 'change'], [1040, 'change'], [1060, 'change'], [1080, 'change']], delay: 150, immediate: 1, waiting: true, cost: 30 },
        { name: 'two edits 10 ms apart, 200 ms per validation', events: [[1000, 'change'], [1010, 'change']], delay: 150, immediate: 1, waiting: true, cost: 200 },
        // The least of the last three runs counts: one slow run among cheap ones does not make the document slow.
        { name: 'cheap, cheap, then one slow run: still cheap', events: [[1000, 'change'], [1020, 'change']], delay: 150, immediate: 2, waiting: false, costs: [5, 6, 90] },
        { name: 'three slow runs after a cheap one: debounced', events: [[1000, 'change'], [1020, 'change']], delay: 150, immediate: 1, waiting: true, costs: [5, 90, 80, 95] },
      ];
      for (const c of table) {
        let now = 0;
        const runs: number[] = [];
        const s = new ValidationScheduler(() => runs.push(now), () => c.delay, () => now);
        if (c.cost !== undefined) s.cost('u', c.cost);
        for (const ms of c.costs ?? []) s.cost('u', ms);
        for (const [t] of c.events) {
          now = t;
          s.schedule('u');
        }
        assert.equal(runs.length, c.immediate, c.name);
        assert.equal(s.pending('u'), c.waiting, c.name);
        s.dispose();
      }
    });
  });

  describe('resolveGlob', () => {
    it('finds at most two files for a wildcard in the last segment, none for wildcard folders', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-glob-'));
      try {
        for (const n of ['a.conf', 'b.conf', 'c.load']) fs.writeFileSync(path.join(dir, n), '');
        assert.deepEqual(resolveGlob(dir + '/*.load'), [dir + '/c.load']);
        assert.equal(resolveGlob(dir + '/*.conf').length, 2);
        assert.deepEqual(resolveGlob(dir + '/*/x.conf'), []);
        assert.deepEqual(resolveGlob(dir + '/none/*.conf'), []);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
