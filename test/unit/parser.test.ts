/**
 * The lossless parser, case by case: logical lines and continuations (LF and
 * CRLF), comments, quoting, section tags and their ranges, every kind of tag
 * error and the recovery after it, and the edges of a file (BOM, Latin-1,
 * empty, no final newline). Every case also checks the invariants: the line
 * nodes cover the text end to end and print gives the input back.
 */
import assert from 'node:assert/strict';
import { decode, encode, offsetAt, parse, physicalLine, positionAt, print, type ConfigDocument, type DirectiveNode, type SectionNode } from '../../server/src/syntax';

/** The invariants every parse must keep. */
function invariants(text: string, doc: ConfigDocument): void {
  assert.equal(print(doc), text, 'print(parse(x)) === x');
  let at = 0;
  for (const l of doc.lines) {
    assert.equal(l.lineStart, at, 'line nodes are contiguous');
    assert.ok(l.lineStart <= l.start && l.start <= l.end && l.end <= l.lineEnd, `ranges nest on line ${l.line}`);
    at = l.lineEnd;
  }
  assert.equal(at, text.length, 'line nodes cover the text');
  assert.equal(doc.lineStarts[0], 0);
  const breaks = text.split('\n').length;
  assert.equal(doc.lineStarts.length, breaks, 'one line start per physical line');
  for (const d of doc.directives) {
    for (const t of [d.name, ...d.args]) assert.ok(d.start <= t.start && t.start <= t.end && t.end <= d.end, `token ${t.raw} inside its line`);
  }
  for (const e of doc.errors) assert.ok(0 <= e.start && e.start <= e.end && e.end <= text.length, `error ${e.code} inside the text`);
}

const dir = (doc: ConfigDocument, i = 0): DirectiveNode => doc.directives[i];
const sec = (doc: ConfigDocument, i = 0): SectionNode => doc.sections[i];
const values = (d: DirectiveNode): string[] => d.args.map((a) => a.value);
const codes = (doc: ConfigDocument): string[] => doc.errors.map((e) => e.code);
const types = (doc: ConfigDocument): string[] => doc.lines.map((l) => l.type);

interface Case {
  name: string;
  text: string;
  check: (doc: ConfigDocument, text: string) => void;
}

