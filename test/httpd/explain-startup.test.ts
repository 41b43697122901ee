// The model's start-up predictions against `httpd -t`: every configuration below is one that the
// invalid-require rule reports as refused (it must fail) or finds clean (it must start).
// Run with mod_access_compat loaded, as the host rules need it.

import assert from 'node:assert/strict';
import { checkConfig } from './harness';
import { httpdOrSkip } from './migration-cases.test';
import { buildModel } from '../../server/src/access';
import { parse } from '../../server/src/syntax';

const d = (body: string) => `<Directory "@DOCROOT@">\n${body}\n</Directory>`;

const CONFIGS: string[] = [
  d('Require not ip 127.0.0.2'),
  d('Require ip 127.0.0.3\nRequire not ip 127.0.0.2'),
  d('<RequireNone>\nRequire ip 127.0.0.2\n</RequireNone>'),
  d('<RequireAny>\nRequire ip 127.0.0.3\nRequire not ip 127.0.0.2\n</RequireAny>'),
  d('<RequireAll>\nRequire not ip 127.0.0.2\n</RequireAll>'),
  d('<RequireAll>\n<RequireNone>\nRequire ip 127.0.0.2\n</RequireNone>\n</RequireAll>'),
  d('<RequireAll>\nRequire ip 127.0.0.0/24\n<RequireNone>\nRequire ip 127.0.0.2\n</RequireNone>\n</RequireAll>'),
  d('<RequireAll>\nRequire all granted\n<RequireNone>\n<RequireAny>\nRequire ip 127.0.0.2\nRequire ip 127.0.0.3\n</RequireAny>\n</RequireNone>\n</RequireAll>'),
  d('<RequireAll>\nRequire all granted\n<RequireNone>\nRequire not ip 127.0.0.2\n</RequireNone>\n</RequireAll>'),
  d('<RequireAll>\n<RequireAll>\nRequire not ip 127.0.0.2\n</RequireAll>\nRequire all granted\n</RequireAll>'),
  d('<RequireAll>\n<RequireAny>\nRequire not ip 127.0.0.2\n</RequireAny>\nRequire all granted\n</RequireAll>'),
  d('<RequireAll>\n</RequireAll>'),
  d('<RequireAny extra>\nRequire ip 127.0.0.2\n</RequireAny>'),
  d('Require IP 127.0.0.2'),
  d('Require Valid-User'),
  d('Require ip localhost'),
  d('Require ip 0.0.0.0/0'),
  d('Require ip 127.0.0.0/33'),
  d('Require ip ::ffff:127.0.0.1'),
  d('Require ip 127.0.0'),
  d('Require all granted'),
  d('Require all maybe'),
  d('<Limit GET>\n<RequireAll>\nRequire all granted\nRequire not ip 127.0.0.2\n</RequireAll>\n</Limit>'),
  d('<RequireAll>\nRequire all granted\n<Limit POST>\nRequire not ip 127.0.0.2\n</Limit>\n</RequireAll>'),
  d('<RequireAny>\n<Limit POST>\nRequire ip 127.0.0.2\n</Limit>\nRequire ip 127.0.0.3\n</RequireAny>'),
  d('AuthMerging Sometimes\nRequire all granted'),
  d('Order deny, allow'),
  d('Order "deny, allow"'),
  d('Order Deny,Allow\nDeny from all'),
  d('Allow 127.0.0.1'),
  d('Allow from'),
  d('Allow from 127.0.0.1 # office'),
  d('Deny from 10.1/16'),
  d('Deny from 10.1.2.300'),
  d('Deny from 10.1.2.3.4'),
  d('Deny from example.com/24'),
  d('Deny from 10.0.0.0/255.255.0.0 10.1.2.3a .example.org env=X env=!Y'),
  d('Satisfy sometimes'),
  d('<Limit TRACE>\nRequire all denied\n</Limit>'),
];

describe('explain: start-up errors predicted by the model vs httpd -t', function () {
  this.timeout(300_000);
  for (const [i, config] of CONFIGS.entries()) {
    it(`#${i}: ${config.split('\n').slice(1, -1).join(' / ')}`, async function () {
      if (!httpdOrSkip(this)) return;
      const model = buildModel(parse(config.split('@DOCROOT@').join('/srv/x')), 'vhost');
      const refused = model.problems.filter((p) => p.code !== 'provider-unknown');
      const check = await checkConfig([{ id: `s${i}`, config }], { compat: true });
      assert.equal(
        refused.length > 0,
        !check.ok,
        `model: ${refused.map((p) => p.message).join('; ') || 'starts'}\nhttpd: ${check.output}`,
      );
    });
  }
});
