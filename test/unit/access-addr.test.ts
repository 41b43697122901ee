// The APR address grammar (spec §2.2) and the Allow/Deny token classification, table-driven.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyHostToken, domainIndex, inDomain, parseClient, parseRequireIp, parseSubnetToken, samplesOf, subnetIndex, subnetMatches } from '../../server/src/access/addr';

type Kind = 'all' | 'env' | 'nenv' | 'ip' | 'host';
const TOKENS: Array<[string, Kind | string]> = [
  ['all', 'all'],
  ['ALL', 'all'],
  ['env=FOO', 'env'],
  ['Env=foo', 'env'],
  ['env=!FOO', 'nenv'],
  ['ENV=!x', 'nenv'],
  ['10.1.2.3', 'ip'],
  ['10', 'ip'],
  ['10.1', 'ip'],
  ['172.20', 'ip'],
  ['192.168.2', 'ip'],
  ['10.1.', 'ip'],
  ['10.1.2.3/8', 'ip'],
  ['10.0.0.0/255.255.0.0', 'ip'],
  ['2001:db8::/32', 'ip'],
  ['::1', 'ip'],
  ['fe80::1/64', 'ip'],
  ['10.1.2.3a', 'host'],
  ['1and1.com', 'host'],
  ['.example.org', 'host'],
  ['localhost', 'host'],
  ['10.1/16', 'The specified IP address is invalid.'],
  ['0.0.0.0/0', 'The specified network mask is invalid.'],
  ['::/0', 'The specified network mask is invalid.'],
  ['10.0.0.0/33', 'The specified network mask is invalid.'],
  ['example.com/24', 'An IP address was expected'],
  ['::ffff:10.1.2.3', 'The specified IP address is invalid.'],
  ['2001:db8::/255.255.0.0', 'The specified network mask is invalid.'],
  ['#', 'No comments are allowed here'],
  ['office#1', 'No comments are allowed here'],
  ['10.1.2.300', 'The specified IP address is invalid.'],
  ['10.1.2.3.4', 'The specified IP address is invalid.'],
  ['10..1', 'The specified IP address is invalid.'],
];

describe('access addr: Allow/Deny token classification (§2.2)', () => {
  for (const [tok, want] of TOKENS) {
    it(`${tok} → ${want}`, () => {
      const r = classifyHostToken(tok);
      if (r.ok) assert.equal(r.token.kind, want);
      else assert.equal(r.message, want);
    });
  }
});

const MATCH: Array<[string, string, boolean]> = [
  ['10.1.2.3', '10.1.2.3', true],
  ['10.1.2.3', '10.1.2.4', false],
  ['10', '10.200.1.1', true],
  ['10', '11.0.0.1', false],
  ['10.1.', '10.1.9.9', true],
  ['10.1.', '10.2.0.1', false],
  ['10.1.2.3/8', '10.250.0.1', true],
  ['10.0.0.0/255.255.0.0', '10.0.77.1', true],
  ['10.0.0.0/255.255.0.0', '10.1.0.1', false],
  ['10.1.0.0/16', '::ffff:10.1.2.3', true],
  ['10.1.0.0/16', '::ffff:10.2.2.3', false],
  ['2001:db8::/32', '2001:db8:1::5', true],
  ['2001:db8::/32', '10.1.2.3', false],
  ['::1', '::1', true],
  ['127.0.0.1', '::1', false],
];

describe('access addr: subnet matching', () => {
  for (const [net, client, want] of MATCH) {
    it(`${net} ${want ? 'matches' : 'does not match'} ${client}`, () => {
      const s = parseSubnetToken(net);
      assert.ok(s.ok);
      const c = parseClient(client);
      assert.ok(c);
      assert.equal(subnetMatches(s.subnet, c), want);
    });
  }
  it('samples of a subnet lie inside it', () => {
    for (const t of ['10', '10.1.2.3', '192.168.0.0/30', '2001:db8::/126', '10.0.0.0/255.0.255.0']) {
      const s = parseSubnetToken(t);
      assert.ok(s.ok);
      const sm = samplesOf(s.subnet);
      assert.ok(sm.length >= 1);
      for (const c of sm) assert.ok(subnetMatches(s.subnet, c), `${t}`);
    }
  });
});