const cases: Case[] = [
  // ---- logical lines and continuations
  {
    name: 'continuation with LF joins the next line',
    text: 'Allow from 10.0.0.1 \\\n   10.0.0.2\nDeny from all\n',
    check: (doc) => {
      assert.deepEqual(types(doc), ['directive', 'directive']);
      assert.deepEqual(values(dir(doc)), ['from', '10.0.0.1', '10.0.0.2']);
      assert.equal(dir(doc, 1).line, 2, 'physical line numbers keep counting');
    },
  },
  {
    name: 'continuation with CRLF (backslash, CR, LF)',
    text: 'Allow from a \\\r\n  b \\\r\n  c\r\nDeny from all\r\n',
    check: (doc, text) => {
      assert.equal(doc.directives.length, 2);
      assert.deepEqual(values(dir(doc)), ['from', 'a', 'b', 'c']);
      const c = dir(doc).args[3];
      assert.equal(text.slice(c.start, c.end), 'c');
      assert.equal(text[dir(doc).end], '\r', 'the CR is not part of the line content');
      assert.deepEqual(positionAt(doc, c.start), { line: 2, character: 2 });
    },
  },
  {
    name: 'a token split by a continuation keeps its original range',
    text: 'ServerN\\\name x\n',
    check: (doc, text) => {
      assert.equal(dir(doc).name.value, 'ServerName');
      assert.equal(dir(doc).key, 'servername');
      assert.equal(text.slice(dir(doc).name.start, dir(doc).name.end), 'ServerN\\\name');
    },
  },
  {
    name: 'a backslash followed by a blank does not continue',
    text: 'Foo a\\ \nBar b\n',
    check: (doc) => {
      assert.equal(doc.directives.length, 2);
      assert.deepEqual(values(dir(doc)), ['a\\']);
    },
  },
  {
    name: 'a continuation on the last line ends at the end of the text',
    text: 'Foo a \\\n',
    check: (doc) => {
      assert.equal(doc.lines.length, 1);
      assert.deepEqual(values(dir(doc)), ['a']);
    },
  },
  {
    name: 'two backslashes at the end still continue (httpd checks one character)',
    text: 'Foo a\\\\\nb\n',
    check: (doc) => {
      assert.equal(doc.directives.length, 1);
      assert.deepEqual(values(dir(doc)), ['a\\b']);
    },
  },
  {
    name: 'CR alone is not a line break',
    text: 'Foo a\rBar b\n',
    check: (doc) => {
      assert.equal(doc.lines.length, 1);
      assert.deepEqual(values(dir(doc)), ['a', 'Bar', 'b'], 'CR is white space inside a line');
    },
  },
  // ---- comments
  {
    name: 'a comment is a line whose first non-blank is #',
    text: '# top\n   \t# indented\nServerName x\n',
    check: (doc) => assert.deepEqual(types(doc), ['comment', 'comment', 'directive']),
  },
  {
    name: '# after a directive is an argument, not a comment',
    text: 'ServerName x # trailing\n',
    check: (doc) => {
      assert.deepEqual(types(doc), ['directive']);
      assert.deepEqual(values(dir(doc)), ['x', '#', 'trailing']);
    },
  },
  {
    name: 'a continued comment swallows the next line',
    text: '# note \\\nServerName x\nListen 80\n',
    check: (doc) => {
      assert.deepEqual(types(doc), ['comment', 'directive']);
      assert.equal(dir(doc).key, 'listen');
    },
  },
  {
    name: 'blank lines (spaces, tabs, CRLF) are blank nodes',
    text: '\n  \t\r\n\nListen 80',
    check: (doc) => assert.deepEqual(types(doc), ['blank', 'blank', 'blank', 'directive']),
  },
  // ---- quoting
  {
    name: 'double and single quotes group words; \\" and \\\\ unescape inside them',
    text: 'Foo "a b" \'c d\' "e\\"f" "g\\\\h" "i\\j"\n',
    check: (doc) => {
      assert.deepEqual(values(dir(doc)), ['a b', 'c d', 'e"f', 'g\\h', 'i\\j']);
      assert.deepEqual(dir(doc).args.map((a) => a.quote), ['"', "'", '"', '"', '"']);
      assert.equal(dir(doc).args[0].raw, '"a b"');
    },
  },
  {
    name: 'a quote inside a word is an ordinary character',
    text: 'Foo a"b c"\n',
    check: (doc) => {
      assert.deepEqual(values(dir(doc)), ['a"b', 'c"']);
      assert.ok(dir(doc).args.every((a) => a.quote === null));
    },
  },
  {
    name: 'an unterminated quote runs to the end of the line and is marked',
    text: 'Header set X "abc def\nListen 80\n',
    check: (doc) => {
      const last = dir(doc).args[dir(doc).args.length - 1];
      assert.equal(last.unterminated, true);
      assert.equal(last.value, 'abc def');
      assert.equal(doc.directives.length, 2, 'the next line is not swallowed');
    },
  },
  {
    name: 'empty quotes are an empty word',
    text: 'Foo "" b\n',
    check: (doc) => assert.deepEqual(values(dir(doc)), ['', 'b']),
  },
  // ---- sections
  {
    name: '<Directory> ranges: name token, args, open and close tags, children',
    text: '  <Directory "/srv/www">\n    Options None\n  </Directory>\n',
    check: (doc, text) => {
      const s = sec(doc);
      assert.equal(s.key, 'directory');
      assert.equal(text.slice(s.name.start, s.name.end), 'Directory');
      assert.equal(s.name.start, 3, 'the name starts after <');
      assert.deepEqual(s.args.map((a) => a.value), ['/srv/www']);
      assert.equal(text.slice(s.open.start, s.open.end), '<Directory "/srv/www">');
      assert.ok(s.close);
      assert.equal(text.slice(s.close.start, s.close.end), '</Directory>');
      assert.equal(text.slice(s.close.name.start, s.close.name.end), 'Directory');
      assert.equal(s.depth, 1);
      assert.equal(dir(doc).parent, s);
      assert.deepEqual(s.children.map((c) => c.type), ['directive', 'close']);
      assert.deepEqual(codes(doc), []);
    },
  },
  {
    name: 'nested sections get depth and parents; closing is case-insensitive',
    text: '<VirtualHost *:80>\n<directory /a>\n<Files x>\nRequire all denied\n</FILES>\n</Directory>\n</virtualhost>\n',
    check: (doc) => {
      assert.deepEqual(doc.sections.map((s) => s.depth), [1, 2, 3]);
      assert.equal(sec(doc, 2).parent, sec(doc, 1));
      assert.equal(dir(doc).parent, sec(doc, 2));
      assert.ok(doc.sections.every((s) => s.close));
      assert.deepEqual(codes(doc), []);
      assert.equal(doc.children.length, 1);
    },
  },
  {
    name: 'a tag with only a name, and white space before >',
    text: '<IfDefine FOO >\nListen 80\n</IfDefine >\n',
    check: (doc) => {
      assert.deepEqual(sec(doc).args.map((a) => a.value), ['FOO']);
      assert.ok(sec(doc).close);
      assert.deepEqual(codes(doc), []);
    },
  },
  {
    name: 'a > inside a quoted argument does not end the tag early',
    text: '<If "%{HTTP_HOST} == \'a>b\'">\n</If>\n',
    check: (doc) => {
      assert.equal(sec(doc).args.length, 1);
      assert.equal(sec(doc).args[0].value, "%{HTTP_HOST} == 'a>b'");
      assert.deepEqual(codes(doc), []);
    },
  },
  {
    name: 'a section open tag continued over two lines',
    text: '<Directory \\\n  /srv>\nOptions None\n</Directory>\n',
    check: (doc) => {
      assert.deepEqual(sec(doc).args.map((a) => a.value), ['/srv']);
      assert.equal(sec(doc).open.line, 0);
      assert.equal(dir(doc).line, 2);
      assert.deepEqual(codes(doc), []);
    },
  },
  // ---- tag errors and recovery
  {
    name: 'a stray closing tag is reported and kept at its level',
    text: 'Listen 80\n</Directory>\nServerName x\n',
    check: (doc, text) => {
      assert.deepEqual(codes(doc), ['stray-close']);
      assert.equal(text.slice(doc.errors[0].start, doc.errors[0].end), '</Directory>');
      const close = doc.lines[1];
      assert.equal(close.type, 'close');
      assert.equal(close.type === 'close' && close.section, null);
      assert.equal(dir(doc, 1).parent, null);
    },
  },
  {
    name: 'a stray close inside a section leaves the section open',
    text: '<Directory /a>\n</Files>\nOptions None\n</Directory>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['stray-close']);
      assert.equal(dir(doc).parent, sec(doc));
      assert.ok(sec(doc).close);
    },
  },
  {
    name: 'a mismatched close closes the outer section and reports the inner one',
    text: '<Directory /a>\n<Files x>\nRequire all denied\n</Directory>\nListen 80\n',
    check: (doc, text) => {
      assert.deepEqual(codes(doc), ['mismatched-close']);
      assert.equal(text.slice(doc.errors[0].start, doc.errors[0].end), '<Files x>');
      assert.ok(sec(doc, 0).close, 'Directory is closed');
      assert.equal(sec(doc, 1).close, null, 'Files never is');
      assert.equal(dir(doc, 1).parent, null, 'recovered: the next directive is at the top level');
    },
  },
  {
    name: 'an unclosed section is reported at its open tag',
    text: 'Listen 80\n<VirtualHost *:80>\nServerName x\n',
    check: (doc, text) => {
      assert.deepEqual(codes(doc), ['unclosed-section']);
      assert.equal(text.slice(doc.errors[0].start, doc.errors[0].end), '<VirtualHost *:80>');
      assert.match(doc.errors[0].message, /line 2/);
      assert.equal(dir(doc, 1).parent, sec(doc));
    },
  },
  {
    name: 'several unclosed sections are all reported, in text order',
    text: '<A>\n<B>\n<C>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['unclosed-section', 'unclosed-section', 'unclosed-section']);
      assert.deepEqual(doc.errors.map((e) => e.start), [0, 4, 8]);
    },
  },
  {
    name: 'an open tag without > is reported but still opens the section',
    text: '<Directory /srv\nOptions None\n</Directory>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['missing-gt']);
      assert.deepEqual(sec(doc).args.map((a) => a.value), ['/srv']);
      assert.ok(sec(doc).close);
      assert.equal(dir(doc).parent, sec(doc));
    },
  },
  {
    name: 'a closing tag without > is reported and still closes',
    text: '<Directory /srv>\n</Directory\nListen 80\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['missing-gt']);
      assert.ok(sec(doc).close);
      assert.equal(dir(doc).parent, null);
    },
  },
  {
    name: 'a closing tag with arguments',
    text: '<Directory /srv>\n</Directory /srv>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['close-has-arguments']);
      assert.ok(sec(doc).close);
    },
  },
  {
    name: 'text after the > of a closing tag',
    text: '<Files x>\n</Files> junk\n',
    check: (doc) => assert.deepEqual(codes(doc), ['close-has-arguments']),
  },
  {
    name: '< without a name is reported and kept as a directive',
    text: '< Directory /srv>\n<>\nListen 80\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['empty-section-name', 'empty-section-name']);
      assert.equal(doc.sections.length, 0);
      assert.equal(doc.directives.length, 3);
    },
  },
  {
    name: 'recovery: sections after a broken one parse normally',
    text: '</Stray>\n<Directory /a>\n<Files x>\n</Directory>\n<Location />\nRequire all granted\n</Location>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['stray-close', 'mismatched-close']);
      const loc = doc.sections.find((s) => s.key === 'location')!;
      assert.equal(loc.depth, 1);
      assert.ok(loc.close);
      assert.equal(doc.directives[doc.directives.length - 1].parent, loc);
    },
  },
  // ---- file edges
  {
    name: 'empty file',
    text: '',
    check: (doc) => {
      assert.deepEqual(doc.lines, []);
      assert.deepEqual(doc.children, []);
      assert.deepEqual(doc.errors, []);
      assert.deepEqual([...doc.lineStarts], [0]);
    },
  },
  {
    name: 'a single newline',
    text: '\n',
    check: (doc) => {
      assert.deepEqual(types(doc), ['blank']);
      assert.deepEqual([...doc.lineStarts], [0, 1]);
    },
  },
  {
    name: 'no final newline',
    text: 'Listen 80\nServerName x',
    check: (doc, text) => {
      assert.deepEqual(types(doc), ['directive', 'directive']);
      assert.equal(doc.lines[1].lineEnd, text.length);
      assert.deepEqual(values(dir(doc, 1)), ['x']);
    },
  },
  {
    name: 'no final newline after a closing tag',
    text: '<Files x>\n</Files>',
    check: (doc) => {
      assert.ok(sec(doc).close);
      assert.deepEqual(codes(doc), []);
    },
  },
  {
    // httpd reads the mark as the start of the first line's command ("Invalid command
    // '\xef\xbb\xbfServerName'"): an error of its own; the line is read as written after it.
    name: 'a BOM is an error, and the first line is read after it',
    text: '\uFEFFServerName x\nListen 80\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['bom']);
      assert.deepEqual([doc.errors[0].start, doc.errors[0].end], [0, 1]);
      assert.equal(dir(doc).name.raw, 'ServerName');
      assert.equal(dir(doc).start, 1);
      assert.equal(doc.lines[0].lineStart, 0);
      assert.deepEqual(values(dir(doc)), ['x']);
      assert.deepEqual(positionAt(doc, dir(doc, 1).start), { line: 1, character: 0 });
    },
  },
  {
    name: 'a BOM before a section tag, a comment or a blank line; the Latin-1 reading of one',
    text: '\uFEFF<Directory /x>\n</Directory>\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['bom']);
      assert.equal(sec(doc).key, 'directory');
      assert.equal(parse('\uFEFF# note\n').lines[0].type, 'comment');
      assert.equal(parse('\uFEFF\n').lines[0].type, 'blank');
      const latin = parse('\u00ef\u00bb\u00bfListen 80\n');
      assert.deepEqual([latin.errors[0].code, latin.errors[0].end, latin.directives[0].key], ['bom', 3, 'listen']);
      // Only at the start of the file.
      assert.deepEqual(codes(parse('Listen 80\n\uFEFFListen 81\n')), []);
    },
  },
  {
    name: 'NUL bytes are a binary-file error',
    text: 'Listen 80\n\u0000\u0001\u0002\n',
    check: (doc) => {
      assert.deepEqual(codes(doc), ['binary']);
      assert.equal(doc.errors[0].start, 10);
    },
  },
  {
    name: 'non-ASCII text: offsets are UTF-16 units',
    text: 'ServerAdmin "é😀" x\n',
    check: (doc) => {
      assert.equal(dir(doc).args[0].end - dir(doc).args[0].start, 5, '" é 😀(2) "');
      assert.equal(dir(doc).args[1].start, 18);
    },
  },
  {
    name: 'vertical tab and form feed are white space, as apr_isspace says',
    text: 'Foo\va\fb\n',
    check: (doc) => assert.deepEqual(values(dir(doc)), ['a', 'b']),
  },
];

