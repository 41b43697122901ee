// Explain access over a whole configuration (included files spliced in where their Include
// stands) or over one document, as the service answers the editor's command.
import assert from 'node:assert/strict';
import { loadConfigGraph, type WorkspaceHost } from '../../server/src/model/workspace';
import { flattenGraph, type ExplainQuery } from '../../server/src/features/explain';
import { createService } from '../../server/src/service';
import { allAccessFileNames, explainOnDisk, flatOfDocument, type DiskReader } from '../../server/src/features/explain-disk';
import { parse } from '../../server/src/syntax';

const service = createService();
const explainText = (text: string, q: ExplainQuery) => service.explain(q, { analysis: service.analyze({ text, uri: 'file:///lone.conf', context: 'server' }) });

function memHost(files: Record<string, string>): WorkspaceHost {
  return {
    readFile: (p) => files[p],
    listDir(p) {
      const prefix = p.replace(/\/+$/, '') + '/';
      const names = new Set<string>();
      for (const f of Object.keys(files)) {
        if (!f.startsWith(prefix)) continue;
        const rest = f.slice(prefix.length);
        const i = rest.indexOf('/');
        names.add(i < 0 ? rest : rest.slice(0, i + 1));
      }
      return names.size ? [...names] : undefined;
    },
  };
}

const FILES: Record<string, string> = {
  '/c/httpd.conf': [
    'ServerRoot /c',
    'DocumentRoot /srv/www',
    '<Directory />',
    '    Require all denied',
    '</Directory>',
    '<Directory /srv/www>',
    '    Require all granted',
    '</Directory>',
    'Include sites/*.conf',
    '',
  ].join('\n'),
  '/c/sites/a.conf': ['<VirtualHost *:80>', '    ServerName a.example', '    DocumentRoot /srv/a', '    Include vhost.d/a-access.inc', '</VirtualHost>', ''].join('\n'),
  '/c/vhost.d/a-access.inc': ['<Location /private>', '    Require ip 10.0.0.0/8', '</Location>', ''].join('\n'),
};

// Found on Debian's own configuration: the note named `<VirtualHost *:80> on line 889`, a line of
// the configuration spliced into one text, where the host is line 1 of sites-enabled/000-default.conf.
describe('features/explain: the virtual host a request without Host reaches, in an included file', () => {
  it('is named by its own file and line, not by a line of the spliced configuration', () => {
    const files = {
      '/d/apache2.conf': ['ServerRoot /d', '# one', '# two', '# three', 'Include sites-enabled/*.conf', ''].join('\n'),
      '/d/sites-enabled/000-default.conf': ['<VirtualHost *:80>', '    DocumentRoot /var/www/html', '</VirtualHost>', ''].join('\n'),
    };
    const r = createService().explain({ path: '/index.html', ip: '10.0.0.1' }, { graph: loadConfigGraph(memHost(files), '/d/apache2.conf') });
    assert.match(r.note ?? '', /<VirtualHost \*:80> on 000-default\.conf line 1\)/);
  });
});

describe('features/explain: over the include graph', () => {
  const graph = loadConfigGraph(memHost(FILES), '/c/httpd.conf');

  it('splices each included file where its Include line stands, and knows where every line came from', () => {
    const flat = flattenGraph(graph);
    const lines = flat.doc.text.split('\n');
    const at = lines.indexOf('<Location /private>');
    assert.ok(at > 0);
    assert.deepEqual(flat.origins[at], { path: '/c/vhost.d/a-access.inc', line: 0 });
    const vh = lines.indexOf('<VirtualHost *:80>');
    assert.ok(vh < at && at < lines.indexOf('</VirtualHost>'), 'the include sits inside the virtual host');
    assert.match(lines[8], /^#Include sites/);
    assert.deepEqual(flat.origins[0], { path: '/c/httpd.conf', line: 0 });
    assert.equal(flat.doc.errors.length, 0);
  });

  const cases: Array<{ name: string; q: ExplainQuery; status: number | null; stepIn?: [string, number] }> = [
    { name: 'the vhost file decides for its virtual host', q: { path: '/private/x.html', ip: '203.0.113.5', serverName: 'a.example' }, status: 403, stepIn: ['/c/vhost.d/a-access.inc', 1] },
    { name: 'a client in the network gets in', q: { path: '/private/x.html', ip: '10.2.3.4', serverName: 'a.example' }, status: 200, stepIn: ['/c/vhost.d/a-access.inc', 1] },
    // httpd: a request without a matching Host goes to the first virtual host on its port, never to the main server.
    { name: 'without a Host, the first virtual host on the port answers', q: { path: '/private/x.html', ip: '203.0.113.5' }, status: 403, stepIn: ['/c/vhost.d/a-access.inc', 1] },
    { name: 'a Host no virtual host names goes to the first one too', q: { path: '/private/x.html', ip: '203.0.113.5', serverName: 'other.example' }, status: 403, stepIn: ['/c/vhost.d/a-access.inc', 1] },
    { name: 'outside every DocumentRoot', q: { path: '/x', ip: '203.0.113.5', serverName: 'a.example' }, status: 403, stepIn: ['/c/httpd.conf', 3] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = service.explain(c.q, { graph });
      assert.equal(r.scope, 'configuration');
      assert.equal(r.root, '/c/httpd.conf');
      assert.equal(r.status, c.status, JSON.stringify(r.steps));
      if (c.stepIn) assert.ok(r.steps.some((s) => s.file === c.stepIn![0] && s.line === c.stepIn![1]), JSON.stringify(r.steps));
    });
  }

  it('a lone document is explained with its own context and lines', () => {
    const r = explainText('<Location /x>\n    Require all denied\n</Location>\n', { path: '/x' });
    assert.equal(r.scope, 'file');
    assert.equal(r.status, 403);
    assert.ok(r.steps.every((s) => s.file === 'file:///lone.conf'));
    assert.ok(r.steps.some((s) => s.line === 1));
  });

  it('Require expr is worked out from the request, as <If> is', () => {
    const text = `<Location />\n    <RequireAny>\n        Require expr "%{REMOTE_ADDR} == '10.0.0.2'"\n        Require expr "-n %{HTTP:X-Flag}"\n    </RequireAny>\n</Location>\n`;
    assert.equal(explainText(text, { path: '/', ip: '10.0.0.2' }).status, 200);
    assert.equal(explainText(text, { path: '/', ip: '10.0.0.3' }).status, 403);
    assert.equal(explainText(text, { path: '/', ip: '10.0.0.3', headers: { 'X-Flag': 'yes' } }).status, 200);
    // One that reads the user is not worked out.
    assert.equal(explainText('<Location />\n    Require expr "%{REMOTE_USER} == \'bob\'"\n</Location>\n', { path: '/' }).status, null);
  });

  it('valid credentials and groups reach Require group', () => {
    const text = '<Location />\n    AuthType Basic\n    AuthName x\n    AuthUserFile /u\n    AuthGroupFile /g\n    Require group staff\n</Location>\n';
    const q: ExplainQuery = { path: '/', credentials: 'valid', user: 'bob' };
    assert.equal(explainText(text, q).status, 401);
    assert.equal(explainText(text, { ...q, groups: ['staff'] }).status, 200);
    assert.equal(explainText(text, { path: '/' }).status, 401);
  });
});