describe('access addr: Require ip arguments', () => {
  const rows: Array<[string, string | null]> = [
    ['10.1.2.3', null],
    ['10.1', null],
    ['10.0.0.0/8', null],
    ['example.com', "ip address 'example.com' appears to be invalid"],
    ['all', "ip address 'all' appears to be invalid"],
    ['0.0.0.0/0', "ip address '0.0.0.0' appears to be invalid: The specified network mask is invalid."],
  ];
  for (const [w, msg] of rows) {
    it(`${w} → ${msg ?? 'ok'}`, () => {
      const r = parseRequireIp(w);
      if (msg === null) assert.ok(r.ok);
      else assert.equal(r.ok ? null : r.message, msg);
    });
  }
});

describe('access addr: in_domain', () => {
  const rows: Array<[string, string, boolean]> = [
    ['example.org', 'example.org', true],
    ['example.org', 'www.example.org', true],
    ['example.org', 'badexample.org', false],
    ['.example.org', 'www.example.org', true],
    ['Example.ORG', 'www.example.org', true],
    ['host', 'localhost', false],
    ['localhost', 'localhost', true],
  ];
  for (const [d, h, want] of rows) it(`${d} vs ${h}`, () => assert.equal(inDomain(d, h), want));
});

// The indexes clientsFor uses to sort thousands of addresses and names into classes must answer
// exactly what subnetMatches and inDomain answer one network or domain at a time.
describe('subnetIndex and domainIndex agree with subnetMatches and inDomain', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  // Small values, so that random networks and addresses often overlap.
  const near = fc.constantFrom(0, 1, 2, 10, 127, 128, 255);
  const v4 = fc.tuple(near, near, near, octet).map((b) => b.join('.'));
  const v6 = fc.oneof(
    fc.tuple(near, near).map(([a, b]) => `2001:db8:${a.toString(16)}::${b.toString(16)}`),
    v4.map((a) => `::ffff:${a}`),
    fc.constant('::1'),
  );
  const token = fc.oneof(
    v4,
    fc.tuple(near, near).map(([a, b]) => `${a}.${b}`),
    fc.tuple(v4, fc.integer({ min: 0, max: 32 })).map(([a, n]) => `${a}/${n}`),
    fc.tuple(v4, fc.constantFrom('255.255.0.0', '255.0.255.0', '255.255.255.128', '0.0.0.0')).map(([a, m]) => `${a}/${m}`),
    fc.tuple(v6, fc.integer({ min: 0, max: 128 })).map(([a, n]) => `${a}/${n}`),
    v6,
  );
  const client = fc.oneof(v4, v6);

  it('subnetIndex: the networks that contain each address, for random networks and addresses', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), fc.array(client, { minLength: 1, maxLength: 20 }), (tokens, clients) => {
        const nets = tokens.map(parseSubnetToken).flatMap((r) => (r.ok ? [r.subnet] : []));
        const containing = subnetIndex(nets);
        for (const c of clients) {
          const addr = parseClient(c);
          if (!addr) continue;
          const want = nets.flatMap((n, i) => (subnetMatches(n, addr) ? [i] : []));
          assert.deepEqual(containing(addr), want, c);
        }
      }),
      { seed: 20261125, numRuns: 500 },
    );
  });

  it('domainIndex: the domains a name is in, for random domains and names', () => {
    const label = fc.constantFrom('a', 'b', 'example', 'com', 'ORG', 'x-y', '');
    const name = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
    const domain = fc.oneof(name, name.map((n) => '.' + n), name.map((n) => '..' + n));
    fc.assert(
      fc.property(fc.array(domain, { maxLength: 30 }), fc.array(name, { minLength: 1, maxLength: 20 }), (domains, hosts) => {
        const matching = domainIndex(domains);
        for (const h of hosts) {
          const want = domains.flatMap((d, i) => (inDomain(d, h) ? [i] : []));
          assert.deepEqual(matching(h), want, `${h} in ${JSON.stringify(domains)}`);
        }
      }),
      { seed: 20261125, numRuns: 500 },
    );
  });
});
