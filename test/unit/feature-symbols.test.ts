import assert from 'node:assert/strict';
import { DocumentSymbol, SymbolKind } from 'vscode-languageserver-types';
import { parse } from '../../server/src/syntax';
import { documentSymbols, MAX_SYMBOL_DEPTH } from '../../server/src/features/symbols';

const KIND_NAME = Object.fromEntries(Object.entries(SymbolKind).map(([k, v]) => [v, k])) as Record<number, string>;

/** One line per symbol: indentation for nesting, name, kind, detail in parentheses. */
function outline(symbols: DocumentSymbol[], depth = 0): string[] {
  const out: string[] = [];
  for (const s of symbols) {
    out.push(`${'  '.repeat(depth)}${s.name} ${KIND_NAME[s.kind]}${s.detail ? ` (${s.detail})` : ''}`);
    out.push(...outline(s.children ?? [], depth + 1));
  }
  return out;
}

function contains(outer: DocumentSymbol['range'], inner: DocumentSymbol['range']): boolean {
  const le = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  return le(outer.start, inner.start) && le(inner.end, outer.end);
}

function checkRanges(symbols: DocumentSymbol[], parent?: DocumentSymbol): void {
  for (const s of symbols) {
    assert.ok(contains(s.range, s.selectionRange), `${s.name}: selectionRange inside range`);
    if (parent) assert.ok(contains(parent.range, s.range), `${s.name}: inside ${parent.name}`);
    checkRanges(s.children ?? [], s);
  }
}

const cases: Array<{ name: string; text: string; outline: string[] }> = [
  {
    name: 'virtual host with names in detail and notable directives as children',
    text: [
      'Listen 443',
      '<VirtualHost *:443>',
      '  ServerName www.example.com',
      '  ServerAlias example.com *.example.org',
      '  DocumentRoot "/srv/www"',
      '  RewriteEngine On',
      '  RewriteRule ^/old$ /new [R=301,L]',
      '  <Directory "/srv/www">',
      '    Require all granted',
      '  </Directory>',
      '</VirtualHost>',
    ].join('\n'),
    outline: [
      'Listen 443 Event',
      '<VirtualHost *:443> Namespace (www.example.com example.com *.example.org)',
      '  ServerName www.example.com Property',
      '  DocumentRoot "/srv/www" Property',
      '  <Directory "/srv/www"> Package',
    ],
  },
  {
    name: 'server names inside conditional sections count for the detail',
    text: '<VirtualHost *:80>\n<IfModule mod_ssl.c>\nServerName a.test\n</IfModule>\n</VirtualHost>\n',
    outline: ['<VirtualHost *:80> Namespace (a.test)', '  <IfModule mod_ssl.c> Boolean', '    ServerName a.test Property'],
  },
  {
    name: 'section kinds',
    text: [
      '<Location /app>',
      '</Location>',
      '<Files "*.php">',
      '</Files>',
      '<Proxy balancer://x>',
      '</Proxy>',
      '<RequireAll>',
      '</RequireAll>',
      '<Macro Site $name>',
      '</Macro>',
      '<LimitExcept GET>',
      '</LimitExcept>',
      '<Whatever x>',
      '</Whatever>',
      '<IfVersion >= 2.4>',
      '</IfVersion>',
    ].join('\n'),
    outline: [
      '<Location /app> Module',
      '<Files "*.php"> File',
      '<Proxy balancer://x> Interface',
      '<RequireAll> Operator',
      '<Macro Site $name> Function',
      '<LimitExcept GET> Struct',
      '<Whatever x> Object',
      '<IfVersion >= 2.4> Boolean',
    ],
  },
  {
    name: 'includes, defines, aliases and proxies; noisy directives left out',
    text: [
      'Define SITE example',
      'LoadModule ssl_module modules/mod_ssl.so',
      'Include conf.d/*.conf',
      'IncludeOptional sites/${SITE}.conf',
      'Alias /icons/ "/usr/share/icons/"',
      'ProxyPass /api http://backend:8080/api retry=0',
      'Require all granted',
      'RewriteMap lc int:tolower',
      'Use Site www',
    ].join('\n'),
    outline: [
      'Define SITE Constant (example)',
      'Include conf.d/*.conf File',
      'IncludeOptional sites/${SITE}.conf File',
      'Alias /icons/ Field ("/usr/share/icons/")',
      'ProxyPass /api Field (http://backend:8080/api retry=0)',
      'RewriteMap lc Variable (int:tolower)',
      'Use Site Function (www)',
    ],
  },
  {
    name: 'unclosed section ends at its last content line',
    text: '<Directory /x>\n  Options None\n  DocumentRoot /y\n\n\n',
    outline: ['<Directory /x> Package', '  DocumentRoot /y Property'],
  },
  {
    name: 'continuation inside a section tag',
    text: '<VirtualHost *:80 \\\n  *:8080>\nServerName x\n</VirtualHost>\n',
    outline: ['<VirtualHost *:80 *:8080> Namespace (x)', '  ServerName x Property'],
  },
  { name: 'empty document', text: '', outline: [] },
  { name: 'comments only', text: '# ServerName x\n', outline: [] },
];

