import assert from 'node:assert/strict';
import { ParameterInformation, SignatureHelp } from 'vscode-languageserver-types';
import { parse } from '../../server/src/syntax';
import type { DirectiveFact } from '../../server/src/facts/types';
import { signatureHelpAt } from '../../server/src/features/signature';
import { parseSyntax, paramIndexFor } from '../../server/src/features/syntaxparams';

function fact(name: string, syntax: string): DirectiveFact {
  return { name, module: 'core', contexts: ['server'], syntax, status: 'current', description: `${name} help.`, url: 'https://httpd.apache.org/' };
}
const FACTS = [
  fact('Require', 'Require [not] entity-name [entity-name] ...'),
  fact('AuthMerging', 'AuthMerging Off | And | Or'),
  fact('ProxyPass', 'ProxyPass [path] !|url [key=value [key=value ...]]'),
  fact('Listen', 'Listen [IP-address:]portnumber [protocol]'),
  fact('Directory', '<Directory directory-path> ... </Directory>'),
  fact('VirtualHost', '<VirtualHost addr[:port] [addr[:port]] ...> ... </VirtualHost>'),
];
const CATALOG = { getDirective: (n: string) => FACTS.find((f) => f.name.toLowerCase() === n.toLowerCase()) };

function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  assert.ok(offset >= 0, 'test input needs a | marker');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

/** "label" with the active parameter in «», or null. */
function show(marked: string): string | null {
  const { text, offset } = cursor(marked);
  const help: SignatureHelp | null = signatureHelpAt(parse(text), offset, CATALOG);
  if (!help) return null;
  const sig = help.signatures[help.activeSignature ?? 0];
  const active = help.activeParameter;
  if (active === undefined || active === null) return sig.label;
  const [s, e] = (sig.parameters![active] as ParameterInformation).label as [number, number];
  return sig.label.slice(0, s) + '«' + sig.label.slice(s, e) + '»' + sig.label.slice(e);
}

const cases: Array<[string, string, string | null]> = [
  ['first argument', 'Listen |', 'Listen «[IP-address:]portnumber» [protocol]'],
  ['inside the first argument', 'Listen 80|80', 'Listen «[IP-address:]portnumber» [protocol]'],
  ['second argument', 'Listen 8080 h|', 'Listen [IP-address:]portnumber «[protocol]»'],
  ['past the last parameter: stays on the last', 'Listen 8080 https x|', 'Listen [IP-address:]portnumber «[protocol]»'],
  ['alternatives with spaces are one parameter', 'AuthMerging |', 'AuthMerging «Off | And | Or»'],
  ['repeating parameter', 'ProxyPass /a http://b retry=0 timeout=5 |', 'ProxyPass [path] !|url «[key=value [key=value ...]]»'],
  ['Require before the provider: the directive syntax', 'Require |', 'Require «[not]» entity-name [entity-name] ...'],
  ['Require after a provider: its own arguments', 'Require ip 10.0.0.1 |', 'Require ip address «[address]» …'],
  ['Require not with a provider', 'Require not host |', 'Require not host «name» [name] …'],
  ['Require all', 'Require all |', 'Require all «granted | denied»'],
  ['section tag arguments', '<Directory |>', '<Directory «directory-path»> ... </Directory>'],
  ['section tag repeat', '<VirtualHost *:80 |>', '<VirtualHost addr[:port] «[addr[:port]]» ...> ... </VirtualHost>'],
  ['on a continuation line', 'Listen \\\n  80 |', 'Listen [IP-address:]portnumber «[protocol]»'],
  ['in the directive name: none', 'List|en 80', null],
  ['right after the name: none', 'Listen|', null],
  ['after the > of a tag: none', '<Directory /x> |', null],
  ['unknown directive: none', 'Foo |', null],
  ['comment: none', '# Listen |', null],
  ['blank line: none', '|', null],
];

describe('feature: signature help', () => {
  for (const [name, marked, expected] of cases) it(name, () => assert.equal(show(marked), expected));

  it('documentation is the description', () => {
    const { text, offset } = cursor('Listen |');
    const help = signatureHelpAt(parse(text), offset, CATALOG)!;
    assert.deepEqual(help.signatures[0].documentation, { kind: 'markdown', value: 'Listen help.' });
  });

  describe('parseSyntax', () => {
    const table: Array<[string, string[]]> = [
      ['Require [not] entity-name [entity-name] ...', ['[not]?', 'entity-name', '[entity-name]?*']],
      ['AuthMerging Off | And | Or', ['Off | And | Or=Off,And,Or']],
      ['HostnameLookups On|Off|Double', ['On|Off|Double=On,Off,Double']],
      ['Options [+|-]option [[+|-]option] ...', ['[+|-]option', '[[+|-]option]?*']],
      ['<Directory directory-path> ... </Directory>', ['directory-path']],
      ['Header [condition] add|append|edit*|set header', ['[condition]?', 'add|append|edit*|set=add,append,edit*,set', 'header']],
      ['RewriteOptions Options', ['Options']],
      ['ServerTokens Major|Minor|Min[imal]|Prod[uctOnly]|OS|Full', ['Major|Minor|Min[imal]|Prod[uctOnly]|OS|Full']],
    ];
    for (const [syntax, expected] of table) {
      it(syntax, () => {
        const got = parseSyntax(syntax).params.map(
          (p) => p.label + (p.optional ? '?' : '') + (p.repeat ? '*' : '') + (p.alternatives ? '=' + p.alternatives.join(',') : ''),
        );
        assert.deepEqual(got, expected);
      });
    }
    it('paramIndexFor', () => {
      const ps = parseSyntax('Require [not] entity-name [entity-name] ...').params;
      assert.deepEqual([0, 1, 2, 3, 9].map((i) => paramIndexFor(ps, i)), [0, 1, 2, 2, 2]);
      const one = parseSyntax('AuthType None|Basic').params;
      assert.equal(paramIndexFor(one, 1), 0);
      assert.equal(paramIndexFor(one, 1, true), -1);
      assert.equal(paramIndexFor([], 0), -1);
    });
  });
});
