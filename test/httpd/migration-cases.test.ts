// The case table shared by migration.test.ts, explain.test.ts and random.test.ts, and the
// machinery that runs a list of cases on two real httpd servers (original with
// mod_access_compat, rewrite without it). Run on its own, this file only checks the table.
//
// Each case is the body of one <VirtualHost>; @DOCROOT@ is the case's document root. Requests go
// to files (never to a directory URL, whose DirectoryIndex sub-request would add a second access
// check), from several 127.x addresses (127.0.0.1 is the only one with a verified host name,
// "localhost"), with no, valid and wrong credentials, with GET and POST.

import assert from 'node:assert/strict';
import { findHttpd, mismatches, outcomeOf, startOracle, type Oracle, type OracleCase, type OracleRequestFor } from './harness';
import { migrateText, explain, type Evaluation, type Request } from '../../server/src/access';
import { parse } from '../../server/src/syntax';

export const USERS = { alice: 'alice-pw', bob: 'bob-pw' };
export const GROUPS = { admins: ['alice'] };
export const BASIC = 'AuthType Basic\nAuthName "oracle"\nAuthUserFile "@USERS@"';
export const GROUPFILE = 'AuthGroupFile "@GROUPS@"';
export const SUB = '@DOCROOT@/sub';

export const dir = (body: string, where = '@DOCROOT@') => `<Directory "${where}">\n${indent(body)}\n</Directory>`;
export const loc = (where: string, body: string) => `<Location "${where}">\n${indent(body)}\n</Location>`;
export const locMatch = (re: string, body: string) => `<LocationMatch "${re}">\n${indent(body)}\n</LocationMatch>`;
export const files = (name: string, body: string) => `<Files "${name}">\n${indent(body)}\n</Files>`;
export const filesMatch = (re: string, body: string) => `<FilesMatch "${re}">\n${indent(body)}\n</FilesMatch>`;
export const ifs = (cond: string, body: string) => `<If "${cond}">\n${indent(body)}\n</If>`;

function indent(body: string): string {
  let depth = 1;
  const out: string[] = [];
  for (const raw of body.trim().split('\n')) {
    const t = raw.trim();
    if (t.startsWith('</')) depth = Math.max(1, depth - 1);
    out.push('  '.repeat(depth) + t);
    if (t.startsWith('<') && !t.startsWith('</')) depth++;
  }
  return out.join('\n');
}

export interface MigrationCase {
  id: string;
  /** Spec section and what the case shows. */
  why: string;
  config: string;
  files?: Record<string, string>;
  /** Paths to request (default: /index.html and /sub/a.html). */
  paths?: string[];
  /** Header sets to send (default: one set, no extra headers). */
  headers?: Array<Record<string, string>>;
  /** false: the engine must refuse an exact rewrite (the case is then not run without compat). */
  exact?: boolean;
}

const ENV = 'SetEnvIf X-Flag ^yes FLAG';
const ENVH: Array<Record<string, string>> = [{}, { 'X-Flag': 'yes' }];
const A2 = '127.0.0.2';

/**
 * A file written for 2.2 and 2.4 alike: the 2.4 lines in `<IfModule mod_authz_core.c>`, the 2.2
 * lines in the negated test. 2.4 reads only the first half.
 */
const DUAL = (v24: string, v22: string) => `<IfModule mod_authz_core.c>\n${v24}\n</IfModule>\n<IfModule !mod_authz_core.c>\n${v22}\n</IfModule>`;

