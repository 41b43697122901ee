import assert from 'node:assert/strict';
import type { MarkupContent } from 'vscode-languageserver-types';
import { offsetAt, parse } from '../../server/src/syntax';
import type { FileContext } from '../../server/src/model/context';
import { hoverAt } from '../../server/src/features/hover';

function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  assert.ok(offset >= 0, 'test input needs a | marker');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

interface Expect {
  /** The text the hover range covers. */
  range: string;
  /** The first line of the markdown starts with this. */
  first?: string;
  /** Strings the markdown must contain. */
  has?: string[];
  /** Strings the markdown must not contain. */
  lacks?: string[];
}

function hover(marked: string, ctx: FileContext = 'server'): { value: string; range: string } | null {
  const { text, offset } = cursor(marked);
  const doc = parse(text);
  const h = hoverAt(doc, offset, ctx);
  if (!h) return null;
  const value = (h.contents as MarkupContent).value;
  assert.equal((h.contents as MarkupContent).kind, 'markdown');
  assert.ok(h.range, 'hover has a range');
  const start = offsetAt(doc, h.range.start);
  const end = offsetAt(doc, h.range.end);
  return { value, range: text.slice(start, end) };
}

const cases: Array<[string, string, Expect | null, FileContext?]> = [
  // Directive names.
  ['directive name', 'Server|Name www.example.com', { range: 'ServerName', first: '```apacheconf', has: ['ServerName [scheme://]', 'Module: `core`', 'Context: server config, virtual host', 'core.html#servername'] }],
  ['start of the name', '|ServerName www.example.com', { range: 'ServerName' }],
  ['right after the name', 'ServerName| www.example.com', { range: 'ServerName' }],
  ['any case', 'servername| x', { range: 'servername', has: ['ServerName ['] }],
  ['indented, in a section', '<VirtualHost *:80>\n    Document|Root /srv/www\n</VirtualHost>', { range: 'DocumentRoot', has: ['DocumentRoot '] }],
  ['.htaccess directive with override', 'Rewrite|Rule ^a$ b [L]', { range: 'RewriteRule', has: ['Override: FileInfo'] }, 'htaccess'],
  ['continued line', 'Options \\\n  Index|es', null],
  // Sections.
  ['section open tag', '<Direc|tory "/srv">\n</Directory>', { range: 'Directory', has: ['<Directory directory-path> ... </Directory>'] }],
  ['section close tag', '<Directory "/srv">\n</Direc|tory>', { range: 'Directory', has: ['<Directory directory-path>'] }],
  ['unclosed section', '<IfMod|ule mod_ssl.c>\nSSLEngine on', { range: 'IfModule', has: ['<IfModule [!]module-file|module-identifier>'] }],
  ['Require block', '<Directory />\n<Require|All>\nRequire all granted\n</RequireAll>\n</Directory>', { range: 'RequireAll', has: ['mod_authz_core'] }],
  // Legacy directives lead with the replacement.
  ['removed directive', 'Lock|File /var/lock/accept.lock', { range: 'LockFile', first: '**Removed:**', has: ['Mutex'] }],
  ['removed Authz*Authoritative', '<Directory /x>\nAuthzUserAuthori|tative Off\n</Directory>', { range: 'AuthzUserAuthoritative', first: '**Removed:**', has: ['Delete the line'] }],
  ['removed RewriteLog', 'RewriteLog| logs/rewrite.log', { range: 'RewriteLog', first: '**Removed:**', has: ['LogLevel rewrite:trace', 'docs/2.2/mod/mod_rewrite.html#rewritelog'] }],
  ['renamed directive', 'MaxCli|ents 150', { range: 'MaxClients', first: '**Renamed:**', has: ['MaxRequestWorkers'] }],
  ['compat directive', '<Directory /x>\nOr|der allow,deny\n</Directory>', { range: 'Order', first: '**Deprecated:**', has: ['Require all granted', 'mod_access_compat'] }],
  ['no-op directive', 'NameVirtual|Host *:80', { range: 'NameVirtualHost', first: '**No effect:**' }],
  ['look-alike stays current', '<Location />\nAuthBasicAuthori|tative Off\n</Location>', { range: 'AuthBasicAuthoritative', first: '```apacheconf', lacks: ['Removed'] }],
  // Require providers.
  ['Require provider', '<Directory /x>\nRequire i|p 10.0.0.0/8\n</Directory>', { range: 'ip', has: ['**Require ip**', 'mod_authz_host', 'mod_authz_host.html#reqip'], lacks: ['With `not`'] }],
  ['Require not provider', '<RequireAll>\nRequire all granted\nRequire not ho|st bad.example\n</RequireAll>', { range: 'host', has: ['Require not host', 'With `not`'] }],
  ['Require all', 'Require |all granted', { range: 'all', has: ['granted | denied'] }],
  ['Require valid-user', 'Require valid-|user', { range: 'valid-user', has: ['mod_authz_user'] }],
  ['argument after the provider', 'Require all gran|ted', null],
  ['the word not', 'Require n|ot ip 10.1.2.3', null],
  ['unknown provider', 'Require fancy|thing', null],
  ['providers are case-sensitive', 'Require I|P 10.0.0.1', null],
  ['Require directive itself', 'Requ|ire all denied', { range: 'Require', has: ['Require [not] entity-name'] }],
  // Modules.
  ['IfModule source file', '<IfModule mod_s|sl.c>\n</IfModule>', { range: 'mod_ssl.c', has: ['**mod_ssl**', '`ssl_module`', 'mod_ssl.html'] }],
  ['IfModule identifier', '<IfModule rewrite_mo|dule>\n</IfModule>', { range: 'rewrite_module', has: ['**mod_rewrite**'] }],
  ['IfModule negated', '<IfModule !mod_authz_co|re.c>\n</IfModule>', { range: '!mod_authz_core.c', has: ['**mod_authz_core**'] }],
  ['IfModule removed module', '<IfModule mod_mem_ca|che.c>\n</IfModule>', { range: 'mod_mem_cache.c', first: '**Removed:**', has: ['mod_cache_disk'] }],
  ['IfModule third-party', '<IfModule mod_ph|p7.c>\n</IfModule>', null],
  ['LoadModule identifier', 'LoadModule ssl_mod|ule modules/mod_ssl.so', { range: 'ssl_module', has: ['**mod_ssl**'] }],
  ['LoadModule removed module', 'LoadModule disk_cache_|module modules/mod_disk_cache.so', { range: 'disk_cache_module', first: '**Removed:**', has: ['cache_disk_module'] }],
  ['LoadModule file name', 'LoadModule ssl_module modules/mod_s|sl.so', null],
  ['LoadModule third-party', 'LoadModule php7_mod|ule libphp7.so', null],
  // Nothing else.
  ['other argument', 'ServerName www.exam|ple.com', null],
  ['comment', '# Server|Name is set below', null],
  ['blank line', 'ServerName a\n|\nListen 80', null],
  ['leading blanks', '  |  ServerName a', null],
  ['unknown directive', 'PassengerRu|by /usr/bin/ruby', null],
  ['IfDefine argument', '<IfDefine SS|L>\n</IfDefine>', null],
  ['empty document', '|', null],
];

describe('feature: hover', () => {
  for (const [title, input, expected, ctx] of cases) {
    it(title, () => {
      const got = hover(input, ctx);
      if (expected === null) {
        assert.equal(got, null);
        return;
      }
      assert.ok(got, 'a hover');
      assert.equal(got.range, expected.range);
      if (expected.first) assert.ok(got.value.startsWith(expected.first), `starts with ${expected.first}:\n${got.value}`);
      for (const s of expected.has ?? []) assert.ok(got.value.includes(s), `contains ${s}:\n${got.value}`);
      for (const s of expected.lacks ?? []) assert.ok(!got.value.includes(s), `lacks ${s}:\n${got.value}`);
    });
  }
});
