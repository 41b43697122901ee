import assert from 'node:assert/strict';
import { parse } from '../../server/src/syntax';
import { definitionAt, referencesAt } from '../../server/src/features/definition';

/** `|` marks the cursor; returns the text without it and the offset. */
function cursor(src: string): { text: string; offset: number } {
  const offset = src.indexOf('|');
  return { text: src.slice(0, offset) + src.slice(offset + 1), offset };
}

const DEFINES = [
  'Define DOCROOT /srv/www',
  'Define ADMIN',
  'DocumentRoot ${DOC|ROOT}',
  '<Directory ${DOCROOT}/pub>',
  '</Directory>',
  '<IfDefine ADMIN>',
  '  Alias /admin ${DOCROOT}/admin',
  '</IfDefine>',
  '',
].join('\n');

const MACRO = [
  '<Macro VHost $name $port>',
  '  <VirtualHost *:$port>',
  '    ServerName $name',
  '    DocumentRoot /srv/${name}',
  '  </VirtualHost>',
  '</Macro>',
  'Use VH|ost example.com 80',
  'use vhost example.org 8080',
  '',
].join('\n');

describe('feature: definition and references', () => {
  const cases: Array<{ name: string; src: string; defs: string[]; refs: string[] }> = [
    { name: '${VAR} goes to its Define', src: DEFINES, defs: ['DOCROOT'], refs: ['DOCROOT', 'DOCROOT', 'DOCROOT', 'DOCROOT'] },
    { name: 'from the Define itself', src: DEFINES.replace('Define DOCROOT', 'Define DOC|ROOT').replace('${DOC|ROOT}', '${DOCROOT}'), defs: ['DOCROOT'], refs: ['DOCROOT', 'DOCROOT', 'DOCROOT', 'DOCROOT'] },
    { name: 'IfDefine name goes to its Define', src: DEFINES.replace('${DOC|ROOT}', '${DOCROOT}').replace('<IfDefine ADMIN>', '<IfDefine AD|MIN>'), defs: ['ADMIN'], refs: ['ADMIN', 'ADMIN'] },
    { name: 'Use goes to the Macro (names are case-insensitive)', src: MACRO, defs: ['VHost'], refs: ['VHost', 'VHost', 'vhost'] },
    { name: 'a macro parameter inside the body', src: MACRO.replace('Use VH|ost', 'Use VHost').replace('ServerName $name', 'ServerName $na|me'), defs: ['$name'], refs: ['$name', '$name', 'name'] },
    { name: 'nothing under the cursor', src: 'Listen 8|0\n', defs: [], refs: [] },
    { name: 'an undefined variable has no definition', src: 'DocumentRoot ${NO|PE}\n', defs: [], refs: ['NOPE'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { text, offset } = cursor(c.src);
      const docs = [{ uri: 'file:///a.conf', doc: parse(text) }];
      assert.deepEqual(definitionAt(docs, offset).map((p) => text.slice(p.start, p.end)), c.defs);
      assert.deepEqual(referencesAt(docs, offset).map((p) => text.slice(p.start, p.end)), c.refs);
    });
  }

  it('finds a Define in another file of the configuration', () => {
    const { text, offset } = cursor('DocumentRoot ${WEB|ROOT}\n');
    const other = 'Define WEBROOT /srv\n';
    const places = definitionAt([{ uri: 'file:///site.conf', doc: parse(text) }, { uri: 'file:///apache2.conf', doc: parse(other) }], offset);
    assert.deepEqual(places, [{ uri: 'file:///apache2.conf', start: 7, end: 14 }]);
  });
});
