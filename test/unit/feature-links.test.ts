import assert from 'node:assert/strict';
import { offsetAt, parse } from '../../server/src/syntax';
import { documentLinks, type LinkOptions } from '../../server/src/features/links';
import { dirname, fileUriToPath, joinPath, normalizePath, pathToFileUri } from '../../server/src/features/paths';

/** Each link as "linked text -> target path". */
function links(text: string, options: LinkOptions = { baseDir: '/etc/httpd/conf.d' }): string[] {
  const doc = parse(text);
  return documentLinks(doc, options).map(
    (l) => `${text.slice(offsetAt(doc, l.range.start), offsetAt(doc, l.range.end))} -> ${fileUriToPath(l.target!)}`,
  );
}

const L = (...lines: string[]) => lines.join('\n');

const cases: Array<{ name: string; text: string; options?: LinkOptions; expected: string[] }> = [
  {
    name: 'relative paths resolve against the ServerRoot stated before them',
    text: L('ServerRoot "/etc/httpd"', 'Include conf/extra.conf', 'LoadModule ssl_module modules/mod_ssl.so'),
    expected: ['conf/extra.conf -> /etc/httpd/conf/extra.conf', 'modules/mod_ssl.so -> /etc/httpd/modules/mod_ssl.so'],
  },
  {
    name: 'without ServerRoot: the serverRoot option',
    text: 'Include conf/extra.conf',
    options: { serverRoot: '/usr/local/apache2', baseDir: '/somewhere' },
    expected: ['conf/extra.conf -> /usr/local/apache2/conf/extra.conf'],
  },
  {
    name: 'without either: the document folder',
    text: 'IncludeOptional ../other.conf',
    expected: ['../other.conf -> /etc/httpd/other.conf'],
  },
  {
    name: 'no base at all: only absolute paths link',
    text: L('Include rel.conf', 'Include /abs.conf'),
    options: {},
    expected: ['/abs.conf -> /abs.conf'],
  },
  {
    name: 'quoted path: the link covers the inside of the quotes',
    text: 'AuthUserFile "/etc/httpd/.htpasswd"',
    expected: ['/etc/httpd/.htpasswd -> /etc/httpd/.htpasswd'],
  },
  {
    name: 'file-valued directives',
    text: L(
      'ServerRoot /srv',
      'AuthGroupFile groups',
      'AuthDBMUserFile users.db',
      'AuthDBMGroupFile groups.db',
      'SSLCertificateFile tls/cert.pem',
      'SSLCertificateKeyFile tls/key.pem',
      'SSLCACertificateFile tls/ca.pem',
      'TypesConfig conf/mime.types',
      'LoadFile /usr/lib/libxml2.so /usr/lib/liblua.so',
    ),
    expected: [
      'groups -> /srv/groups',
      'users.db -> /srv/users.db',
      'groups.db -> /srv/groups.db',
      'tls/cert.pem -> /srv/tls/cert.pem',
      'tls/key.pem -> /srv/tls/key.pem',
      'tls/ca.pem -> /srv/tls/ca.pem',
      'conf/mime.types -> /srv/conf/mime.types',
      '/usr/lib/libxml2.so -> /usr/lib/libxml2.so',
      '/usr/lib/liblua.so -> /usr/lib/liblua.so',
    ],
  },
  {
    name: 'logs: files link, pipes and syslog do not',
    text: L(
      'ServerRoot /srv',
      'ErrorLog logs/error_log',
      'ErrorLog "|/usr/bin/rotatelogs logs/err 86400"',
      'ErrorLog syslog:local7',
      'CustomLog logs/access_log combined',
      'CustomLog "|$/usr/bin/logger" common',
    ),
    expected: ['logs/error_log -> /srv/logs/error_log', 'logs/access_log -> /srv/logs/access_log'],
  },
  {
    name: 'directories are not linked',
    text: L('DocumentRoot /var/www/html', 'SSLCACertificatePath /etc/ssl/certs'),
    expected: [],
  },
  {
    name: '${VAR} from a Define earlier in the file is substituted',
    text: L('Define CONF /etc/apache2', 'Include ${CONF}/ports.conf', 'Include ${APACHE_RUN_DIR}/x.conf'),
    expected: ['${CONF}/ports.conf -> /etc/apache2/ports.conf'],
  },
  {
    name: 'a Define after the use, or undefined again, does not count',
    text: L('Include ${LATE}/a.conf', 'Define LATE /x', 'UnDefine LATE', 'Include ${LATE}/b.conf'),
    expected: [],
  },
  {
    name: 'ServerRoot from a variable',
    text: L('Define ROOT /opt/httpd', 'ServerRoot ${ROOT}', 'Include conf/a.conf'),
    expected: ['conf/a.conf -> /opt/httpd/conf/a.conf'],
  },
  {
    name: 'globs are not linked without a resolver',
    text: L('IncludeOptional conf.d/*.conf', 'IncludeOptional [c]onf.modules.d/x.conf', 'Include sites/a?.conf'),
    expected: [],
  },
  {
    name: 'globs resolved to exactly one file are linked',
    text: L('IncludeOptional conf.d/*.conf', 'IncludeOptional [c]onf.modules.d/x.conf'),
    options: {
      baseDir: '/etc/httpd',
      resolveGlob: (p) => (p.includes('[c]onf') ? ['/etc/httpd/conf.modules.d/x.conf'] : ['/etc/httpd/conf.d/a.conf', '/etc/httpd/conf.d/b.conf']),
    },
    expected: ['[c]onf.modules.d/x.conf -> /etc/httpd/conf.modules.d/x.conf'],
  },
  {
    name: 'exists filters missing files',
    text: L('Include /etc/a.conf', 'Include /etc/missing.conf'),
    options: { exists: (p) => p === '/etc/a.conf' },
    expected: ['/etc/a.conf -> /etc/a.conf'],
  },
  {
    name: 'paths inside sections and on continuation lines',
    text: L('<VirtualHost *:443>', '  SSLCertificateFile \\', '     /etc/tls/c.pem', '</VirtualHost>'),
    expected: ['/etc/tls/c.pem -> /etc/tls/c.pem'],
  },
  {
    name: 'Windows paths',
    text: L('ServerRoot "C:/Apache24"', 'Include conf/extra/httpd-ssl.conf'),
    expected: ['conf/extra/httpd-ssl.conf -> C:/Apache24/conf/extra/httpd-ssl.conf'],
  },
  {
    name: 'directive names are case-insensitive; comments are not links',
    text: L('include /a.conf', '# Include /b.conf'),
    expected: ['/a.conf -> /a.conf'],
  },
];