describe('parser', () => {
  for (const c of cases) {
    it(c.name, () => {
      const doc = parse(c.text);
      invariants(c.text, doc);
      c.check(doc, c.text);
    });
  }

  // httpd ends lines at LF only, so a lone CR is text to it (one line below); LSP clients end
  // lines at a lone CR too, and a Position must count lines as they do.
  it('positions count a lone CR as a line end (LSP); httpd line numbers do not', () => {
    const text = '<Directory "/srv/a">\r\tOrder allow,deny\r</Directory>\r\nListen 80\n';
    const doc = parse(text);
    const order = text.indexOf('Order');
    assert.deepEqual(positionAt(doc, order), { line: 1, character: 1 });
    assert.equal(offsetAt(doc, { line: 1, character: 1 }), order);
    assert.deepEqual(positionAt(doc, text.indexOf('</Directory>')), { line: 2, character: 0 });
    assert.deepEqual(positionAt(doc, text.indexOf('Listen')), { line: 3, character: 0 });
    assert.equal(physicalLine(doc, order), 0);
    assert.equal(physicalLine(doc, text.indexOf('Listen')), 1);
    // CRLF and LF files: the two models agree.
    const crlf = parse('A 1\r\nB 2\r\n');
    assert.deepEqual(positionAt(crlf, 5), { line: 1, character: 0 });
    assert.equal(physicalLine(crlf, 5), 1);
  });

  it('Latin-1 bytes decode one to one, parse, and encode back to the same bytes', () => {
    const bytes = Buffer.concat([Buffer.from('# R'), Buffer.from([0xe9]), Buffer.from('pertoire\nAlias /caf'), Buffer.from([0xe9]), Buffer.from(' /srv/x\n')]);
    const file = decode(bytes);
    assert.equal(file.encoding, 'latin1');
    assert.equal(file.bom, false);
    const doc = parse(file.text);
    invariants(file.text, doc);
    assert.deepEqual(values(dir(doc)), ['/café', '/srv/x']);
    assert.ok(encode(print(doc), file.encoding).equals(bytes));
  });

  it('UTF-8 with a BOM decodes with the BOM kept in the text and encodes back', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# café\r\nListen 80\r\n')]);
    const file = decode(bytes);
    assert.equal(file.encoding, 'utf8');
    assert.equal(file.bom, true);
    assert.equal(file.text[0], '\uFEFF');
    const doc = parse(file.text);
    invariants(file.text, doc);
    assert.ok(encode(print(doc), file.encoding).equals(bytes));
  });

  it('deep nesting and long lines stay linear (no recursion limits)', () => {
    const depth = 5000;
    const text = '<IfModule a>\n'.repeat(depth) + 'Listen 80 ' + 'x'.repeat(200_000) + '\n' + '</IfModule>\n'.repeat(depth);
    const doc = parse(text);
    invariants(text, doc);
    assert.equal(doc.sections.length, depth);
    assert.equal(doc.sections[depth - 1].depth, depth);
    assert.deepEqual(codes(doc), []);
  });
});
