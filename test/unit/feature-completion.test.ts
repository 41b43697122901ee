import assert from 'node:assert/strict';
import { CompletionItem, CompletionItemTag, InsertTextFormat, TextEdit } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parse } from '../../server/src/syntax';
import type { DirectiveFact, ModuleFact } from '../../server/src/facts/types';
import type { FileContext } from '../../server/src/model/context';
import { completionAt, resolveCompletion, scopeAt, type Catalog, type CompletionOptions } from '../../server/src/features/completion';

/** A small fixed catalog, so these tests do not move when the real one grows. */
const U = 'https://httpd.apache.org/docs/2.4/mod/';
const all: FileContext[] = ['server', 'vhost', 'directory', 'htaccess'];
function fact(name: string, module: string, contexts: FileContext[], syntax: string, extra: Partial<DirectiveFact> = {}): DirectiveFact {
  return { name, module, contexts, syntax, status: 'current', description: `${name} does things.`, url: U + module + '.html', ...extra };
}
const FACTS: DirectiveFact[] = [
  fact('ServerName', 'core', ['server', 'vhost'], 'ServerName [scheme://]domain-name|ip-address[:port]'),
  fact('Listen', 'mpm_common', ['server'], 'Listen [IP-address:]portnumber [protocol]'),
  fact('Options', 'core', ['server', 'vhost', 'directory', 'htaccess'], 'Options [+|-]option [[+|-]option] ...'),
  fact('AllowOverride', 'core', ['directory'], 'AllowOverride All|None|directive-type [directive-type] ...'),
  fact('Require', 'mod_authz_core', ['directory', 'htaccess'], 'Require [not] entity-name [entity-name] ...'),
  fact('AuthType', 'mod_authn_core', ['directory', 'htaccess'], 'AuthType None|Basic|Digest|Form'),
  fact('AuthMerging', 'mod_authz_core', ['directory', 'htaccess'], 'AuthMerging Off | And | Or'),
  fact('AuthUserFile', 'mod_authn_file', ['directory', 'htaccess'], 'AuthUserFile file-path'),
  fact('HostnameLookups', 'core', all, 'HostnameLookups On|Off|Double'),
  fact('RewriteEngine', 'mod_rewrite', all, 'RewriteEngine on|off'),
  fact('Include', 'core', ['server', 'vhost', 'directory'], 'Include file-path|directory-path|wildcard'),
  fact('LoadModule', 'mod_so', ['server'], 'LoadModule module filename'),
  fact('SSLProtocol', 'mod_ssl', ['server', 'vhost'], 'SSLProtocol [+|-]protocol ...'),
  fact('Satisfy', 'mod_access_compat', ['directory', 'htaccess'], 'Satisfy Any|All', { status: 'compat' }),
  fact('Order', 'mod_access_compat', ['directory', 'htaccess'], 'Order ordering', { status: 'compat' }),
  fact('AuthzLDAPAuthoritative', 'mod_authnz_ldap', ['directory', 'htaccess'], 'AuthzLDAPAuthoritative on|off', { status: 'removed' }),
  fact('ErrorLog', 'core', ['server', 'vhost'], 'ErrorLog file-path|syslog[:[facility][:tag]]'),
  fact('VirtualHost', 'core', ['server'], '<VirtualHost addr[:port] [addr[:port]] ...> ... </VirtualHost>', { section: true }),
  fact('Directory', 'core', ['server', 'vhost'], '<Directory directory-path> ... </Directory>', { section: true }),
  fact('Files', 'core', ['server', 'vhost', 'directory', 'htaccess'], '<Files filename> ... </Files>', { section: true }),
  fact('IfModule', 'core', all, '<IfModule [!]module-file|module-identifier> ... </IfModule>', { section: true }),
  fact('IfDefine', 'core', all, '<IfDefine [!]parameter-name> ... </IfDefine>', { section: true }),
  fact('MDomainSet', 'mod_md', ['server'], '<MDomainSet dns-name [other-dns-name...]>...</MDomainSet>', { section: true }),
  fact('SSLProxyEngine', 'mod_ssl', ['server', 'vhost', 'directory'], 'SSLProxyEngine on|off', { proxySection: true }),
  fact('Proxy', 'mod_proxy', ['server', 'vhost'], '<Proxy wildcard-url> ...</Proxy>', { section: true }),
  fact('Location', 'core', ['server', 'vhost'], '<Location URL-path|URL> ... </Location>', { section: true }),
];
const MODULES: ModuleFact[] = [
  { name: 'mod_ssl', id: 'ssl_module', file: 'mod_ssl.c', status: 'current', description: 'TLS.', url: U + 'mod_ssl.html' },
  { name: 'mod_rewrite', id: 'rewrite_module', file: 'mod_rewrite.c', status: 'current', description: 'Rewrites.', url: U + 'mod_rewrite.html' },
  { name: 'mod_authz_ldap', id: 'authz_ldap_module', file: 'mod_authz_ldap.c', status: 'removed', description: 'Gone.', url: U },
];
const byName = new Map(FACTS.map((f) => [f.name.toLowerCase(), f]));
const CATALOG: Catalog = {
  getDirective: (n) => byName.get(n.toLowerCase()),
  allDirectives: () => FACTS,
  allModules: () => MODULES,
  directiveDocsMarkdown: (f) => `**${f.name}** full docs`,
};

