// Building blocks of the random configurations (random.test.ts, htaccess-random.test.ts): host
// rules (Order/Allow/Deny/Satisfy, in and out of <Limit>/<LimitExcept>) and authorization lines
// (Require, containers, AuthMerging), over the oracle's addresses, users and FLAG variable.

import fc from 'fast-check';

const TOKENS = ['all', '127.0.0.2', '127.0.0.3', '127.0.0.0/30', '127.0.1', 'localhost', 'env=FLAG', 'env=!FLAG', '127.0.0.1'];
const REQUIRES = [
  'Require valid-user',
  'Require user alice',
  'Require user bob alice',
  'Require group admins',
  'Require ip 127.0.0.2 127.0.0.3',
  'Require ip 127.0.1',
  'Require all granted',
  'Require all denied',
  'Require host localhost',
  'Require env FLAG',
  '<RequireAll>\nRequire ip 127.0.0.0/24\nRequire not ip 127.0.0.3\n</RequireAll>',
  '<RequireAll>\nRequire valid-user\nRequire not env FLAG\n</RequireAll>',
  '<Limit POST>\nRequire valid-user\n</Limit>',
  '<RequireAny>\nRequire ip 127.0.0.2\nRequire valid-user\n</RequireAny>',
  '<RequireAll>\nRequire valid-user\n<RequireNone>\nRequire user bob\nRequire ip 127.0.0.3\n</RequireNone>\n</RequireAll>',
  '<LimitExcept GET>\nRequire user alice\n</LimitExcept>',
];

const tokenList = fc.uniqueArray(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 3 });

export const compatBlock = fc
  .record({
    order: fc.constantFrom<string | null>(null, 'allow,deny', 'deny,allow', 'mutual-failure'),
    allow: fc.option(tokenList, { nil: null }),
    deny: fc.option(tokenList, { nil: null }),
    satisfy: fc.constantFrom<string | null>(null, null, 'any', 'all'),
    limit: fc.constantFrom<string | null>(null, null, null, 'POST', 'GET', 'except GET', 'except POST'),
  })
  .map((r) => {
    const inner: string[] = [];
    if (r.order) inner.push(`Order ${r.order}`);
    if (r.allow) inner.push(`Allow from ${r.allow.join(' ')}`);
    if (r.deny) inner.push(`Deny from ${r.deny.join(' ')}`);
    const outer: string[] = [];
    if (r.satisfy) outer.push(`Satisfy ${r.satisfy}`);
    if (!inner.length && !outer.length) inner.push('Order deny,allow');
    if (r.limit?.startsWith('except ') && inner.length) return [`<LimitExcept ${r.limit.slice(7)}>`, ...inner, '</LimitExcept>', ...outer].join('\n');
    if (r.limit && inner.length) return [`<Limit ${r.limit}>`, ...inner, '</Limit>', ...outer].join('\n');
    return [...inner, ...outer].join('\n');
  });

export const authzBlock = fc
  .record({
    reqs: fc.uniqueArray(fc.constantFrom(...REQUIRES), { minLength: 1, maxLength: 2 }),
    merging: fc.constantFrom<string | null>(null, null, 'And', 'Or', 'Off'),
  })
  .map((r) => [...(r.merging ? [`AuthMerging ${r.merging}`] : []), ...r.reqs].join('\n'));

