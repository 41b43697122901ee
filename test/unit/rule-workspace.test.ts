import assert from 'node:assert/strict';
import { loadConfigGraph, type WorkspaceHost } from '../../server/src/model/workspace';
import { checkConfiguration } from '../../server/src/rules/workspace';

function host(files: Record<string, string>): WorkspaceHost {
  return {
    readFile: (p) => files[p],
    listDir: (p) => {
      const pre = p.replace(/\/+$/, '') + '/';
      const names = [...new Set(Object.keys(files).filter((f) => f.startsWith(pre)).map((f) => f.slice(pre.length).split('/')[0]))];
      return names.length ? names : undefined;
    },
  };
}

function run(files: Record<string, string>) {
  const g = loadConfigGraph(host(files), '/c/httpd.conf');
  return checkConfiguration(g).map((f) => `${f.rule} ${f.path}: ${g.files.find((x) => x.path === f.path)!.doc.text.slice(f.start, f.end)}`);
}

const BASE = 'LoadModule mpm_event_module modules/mod_mpm_event.so\nLoadModule authz_core_module modules/mod_authz_core.so\n';

describe('configuration-wide rules (module-not-loaded, compat-module)', () => {
  const cases: Array<{ name: string; files: Record<string, string>; want: string[] }> = [
    {
      name: 'a directive of a module nobody loads',
      files: { '/c/httpd.conf': BASE + 'Include site.conf\n', '/c/site.conf': '<VirtualHost *:80>\n  RewriteEngine On\n  Require all granted\n</VirtualHost>\n' },
      want: ['module-not-loaded /c/site.conf: RewriteEngine'],
    },
    {
      name: 'loaded in another file',
      files: { '/c/httpd.conf': BASE + 'Include mods/*.load\nInclude site.conf\n', '/c/mods/rewrite.load': 'LoadModule rewrite_module modules/mod_rewrite.so\n', '/c/site.conf': 'RewriteEngine On\n' },
      want: [],
    },
    {
      name: 'guarded by IfModule, core and MPM directives are fine',
      files: { '/c/httpd.conf': BASE + '<IfModule mod_ssl.c>\n  SSLEngine on\n</IfModule>\nServerName a\nMaxRequestWorkers 10\nListen 80\nUser www-data\n' },
      want: [],
    },
    {
      name: 'no LoadModule at all: nothing is judged',
      files: { '/c/httpd.conf': 'RewriteEngine On\n' },
      want: [],
    },
    {
      name: 'compat loaded but unused anywhere',
      files: { '/c/httpd.conf': BASE + 'LoadModule access_compat_module modules/mod_access_compat.so\nInclude a.conf\n', '/c/a.conf': '<Directory />\n  Require all denied\n</Directory>\n' },
      want: ['compat-module /c/httpd.conf: LoadModule access_compat_module modules/mod_access_compat.so'],
    },
    {
      name: 'compat still used by an included file',
      files: { '/c/httpd.conf': BASE + 'LoadModule access_compat_module modules/mod_access_compat.so\nInclude a.conf\n', '/c/a.conf': '<Directory />\n  Deny from all\n</Directory>\n' },
      want: [],
    },
    {
      name: 'an included file has Require lines only a server without compat reads: unloading it changes them',
      files: { '/c/httpd.conf': BASE + 'LoadModule access_compat_module modules/mod_access_compat.so\nInclude a.conf\n', '/c/a.conf': '<Directory />\n  <IfModule !mod_access_compat.c>\n    Require all denied\n  </IfModule>\n</Directory>\n' },
      want: [],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(run(c.files), c.want));
});