const RAW_CASES: MigrationCase[] = [
  // §8.2 / §8.5: one section, Satisfy All
  { id: 'r01-deny-all', why: '§8.5 row 1 deny,allow + Deny from all', config: dir('Order deny,allow\nDeny from all') },
  { id: 'r02-allow-all', why: '§8.5 row 2 allow,deny + Allow from all', config: dir('Order allow,deny\nAllow from all') },
  { id: 'r03-da-deny-all-allow-x', why: '§8.5 row 3', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`) },
  { id: 'r04-ad-allow-x', why: '§8.5 row 4', config: dir('Order allow,deny\nAllow from 127.0.0.2 127.0.1') },
  { id: 'r05-ad-deny-all-allow-x', why: '§8.5 row 5: deny is checked last, everyone denied', config: dir(`Order allow,deny\nDeny from all\nAllow from ${A2}`) },
  { id: 'r06-ad-allow-all-deny-x', why: '§8.5 row 6', config: dir('Order allow,deny\nAllow from all\nDeny from 127.0.0.3') },
  { id: 'r07-da-allow-all-deny-x', why: '§8.5 row 7: the Deny never has an effect', config: dir('Order deny,allow\nAllow from all\nDeny from 127.0.0.3') },
  { id: 'r08-ad-a-d', why: '§8.5 row 8', config: dir('Order allow,deny\nAllow from 127.0.0\nDeny from 127.0.0.3') },
  { id: 'r09-da-a-d', why: '§8.5 row 9: a ∨ ¬d', config: dir('Order deny,allow\nAllow from 127.0.0.2\nDeny from 127.0.0.0/30') },
  { id: 'r10-da-d', why: '§8.5 row 10: NONE(D)', config: dir('Order deny,allow\nDeny from 127.0.0.3 127.0.1') },
  { id: 'r11-ad-d-only', why: '§8.5 row 11', config: dir('Order allow,deny\nDeny from 127.0.0.3') },
  { id: 'r12-allow-only', why: '§8.5 row 12: Allow without Order allows everyone', config: dir(`Allow from ${A2}`) },
  { id: 'r13-deny-only', why: '§8.5 row 13', config: dir('Deny from 127.0.0.3') },
  { id: 'r14-ad-only', why: '§8.5 row 14', config: dir('Order allow,deny') },
  { id: 'r15-da-only', why: '§8.5 row 15', config: dir('Order deny,allow') },
  { id: 'r16-mutual', why: '§8.5 row 16 mutual-failure = allow,deny', config: dir('Order mutual-failure\nAllow from 127.0.0\nDeny from 127.0.0.3') },
  { id: 'r17-mutual-empty', why: '§8.2 mutual-failure with an empty Allow list', config: dir('Order Mutual-Failure\nDeny from 127.0.0.3') },
  { id: 'a01-netmask', why: '§2.2 dotted netmask', config: dir('Order allow,deny\nAllow from 127.0.0.0/255.255.255.252') },
  { id: 'a02-trailing-dot', why: '§2.2 partial address with a trailing dot', config: dir('Order allow,deny\nAllow from 127.0.') },
  { id: 'a03-cidr-host-bits', why: '§2.2 host bits are masked off', config: dir('Order allow,deny\nAllow from 127.0.0.9/30') },
  { id: 'a04-case', why: '§2.1 names and keywords are case-insensitive', config: dir('ORDER ALLOW,DENY\nallow FROM 127.0.0.2\nDENY from 127.0.1') },
  { id: 'a05-last-order', why: '§2.1 the last Order wins; Allow lines add up', config: dir('Order deny,allow\nOrder allow,deny\nAllow from 127.0.0.2\nAllow from 127.0.0.3') },
  { id: 'a06-ipv6-token', why: '§2.2 an IPv6 network never matches an IPv4 client', config: dir('Order allow,deny\nAllow from ::1 2001:db8::/32 127.0.0.2') },
  { id: 'a07-partial-8', why: '§2.2 a one-part address is a /8', config: dir('Order deny,allow\nDeny from all\nAllow from 127') },
  { id: 'a08-quoted', why: '§2.1 quoted tokens', config: dir('Order "allow,deny"\nAllow from "127.0.0.2"') },
  { id: 'a09-allow-127-0-0-1', why: '§8.5: Allow from 127.0.0.1 is Require ip, not Require local', config: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.1') },
  // env
  { id: 'e01-allow-env', why: '§8.5 env=V', config: `${ENV}\n${dir('Order deny,allow\nDeny from all\nAllow from env=FLAG')}`, headers: ENVH },
  { id: 'e02-allow-nenv', why: '§8.5 env=!V', config: `${ENV}\n${dir('Order deny,allow\nDeny from all\nAllow from env=!FLAG')}`, headers: ENVH },
  { id: 'e03-deny-env', why: '§8.5 Deny from env=V', config: `${ENV}\n${dir('Order allow,deny\nAllow from all\nDeny from env=FLAG')}`, headers: ENVH },
  { id: 'e04-deny-nenv', why: '§8.1 NONE with env=!V', config: `${ENV}\n${dir('Order allow,deny\nAllow from all\nDeny from env=!FLAG')}`, headers: ENVH },
  { id: 'e05-env-case', why: '§2.3 env names are case-insensitive', config: `${ENV}\n${dir('Order allow,deny\nAllow from env=flag')}`, headers: ENVH },
  { id: 'e06-env-mixed', why: '§8.2 allow,deny with env and ip atoms', config: `${ENV}\n${dir('Order allow,deny\nAllow from env=FLAG 127.0.0.2\nDeny from 127.0.0.3')}`, headers: ENVH },
  { id: 'e07-env-da-a-d', why: '§8.2 deny,allow A and D with a negated env atom', config: `${ENV}\n${dir('Order deny,allow\nAllow from env=!FLAG\nDeny from 127.0.0')}`, headers: ENVH },
  { id: 'e08-env-remote-addr', why: '§2.3 SetEnvIf Remote_Addr', config: `SetEnvIf Remote_Addr "^127\\.0\\.0\\.3$" FLAG\n${dir('Order allow,deny\nAllow from all\nDeny from env=FLAG')}` },
  { id: 'e09-setenvif-in-dir', why: '§2.3 SetEnvIf inside the Directory it guards', config: dir('SetEnvIf X-Flag ^yes FLAG\nOrder allow,deny\nAllow from all\nDeny from env=FLAG'), headers: ENVH },
  { id: 'e10-setenvif-in-location', why: '§2.3 SetEnvIf in a Location read after the Directory', config: `${dir('Order deny,allow\nDeny from all\nAllow from env=FLAG')}\n${loc('/sub', 'SetEnvIf X-Flag ^yes FLAG')}`, headers: ENVH },
  { id: 'e11-setenvifnocase', why: '§2.3 SetEnvIfNoCase and BrowserMatch', config: `SetEnvIfNoCase X-Flag ^YES FLAG\nBrowserMatch ^oracle-never NEVER\n${dir('Order allow,deny\nAllow from env=FLAG\nAllow from env=NEVER')}`, headers: ENVH },
  // hosts
  { id: 'h01-allow-localhost', why: '§8.5 Allow from localhost', config: dir('Order deny,allow\nDeny from all\nAllow from localhost') },
  { id: 'h02-deny-localhost', why: '§8.2 Deny with a host', config: dir('Order allow,deny\nAllow from all\nDeny from localhost') },
  { id: 'h03-partial-label', why: '§2.3 a suffix must fall on a label boundary', config: dir('Order deny,allow\nDeny from all\nAllow from host') },
  { id: 'h04-host-and-ip', why: '§8.1 host and ip atoms together', config: dir('Order allow,deny\nAllow from localhost 127.0.0.2\nDeny from 127.0.0.3') },
  { id: 'h05-leading-dot', why: '§2.3 leading dot', config: dir('Order deny,allow\nDeny from all\nAllow from .localhost') },
  // methods
  { id: 'm01-limit-get-order', why: '§2.5 <Limit GET> Order allow,deny', config: dir('<Limit GET>\nOrder allow,deny\n</Limit>\nAllow from 127.0.0.2') },
  { id: 'm02-limitexcept', why: '§2.5 <LimitExcept GET>', config: dir('<LimitExcept GET>\nOrder deny,allow\nDeny from all\n</LimitExcept>') },
  { id: 'm03-limit-post-deny', why: '§2.5 Deny inside <Limit POST>', config: dir('<Limit POST>\nDeny from all\n</Limit>') },
  { id: 'm04-limit-allow', why: '§2.5 Allow inside <Limit GET>', config: dir('Order deny,allow\nDeny from all\n<Limit GET>\nAllow from 127.0.0.2\n</Limit>') },
  {
    id: 'm05-limit-post-resets', why: '§8.2 a <Limit POST>-only compat section resets GET too',
    config: `${dir('Order deny,allow\nDeny from all')}\n${dir('<Limit POST>\nOrder allow,deny\nAllow from 127.0.0.2\n</Limit>', SUB)}`,
  },
  { id: 'm06-limit-put-delete', why: '§8.2 method classes with more methods', config: dir('Order allow,deny\nAllow from all\n<Limit POST PUT>\nDeny from 127.0.0.3\n</Limit>') },
  // Satisfy and Require in the same section (§8.3)
  { id: 's01-all-auth', why: '§8.3 hosts + valid-user, Satisfy All', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\n${BASIC}\nRequire valid-user`) },
  { id: 's02-any-auth', why: '§8.3 hosts + valid-user, Satisfy Any', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\n${BASIC}\nRequire valid-user`) },
  { id: 's03-any-allow-all', why: '§8.3 Satisfy any + Allow from all + valid-user', config: dir(`Order deny,allow\nAllow from all\nSatisfy Any\n${BASIC}\nRequire valid-user`) },
  { id: 's04-any-deny-all', why: '§8.3 Satisfy any + Deny from all: just valid-user', config: dir(`Order deny,allow\nDeny from all\nSatisfy any\n${BASIC}\nRequire valid-user`) },
  { id: 's05-any-no-require', why: '§8.3 Satisfy any, no Require anywhere: everyone in (2.4+compat)', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`) },
  { id: 's06-all-group', why: '§8.3 hosts + Require group', config: dir(`Order allow,deny\nAllow from 127.0.0\nDeny from 127.0.0.3\n${BASIC}\n${GROUPFILE}\nRequire group admins`) },
  { id: 's07-any-user', why: '§8.3 Satisfy any + Require user', config: dir(`Order allow,deny\nAllow from ${A2}\nSatisfy any\n${BASIC}\nRequire user bob`) },
  { id: 's08-da-allow-all-auth', why: '§8.5 deny,allow + Allow all + auth = auth only', config: dir(`Order deny,allow\nAllow from all\n${BASIC}\nRequire valid-user`) },
  { id: 's09-guide-1', why: '§6.4 the guide example: always 403', config: dir(`Order allow,deny\nDeny from all\nSatisfy ALL\nAllow from 127.0.0.1\n${BASIC}\nRequire valid-user`) },
  { id: 's10-guide-2', why: '§6.4 the guide example with Satisfy any: valid-user only', config: dir(`Order allow,deny\nDeny from all\nSatisfy any\nAllow from 127.0.0.1\n${BASIC}\nRequire valid-user`) },
  { id: 's11-satisfy-per-method', why: '§2.5 Satisfy inside <Limit POST>', config: dir(`<Limit POST>\nSatisfy any\n</Limit>\nOrder deny,allow\nDeny from all\nAllow from ${A2}\n${BASIC}\nRequire valid-user`) },
  { id: 's12-any-require-limited', why: '§8.3 Satisfy any with Require only for POST', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\n${BASIC}\n<Limit POST>\nRequire valid-user\n</Limit>`) },
  { id: 's13-all-require-limited', why: '§8.3 Satisfy all with Require only for POST', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\n${BASIC}\n<Limit POST>\nRequire valid-user\n</Limit>`) },
  { id: 's14-mixed-granted', why: '§6 mixed: compat denies before Require all granted is read', config: dir('Order deny,allow\nDeny from all\nRequire all granted') },
  { id: 's15-mixed-any-denied', why: '§0 Satisfy any skips Require all denied', config: dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\nRequire all denied`) },
  { id: 's16-any-two-users', why: '§8.3 Satisfy any, Require user alice bob', config: dir(`Order allow,deny\nAllow from 127.0.1\nSatisfy any\n${BASIC}\nRequire user alice bob`) },
  // Inheritance and other sections (§8.4)
  { id: 'i01-exp12', why: '§8.5 inherited Require all denied stays: AuthMerging And', config: `${dir('Require all denied', '/')}\n${dir('Order allow,deny\nAllow from all')}` },
  { id: 'i02-inherited-deny-allow-x', why: '§8.4 inherited plain Require, X has no Require', config: `${dir('Require all denied', '/')}\n${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}` },
  { id: 'i03-both-compat', why: '§8.4 P′ ≠ P: two compat sections, Off forms', config: `${dir('Order deny,allow\nDeny from all', '/')}\n${dir('Order allow,deny\nAllow from all')}` },
  { id: 'i04-case-a', why: '§6.1 case (a): later Location with only Require → (B)', config: `${dir('Order deny,allow\nDeny from all')}\n${loc('/sub', 'Require ip 127.0.0.2')}` },
  { id: 'i05-case-b', why: '§6.2 case (b): 403 as written', config: `${dir('Require all denied')}\n${loc('/sub', `Order deny,allow\nDeny from all\nAllow from ${A2}`)}` },
  { id: 'i06-case-b-granted', why: '§6.2 case (b) with a DocumentRoot grant', config: `${dir('Require all denied', '/')}\n${dir('Require all granted')}\n${loc('/sub', `Order deny,allow\nDeny from all\nAllow from ${A2}`)}` },
  { id: 'i07-parent-valid-user', why: '§8.4 parent valid-user, child compat only → And', config: `${dir(`${BASIC}\nRequire valid-user`)}\n${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`, SUB)}` },
  { id: 'i08-parent-valid-user-any', why: '§8.4 parent valid-user, child compat + Satisfy any → Or', config: `${dir(`${BASIC}\nRequire valid-user`)}\n${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`, SUB)}` },
  { id: 'i09-child-allow-only', why: '§2.6 child with only Allow allows everyone', config: `${dir('Order allow,deny\nAllow from 127.0.0.2')}\n${dir('Allow from 127.0.0.3', SUB)}` },
  { id: 'i10-child-satisfy-any', why: '§2.6 child with only Satisfy any: no host rule, no auth', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\n${BASIC}\nRequire valid-user`)}\n${dir('Satisfy any', SUB)}` },
  { id: 'i11-child-satisfy-all', why: '§8.5 child with only Satisfy all: host rules gone, auth stays', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\n${BASIC}\nRequire valid-user`)}\n${dir('Satisfy all', SUB)}` },
  { id: 'i12-deeper-require', why: '§8.4 deeper Directory with only Require', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${dir('Require ip 127.0.0.2 127.0.0.3', SUB)}` },
  { id: 'i13-files-require', why: '§8.4 <Files> with only Require after compat', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${files('a.html', 'Require all granted')}` },
  { id: 'i14-files-filesmatch', why: '§8.4 two Require-only sections in one walk: (W)', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${files('a.html', 'Require ip 127.0.0.2 127.0.0.3')}\n${filesMatch('^a', 'Require ip 127.0.0.3 127.0.1.5')}` },
  { id: 'i15-location-locationmatch', why: '§8.4 Location + LocationMatch with only Require', config: `${dir(`Order allow,deny\nAllow from 127.0.0.0/24`)}\n${loc('/sub', 'Require ip 127.0.0.2 127.0.1.5')}\n${locMatch('a\\.html$', 'Require ip 127.0.0.3')}` },
  { id: 'i16-location-two-regions', why: '§8.4 (B) a Location over two compat regions', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.3', SUB)}\n${loc('/', 'Require ip 127.0.0.2 127.0.0.3 127.0.1.5')}` },
  { id: 'i17-walk-example', why: '§5.1 the walk pre-merge example', config: `${dir(`${BASIC}\nRequire valid-user`)}\n${files('a.html', 'AuthMerging Or\nRequire ip 127.0.0.3')}\n${files('a.html', 'Order deny,allow\nDeny from 127.0.0.2')}` },
  {
    id: 'i18-files-then-filesmatch-compat', why: '§8.4 Files Require A then FilesMatch compat: the regex may match other files, where P differs: refused',
    config: `${dir(`${BASIC}\nRequire valid-user`)}\n${files('a.html', 'Require ip 127.0.0.2 127.0.0.3')}\n${filesMatch('^a', 'Order deny,allow\nDeny from 127.0.0.3')}`, exact: false,
  },
  { id: 'i18b-files-then-filesmatch-same', why: '§8.4 Files Require A then FilesMatch (same file) compat, Directory Require P: Off form', config: `${dir(`${BASIC}\nRequire valid-user`)}\n${files('a.html', 'Require ip 127.0.0.2 127.0.0.3')}\n${filesMatch('^a\\.html$', 'Order deny,allow\nDeny from 127.0.0.3')}` },
  { id: 'i19-w-or', why: '§8.4 (W) keeps Or: X compat + valid-user, Location Or', config: `${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n${BASIC}\nRequire valid-user`)}\n${loc('/sub', 'AuthMerging Or\nRequire ip 127.0.0.3')}` },
  { id: 'i20-w-and-any', why: '§8.4 (W) keeps And under Satisfy any', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\n${BASIC}\nRequire valid-user`)}\n${loc('/sub', 'AuthMerging And\nRequire ip 127.0.0.3')}` },
  { id: 'i21-walk-fails-original', why: '§8.4 the walk check fails on the original: copy form', config: `${dir(`Order deny,allow\nAllow from all\n${BASIC}\nRequire valid-user`)}\n${files('a.html', 'Require user alice bob')}\n${filesMatch('^a', 'AuthMerging And\nRequire ip 127.0.0.2 127.0.0.3')}` },
  { id: 'i22-authmerging-off-alone', why: '§3.6 AuthMerging Off alone erases authz; compat still denies', config: `${dir('Order deny,allow\nDeny from all')}\n${dir('AuthMerging Off', SUB)}` },
  { id: 'i23-if-require', why: '§5 an <If> with only Require does not lift a compat deny', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${ifs("-n %{HTTP:X-Flag}", 'Require all granted')}`, headers: ENVH },
  { id: 'i24-if-compat', why: '§5 compat in an <If> replaces the directory compat', config: `${dir('Require all granted')}\n${ifs("-n %{HTTP:X-Flag}", 'Order deny,allow\nDeny from all\nAllow from 127.0.0.3')}`, headers: ENVH },
  { id: 'i29-if-elseif-else-compat', why: '§5 an If/ElseIf/Else chain: only the first branch whose condition holds is merged', config: `${dir('Require all granted')}\n${ifs("%{HTTP:X-Flag} == 'yes'", 'Order deny,allow\nDeny from all\nAllow from 127.0.0.3')}\n<ElseIf "%{HTTP:X-Flag} == 'no'">\n  Require all denied\n</ElseIf>\n<Else>\n  Order allow,deny\n  Allow from ${A2}\n</Else>`, headers: [{}, { 'X-Flag': 'yes' }, { 'X-Flag': 'no' }] },
  { id: 'i30-if-else-require-after-compat', why: '§5 Require in an If/Else chain does not lift the directory compat deny', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}`)}\n${ifs('-n %{HTTP:X-Flag}', 'Require all granted')}\n<Else>\n  Require ip 127.0.0.3\n</Else>`, headers: ENVH },
  { id: 'i25-any-inherited-or', why: '§8.3 Satisfy any with inherited Require: AuthMerging Or', config: `${dir(`${BASIC}\nRequire user alice`)}\n${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`, SUB)}` },
  { id: 'i26-x-and-all', why: '§8.4 X has Require and AuthMerging And, Satisfy All', config: `${dir(`${BASIC}\nRequire valid-user`)}\n${dir(`AuthMerging And\nRequire user alice\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3`, SUB)}` },
  { id: 'i27-x-and-any', why: '§8.4 X has And and Satisfy Any: C ∨ (P ∧ Zx)', config: `${dir(`${BASIC}\nRequire user alice bob`)}\n${dir(`AuthMerging And\nRequire user alice\nOrder deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`, SUB)}` },
  { id: 'i28-x-or-all', why: '§8.4 X has Or and Satisfy All: C ∧ (P ∨ Zx)', config: `${dir(`${BASIC}\nRequire user alice`)}\n${dir(`AuthMerging Or\nRequire user bob\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3`, SUB)}` },
  { id: 'i29-x-or-any', why: '§8.4 X has Or and Satisfy Any', config: `${dir(`${BASIC}\nRequire user alice`)}\n${dir(`AuthMerging Or\nRequire user bob\nOrder deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`, SUB)}` },
  { id: 'i30-location-compat-over-dir', why: '§5 Location compat replaces Directory compat', config: `${dir('Order deny,allow\nDeny from all')}\n${loc('/sub', `Order allow,deny\nAllow from ${A2}`)}` },
  { id: 'i31-files-compat-over-dir', why: '§5 Files compat replaces Directory compat', config: `${dir('Order deny,allow\nDeny from all')}\n${files('a.html', 'Order deny,allow')}` },
  { id: 'i32-nested-files', why: '§5.1 <Files> nested in a <Directory>', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\n${files('a.html', 'Order allow,deny\nAllow from 127.0.0.3')}`, SUB)}` },
  { id: 'i33-parent-compat-child-require', why: '§8.4 parent compat + Require, child Require only', config: `${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n${BASIC}\nRequire valid-user`)}\n${dir('Require user bob', SUB)}` },
  { id: 'i34-group-and-hosts-child', why: '§8.4 group file inheritance with a child compat section', config: `${dir(`${BASIC}\n${GROUPFILE}\nRequire group admins`)}\n${dir(`Order allow,deny\nAllow from ${A2}`, SUB)}` },
  { id: 'i35-three-levels', why: '§8.4 three directory levels', config: `${dir('Order deny,allow\nDeny from all', '/')}\n${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3`)}\n${dir('Require ip 127.0.0.3', SUB)}` },
  { id: 'i36-location-require-any', why: '§8.4 Location Require with Satisfy Any region', config: `${dir(`Order deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any\n${BASIC}\nRequire valid-user`)}\n${loc('/sub', 'Require user bob')}` },
  { id: 'i37-authtype-only-child', why: '§3.6 an AuthType-only child keeps the parent tree', config: `${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n${BASIC}\nRequire valid-user`)}\n${dir('AuthName "other"', SUB)}` },
  // Shapes common in real 2.2 files: the stock httpd.conf, status pages, regex sections, intranet-or-password, <Limit>/<LimitExcept> with auth
  { id: 'w01-default-22', why: 'stock 2.2 httpd.conf', config: `${dir('Options FollowSymLinks\nAllowOverride None\nOrder deny,allow\nDeny from all', '/')}\n${dir('Options Indexes FollowSymLinks\nAllowOverride None\nOrder allow,deny\nAllow from all')}\n${filesMatch('^\\.ht', 'Order allow,deny\nDeny from all\nSatisfy All')}` },
  { id: 'w02-status-loc', why: 'server-status style', config: `${dir('Order allow,deny\nAllow from all')}\n${loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.1 127.0.0.2')}` },
  { id: 'w03-files-tilde', why: 'Files ~ regex', config: `${dir('Order allow,deny\nAllow from all')}\n<Files ~ "\\.html$">\n  Order allow,deny\n  Deny from all\n</Files>` },
  {
    // Debian's stock tree with apt-cacher's conf and a plain Directory enabled (found by a run over
    // Debian's packages): <Directory /> refuses, <Directory /usr/share> grants, and two sections
    // under it allow everyone with host rules, one a DirectoryMatch. The regex section may apply
    // where the grant does not (here /sub2), so it needs AuthMerging And; the rewrite was once
    // refused ("no rewrite form applies here").
    id: 'w04b-debian-share-dirmatch', why: 'AuthMerging And on a regex section that follows an edited one',
    config: `${dir('Require all denied')}\n${dir('Require all granted', SUB)}\n<DirectoryMatch "/(sub|sub2)/">\n  Order allow,deny\n  Allow from all\n</DirectoryMatch>\n${dir('Order allow,deny\nAllow from all', SUB + '/inner')}`,
    files: { 'sub2/b.html': 'b\n', 'sub/inner/c.html': 'c\n' },
    paths: ['/index.html', '/sub/a.html', '/sub/inner/c.html', '/sub2/b.html'],
  },
  { id: 'w04-dirmatch', why: 'DirectoryMatch', config: `${dir('Order allow,deny\nAllow from all')}\n<DirectoryMatch "/sub">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.3\n</DirectoryMatch>` },
  { id: 'w05-intranet-or-pw', why: 'intranet or password', config: dir(`${BASIC}\nRequire valid-user\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.0/30\nSatisfy any`, SUB) + '\n' + dir('Order allow,deny\nAllow from all') },
  { id: 'w06-locmatch', why: 'LocationMatch deny', config: `${dir('Order allow,deny\nAllow from all')}\n${locMatch('^/sub/', 'Order allow,deny\nAllow from all\nDeny from 127.0.0.2')}` },
  { id: 'w07-limit-get-post-auth', why: 'Limit GET POST + Require outside', config: dir(`${BASIC}\n<Limit GET POST>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n</Limit>\nRequire valid-user\nSatisfy any`) },
  { id: 'w08-limitexcept-auth', why: 'LimitExcept GET with Require valid-user', config: dir(`Order allow,deny\nAllow from all\n${BASIC}\n<LimitExcept GET>\nRequire valid-user\n</LimitExcept>`) },
  { id: 'w09-dir-root-deny-sub-allow', why: 'root deny, docroot allow, sub deny host', config: `${dir('Order deny,allow\nDeny from all', '/')}\n${dir('Order allow,deny\nAllow from all')}\n${dir('Order allow,deny\nAllow from all\nDeny from 127.0.0.3 127.0.1', SUB)}` },
  { id: 'w10-files-in-sub', why: 'Files in a Directory + outer Location', config: `${dir(files('a.html', 'Order allow,deny\nDeny from all'), SUB)}\n${dir('Order allow,deny\nAllow from all')}` },
  { id: 'w11-location-root', why: 'Location / allow all over a Directory deny', config: `${dir('Order deny,allow\nDeny from all')}\n${loc('/', 'Order allow,deny\nAllow from all')}` },
  { id: 'w12-group-satisfy-any', why: 'group + hosts Satisfy any', config: dir(`Order allow,deny\nAllow from 127.0.0.3\n${BASIC}\n${GROUPFILE}\nRequire group admins\nSatisfy any`) },
  { id: 'w13-deny-partial-allow-all', why: 'Order deny,allow with Deny subnet Allow host', config: dir('Order deny,allow\nDeny from 127.0.0.0/24\nAllow from 127.0.0.2') },
  { id: 'w14-two-files', why: 'two Files sections', config: `${dir('Order allow,deny\nAllow from all')}\n${files('a.html', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n${files('index.html', 'Order allow,deny\nDeny from all')}` },
  { id: 'w15-require-user-compat', why: 'Require user + host deny, Satisfy all', config: dir(`${BASIC}\nRequire user alice\nOrder allow,deny\nAllow from all\nDeny from 127.0.0.2`) },
  { id: 'w16-loc-limit', why: 'Location with Limit POST deny', config: `${dir('Order allow,deny\nAllow from all')}\n${loc('/sub', '<Limit POST>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</Limit>')}` },
  { id: 'w17-parent-any-child-require', why: 'parent Satisfy any + auth, child Require user', config: `${dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\n${BASIC}\nRequire valid-user\nSatisfy any`)}\n${dir('Require user bob', SUB)}` },
  { id: 'w18-deny-only-default', why: 'Deny from all alone', config: `${dir('Order allow,deny\nAllow from all')}\n${dir('Deny from all', SUB)}` },
  { id: 'w19-allow-32', why: 'CIDR /32 and netmask all-ones', config: dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2/32 127.0.0.3/255.255.255.255') },
  { id: 'w20-require-granted-parent-compat-child', why: 'mixed: parent Require all granted, child compat', config: `${dir('Require all granted')}\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.3', SUB)}` },
  { id: 'w21-files-any-auth', why: 'Files with auth or host', config: `${dir('Order allow,deny\nAllow from all')}\n${files('a.html', `${BASIC}\nRequire valid-user\nOrder allow,deny\nAllow from 127.0.0.2\nSatisfy any`)}` },
  { id: 'w22-location-auth-dir-hosts', why: 'Location auth over Directory hosts', config: `${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3')}\n${loc('/sub', `${BASIC}\nRequire valid-user`)}` },
  { id: 'w23-location-auth-any-dir-hosts', why: 'Location auth + Satisfy any over Directory hosts', config: `${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n${loc('/sub', `${BASIC}\nRequire valid-user\nSatisfy any`)}` },
  { id: 'w24-env-deny-nested', why: 'SetEnvIf + Deny env in sub', config: `${ENV}\n${dir('Order allow,deny\nAllow from all')}\n${dir('Order allow,deny\nAllow from all\nDeny from env=FLAG', SUB)}`, headers: ENVH },
  { id: 'w25-limitexcept-hosts', why: 'LimitExcept GET POST deny', config: dir('Order allow,deny\nAllow from all\n<LimitExcept GET>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</LimitExcept>') },
  // Sections written for 2.2 and 2.4 alike overlap the host rules to migrate: 2.4 reads their
  // 2.4 half as plain lines (a test both 2.4 servers surely pass), so they do not stop the rewrite.
  {
    id: 'd01-dual-location-files', why: 'a dual Location over a Files deny',
    config: `${loc('/sub', DUAL('Require ip 127.0.0.2', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2'))}\n${files('a.html', 'Order allow,deny\nDeny from all\nSatisfy All')}`,
  },
  {
    id: 'd02-dual-root-docroot', why: 'dual Directory / and DocumentRoot, compat sub-directory',
    config: `${dir(DUAL('Require all denied', 'Order deny,allow\nDeny from all'), '/')}\n${dir(DUAL('Require all granted', 'Order allow,deny\nAllow from all'))}\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', SUB)}`,
  },
  {
    id: 'd03-ifversion', why: '<IfVersion >= 2.4> and <IfVersion < 2.4> halves',
    config: `${loc('/sub', '<IfVersion >= 2.4>\nRequire ip 127.0.0.2 127.0.0.3\n</IfVersion>\n<IfVersion < 2.4>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3\n</IfVersion>')}\n${dir('Order deny,allow\nDeny from 127.0.0.3')}`,
  },
  {
    id: 'd04-dual-require-after-compat', why: '§6.1 case (a) with the later Require in a 2.4 half',
    config: `${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n${loc('/sub', DUAL('Require ip 127.0.0.2 127.0.0.3', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2 127.0.0.3'))}`,
  },
  {
    id: 'd05-compat-in-24-half', why: 'host rules inside <IfModule mod_authz_core.c>',
    config: dir('<IfModule mod_authz_core.c>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</IfModule>'),
  },
  {
    id: 'd06-dual-auth', why: 'dual auth section: valid-user in both halves, host rules in a sub-directory',
    config: `${dir(`${BASIC}\n${DUAL('Require valid-user', 'Require valid-user')}`)}\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any', SUB)}`,
  },
  {
    id: 'd07-unknown-module', why: 'a Require under a module test the file cannot settle: checked with and without mod_ssl',
    config: `${loc('/sub', '<IfModule mod_ssl.c>\nRequire ip 127.0.0.2\n</IfModule>')}\n${files('a.html', 'Order allow,deny\nDeny from all')}`,
  },
  {
    id: 'd08-access-compat-test', why: 'a Require under <IfModule !mod_access_compat.c>, which the two servers read differently: refused',
    config: `${loc('/sub', '<IfModule !mod_access_compat.c>\nRequire ip 127.0.0.2\n</IfModule>')}\n${files('a.html', 'Order allow,deny\nDeny from all')}`,
    exact: false,
  },
  // Host rules kept in <IfModule mod_access_compat.c> beside the Require lines meant for 2.4: the
  // server without the module never reads them, and the rewrite drops them (or keeps what they
  // added in Require form).
  {
    id: 'd09-compat-block-redundant', why: 'Require all granted + compat block that allows all',
    config: dir('Require all granted\n<IfModule mod_access_compat.c>\nOrder allow,deny\nAllow from all\n</IfModule>'),
  },
  {
    id: 'd10-compat-block-any', why: 'Location: Require all granted + compat block with Satisfy any',
    config: `${dir('Require all granted')}\n${loc('/sub', 'Require all granted\n<IfModule mod_access_compat.c>\nOrder Deny,Allow\nAllow from all\nSatisfy any\n</IfModule>')}`,
  },
  {
    id: 'd11-compat-block-stricter', why: 'compat block narrower than the Require beside it',
    config: dir('Require all granted\n<IfModule mod_access_compat.c>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</IfModule>'),
  },
  {
    id: 'd12-compat-block-auth', why: 'valid-user beside a compat block, Satisfy any',
    config: dir(`${BASIC}\nRequire valid-user\n<IfModule mod_access_compat.c>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n</IfModule>`),
  },
  {
    id: 'd13-compat-only-auth-settings', why: 'AuthType only the server with mod_access_compat reads: refused',
    config: `${dir('<IfModule mod_access_compat.c>\nAuthType Basic\nAuthName "x"\nAuthUserFile "@USERS@"\n</IfModule>', '/')}\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nRequire valid-user\nSatisfy any')}`,
    exact: false,
  },
  // <IfDirective Order> holds only while mod_access_compat is loaded; <IfDirective !Order> only once it is not.
  {
    id: 'd14-ifdirective-order', why: 'host rules under <IfDirective Order> beside Require all granted',
    config: dir('Require all granted\n<IfDirective Order>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</IfDirective>'),
  },
  {
    id: 'd15-ifdirective-not-order', why: 'a Require under <IfDirective !Order> overlapping host rules: refused',
    config: `${loc('/sub', '<IfDirective !Order>\nRequire ip 127.0.0.2\n</IfDirective>')}\n${files('a.html', 'Order allow,deny\nDeny from all')}`,
    exact: false,
  },
  // helper-40's satisfy-noauthtype: in one group, a section with an AuthType and no Require under
  // Satisfy Any (500 for the clients its host rules refuse, which only `AuthType None` with
  // `Require valid-user` keeps) and a section with its own password (401s, which `AuthType None`
  // would turn into 500s): the AuthType None goes only where the 500s come from.
  {
    id: 's31-authtype-none-where-needed', why: '§8.3 Satisfy any with an AuthType and no Require beside a section with its own Require',
    config: [
      dir('Order allow,deny\nAllow from all'),
      dir(`${BASIC}\nOrder deny,allow\nDeny from all\nAllow from ${A2}\nSatisfy any`, SUB),
      dir(`${BASIC}\nRequire valid-user\nOrder allow,deny\nAllow from all\nDeny from ${A2}\nSatisfy any`, '@DOCROOT@/other'),
    ].join('\n'),
    files: { 'other/a.html': 'a\n' },
    paths: ['/index.html', '/sub/a.html', '/other/a.html'],
  },
  // Both halves keyed on mod_access_compat itself: the original reads only the first, the server
  // without the module only the second, so the rewrite of the first takes the second out.
  {
    id: 'd19-compat-halves-disagree', why: 'host rules in <IfModule access_compat_module>, a Require all granted in <IfModule !mod_access_compat.c> that says otherwise',
    config: dir('<IfModule access_compat_module>\nOrder allow,deny\nDeny from 127.0.0.2\nAllow from all\n</IfModule>\n<IfModule !mod_access_compat.c>\nRequire all granted\n</IfModule>'),
  },
  {
    id: 'd20-compat-halves-agree', why: 'the same halves saying the same',
    config: dir('<IfModule mod_access_compat.c>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.2\n</IfModule>\n<IfModule !mod_access_compat.c>\nRequire ip 127.0.0.2\n</IfModule>'),
  },
  {
    id: 'd21-ifdirective-halves', why: 'the halves under <IfDirective Order> and <IfDirective !Order>, in a Location with a password',
    config: `${dir('Require all granted')}\n${loc('/sub', `${BASIC}\n<IfDirective Order>\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.3\nRequire valid-user\nSatisfy any\n</IfDirective>\n<IfDirective !Order>\nRequire valid-user\n</IfDirective>`)}`,
  },
  // FreeIPA's ipa.conf (2014): a password on the whole URL space, host rules with Satisfy Any
  // that open some Locations and the directories aliased into it, and a password-protected CGI
  // directory. The directories' `Require all granted` only holds under the Location's password
  // with AuthMerging Or, and the CGI directory's Require is the same as the Location's.
  {
    id: 'w27-freeipa',
    why: 'Location password + Satisfy Any openings, with aliases',
    config: [
      'Alias /sub/pub "@DOCROOT@/pub"',
      'Alias /sub/cgi "@DOCROOT@/cgi"',
      loc('/sub', `${BASIC}\nRequire valid-user`),
      loc('/sub/open', 'Satisfy Any\nOrder Deny,Allow\nAllow from all'),
      dir('AllowOverride None\nSatisfy Any\nAllow from all', '@DOCROOT@/pub'),
      dir(`${BASIC}\nRequire valid-user`, '@DOCROOT@/cgi'),
    ].join('\n'),
    files: { 'sub/open/a.html': 'a\n', 'pub/a.html': 'a\n', 'cgi/a.html': 'a\n' },
    paths: ['/index.html', '/sub/a.html', '/sub/open/a.html', '/sub/pub/a.html', '/sub/cgi/a.html', '/pub/a.html', '/cgi/a.html'],
  },
  // Whole sections under <IfDefine>: the oracle runs httpd without -DNEVER. The rewrite must hold
  // whether the name is defined or not: the engine checks both ways.
  {
    id: 'd16-ifdefine-p-copied', why: 'P from a section under <IfDefine NEVER> would be copied into a later one: refused',
    config: `${dir('Order allow,deny\nAllow from all', '/')}\n<IfDefine NEVER>\n${dir(`${BASIC}\nRequire valid-user`)}\n</IfDefine>\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2', SUB)}`,
    exact: false,
  },
  {
    id: 'd17-ifdefine-both-ways', why: 'sections under <IfDefine NEVER> and <IfDefine !NEVER>: rewritten, exact both ways',
    config: `<IfDefine !NEVER>\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n</IfDefine>\n<IfDefine NEVER>\n${loc('/sub', 'Require ip 127.0.0.3')}\n</IfDefine>\n<IfDefine !NEVER>\n${loc('/sub', 'Require all granted')}\n</IfDefine>`,
  },
  {
    id: 'd18-ifdefine-whole-group', why: 'every section of the group under the same <IfDefine !NEVER>',
    config: `<IfDefine !NEVER>\n${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n${loc('/sub', 'Require ip 127.0.0.2 127.0.0.3')}\n</IfDefine>`,
  },
  {
    id: 'd19-require-under-ifdefine', why: 'host rules whose Require sits under <IfDefine NEVER> in the same section: refused',
    config: dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n${BASIC}\n<IfDefine NEVER>\nRequire valid-user\n</IfDefine>`),
    exact: false,
  },
  {
    id: 'd20-require-under-ifdefine-not', why: 'the same under <IfDefine !NEVER> (read by the oracle): refused too',
    config: dir(`Order deny,allow\nDeny from all\nAllow from 127.0.0.2\nSatisfy any\n${BASIC}\n<IfDefine !NEVER>\nRequire valid-user\n</IfDefine>`),
    exact: false,
  },
  {
    id: 'd21-moved-out-of-a-test', why: 'Satisfy any and a Require under a test httpd may fail (as in OAR\'s apache2.conf, there <IfModule authnz_ldap_module>): moving them out would open the directory where the test fails: refused',
    config: `${dir('Require ip 127.0.0.2')}\n${loc('/sub', `<IfDefine NEVER>\n${BASIC}\nRequire valid-user\nSatisfy any\n</IfDefine>`)}`,
    exact: false,
  },
  // Debian's serve-cgi-bin.conf grants /usr/lib/cgi-bin under <IfDefine ENABLE_USR_LIB_CGI_BIN>,
  // and a 2.2 site carried over says `Order allow,deny` + `Allow from all` for the same directory:
  // with compat it answers what the inherited Require says, granted or `<Directory />`'s denial
  // depending on the define. `Require all granted` (Off) opened it where the define does not hold;
  // the rewrite keeps the inherited Require with AuthMerging And. Both worlds, each run on httpd.
  {
    id: 'd22-granted-under-ifdefine-holds', why: 'what is in force before the host rules is a grant under <IfDefine !NEVER>: AuthMerging And keeps it',
    config: `${dir('Require all denied', '/')}\n<IfDefine !NEVER>\n${dir('Require all granted', SUB)}\n</IfDefine>\n${dir('Order allow,deny\nAllow from all', SUB)}`,
  },
  {
    id: 'd23-granted-under-ifdefine-fails', why: 'the same grant under <IfDefine NEVER>: the inherited denial stays (403), as with compat',
    config: `${dir('Require all denied', '/')}\n<IfDefine NEVER>\n${dir('Require all granted', SUB)}\n</IfDefine>\n${dir('Order allow,deny\nAllow from all', SUB)}`,
  },
  // 160 locations, each with its own networks, under a Directory with host rules: one group whose
  // shared client classes times request points pass the check budget (466,578 evaluations), so
  // the check works out classes point by point.
  {
    id: 'w26-many-locations',
    why: 'one group too big for one set of client classes',
    config: `${dir('Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}\n${Array.from({ length: 160 }, (_, i) => loc(`/p${i}`, `Order deny,allow\nDeny from all\nAllow from 127.0.${i}.0/24 127.1.${i}.7`)).join('\n')}`,
    files: { 'p0/a.html': 'a\n', 'p1/a.html': 'a\n', 'p2/a.html': 'a\n', 'p159/a.html': 'a\n' },
    paths: ['/index.html', '/sub/a.html', '/p0/a.html', '/p1/a.html', '/p2/a.html', '/p159/a.html'],
  },
  // httpd resolves `.` and `..` before it maps a URL: /x/../sub/a.html is /sub/a.html for <Location>
  // (explain read it literally and answered 200 where httpd answers 403).
  {
    id: 'u01-dot-segments',
    why: 'URLs with . and .. segments (and their %2e spelling) reach the sections of the path they resolve to',
    config: `${dir('Order allow,deny\nAllow from all')}\n${loc('/sub', 'Order deny,allow\nDeny from all\nAllow from 127.0.0.2')}`,
    paths: ['/index.html', '/sub/a.html', '/x/../sub/a.html', '/sub/./a.html', '/./sub/x/../a.html', '/x/%2e%2e/sub/a.html', '/sub/a.html/..'],
  },
];

/** Cases that state no DocumentRoot: the engine cannot map URLs to files and must be cautious. */
const NO_DOCROOT = new Set(['i04-case-a', 'r01-deny-all', 's02-any-auth', 'i07-parent-valid-user']);

/** Every case states its DocumentRoot (as a real vhost does) unless it tests the unmapped reading. */
export const CASES: MigrationCase[] = [
  ...RAW_CASES.map((c) => (NO_DOCROOT.has(c.id) ? c : { ...c, config: `DocumentRoot "@DOCROOT@"\n${c.config}` })),
  ...[...NO_DOCROOT].map((id) => {
    const c = RAW_CASES.find((x) => x.id === id)!;
    return { ...c, id: `${id}-mapped`, why: `${c.why} (with DocumentRoot)`, config: `DocumentRoot "@DOCROOT@"\n${c.config}` };
  }),
];

// ---------------------------------------------------------------------------------------------
// Running cases

export const FAKE_ROOT = '/oracle-docroot';

/** The config as the engine sees it: placeholders replaced by stand-in absolute paths. */
export function forEngine(config: string): string {
  return config.split('@DOCROOT@').join(FAKE_ROOT).split('@USERS@').join('/oracle-users').split('@GROUPS@').join('/oracle-groups');
}

export function fromEngine(text: string): string {
  return text.split(FAKE_ROOT).join('@DOCROOT@').split('/oracle-users').join('@USERS@').split('/oracle-groups').join('@GROUPS@');
}

export const FROMS = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.1.5'];
export const AUTHS: Array<{ user: string; password: string } | undefined> = [
  undefined,
  { user: 'alice', password: 'alice-pw' },
  { user: 'alice', password: 'wrong' },
  { user: 'bob', password: 'bob-pw' },
];
export const METHODS = ['GET', 'POST'];

export function requestsFor(c: MigrationCase): OracleRequestFor[] {
  const out: OracleRequestFor[] = [];
  for (const path of c.paths ?? ['/index.html', '/sub/a.html']) {
    for (const from of FROMS) {
      for (const auth of AUTHS) {
        for (const method of METHODS) {
          for (const headers of c.headers ?? [{}]) {
            out.push({ caseId: c.id, path, from, method, ...(auth ? { auth } : {}), ...(Object.keys(headers).length ? { headers } : {}) });
          }
        }
      }
    }
  }
  return out;
}

export function oracleCase(c: MigrationCase, config: string): OracleCase {
  return { id: c.id, config, files: { 'sub/a.html': 'a\n', ...(c.files ?? {}) } };
}

/** The engine's request for an oracle request. */
export function engineRequest(r: OracleRequestFor): Request {
  const creds = r.auth
    ? (USERS as Record<string, string>)[r.auth.user] === r.auth.password
      ? ({ kind: 'valid', user: r.auth.user } as const)
      : ({ kind: 'wrong' } as const)
    : ({ kind: 'none' } as const);
  return {
    path: r.path,
    method: r.method,
    ip: r.from,
    credentials: creds,
    groups: GROUPS,
    headers: r.headers,
    documentRoot: FAKE_ROOT,
    // The oracle starts httpd with -DFOREGROUND and nothing else.
    defines: ['FOREGROUND'],
  };
}

export interface Migrated {
  c: MigrationCase;
  /** The rewrite (placeholders restored), or null when the engine offered no exact rewrite. */
  rewritten: string | null;
  reasons: string[];
  /**
   * The text explain is given in place of a configuration: one with `<IfModule>`/`<IfDefine>`
   * tests whose outcome only the oracle's server knows (the modules it loads) has them settled
   * first, as httpd settles them. Explain alone cannot know what a server loads.
   */
  forExplain?: (config: string) => string;
}

export function migrateCase(c: MigrationCase): Migrated {
  const { text, plan } = migrateText(forEngine(c.config), 'vhost');
  const left = plan.sections.filter((s) => !s.exact);
  return { c, rewritten: left.length ? null : fromEngine(text), reasons: left.map((s) => s.reason ?? '(no reason)') };
}

/**
 * How the plan of a case changes when the check works out client classes point by point instead
 * of once for the whole group (PlanOptions.clientsPerPoint), or reads the whole rewritten file
 * instead of a projection (PlanOptions.wholeFile); null when it does not. Each way is exact, so
 * all must give the same plan; the real-httpd runs check the default way. (A refusal's reason may
 * name another example request: classes are listed in another order.)
 */
export function checkVariantDifference(c: MigrationCase): string | null {
  const text = forEngine(c.config);
  const sig = (r: ReturnType<typeof migrateText>) =>
    JSON.stringify([r.text, r.plan.sections.map((s) => [s.exact?.title ?? null, s.naive?.title ?? null, s.reason ? 'refused' : null])]);
  const base = sig(migrateText(text, 'vhost'));
  if (sig(migrateText(text, 'vhost', { clientsPerPoint: true })) !== base) return `${c.id}: client classes per point give another plan`;
  if (sig(migrateText(text, 'vhost', { wholeFile: true })) !== base) return `${c.id}: the whole-file check gives another plan`;
  return null;
}

export function explainCase(config: string, r: OracleRequestFor, compat: boolean): Evaluation {
  return explain(parse(forEngine(config)), 'vhost', engineRequest(r), { compat });
}

export interface PairResult {
  requests: number;
  differences: string[];
  /** Explain predictions that disagree with httpd, for the original and the rewrite. */
  explainMisses: string[];
  explainChecked: number;
}

/** Whether httpd is here; under CI=true its absence is an error. */
export function httpdOrSkip(ctx: Mocha.Context): boolean {
  if (findHttpd()) return true;
  const msg = 'Apache httpd not found (install apache2 or set APACHECONF_HTTPD)';
  if (process.env.CI === 'true') throw new Error(`${msg} (CI=true: the oracle tests must run in CI)`);
  console.log(`    skipped: ${msg}`);
  ctx.skip();
  return false;
}

/** Run the cases on httpd with compat (original) and without (rewrite); compare, and optionally check explain. */
export async function runPair(list: Migrated[], opts: { explain?: boolean } = {}): Promise<PairResult> {
  const runnable = list.filter((m) => m.rewritten !== null);
  const originals = list.map((m) => oracleCase(m.c, m.c.config));
  const rewrites = runnable.map((m) => oracleCase(m.c, m.rewritten!));
  let before: Oracle | null = null;
  let after: Oracle | null = null;
  try {
    before = await startOracle(originals, { compat: true, users: USERS, groups: GROUPS });
    after = rewrites.length ? await startOracle(rewrites, { compat: false, users: USERS, groups: GROUPS }) : null;
    const allReqs = list.flatMap((m) => requestsFor(m.c));
    const runReqs = runnable.flatMap((m) => requestsFor(m.c));
    const a = await before.requestAll(allReqs);
    const byKey = new Map<string, number>();
    allReqs.forEach((r, i) => byKey.set(JSON.stringify(r), a[i]));
    const b = after ? await after.requestAll(runReqs) : [];
    const a2 = runReqs.map((r) => byKey.get(JSON.stringify(r))!);
    const diffs = mismatches(runReqs, a2, b).map(
      (d) => `${d.request.caseId}: ${d.request.method} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}:${d.request.auth.password}` : ''}${d.request.headers ? ' ' + JSON.stringify(d.request.headers) : ''}: original ${d.a}, rewrite ${d.b}`,
    );
    const misses: string[] = [];
    let checked = 0;
    if (opts.explain) {
      const cfg = new Map(list.map((m) => [m.c.id, m]));
      allReqs.forEach((r, i) => {
        checked++;
        const m = cfg.get(r.caseId)!;
        const e = explainCase(m.forExplain ? m.forExplain(m.c.config) : m.c.config, r, true);
        if (e.status === null || outcomeOf(e.status) !== outcomeOf(a[i])) misses.push(`original ${r.caseId}: ${label(r)}: predicted ${e.status}, httpd ${a[i]}`);
      });
      runReqs.forEach((r, i) => {
        checked++;
        const m = cfg.get(r.caseId)!;
        const e = explainCase(m.forExplain ? m.forExplain(m.rewritten!) : m.rewritten!, r, false);
        if (e.status === null || outcomeOf(e.status) !== outcomeOf(b[i])) misses.push(`rewrite ${r.caseId}: ${label(r)}: predicted ${e.status}, httpd ${b[i]}`);
      });
    }
    return { requests: runReqs.length, differences: diffs, explainMisses: misses, explainChecked: checked };
  } finally {
    await before?.stop();
    await after?.stop();
  }
}

/**
 * Run cases on httpd (runPair with explain), print `title` with what was rewritten and compared,
 * and assert that no request differs and every prediction of explain is httpd's (the first case
 * that fails is shown, original and rewrite). Returns how many cases were rewritten.
 */
export async function assertExactOnHttpd(migrated: Migrated[], title: string): Promise<number> {
  const r = await runPair(migrated, { explain: true });
  const rewritten = migrated.filter((m) => m.rewritten !== null).length;
  console.log(`    ${title}: ${migrated.length} configurations, ${rewritten} rewritten, ${r.requests} requests compared, ${r.differences.length} differences; explain ${r.explainChecked - r.explainMisses.length}/${r.explainChecked} agree`);
  const show = (id: string) => {
    const m = migrated.find((x) => x.c.id === id);
    return m ? `--- ${id} original:\n${m.c.config}\n--- rewrite:\n${m.rewritten}` : '';
  };
  assert.deepEqual(r.differences.slice(0, 20), [], show(r.differences[0]?.split(':')[0] ?? ''));
  assert.deepEqual(r.explainMisses.slice(0, 20), [], show(r.explainMisses[0]?.split(' ')[1]?.replace(/:$/, '') ?? ''));
  return rewritten;
}

function label(r: OracleRequestFor): string {
  return `${r.method} ${r.path} from ${r.from}${r.auth ? ` as ${r.auth.user}:${r.auth.password}` : ''}${r.headers ? ' ' + JSON.stringify(r.headers) : ''}`;
}

if (typeof describe === "function" && !process.env.NO_TABLE_TEST) describe('migration case table', () => {
  it('has at least 80 cases with unique ids', () => {
    assert.ok(CASES.length >= 80, `${CASES.length} cases`);
    assert.equal(new Set(CASES.map((c) => c.id)).size, CASES.length);
  });
  it('every case uses mod_access_compat', () => {
    for (const c of CASES) assert.match(c.config, /\b(Order|Allow|Deny|Satisfy)\b/i, c.id);
  });
});