function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  assert.ok(offset >= 0, 'test input needs a | marker');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

function complete(marked: string, ctx: FileContext = 'server', options?: CompletionOptions): { items: CompletionItem[]; text: string } {
  const { text, offset } = cursor(marked);
  return { items: completionAt(parse(text), offset, ctx, CATALOG, options), text };
}

const labels = (items: CompletionItem[]) => items.map((i) => i.label);

/** The text after accepting the item with this label. */
function accept(marked: string, label: string, ctx: FileContext = 'server', options?: CompletionOptions): string {
  const { items, text } = complete(marked, ctx, options);
  const item = items.find((i) => i.label === label);
  assert.ok(item, `no item ${label} in ${labels(items).join(', ')}`);
  const doc = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
  return TextDocument.applyEdits(doc, [item.textEdit as TextEdit]);
}

type Case = { name: string; marked: string; ctx?: FileContext; options?: CompletionOptions; has?: string[]; hasNot?: string[]; exactly?: string[] };

const cases: Case[] = [
  { name: 'top level of the server config', marked: '|', has: ['ServerName', 'Listen', 'LoadModule', '<VirtualHost>', '<Directory>'], hasNot: ['Require', 'AllowOverride'] },
  { name: 'partial name at top level', marked: 'Serv|', has: ['ServerName'] },
  { name: 'inside VirtualHost: vhost context', marked: '<VirtualHost *:80>\n  |\n</VirtualHost>', has: ['ServerName', '<Directory>', 'ErrorLog'], hasNot: ['Listen', 'LoadModule', '<VirtualHost>', 'Require'] },
  { name: 'inside Directory: directory context', marked: '<Directory /x>\n  Req|\n</Directory>', has: ['Require', 'AllowOverride', 'Options', '<Files>'], hasNot: ['ServerName', '<Directory>'] },
  // The manual's "proxy section" context: httpd 2.4.71 says "SSLProxyEngine not allowed in <Directory> context".
  { name: 'proxy-section directives: at the server and vhost level and in <Proxy>', marked: '<VirtualHost *>\n<Proxy "*">\nSSLProxy|\n</Proxy>\n</VirtualHost>', has: ['SSLProxyEngine'] },
  { name: 'proxy-section directives: not in <Directory>, <Location> or <Files>', marked: '<Location /x>\n<IfModule a>\nSSLProxy|\n</IfModule>\n</Location>', hasNot: ['SSLProxyEngine'] },
  { name: 'proxy-section directives: at the top level', marked: 'SSLProxy|', has: ['SSLProxyEngine'] },
  { name: 'inside IfModule inside Directory: still directory', marked: '<Directory /x>\n<IfModule a>\n|\n</IfModule>\n</Directory>', has: ['Require'], hasNot: ['ServerName'] },
  { name: 'inside IfModule inside VirtualHost: vhost', marked: '<VirtualHost *>\n<IfModule a>\n|\n</IfModule>\n</VirtualHost>', has: ['ServerName'], hasNot: ['Require', 'Listen'] },
  { name: '.htaccess: htaccess-valid directives only, at any depth', marked: '<Files x>\n|\n</Files>', ctx: 'htaccess', has: ['Require', 'Options', '<Files>'], hasNot: ['AllowOverride', 'ServerName', '<Directory>'] },
  { name: 'file included inside a vhost', marked: '|', ctx: 'vhost', has: ['ServerName'], hasNot: ['Listen'] },
  { name: 'no completion in comments', marked: '# Serv|', exactly: [] },
  { name: 'after <: section names', marked: '<Dir|', has: ['<Directory>', '<VirtualHost>'], hasNot: ['ServerName'] },
  { name: 'after a bare <', marked: '<|', has: ['<Directory>'] },
  { name: 'closing tag', marked: '<Directory /x>\n</|', exactly: ['Directory'] },
  { name: 'Require: providers and not', marked: '<Directory /x>\nRequire |\n</Directory>', has: ['not', 'all', 'ip', 'host', 'valid-user', 'env', 'expr'] },
  { name: 'Require not: providers, no second not', marked: '<Directory /x>\nRequire not |\n</Directory>', has: ['ip', 'host'], hasNot: ['not'] },
  { name: 'Require all: granted and denied', marked: '<Directory /x>\nRequire all |\n</Directory>', exactly: ['granted', 'denied'] },
  { name: 'Require all partial', marked: 'Require all gr|', exactly: ['granted', 'denied'] },
  { name: 'Require method: HTTP methods not yet given', marked: 'Require method GET |', has: ['POST', 'PUT'], hasNot: ['GET'] },
  { name: 'Require ip: nothing to offer', marked: 'Require ip |', exactly: [] },
  { name: 'Options flags, without those already given', marked: 'Options Indexes |', has: ['FollowSymLinks', 'MultiViews', 'None'], hasNot: ['Indexes'] },
  { name: 'Options with a sign: signed flags, no All/None', marked: 'Options -Indexes +Fol|', has: ['+FollowSymLinks', '+ExecCGI'], hasNot: ['+Indexes', '+All', '+None', 'FollowSymLinks'] },
  { name: 'AllowOverride classes', marked: '<Directory />\nAllowOverride |\n</Directory>', has: ['All', 'None', 'AuthConfig', 'FileInfo', 'Indexes', 'Limit', 'Options', 'Options='] },
  { name: 'AllowOverride Options= list', marked: 'AllowOverride Options=Indexes,|', has: ['FollowSymLinks', 'MultiViews'], hasNot: ['Indexes', 'None', 'AuthConfig'] },
  { name: 'AuthType', marked: 'AuthType |', exactly: ['Basic', 'Digest', 'Form', 'None'] },
  { name: 'AuthMerging', marked: 'AuthMerging |', exactly: ['Off', 'And', 'Or'] },
  { name: 'On|Off style choices from the syntax line', marked: 'HostnameLookups |', exactly: ['On', 'Off', 'Double'] },
  { name: 'lower-case choices kept as written', marked: 'RewriteEngine |', exactly: ['on', 'off'] },
  { name: 'no choices past the enumerated argument', marked: 'HostnameLookups On |', exactly: [] },
  { name: 'SSLProtocol with signs', marked: 'SSLProtocol all -|', has: ['-TLSv1', '-TLSv1.1', '-SSLv3'], hasNot: ['-all'] },
  { name: 'IfModule: both module spellings', marked: '<IfModule |>', has: ['mod_ssl.c', 'ssl_module', 'mod_rewrite.c', 'rewrite_module'] },
  { name: 'IfModule with !', marked: '<IfModule !mod_|>', has: ['!mod_ssl.c', '!ssl_module'] },
  { name: 'IfModule without a closing >', marked: '<IfModule mod_s|', has: ['mod_ssl.c'] },
  { name: 'nothing after the > of a tag', marked: '<IfModule mod_ssl.c> |', exactly: [] },
  { name: 'IfDefine: names defined in the file', marked: 'Define SSL\nDefine ROOT /x\n<IfDefine |>', exactly: ['ROOT', 'SSL'] },
  { name: 'LoadModule: module ids', marked: 'LoadModule |', has: ['ssl_module', 'rewrite_module'], hasNot: ['mod_ssl.c'] },
  { name: 'LoadModule: the usual path', marked: 'LoadModule ssl_module |', exactly: ['modules/mod_ssl.so'] },
  { name: 'unknown directive: nothing', marked: 'FooBar |', exactly: [] },
];

