// The pieces of "check with httpd" that need no httpd: reading its -t output, Debian's envvars,
// finding the binary, and the settings the workspace features read.
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Diagnostic } from 'vscode-languageserver-types';
import { clampToText, findHttpdBinary, firstMessage, httpdDiagnostics, httpdEnvironment, httpdLineRange, parseEnvvars, parseHttpdOutput, type HttpdRun } from '../../server/src/lsp/httpd';
import { DEFAULT_SETTINGS, MAX_INCLUDE_DEPTH, normalizeSettings } from '../../server/src/lsp/settings';

describe('check with httpd: output, environment, binary', () => {
  describe('parseHttpdOutput', () => {
    const cases: Array<{ name: string; output: string; errors: Array<{ file: string; line: number; message: string }> }> = [
      {
        name: 'the message on the next line (AH00526)',
        output: 'AH00526: Syntax error on line 2 of /c/sites/a.conf:\nInvalid command \'Foo\', perhaps misspelled or defined by a module not included in the server configuration\n',
        errors: [{ file: '/c/sites/a.conf', line: 1, message: "Invalid command 'Foo', perhaps misspelled or defined by a module not included in the server configuration" }],
      },
      {
        name: 'nested includes: the innermost place, the place repeated in the message dropped',
        output: 'apache2: Syntax error on line 6 of /c/root.conf: Syntax error on line 1 of /c/sub.conf: /c/sub.conf:1: <Directory> was not closed.\n',
        errors: [{ file: '/c/sub.conf', line: 0, message: '<Directory> was not closed.' }],
      },
      { name: 'an error without a place', output: 'AH00534: apache2: Configuration error: No MPM loaded.\n', errors: [] },
      { name: 'Syntax OK', output: 'Syntax OK\n', errors: [] },
      {
        name: 'CRLF output, two errors',
        output: 'AH00526: Syntax error on line 3 of /c/a.conf:\r\nfirst\r\nAH00526: Syntax error on line 9 of /c/b.conf:\r\nsecond\r\n',
        errors: [
          { file: '/c/a.conf', line: 2, message: 'first' },
          { file: '/c/b.conf', line: 8, message: 'second' },
        ],
      },
    ];
    for (const c of cases) {
      it(c.name, () => assert.deepEqual(parseHttpdOutput(c.output), c.errors));
    }
  });

  describe('httpdDiagnostics', () => {
    const run = (exitCode: number | null, output: string, timedOut = false): HttpdRun => ({ binary: 'httpd', args: [], exitCode, output, timedOut });
    // Every line twelve characters long.
    const length = () => 'Listen 80801\n'.repeat(6);

    it('gives nothing when httpd says Syntax OK', () => {
      assert.equal(httpdDiagnostics(run(0, 'Syntax OK\n'), '/c/root.conf', length).size, 0);
    });

    it('puts each error on its file and line, as an error from httpd', () => {
      const m = httpdDiagnostics(run(1, 'AH00526: Syntax error on line 4 of /c/a.conf:\nbad\n'), '/c/root.conf', length);
      assert.deepEqual([...m.keys()], ['/c/a.conf']);
      assert.deepEqual(m.get('/c/a.conf'), [
        { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 12 } }, severity: 1, source: 'httpd', code: 'httpd-t', message: 'bad' },
      ]);
    });

    it('puts a failure without a place on the root file\'s first line', () => {
      const m = httpdDiagnostics(run(1, 'AH00534: apache2: Configuration error: No MPM loaded.\n'), '/c/root.conf', length);
      assert.equal(m.get('/c/root.conf')?.[0].message, 'AH00534: apache2: Configuration error: No MPM loaded.');
    });

    it('says when httpd did not finish', () => {
      const m = httpdDiagnostics(run(null, '', true), '/c/root.conf', length);
      assert.match(String(m.get('/c/root.conf')?.[0].message), /did not finish/);
    });

    // httpd reads the file from disk while the editor may hold a shorter buffer, and it counts lines
    // ended by LF only (found by a black-box LSP fuzz run: ranges past the end of the document).
    const ranges: Array<{ name: string; text: string | undefined; line: number; range: [number, number, number, number] }> = [
      { name: 'a line inside the text', text: 'a\nbb\nccc\n', line: 1, range: [1, 0, 1, 2] },
      { name: 'CRLF: the break is not part of the line', text: 'a\r\nbb\r\n', line: 1, range: [1, 0, 1, 2] },
      { name: 'a line past the end: the last line', text: 'a\nbb\n', line: 40, range: [1, 0, 1, 2] },
      { name: 'a line past the end of a text without a final break', text: 'a\nbb', line: 9, range: [1, 0, 1, 2] },
      { name: 'the empty line after the final break: the one before', text: 'a\nbb\n', line: 2, range: [1, 0, 1, 2] },
      { name: 'an empty text', text: '', line: 3, range: [0, 0, 0, 0] },
      { name: 'lone CRs: httpd\'s line 2 is the client\'s line 3, and spans two', text: 'a\rb\nc\rd\ne', line: 1, range: [2, 0, 3, 1] },
      { name: 'an unknown text: the line httpd names, empty', text: undefined, line: 5, range: [5, 0, 5, 0] },
    ];
    for (const c of ranges) {
      it(`httpd's line in the text: ${c.name}`, () => {
        const r = httpdLineRange(c.text, c.line);
        assert.deepEqual([r.start.line, r.start.character, r.end.line, r.end.character], c.range);
      });
    }

    it('an error on a line past the end of the file lands on its last line', () => {
      const m = httpdDiagnostics(run(1, 'AH00526: Syntax error on line 99 of /c/a.conf:\nbad\n'), '/c/root.conf', () => 'Listen 80\n<Directory /x>\n');
      assert.deepEqual(m.get('/c/a.conf')?.[0].range, { start: { line: 1, character: 0 }, end: { line: 1, character: 14 } });
    });

    it('diagnostics are moved into a shorter buffer', () => {
      const d = (l1: number, c1: number, l2: number, c2: number): Diagnostic => ({ range: { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } }, message: 'x' });
      const text = 'Listen 80\nServerName a\n';
      assert.deepEqual(
        clampToText([d(0, 0, 0, 9), d(7, 0, 7, 30), d(1, 0, 1, 40)], text).map((x) => x.range),
        [d(0, 0, 0, 9).range, d(1, 0, 1, 12).range, d(1, 0, 1, 12).range],
      );
    });

    it('firstMessage skips blank lines and Syntax OK', () => {
      assert.equal(firstMessage('\n  \nSyntax OK\nsomething else\n'), 'something else');
      assert.equal(firstMessage(''), 'httpd -t failed');
    });
  });

  describe('Debian envvars', () => {
    const ENVVARS = [
      'unset HOME',
      'if [ "${APACHE_CONFDIR##/etc/apache2-}" != "${APACHE_CONFDIR}" ] ; then',
      '\tSUFFIX="-${APACHE_CONFDIR##/etc/apache2-}"',
      'else',
      '\tSUFFIX=',
      'fi',
      'export APACHE_RUN_USER=www-data',
      'export APACHE_RUN_DIR=/var/run/apache2$SUFFIX',
      'export APACHE_LOG_DIR="${APACHE_RUN_DIR}/logs"',
      "export QUOTED='$literal'",
      'export LANG',
      'export DANGER=$(id -u)',
      '',
    ].join('\n');

    it('takes the plain exports, expanding the variables set before (unknown ones empty)', () => {
      assert.deepEqual(parseEnvvars(ENVVARS), {
        APACHE_RUN_USER: 'www-data',
        APACHE_RUN_DIR: '/var/run/apache2',
        APACHE_LOG_DIR: '/var/run/apache2/logs',
        QUOTED: '$literal',
      });
    });

    it('passes them to apache2 only', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-envvars-'));
      try {
        const file = path.join(dir, 'envvars');
        fs.writeFileSync(file, ENVVARS);
        assert.equal(httpdEnvironment('/usr/sbin/apache2', {}, file).APACHE_RUN_DIR, '/var/run/apache2');
        assert.equal(httpdEnvironment('/usr/sbin/httpd', {}, file).APACHE_RUN_DIR, undefined);
        assert.equal(httpdEnvironment('/usr/sbin/apache2', {}, path.join(dir, 'missing')).LANG, 'C');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('findHttpdBinary', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apacheconf-bin-'));
      for (const name of ['apache2', 'httpd', 'not-executable']) fs.writeFileSync(path.join(dir, name), '#!/bin/sh\n', { mode: name === 'not-executable' ? 0o644 : 0o755 });
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('takes the setting as a path', () => {
      assert.equal(findHttpdBinary(path.join(dir, 'httpd'), ''), path.join(dir, 'httpd'));
      assert.equal(findHttpdBinary(path.join(dir, 'not-executable'), ''), undefined);
      assert.equal(findHttpdBinary(path.join(dir, 'missing'), ''), undefined);
    });

    it('looks a bare name up on the PATH first', () => {
      assert.equal(findHttpdBinary('httpd', dir), path.join(dir, 'httpd'));
    });

    it('without a setting, prefers apache2 on the PATH', () => {
      assert.equal(findHttpdBinary('', dir), path.join(dir, 'apache2'));
    });
  });
});

describe('workspace settings', () => {
  it('defaults: empty root, server root, target and binary; bounded includes', () => {
    const s = normalizeSettings({});
    assert.deepEqual(
      { rootFile: s.rootFile, serverRoot: s.serverRoot, httpdVersion: s.httpdVersion, httpd: s.httpd, includes: s.includes },
      { rootFile: '', serverRoot: '', httpdVersion: '', httpd: { path: '' }, includes: { ...DEFAULT_SETTINGS.includes } },
    );
  });

  it('reads nested and dotted keys, trims strings and clamps the limits', () => {
    const s = normalizeSettings({ rootFile: ' conf/httpd.conf ', includes: { maxFiles: 0 }, 'includes.maxDepth': 1000, 'httpd.path': '/opt/httpd/bin/httpd', httpdVersion: '2.4.6' });
    assert.equal(s.rootFile, 'conf/httpd.conf');
    assert.equal(s.includes.maxFiles, 1);
    assert.equal(s.includes.maxDepth, MAX_INCLUDE_DEPTH);
    assert.equal(s.httpd.path, '/opt/httpd/bin/httpd');
    assert.equal(s.httpdVersion, '2.4.6');
  });

  it('refuses a target that is not a 2.4 release, and says why', () => {
    const warnings: string[] = [];
    for (const v of ['2.2', '2.4.x', 'latest']) assert.equal(normalizeSettings({ httpdVersion: v }, (m) => warnings.push(m)).httpdVersion, '');
    assert.equal(warnings.length, 3);
    assert.match(warnings[0], /httpdVersion/);
  });

  it('refuses values of the wrong type', () => {
    const warnings: string[] = [];
    const s = normalizeSettings({ rootFile: 3, includes: { maxFiles: 'many' } }, (m) => warnings.push(m));
    assert.equal(s.rootFile, '');
    assert.equal(s.includes.maxFiles, DEFAULT_SETTINGS.includes.maxFiles);
    assert.equal(warnings.length, 2);
  });
});