describe('feature: document links', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(links(c.text, c.options), c.expected));
  }

  it('targets are file URIs with encoded segments; tooltips the path', () => {
    const doc = parse('Include "/etc/my conf/a#1.conf"');
    const [l] = documentLinks(doc);
    assert.equal(l.target, 'file:///etc/my%20conf/a%231.conf');
    assert.equal(l.tooltip, '/etc/my conf/a#1.conf');
  });

  describe('paths', () => {
    const table: Array<[string, string]> = [
      [normalizePath('/a/./b/../c/'), '/a/c'],
      [normalizePath('/../a'), '/a'],
      [normalizePath('a/../../b'), '../b'],
      [normalizePath('C:\\x\\y\\..\\z'), 'C:/x/z'],
      [joinPath('/etc/httpd', 'conf/x'), '/etc/httpd/conf/x'],
      [joinPath('/etc/httpd', '/abs'), '/abs'],
      [dirname('/etc/httpd/conf/httpd.conf'), '/etc/httpd/conf'],
      [dirname('/x'), '/'],
      [dirname('C:/x'), 'C:/'],
      [fileUriToPath('file:///c%3A/Apache24/conf/httpd.conf')!, 'c:/Apache24/conf/httpd.conf'],
      [fileUriToPath('file:///etc/a%20b')!, '/etc/a b'],
      [pathToFileUri('C:\\Apache24\\x y'), 'file:///C:/Apache24/x%20y'],
      [String(fileUriToPath('untitled:Untitled-1')), 'undefined'],
    ];
    table.forEach(([actual, expected], i) => it(`case ${i}: ${expected}`, () => assert.equal(actual, expected)));
  });
});