describe('feature: completion', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { items } = complete(c.marked, c.ctx, c.options);
      const got = labels(items);
      if (c.exactly) assert.deepEqual(got, c.exactly);
      for (const l of c.has ?? []) assert.ok(got.includes(l), `missing ${l} in ${got.join(', ')}`);
      for (const l of c.hasNot ?? []) assert.ok(!got.includes(l), `unexpected ${l}`);
    });
  }

  it('directive items: module as detail, description as docs, replace the whole word', () => {
    assert.equal(accept('Serv|erNme x', 'ServerName'), 'ServerName x');
    const { items } = complete('Serv|');
    const sn = items.find((i) => i.label === 'ServerName')!;
    assert.equal(sn.detail, 'core');
    assert.match(JSON.stringify(sn.documentation), /ServerName does things/);
  });

  it('deprecated directives are tagged and sorted last', () => {
    const { items } = complete('<Directory />\n|\n</Directory>');
    const sorted = [...items].sort((a, b) => a.sortText!.localeCompare(b.sortText!));
    const dep = sorted.filter((i) => i.tags?.includes(CompletionItemTag.Deprecated)).map((i) => i.label);
    assert.deepEqual(dep.sort(), ['AuthzLDAPAuthoritative', 'Order', 'Satisfy']);
    const firstDep = sorted.findIndex((i) => i.tags?.includes(CompletionItemTag.Deprecated));
    assert.ok(sorted.slice(firstDep).every((i) => i.tags?.includes(CompletionItemTag.Deprecated)));
    assert.match(String(items.find((i) => i.label === 'AuthzLDAPAuthoritative')!.detail), /removed/);
  });

  it('values of deprecated directives are tagged deprecated', () => {
    const { items } = complete('Satisfy |');
    assert.deepEqual(labels(items), ['Any', 'All']);
    assert.ok(items.every((i) => i.tags?.includes(CompletionItemTag.Deprecated)));
    const order = complete('Order |').items;
    assert.deepEqual(labels(order), ['Deny,Allow', 'Allow,Deny', 'Mutual-failure']);
    assert.ok(order.every((i) => i.tags?.includes(CompletionItemTag.Deprecated)));
  });

  it('section snippets close their tag', () => {
    const { items } = complete('|');
    const d = items.find((i) => i.label === '<Directory>')!;
    assert.equal(d.insertTextFormat, InsertTextFormat.Snippet);
    assert.equal((d.textEdit as TextEdit).newText, '<Directory "${1:/path}">\n\t$0\n</Directory>');
    assert.equal(accept('<Dir|', '<Directory>'), '<Directory "${1:/path}">\n\t$0\n</Directory>');
    assert.equal(accept('<|', '<VirtualHost>'), '<VirtualHost *:${1:80}>\n\t$0\n</VirtualHost>');
  });

  it('a section without a hand-written snippet takes its arguments from the syntax line', () => {
    assert.equal(accept('<MD|', '<MDomainSet>'), '<MDomainSet ${1:dns-name}>\n\t$0\n</MDomainSet>');
  });

  it('renaming the name of an existing tag inserts only the name', () => {
    const out = accept('<Dir| /srv>\n</Directory>', '<Directory>');
    assert.equal(out, '<Directory /srv>\n</Directory>');
  });

  it('closing tag gets its >', () => {
    assert.equal(accept('<Files x>\n</|', 'Files'), '<Files x>\n</Files>');
    assert.equal(accept('<Files x>\n</Fi|>', 'Files'), '<Files x>\n</Files>');
  });

  it('values replace the word under the cursor, signs included', () => {
    assert.equal(accept('Options -Indexes +Fol|', '+FollowSymLinks'), 'Options -Indexes +FollowSymLinks');
    assert.equal(accept('AllowOverride Options=Indexes,Fo|', 'FollowSymLinks'), 'AllowOverride Options=Indexes,FollowSymLinks');
    assert.equal(accept('Require all gr|anted', 'granted'), 'Require all granted');
    assert.equal(accept('<IfModule !mod_s|>', '!mod_ssl.c'), '<IfModule !mod_ssl.c>');
  });

  it('file paths through listDir, resolved like links', () => {
    const dirs: Record<string, string[]> = {
      '/etc/httpd': ['conf/', 'conf.d/', 'modules/'],
      '/etc/httpd/conf.d': ['ssl.conf', 'welcome.conf'],
      '/etc/httpd/conf': ['httpd.conf'],
    };
    const listDir = (d: string) => dirs[d] ?? [];
    const options = { listDir };
    const marked = 'ServerRoot /etc/httpd\nInclude conf.d/|';
    assert.deepEqual(labels(complete(marked, 'server', options).items), ['ssl.conf', 'welcome.conf']);
    assert.deepEqual(labels(complete('ServerRoot /etc/httpd\nInclude |', 'server', options).items), ['conf/', 'conf.d/', 'modules/']);
    assert.equal(accept('ServerRoot /etc/httpd\nInclude "conf.d/w|"', 'welcome.conf', 'server', options), 'ServerRoot /etc/httpd\nInclude "conf.d/welcome.conf"');
    assert.deepEqual(labels(complete('Include /etc/httpd/conf/|', 'server', options).items), ['httpd.conf']);
    assert.deepEqual(labels(complete('Include |', 'server', { listDir, baseDir: '/etc/httpd/conf.d' }).items), ['ssl.conf', 'welcome.conf']);
    assert.deepEqual(labels(complete('Include conf.d/*|', 'server', options).items), [], 'no completion in globs');
    assert.deepEqual(labels(complete('ErrorLog "|/usr/bin/|', 'server', options).items), [], 'no completion in pipes');
    assert.deepEqual(labels(complete('Include conf.d/|', 'server', {}).items), [], 'no listDir, no paths');
    assert.deepEqual(labels(complete('<Directory />\nAuthUserFile /etc/httpd/conf.d/|\n</Directory>', 'server', options).items), ['ssl.conf', 'welcome.conf']);
  });

  it('resolve adds the full documentation', () => {
    const { items } = complete('Serv|');
    const resolved = resolveCompletion(items.find((i) => i.label === 'ServerName')!, CATALOG);
    assert.deepEqual(resolved.documentation, { kind: 'markdown', value: '**ServerName** full docs' });
  });

  // An LSP client ends a line at LF, CRLF or a lone CR: a quoted word that runs over a line break
  // must still be replaced on the cursor's line only (found by a black-box LSP fuzz run).
  const breaks: Array<{ name: string; marked: string }> = [
    { name: 'LF', marked: 'Require "al\nl|' },
    { name: 'CRLF', marked: 'Require "al\r\nl|' },
    { name: 'lone CR, cursor after the break', marked: 'Require "al\rl|' },
    { name: 'lone CR, cursor before the break', marked: 'Require "a|l\rl' },
  ];
  for (const b of breaks) {
    it(`a completion's edit stays on the cursor's line (${b.name})`, () => {
      const { text, offset } = cursor(b.marked);
      const doc = TextDocument.create('file:///x.conf', 'apacheconf', 1, text);
      const line = doc.positionAt(offset).line;
      const { items } = complete(b.marked);
      assert.ok(items.length > 0);
      for (const i of items) {
        const r = (i.textEdit as TextEdit).range;
        assert.deepEqual([r.start.line, r.end.line], [line, line], `${i.label}: ${JSON.stringify(r)}`);
      }
    });
  }

  it('scopeAt', () => {
    const doc = parse('<VirtualHost *>\n<Location />\n<If "true">\nX\n</If>\n</Location>\nY\n</VirtualHost>\n');
    const [x, y] = doc.directives;
    assert.equal(scopeAt(x.parent, 'server'), 'directory');
    assert.equal(scopeAt(y.parent, 'server'), 'vhost');
    assert.equal(scopeAt(null, 'htaccess'), 'htaccess');
  });
});
