/**
 * Directives and modules from httpd 2.2 (and a few older ones that old files
 * still carry) that 2.4 dropped, renamed, keeps only for compatibility, or
 * accepts while ignoring. Each was checked against a real 2.4 server: the
 * removed ones are refused with "Invalid command" (or by a stub that stops
 * the server with an error), the renamed and no-op ones still load.
 *
 * When a name is also in generated.json (the 2.4 manual still documents it),
 * the catalog keeps the manual's facts and takes status, renamedTo,
 * replacement and description from here.
 */
import type { DirectiveContext, DirectiveFact, ModuleFact } from './types';

const DOCS22 = 'https://httpd.apache.org/docs/2.2/mod/';
const DOCS24 = 'https://httpd.apache.org/docs/2.4/mod/';
const UPGRADING24 = 'https://httpd.apache.org/docs/2.4/upgrading.html';
const UPGRADING20 = 'https://httpd.apache.org/docs/2.0/upgrading.html';

const DIR: DirectiveContext[] = ['directory', 'htaccess'];
const SERVER: DirectiveContext[] = ['server'];
const SERVER_VHOST: DirectiveContext[] = ['server', 'vhost'];

type Extra = Partial<Omit<DirectiveFact, 'name' | 'module' | 'contexts' | 'syntax' | 'status' | 'description' | 'url'>>;

function fact(
  status: DirectiveFact['status'],
  name: string,
  module: string,
  contexts: DirectiveContext[],
  syntax: string,
  url: string,
  description: string,
  replacement: string,
  extra: Extra = {},
): DirectiveFact {
  return { name, module, contexts, syntax, status, url, description, replacement, ...extra };
}

/** The `Authz*Authoritative` family: 2.4 merges Require results itself, so the lines only need deleting. */
function authoritative(name: string, module: string, url: string, what: string): DirectiveFact {
  return fact(
    'removed',
    name,
    module,
    DIR,
    `${name} On|Off`,
    url,
    `In 2.2, decided whether ${what} had the last word, or let a later module try when it could not grant the request.`,
    'Delete the line: in 2.4 the Require lines of a block are combined by RequireAny (the default), RequireAll or RequireNone, so no module has to hand the decision on.',
    { override: 'AuthConfig', default: `${name} On` },
  );
}

/** Lock-file settings that 2.4 folded into the single Mutex directive. */
function mutex(name: string, module: string, syntax: string, url: string, description: string, mutexName: string): DirectiveFact {
  return fact(
    'removed',
    name,
    module,
    SERVER,
    syntax,
    url,
    description,
    `Use \`Mutex\` instead, for example \`Mutex file:/var/lock/apache2 ${mutexName}\`; without one, 2.4 picks a sensible default.`,
  );
}

function memCache(name: string, syntax: string, what: string): DirectiveFact {
  return fact(
    'removed',
    name,
    'mod_mem_cache',
    SERVER,
    syntax,
    DOCS22 + 'mod_mem_cache.html#' + name.toLowerCase(),
    `Set ${what} for the in-memory cache of 2.2's mod_mem_cache.`,
    'mod_mem_cache is gone: cache to disk with mod_cache_disk (CacheEnable disk), or to shared memory with mod_cache_socache (CacheEnable socache, from 2.4.5).',
  );
}

/** Directives from 1.3 that 2.0 already dropped; some configs copied from old guides still have them. */
function from13(name: string, contexts: DirectiveContext[], syntax: string, description: string, replacement: string): DirectiveFact {
  return fact('removed', name, 'core', contexts, syntax, UPGRADING20, description, replacement, { removedIn: '2.0' });
}