describe('feature: document symbols', () => {
  for (const c of cases) {
    it(c.name, () => {
      const doc = parse(c.text);
      const symbols = documentSymbols(doc);
      assert.deepEqual(outline(symbols), c.outline);
      checkRanges(symbols);
    });
  }

  it('section range spans from the open line start to the close tag; selection is the name', () => {
    const doc = parse('  <Directory /x>\n  Options None\n  </Directory>\n');
    const [s] = documentSymbols(doc);
    assert.deepEqual(s.range, { start: { line: 0, character: 0 }, end: { line: 2, character: 14 } });
    assert.deepEqual(s.selectionRange, { start: { line: 0, character: 3 }, end: { line: 0, character: 12 } });
  });

  it('a section or directive name of a million characters is cut in the outline', () => {
    const long = 'x'.repeat(1_000_000);
    const symbols = documentSymbols(parse(`<${long} /a>\nServerName ${long}\n</${long}>\n<VirtualHost *:80>\n${'ServerName'.repeat(1000)} a\n</VirtualHost>\n`));
    assert.equal(symbols.length, 2);
    assert.equal(symbols[0].name, `<${'x'.repeat(79)}… /a>`);
    assert.equal(symbols[0].children?.[0]?.name, `ServerName ${'x'.repeat(59)}…`);
    for (const s of [...symbols, ...(symbols[0].children ?? [])]) assert.ok(s.name.length < 200, `${s.name.length} characters`);
  });

  it('unclosed section range ends at its last non-blank line', () => {
    const doc = parse('<Directory /x>\n  DocumentRoot /y\n\n\n');
    const [s] = documentSymbols(doc);
    assert.deepEqual(s.range.end, { line: 1, character: 17 });
  });

  it('200,000 nested sections never closed: each ends on the last line (each used to walk down to it again: quadratic)', () => {
    const n = 200000;
    const symbols = documentSymbols(parse('<Directory /x>\n'.repeat(n) + 'Require all denied\n'));
    assert.equal(symbols.length, 1);
    assert.equal(symbols[0].range.end.line, n);
  });

  it('10,000 nested sections: no stack overflow, depth capped, result serializable', () => {
    const n = 10000;
    const text = '<IfModule a>\n'.repeat(n) + 'ServerName deep\n' + '</IfModule>\n'.repeat(n);
    const symbols = documentSymbols(parse(text));
    let depth = 0;
    let level = symbols;
    while (level.length && level[0].children?.length) {
      depth++;
      level = level[0].children!;
    }
    assert.ok(depth <= MAX_SYMBOL_DEPTH, `depth ${depth}`);
    // Everything is still listed: n sections and the directive.
    let count = 0;
    const walk = (list: DocumentSymbol[]) => list.forEach((s) => (count++, walk(s.children ?? [])));
    walk(symbols);
    assert.equal(count, n + 1);
    assert.doesNotThrow(() => JSON.stringify(symbols));
  });
});
