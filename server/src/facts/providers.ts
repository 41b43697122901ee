/** Authorization providers that `Require` accepts in httpd 2.4, with what each checks, in our words. */

export interface ProviderFact {
  name: string;
  module: string;
  args: string;
  description: string;
  /** True when 2.2 had no such provider: writing it makes a section "2.4 style". */
  only24: boolean;
  url: string;
}

const M = 'https://httpd.apache.org/docs/2.4/mod/';

export const PROVIDERS: readonly ProviderFact[] = [
  { name: 'all', module: 'mod_authz_core', args: 'granted | denied', only24: true, url: M + 'mod_authz_core.html#reqall', description: 'Lets every request through (`granted`) or turns every request away (`denied`).' },
  { name: 'env', module: 'mod_authz_core', args: 'variable [variable] …', only24: true, url: M + 'mod_authz_core.html#reqenv', description: 'Grants the request when any listed environment variable exists before the access phase (set by SetEnvIf or BrowserMatch, not by SetEnv). An empty value still counts as set.' },
  { name: 'method', module: 'mod_authz_core', args: 'METHOD [METHOD] …', only24: true, url: M + 'mod_authz_core.html#reqmethod', description: 'Grants the request when its HTTP method is listed; GET also covers HEAD.' },
  { name: 'expr', module: 'mod_authz_core', args: '"expression"', only24: true, url: M + 'mod_authz_core.html#reqexpr', description: 'Grants the request when the ap_expr expression is true. Mentioning REMOTE_USER makes it ask for a login first.' },
  { name: 'ip', module: 'mod_authz_host', args: 'address [address] …', only24: true, url: M + 'mod_authz_host.html#reqip', description: 'Grants clients whose address is one of the listed addresses or networks (full or partial IPv4, a/nn, a/netmask, IPv6). Host names are not accepted here.' },
  { name: 'host', module: 'mod_authz_host', args: 'name [name] …', only24: true, url: M + 'mod_authz_host.html#reqhost', description: 'Grants clients whose address maps back (reverse then forward DNS, both must agree) to a listed name or to a name ending in a listed domain.' },
  { name: 'forward-dns', module: 'mod_authz_host', args: 'name [name] …', only24: true, url: M + 'mod_authz_host.html#reqfwddns', description: 'Resolves each listed name and grants clients whose address is among the results (2.4.19 and later).' },
  { name: 'local', module: 'mod_authz_host', args: '', only24: true, url: M + 'mod_authz_host.html#reqlocal', description: 'Grants clients on 127.0.0.0/8 or ::1, and clients connecting from the server\'s own address. Wider than `Require ip 127.0.0.1`.' },
  { name: 'user', module: 'mod_authz_user', args: 'user [user] …', only24: false, url: M + 'mod_authz_user.html#requser', description: 'Grants the listed authenticated users; asks anonymous clients to log in.' },
  { name: 'valid-user', module: 'mod_authz_user', args: '', only24: false, url: M + 'mod_authz_user.html#reqvaliduser', description: 'Grants any client that logs in successfully.' },
  { name: 'group', module: 'mod_authz_groupfile', args: 'group [group] …', only24: false, url: M + 'mod_authz_groupfile.html#reqgroup', description: 'Grants authenticated users who belong to a listed group of the AuthGroupFile. Groups kept in a DBM file need `Require dbm-group` in 2.4.' },
  { name: 'file-group', module: 'mod_authz_groupfile', args: '', only24: false, url: M + 'mod_authz_groupfile.html#reqfilegroup', description: 'Grants authenticated users who belong (per AuthGroupFile) to the group owning the requested file.' },
  { name: 'dbm-group', module: 'mod_authz_dbm', args: 'group [group] …', only24: true, url: M + 'mod_authz_dbm.html#reqdbmgroup', description: 'Grants authenticated users who belong to a listed group of the AuthDBMGroupFile. This is what 2.2\'s `Require group` meant when the groups came from a DBM file.' },
  { name: 'dbm-file-group', module: 'mod_authz_dbm', args: '', only24: true, url: M + 'mod_authz_dbm.html#reqdbmfilegroup', description: 'Grants authenticated users who belong (per AuthDBMGroupFile) to the group owning the requested file.' },
  { name: 'file-owner', module: 'mod_authz_owner', args: '', only24: false, url: M + 'mod_authz_owner.html#reqfileowner', description: 'Grants the authenticated user whose name matches the system owner of the requested file.' },
  { name: 'dbd-group', module: 'mod_authz_dbd', args: 'group [group] …', only24: true, url: M + 'mod_authz_dbd.html#reqgroup', description: 'Grants authenticated users whose groups, looked up with the AuthzDBDQuery SQL query, include a listed one.' },
  { name: 'dbd-login', module: 'mod_authz_dbd', args: '', only24: true, url: M + 'mod_authz_dbd.html#reqlogin', description: 'Records a login in the database (AuthzDBDLoginToReferer) and grants the request.' },
  { name: 'dbd-logout', module: 'mod_authz_dbd', args: '', only24: true, url: M + 'mod_authz_dbd.html#reqlogout', description: 'Records a logout in the database and grants the request.' },
  { name: 'ldap-user', module: 'mod_authnz_ldap', args: 'user [user] …', only24: false, url: M + 'mod_authnz_ldap.html#requser', description: 'Grants the listed users of the LDAP directory.' },
  { name: 'ldap-group', module: 'mod_authnz_ldap', args: 'group-dn', only24: false, url: M + 'mod_authnz_ldap.html#reqgroup', description: 'Grants members of the LDAP group with this distinguished name.' },
  { name: 'ldap-dn', module: 'mod_authnz_ldap', args: 'dn', only24: false, url: M + 'mod_authnz_ldap.html#reqdn', description: 'Grants the user whose LDAP distinguished name is the one given.' },
  { name: 'ldap-attribute', module: 'mod_authnz_ldap', args: 'name=value …', only24: false, url: M + 'mod_authnz_ldap.html#reqattribute', description: 'Grants users whose LDAP entry has the given attribute values.' },
  { name: 'ldap-filter', module: 'mod_authnz_ldap', args: 'filter', only24: false, url: M + 'mod_authnz_ldap.html#reqfilter', description: 'Grants users whose LDAP entry matches the search filter.' },
  { name: 'ssl', module: 'mod_ssl', args: '', only24: true, url: M + 'mod_ssl.html', description: 'Grants requests that arrived over TLS; stands in for SSLRequireSSL inside the Require logic.' },
  { name: 'ssl-verify-client', module: 'mod_ssl', args: '', only24: true, url: M + 'mod_ssl.html', description: 'Grants requests whose client certificate was verified.' },
];

const byName = new Map(PROVIDERS.map((p) => [p.name, p]));

/** Provider names are case-sensitive in httpd (`Require IP` is refused). */
export function getProvider(name: string): ProviderFact | undefined {
  return byName.get(name);
}