export const LEGACY_DIRECTIVES: readonly DirectiveFact[] = [
  // Still in 2.4, through mod_access_compat only.
  fact(
    'compat', 'Order', 'mod_access_compat', DIR, 'Order ordering', DOCS24 + 'mod_access_compat.html#order',
    '2.2-style access control: says whether the Allow or the Deny lines are weighed first, and which side wins when neither matches.',
    'Write the rule as `Require` lines instead (`Require all granted`, `Require all denied`, `Require ip …`, `Require host …`), and drop the Order/Allow/Deny group once nothing needs it.',
    { override: 'Limit' },
  ),
  fact(
    'compat', 'Allow', 'mod_access_compat', DIR, 'Allow from all|host|env=[!]env-variable [host|env=[!]env-variable] ...', DOCS24 + 'mod_access_compat.html#allow',
    '2.2-style access control: lists the client addresses, host names or environment variables that may reach this part of the site.',
    '`Allow from all` becomes `Require all granted`; addresses become `Require ip …`, names `Require host …` and `env=VAR` becomes `Require env VAR`.',
    { override: 'Limit' },
  ),
  fact(
    'compat', 'Deny', 'mod_access_compat', DIR, 'Deny from all|host|env=[!]env-variable [host|env=[!]env-variable] ...', DOCS24 + 'mod_access_compat.html#deny',
    '2.2-style access control: lists the client addresses, host names or environment variables that are turned away.',
    '`Deny from all` becomes `Require all denied`; to refuse some clients while letting the rest in, put `Require all granted` and `Require not ip …` inside `<RequireAll>`.',
    { override: 'Limit' },
  ),
  fact(
    'compat', 'Satisfy', 'mod_access_compat', DIR, 'Satisfy Any|All', DOCS24 + 'mod_access_compat.html#satisfy',
    '2.2-style access control: says whether a client needs to pass both the host check and the login, or just one of them.',
    '`Satisfy Any` becomes a `<RequireAny>` block (the default for plain Require lines) and `Satisfy All` a `<RequireAll>` block around the login and address requirements.',
    { override: 'AuthConfig' },
  ),

  // Renamed in 2.4; the old names still load.
  fact(
    'renamed', 'MaxClients', 'mpm_common', SERVER, 'MaxClients number', DOCS22 + 'mpm_common.html#maxclients',
    'The 2.2 name of the cap on requests served at the same time (processes for prefork, threads for the threaded MPMs).',
    '2.4 still reads it, but the current name is `MaxRequestWorkers`; rename the directive and keep the value.',
    { renamedTo: 'MaxRequestWorkers' },
  ),
  fact(
    'renamed', 'MaxRequestsPerChild', 'mpm_common', SERVER, 'MaxRequestsPerChild number', DOCS22 + 'mpm_common.html#maxrequestsperchild',
    'The 2.2 name of the limit after which a child process exits and is replaced.',
    '2.4 still reads it, but the current name is `MaxConnectionsPerChild` (it counts connections, not requests); rename the directive and keep the value.',
    { renamedTo: 'MaxConnectionsPerChild', default: 'MaxRequestsPerChild 10000' },
  ),

  // Accepted by 2.4 with a warning and otherwise ignored.
  fact(
    'noop', 'NameVirtualHost', 'core', SERVER, 'NameVirtualHost addr[:port]', DOCS24 + 'core.html#namevirtualhost',
    'In 2.2, switched an address to name-based virtual hosting.',
    'Delete it: 2.4 treats every address shared by several `<VirtualHost>` blocks as name-based on its own, and only logs a warning for this line.',
  ),
  fact(
    'noop', 'DefaultType', 'core', ['server', 'vhost', 'directory', 'htaccess'], 'DefaultType media-type|none', DOCS24 + 'core.html#defaulttype',
    'In 2.2, gave the media type sent for files nothing else could type.',
    'Delete it: any value but `none` only earns a warning in 2.4. To type particular files use `AddType` or `ForceType`; for the rest the server sends no Content-Type.',
    { override: 'FileInfo' },
  ),

  // The Authz*Authoritative family and its kin.
  authoritative('AuthzUserAuthoritative', 'mod_authz_user', DOCS22 + 'mod_authz_user.html#authzuserauthoritative', '`Require user` / `valid-user`'),
  authoritative('AuthzGroupFileAuthoritative', 'mod_authz_groupfile', DOCS22 + 'mod_authz_groupfile.html#authzgroupfileauthoritative', 'the group-file check'),
  authoritative('AuthzDBMAuthoritative', 'mod_authz_dbm', DOCS22 + 'mod_authz_dbm.html#authzdbmauthoritative', 'the DBM group check'),
  authoritative('AuthzOwnerAuthoritative', 'mod_authz_owner', DOCS22 + 'mod_authz_owner.html#authzownerauthoritative', 'the file-owner check'),
  authoritative('AuthzLDAPAuthoritative', 'mod_authnz_ldap', DOCS22 + 'mod_authnz_ldap.html#authzldapauthoritative', 'the LDAP authorization check'),
  authoritative('AuthzDBDAuthoritative', 'mod_authz_dbd', UPGRADING24, 'the SQL group check of the 2.3 development series'),
  authoritative('AuthzDefaultAuthoritative', 'mod_authz_default', DOCS22 + 'mod_authz_default.html#authzdefaultauthoritative', 'the catch-all authorization module'),
  fact(
    'removed', 'AuthDefaultAuthoritative', 'mod_authn_default', DIR, 'AuthDefaultAuthoritative On|Off', DOCS22 + 'mod_authn_default.html#authdefaultauthoritative',
    'In 2.2, let the catch-all authentication module pass a login that no provider recognized on to another module.',
    'Delete the line together with the LoadModule of mod_authn_default; 2.4\'s mod_authn_core does that module\'s job.',
    { override: 'AuthConfig', default: 'AuthDefaultAuthoritative On' },
  ),
  fact(
    'removed', 'AuthLDAPAuthzEnabled', 'mod_authnz_ldap', DIR, 'AuthLDAPAuthzEnabled On|Off', UPGRADING24,
    'A 2.3 development-series switch that turned LDAP authorization on or off for a block.',
    'Delete it: in 2.4 LDAP authorization applies exactly where `Require ldap-*` lines ask for it.',
    { override: 'AuthConfig' },
  ),

  // Lock files → Mutex.
  mutex('AcceptMutex', 'mpm_common', 'AcceptMutex Default|method', DOCS22 + 'mpm_common.html#acceptmutex', 'In 2.2, chose how child processes took turns accepting connections on the listening sockets.', 'mpm-accept'),
  mutex('LockFile', 'mpm_common', 'LockFile filename', DOCS22 + 'mpm_common.html#lockfile', 'In 2.2, named the file used for the accept lock when AcceptMutex relied on file locking.', 'mpm-accept'),
  mutex('RewriteLock', 'mod_rewrite', 'RewriteLock file-path', DOCS22 + 'mod_rewrite.html#rewritelock', 'In 2.2, named the lock file that kept requests to an external `prg:` rewrite map from interleaving.', 'rewrite-map'),
  mutex('SSLMutex', 'mod_ssl', 'SSLMutex type', DOCS22 + 'mod_ssl.html#sslmutex', 'In 2.2, chose the lock that guarded mod_ssl\'s shared session cache.', 'ssl-cache'),
  mutex('SSLStaplingMutex', 'mod_ssl', 'SSLStaplingMutex type', UPGRADING24, 'In the 2.3 development series, chose the lock that guarded the OCSP stapling cache.', 'ssl-stapling'),
  mutex('WatchdogMutexPath', 'mod_watchdog', 'WatchdogMutexPath directory', UPGRADING24, 'In the 2.3 development series, named the folder for mod_watchdog\'s lock files.', 'watchdog-callback'),

  // Per-module logs → LogLevel.
  fact(
    'removed', 'RewriteLog', 'mod_rewrite', SERVER_VHOST, 'RewriteLog file-path', DOCS22 + 'mod_rewrite.html#rewritelog',
    'In 2.2, named the file that recorded how mod_rewrite processed each request.',
    'Use `LogLevel rewrite:trace3` (up to trace8 for more detail); the trace lines go to the ErrorLog, marked [rewrite:traceN].',
  ),
  fact(
    'removed', 'RewriteLogLevel', 'mod_rewrite', SERVER_VHOST, 'RewriteLogLevel Level', DOCS22 + 'mod_rewrite.html#rewriteloglevel',
    'In 2.2, set how much mod_rewrite wrote to its RewriteLog file (0 to 9).',
    'Use `LogLevel rewrite:traceN` with N from 1 to 8 instead; the messages land in the ErrorLog.',
  ),
  fact(
    'removed', 'DumpIOLogLevel', 'mod_dumpio', SERVER_VHOST, 'DumpIOLogLevel level', DOCS22 + 'mod_dumpio.html#dumpiologlevel',
    'In 2.2, chose the error-log level at which mod_dumpio recorded the traffic it copied.',
    'Delete it and set `LogLevel dumpio:trace7`: 2.4 always logs the dump at that level.',
  ),
  fact(
    'removed', 'CookieLog', 'mod_log_config', SERVER_VHOST, 'CookieLog filename', DOCS22 + 'mod_log_config.html#cookielog',
    'An old shortcut that wrote the user-tracking cookie of each request to its own log file.',
    'Use a `CustomLog` whose format records the cookie: `%{Cookie}i` for the whole request header, or `%{NAME}C` for one cookie.',
  ),

  // mod_mem_cache.
  memCache('MCacheSize', 'MCacheSize KBytes', 'the total memory'),
  memCache('MCacheMaxObjectCount', 'MCacheMaxObjectCount value', 'how many objects fit'),
  memCache('MCacheMinObjectSize', 'MCacheMinObjectSize bytes', 'the smallest document kept'),
  memCache('MCacheMaxObjectSize', 'MCacheMaxObjectSize bytes', 'the largest document kept'),
  memCache('MCacheRemovalAlgorithm', 'MCacheRemovalAlgorithm LRU|GDSF', 'the eviction order'),
  memCache('MCacheMaxStreamingBuffer', 'MCacheMaxStreamingBuffer size_in_bytes', 'how much of a streamed response is buffered'),

  fact(
    'removed', 'CacheForceCompletion', 'mod_cache', SERVER_VHOST, 'CacheForceCompletion Percentage', 'https://httpd.apache.org/docs/2.0/mod/mod_cache.html#cacheforcecompletion',
    'An old mod_cache setting: once this share of a response had been sent, the cache kept fetching it even if the client went away.',
    'Delete the line; 2.4 has no equivalent setting.',
    { removedIn: 'earlier' },
  ),
  fact(
    'removed', 'Win32DisableAcceptEx', 'mpm_winnt', SERVER, 'Win32DisableAcceptEx', DOCS22 + 'mpm_winnt.html#win32disableacceptex',
    'In 2.2 on Windows, switched from AcceptEx() to plain accept() to get around faulty network drivers.',
    'Use `AcceptFilter http none` and `AcceptFilter https none` instead.',
  ),

  // 1.3 leftovers.
  from13('ServerType', SERVER, 'ServerType standalone|inetd', 'In 1.3, chose between a resident server and one started per connection by inetd.', 'Delete it: httpd 2 always runs as a standalone daemon.'),
  from13('Port', SERVER_VHOST, 'Port number', 'In 1.3, set the TCP port to listen on and to use in self-referring URLs.', 'Use `Listen` for the port to bind, and put the port in `ServerName host:port` when redirects must mention it. 2.4 stops with an error on this line.'),
  from13('BindAddress', SERVER, 'BindAddress *|IP-address|domain-name', 'In 1.3, chose the address the server bound to.', 'Use `Listen address:port` instead.'),
  from13('ClearModuleList', SERVER, 'ClearModuleList', 'In 1.3, emptied the list of active built-in modules before AddModule lines re-enabled some.', 'Delete it: httpd 2 enables modules with `LoadModule` only.'),
  from13('AddModule', SERVER, 'AddModule module [module] ...', 'In 1.3, switched on a module already compiled or loaded into the server.', 'Use `LoadModule module_id path/to/mod_x.so`; built-in modules are always active.'),
  from13('ResourceConfig', SERVER_VHOST, 'ResourceConfig file-path|directory-path', 'In 1.3, named a second configuration file (srm.conf) read after the main one.', 'Use `Include path` instead.'),
  from13('AccessConfig', SERVER_VHOST, 'AccessConfig file-path|directory-path', 'In 1.3, named a third configuration file (access.conf) read after the main one.', 'Use `Include path` instead.'),
  fact(
    'removed', 'FancyIndexing', 'mod_autoindex', ['server', 'vhost', 'directory', 'htaccess'], 'FancyIndexing On|Off', UPGRADING20,
    'An old switch for the richer, sortable directory listings.',
    'Use `IndexOptions FancyIndexing`; 2.4 stops with an error on this line.',
    { override: 'Indexes' },
  ),
  fact(
    'removed', 'SSLLog', 'mod_ssl', SERVER_VHOST, 'SSLLog file-path', UPGRADING20,
    'In the 1.3 mod_ssl, named a separate log for TLS messages.',
    'Delete it: TLS messages go to the `ErrorLog`. 2.4 stops with an error on this line.',
  ),
  fact(
    'removed', 'SSLLogLevel', 'mod_ssl', SERVER_VHOST, 'SSLLogLevel level', UPGRADING20,
    'In the 1.3 mod_ssl, set how much went into the SSLLog file.',
    'Use `LogLevel ssl:level` (for example `LogLevel ssl:info`). 2.4 stops with an error on this line.',
  ),

  // 2.0 authentication modules that 2.2 split up.
  fact(
    'removed', 'AuthAuthoritative', 'mod_auth', DIR, 'AuthAuthoritative On|Off', 'https://httpd.apache.org/docs/2.0/mod/mod_auth.html#authauthoritative',
    'In 2.0\'s mod_auth, let a user missing from the AuthUserFile be passed to another authentication module.',
    'Delete it: providers listed in `AuthBasicProvider` are tried in order; `AuthBasicAuthoritative Off` is the nearest 2.4 setting.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'AuthDBMAuthoritative', 'mod_auth_dbm', DIR, 'AuthDBMAuthoritative On|Off', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_dbm.html#authdbmauthoritative',
    'In 2.0\'s mod_auth_dbm, let a user missing from the DBM file be passed to another module.',
    'Delete it: list the providers in `AuthBasicProvider dbm file …`; `AuthBasicAuthoritative Off` is the nearest 2.4 setting.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'AuthDigestFile', 'mod_auth_digest', DIR, 'AuthDigestFile file-path', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_digest.html#authdigestfile',
    'In 2.0, named the htdigest file that held Digest users.',
    'Use `AuthDigestProvider file` with `AuthUserFile file-path` instead.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'AuthDigestGroupFile', 'mod_auth_digest', DIR, 'AuthDigestGroupFile file-path', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_digest.html#authdigestgroupfile',
    'In 2.0, named the group file used with Digest logins.',
    'Use `AuthGroupFile file-path` with `Require group …` instead.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'Anonymous_Authoritative', 'mod_auth_anon', DIR, 'Anonymous_Authoritative On|Off', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_anon.html#anonymous_authoritative',
    'In 2.0\'s mod_auth_anon, let a login that was not an anonymous one be checked by another module.',
    'Delete it: add `anon` to `AuthBasicProvider` next to the other providers, which are tried in order.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'AuthLDAPAuthoritative', 'mod_auth_ldap', DIR, 'AuthLDAPAuthoritative On|Off', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_ldap.html#authldapauthoritative',
    'In 2.0\'s mod_auth_ldap, let a failed LDAP login be passed to another module.',
    'Delete it: mod_authnz_ldap takes part through `AuthBasicProvider ldap`; `AuthLDAPBindAuthoritative` covers the bind case.',
    { override: 'AuthConfig' },
  ),
  fact(
    'removed', 'AuthLDAPEnabled', 'mod_auth_ldap', DIR, 'AuthLDAPEnabled On|Off', 'https://httpd.apache.org/docs/2.0/mod/mod_auth_ldap.html#authldapenabled',
    'In 2.0\'s mod_auth_ldap, switched LDAP logins on or off for a block.',
    'Delete it: name `ldap` in `AuthBasicProvider` where LDAP logins are wanted.',
    { override: 'AuthConfig' },
  ),
];

