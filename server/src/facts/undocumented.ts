/**
 * Directives that stock httpd 2.4 modules register (`apache2 -L` lists them, `apache2 -t`
 * accepts them) but that the 2.4 manual does not document, so generated.json, built from the
 * manual, does not have them. Contexts are what `apache2 -L` says (httpd 2.4.71); descriptions
 * are our own words.
 */
import type { DirectiveFact } from './types';

const DOCS24 = 'https://httpd.apache.org/docs/2.4/mod/';

export const UNDOCUMENTED_DIRECTIVES: readonly DirectiveFact[] = [
  {
    name: 'AuthDigestNcCheck',
    module: 'mod_auth_digest',
    contexts: ['directory', 'htaccess'],
    override: 'AuthConfig',
    syntax: 'AuthDigestNcCheck On|Off',
    default: 'AuthDigestNcCheck Off',
    status: 'current',
    description:
      'Whether Digest authentication checks the nonce count a client sends with each request (a defence against replayed requests). Registered by mod_auth_digest but not described in the 2.4 manual.',
    url: DOCS24 + 'mod_auth_digest.html',
  },
  {
    name: 'H2SessionExtraFiles',
    module: 'mod_http2',
    contexts: ['server', 'vhost'],
    syntax: 'H2SessionExtraFiles number',
    status: 'noop',
    replacement: 'Delete the line: mod_http2 still accepts it but logs that it is obsolete and ignores it.',
    description: 'Once limited how many extra files an HTTP/2 session could keep open; current mod_http2 ignores it.',
    url: DOCS24 + 'mod_http2.html',
  },
  {
    name: 'MacroIgnoreEmptyArgs',
    module: 'mod_macro',
    contexts: ['server', 'vhost', 'directory', 'htaccess'],
    syntax: 'MacroIgnoreEmptyArgs',
    status: 'current',
    description: 'Stops mod_macro from warning when a `Use` line passes an empty argument to a macro, for the whole configuration.',
    url: DOCS24 + 'mod_macro.html',
  },
  {
    name: 'MacroIgnoreBadNesting',
    module: 'mod_macro',
    contexts: ['server', 'vhost', 'directory', 'htaccess'],
    syntax: 'MacroIgnoreBadNesting',
    status: 'current',
    description: 'Stops mod_macro from warning when the sections inside a macro body are not nested properly, for the whole configuration.',
    url: DOCS24 + 'mod_macro.html',
  },
];