// A virtual host's own AccessFileName (a second black-box run: `AccessFileName .acl` in a
// <VirtualHost>, and a sub/deep/.acl with access lines, was not looked at by fix --root, which
// then applied a rewrite httpd answered otherwise). Every name counts.
describe('access file names of a configuration', () => {
  it('the main server and every virtual host', () => {
    const doc = parse('AccessFileName .htaccess .ht\n<VirtualHost *:80>\n  AccessFileName .acl\n</VirtualHost>\n<VirtualHost *:81>\n</VirtualHost>\n');
    assert.deepEqual(allAccessFileNames(doc).sort(), ['.acl', '.ht', '.htaccess']);
    assert.deepEqual(allAccessFileNames(parse('ServerName x\n')), ['.htaccess']);
  });
});

// A black-box LSP fuzz run: about 3,500 nested sections overflowed the call stack (the CLI exited 2
// with a trace, the editor's request answered -32603). Nothing may throw, however deep the nesting.
describe('features/explain: deeply nested sections', () => {
  const nested = (open: string, close: string, n: number, body: string) => open.repeat(n) + body + close.repeat(n);
  const shapes: Array<{ name: string; text: string; query: ExplainQuery; status: number | null }> = [
    { name: '3,500 <IfModule>', text: nested('<IfModule a>\n', '</IfModule>\n', 3500, 'Require all denied\n'), query: { path: '/' }, status: 200 },
    { name: '3,500 <IfDefine> around a virtual host', text: nested('<IfDefine !X>\n', '</IfDefine>\n', 3500, '<VirtualHost *:80>\nServerName a\n</VirtualHost>\n'), query: { path: '/', serverName: 'a' }, status: 200 },
    { name: '3,500 <Directory>', text: nested('<Directory />\n', '</Directory>\n', 3500, 'Require all denied\n'), query: { path: '/' }, status: 200 },
  ];
  for (const c of shapes) {
    it(`${c.name}: answered, with a word on the depth`, () => {
      const r = explainText(c.text, c.query);
      assert.equal(r.status, c.status);
      assert.match(String(r.note), /nested more than \d+ levels deep/);
    });
  }

  it('a .htaccess with 3,500 nested sections is checked without recursion', () => {
    const htaccess = nested('<Files a>\n', '</Files>\n', 3500, 'Require all denied\n');
    const reader: DiskReader = { readFile: (p) => (p === '/srv/.htaccess' ? htaccess : undefined), isDirectory: (p) => p === '/srv' || p === '/' };
    const doc = parse('<Directory />\n    AllowOverride All\n</Directory>\n');
    const r = explainOnDisk({ flat: flatOfDocument(doc, '/c/httpd.conf'), context: 'server', query: { path: '/a', documentRoot: '/srv' }, reader });
    assert.deepEqual(r.htaccess, ['/srv/.htaccess']);
    assert.match(String(r.note), /nested more than \d+ levels deep/);
  });

  it('a shallow configuration gets no such word', () => {
    assert.equal(explainText('<IfModule a>\nRequire all denied\n</IfModule>\n', { path: '/' }).note, undefined);
  });
});