/** Descriptions of these modules are in descriptions/modules.json with the others. */
export const LEGACY_MODULES: readonly Omit<ModuleFact, 'description'>[] = [
  {
    name: 'mod_authn_default', id: 'authn_default_module', file: 'mod_authn_default.c', status: 'removed', replacedBy: 'mod_authn_core',
    url: DOCS22 + 'mod_authn_default.html',
    replacement: 'Drop its LoadModule line: mod_authn_core does its job in 2.4.',
  },
  {
    name: 'mod_authz_default', id: 'authz_default_module', file: 'mod_authz_default.c', status: 'removed', replacedBy: 'mod_authz_core',
    url: DOCS22 + 'mod_authz_default.html',
    replacement: 'Drop its LoadModule line: mod_authz_core does its job in 2.4.',
  },
  {
    name: 'mod_mem_cache', id: 'mem_cache_module', file: 'mod_mem_cache.c', status: 'removed', replacedBy: 'mod_cache_disk',
    url: DOCS22 + 'mod_mem_cache.html',
    replacement: 'Load mod_cache_disk (or mod_cache_socache from 2.4.5) and use `CacheEnable disk` (or `socache`).',
  },
  {
    name: 'mod_disk_cache', id: 'disk_cache_module', file: 'mod_disk_cache.c', status: 'removed', replacedBy: 'mod_cache_disk',
    url: DOCS22 + 'mod_disk_cache.html',
    replacement: 'Load `cache_disk_module` from mod_cache_disk.so instead; CacheRoot and the other settings keep their names.',
  },
  {
    name: 'mod_authn_alias', id: 'authn_alias_module', file: 'mod_authn_alias.c', status: 'removed', replacedBy: 'mod_authn_core',
    url: DOCS22 + 'mod_authn_alias.html',
    replacement: 'Drop its LoadModule line: <AuthnProviderAlias> belongs to mod_authn_core in 2.4.',
  },
  {
    name: 'mod_access', id: 'access_module', file: 'mod_access.c', status: 'removed', replacedBy: 'mod_authz_host',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_access.html',
    replacement: 'Load mod_authz_host and write `Require ip` / `Require host`; mod_access_compat still reads Order, Allow and Deny.',
  },
  {
    name: 'mod_auth', id: 'auth_module', file: 'mod_auth.c', status: 'removed', replacedBy: 'mod_authn_file',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_auth.html',
    replacement: 'Load mod_auth_basic, mod_authn_file, mod_authz_user and mod_authz_groupfile, which split its work.',
  },
  {
    name: 'mod_auth_dbm', id: 'auth_dbm_module', file: 'mod_auth_dbm.c', status: 'removed', replacedBy: 'mod_authn_dbm',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_auth_dbm.html',
    replacement: 'Load mod_authn_dbm (`AuthBasicProvider dbm`) and mod_authz_dbm (`Require dbm-group`).',
  },
  {
    name: 'mod_auth_anon', id: 'auth_anon_module', file: 'mod_auth_anon.c', status: 'removed', replacedBy: 'mod_authn_anon',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_auth_anon.html',
    replacement: 'Load mod_authn_anon and add `anon` to `AuthBasicProvider`.',
  },
  {
    name: 'mod_auth_ldap', id: 'auth_ldap_module', file: 'mod_auth_ldap.c', status: 'removed', replacedBy: 'mod_authnz_ldap',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_auth_ldap.html',
    replacement: 'Load mod_authnz_ldap (with mod_ldap) and use `AuthBasicProvider ldap` with `Require ldap-*` lines.',
  },
  {
    name: 'mod_imap', id: 'imap_module', file: 'mod_imap.c', status: 'removed', replacedBy: 'mod_imagemap',
    url: 'https://httpd.apache.org/docs/2.0/mod/mod_imap.html',
    replacement: 'Load `imagemap_module` from mod_imagemap.so; the directives keep their names.',
  },
  {
    name: 'mod_example', id: 'example_module', file: 'mod_example.c', status: 'removed', replacedBy: 'mod_example_hooks',
    url: DOCS22 + 'mod_example.html',
    replacement: 'It became mod_example_hooks in 2.4; it only ever served as sample code.',
  },
];

/** Sources compiled into every httpd that have no manual page of their own. */
export const BUILTIN_SOURCES: readonly string[] = ['http_core.c', 'http_module'];
