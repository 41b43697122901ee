/**
 * A server config and the `.htaccess` files below it migrated together (htaccess-joint.test.ts)
 * where the main server answers some connections itself, against the real httpd.
 *
 * With virtual hosts and a `Listen` port none of them takes, the `.htaccess` files are read by the
 * main server as well as by the hosts. spliceHtaccessFiles then puts each file's copy at the end of
 * every host that reads it and, for the main server, at the end of the server config, outside every
 * host; a directory counts as known only where each host reads the same files as the main server
 * (a top-level copy is read by the hosts too). Before, nothing was spliced in this layout and
 * neither side was rewritten.
 *
 * Each random case: the document root's `<Directory>` at server level (AllowOverride All, host
 * rules or Require, sometimes auth), sometimes a `<Directory>` for `sub/`, a virtual host on the
 * same document root (sometimes with sections of its own), and `sub/.htaccess` with host rules. The
 * case is migrated as `fix --root` does, and the result is served by httpd on both ports (the
 * virtual host and the main server), with mod_access_compat where host rules are left, against
 * the original with it. Each pair needs an httpd of its own (one main server per httpd), so the
 * default run is small: APACHECONF_JOINT_MAIN_RUNS (default 12) and APACHECONF_SEED choose more.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authzBlock, compatBlock } from './blocks';
import { flagRequests } from './htaccess-forms.test';
import { mismatches, startOracle, type OracleCase, type OracleRequestFor } from './harness';
import { BASIC, FAKE_ROOT, GROUPFILE, GROUPS, USERS, forEngine, fromEngine, httpdOrSkip } from './migration-cases.test';
import { parse } from '../../server/src/syntax';
import { createService } from '../../server/src/service';
import { openDirectories, type ConfigurationView } from '../../server/src/access';
import { migrateHtaccessInContext, spliceHtaccessFiles, type HtaccessReader } from '../../server/src/features/htaccess-context';

const COMPAT = /^\s*(order|allow|deny|satisfy)\b/im;
const PATHS = ['/a.html', '/sub/a.html'];
const FILES = { 'a.html': 'a\n', 'sub/a.html': 'a\n' };
const OPEN = '<VirtualHost *:80>\nDocumentRoot "@DOCROOT@"\n';
const CLOSE = '</VirtualHost>\n';

interface MainCase {
  id: string;
  /** Server-level lines (DocumentRoot and the document root's sections). */
  server: string;
  /** The virtual host's body. */
  vhost: string;
  htaccess: string;
}

/** The configuration as the engine reads it: the port 81 is the main server's. */
function engineText(c: MainCase): string {
  return forEngine(['Listen 127.0.0.1:80', 'Listen 127.0.0.1:81', c.server, OPEN + c.vhost, CLOSE].join('\n'));
}

interface MainResult {
  server: string;
  vhost: string;
  htaccess: string;
  compat: boolean;
  serverRewritten: boolean;
}

/** The case's one .htaccess file, at the engine's stand-in path. */
function readerOf(c: MainCase): HtaccessReader {
  const file = `${FAKE_ROOT}/sub/.htaccess`;
  return {
    readFile: (p) => (p === file ? c.htaccess : undefined),
    listDir: (p) => (p === FAKE_ROOT ? ['sub/'] : p === `${FAKE_ROOT}/sub` ? [] : undefined),
  };
}

/** The case's configuration with its .htaccess spliced in where httpd reads it. */
function spliced(c: MainCase): ReturnType<typeof spliceHtaccessFiles> {
  const text = engineText(c);
  const doc = parse(text);
  const origins = text
    .split('\n')
    .slice(0, -1)
    .map((_, line) => ({ path: 'root.conf', line }));
  return spliceHtaccessFiles(doc, origins, openDirectories(doc), readerOf(c));
}

/** The case as `fix --root` migrates it: the server config with the .htaccess spliced in, then the .htaccess under the result. */
function migrate(c: MainCase): MainResult {
  const reader = readerOf(c);
  const text = engineText(c);
  const w = spliced(c);
  const view: ConfigurationView = { doc: w.doc, origins: w.origins, path: 'root.conf', root: 'root.conf', context: 'server', htaccessKnown: w.known, directories: w.directories, kept: w.files };
  const fixed = createService().fixText({ text, uri: 'file:///etc/httpd/root.conf', context: 'server', configuration: view });
  const r = migrateHtaccessInContext(parse(fixed.text), `${FAKE_ROOT}/sub`, c.htaccess, undefined, reader, null);
  const htaccess = r.text ?? c.htaccess;
  // Back into the server part and the host's body (the rewrite never touches the lines around them).
  const out = fromEngine(fixed.text);
  const open = out.indexOf(OPEN);
  assert.ok(open > 0 && out.endsWith(CLOSE), out);
  const server = out.slice(0, open).split('\n').slice(2).join('\n');
  const vhost = out.slice(open + OPEN.length, out.length - CLOSE.length);
  return { server, vhost, htaccess, compat: COMPAT.test(fixed.text) || COMPAT.test(htaccess), serverRewritten: fixed.text !== text };
}

const caseArb = fc
  .record({
    auth: fc.boolean(),
    root: fc.oneof({ arbitrary: compatBlock, weight: 3 }, { arbitrary: authzBlock, weight: 1 }),
    sub: fc.option(fc.oneof({ arbitrary: compatBlock, weight: 2 }, { arbitrary: authzBlock, weight: 1 }), { nil: null, freq: 3 }),
    vhost: fc.option(fc.oneof(compatBlock, authzBlock), { nil: null, freq: 2 }),
    ht: compatBlock,
  })
  .map((r) => ({
    server: [
      'DocumentRoot "@DOCROOT@"',
      'SetEnvIf X-Flag ^yes FLAG',
      `<Directory "@DOCROOT@">\nAllowOverride All\n${r.auth ? `${BASIC}\n${GROUPFILE}\n` : ''}${r.root}\n</Directory>`,
      ...(r.sub ? [`<Directory "@DOCROOT@/sub">\n${r.sub}\n</Directory>`] : []),
    ].join('\n'),
    vhost: r.vhost ? `<Directory "@DOCROOT@">\n${r.vhost}\n</Directory>\n` : '',
    htaccess: r.ht + '\n',
  }));

function oracleCase(id: string, server: string, vhost: string, htaccess: string): OracleCase {
  return { id, config: vhost, serverConfig: server, files: { ...FILES, 'sub/.htaccess': htaccess } };
}

/** Requests on the virtual host and on the main server that the original and the result answer otherwise. */
async function differences(c: MainCase, r: MainResult): Promise<{ requests: number; differ: string[] }> {
  const before = await startOracle([oracleCase(c.id, c.server, c.vhost, c.htaccess)], { compat: true, users: USERS, groups: GROUPS, mainServer: true });
  try {
    const after = await startOracle([oracleCase(c.id, r.server, r.vhost, r.htaccess)], { compat: r.compat, users: USERS, groups: GROUPS, mainServer: true });
    try {
      const list: OracleRequestFor[] = [...flagRequests(c.id, PATHS, false), ...flagRequests(c.id, PATHS, true)];
      const differ = mismatches(list, await before.requestAll(list), await after.requestAll(list)).map(
        (d) => `${d.request.main ? 'main server' : 'virtual host'}: ${d.request.method ?? 'GET'} ${d.request.path} from ${d.request.from}${d.request.auth ? ` as ${d.request.auth.user}` : ''}${d.request.headers ? ' flag' : ''}: ${d.a} → ${d.b}`,
      );
      return { requests: list.length, differ };
    } finally {
      await after.stop();
    }
  } finally {
    await before.stop();
  }
}

describe('a server config and its .htaccess files migrated together, the main server answering too (real httpd)', function () {
  this.timeout(1_200_000);

  it('the common layout: Allow from all with AllowOverride All on both, a .htaccess that denies one client', async function () {
    if (!httpdOrSkip(this)) return;
    const c: MainCase = {
      id: 'main-allow-all-deny-one',
      server: 'DocumentRoot "@DOCROOT@"\n<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from all\n</Directory>',
      vhost: '',
      htaccess: 'Order deny,allow\nDeny from 127.0.0.3\n',
    };
    const r = migrate(c);
    assert.equal(r.compat, false, `both rewritten:\n${r.server}\n${r.htaccess}`);
    assert.match(r.server, /Require all granted/);
    assert.match(r.htaccess, /Require not ip 127\.0\.0\.3/);
    const d = await differences(c, r);
    assert.deepEqual(d.differ, []);
  });

  it('a host that does not read the .htaccess: the main server\'s copy would reach it, so nothing is known there', function () {
    const c: MainCase = {
      id: 'main-host-none',
      server: 'DocumentRoot "@DOCROOT@"\n<Directory "@DOCROOT@">\nAllowOverride All\nOrder allow,deny\nAllow from all\n</Directory>',
      vhost: '<Directory "@DOCROOT@/sub">\nAllowOverride None\n</Directory>\n',
      htaccess: 'Order deny,allow\nDeny from 127.0.0.3\n',
    };
    assert.equal(spliced(c).known.size, 0);
    // Every host reads it (the vhost's AllowOverride None removed): spliced, known.
    const both = spliced({ ...c, vhost: '' });
    assert.deepEqual([...both.known], [FAKE_ROOT]);
    assert.equal(both.files.size, 1);
  });

  it('random cases: whatever is rewritten answers alike on the virtual host and on the main server', async function () {
    if (!httpdOrSkip(this)) return;
    const seed = Number(process.env.APACHECONF_SEED ?? 31);
    const runs = Number(process.env.APACHECONF_JOINT_MAIN_RUNS ?? 12);
    const cases = fc.sample(caseArb, { seed, numRuns: runs * 30 }).map((s, i) => ({ id: `jm${i}`, ...s }));
    let served = 0;
    let whole = 0;
    let requests = 0;
    for (const c of cases) {
      if (served >= runs) break;
      const r = migrate(c);
      // Only the cases where the server config's rewrite needed the .htaccess read with it.
      if (!r.serverRewritten) continue;
      served++;
      if (!r.compat) whole++;
      const d = await differences(c, r);
      requests += d.requests;
      assert.deepEqual(d.differ.slice(0, 5), [], `seed ${seed}, ${c.id}\n--- server\n${c.server}\n--- vhost\n${c.vhost}\n--- .htaccess\n${c.htaccess}--- result server\n${r.server}\n--- result vhost\n${r.vhost}\n--- result .htaccess\n${r.htaccess}`);
    }
    console.log(`      seed ${seed}: ${served} server configs rewritten and served (${whole} with nothing left for mod_access_compat), ${requests} requests, 0 differences`);
    assert.equal(served, runs, 'enough cases get a server rewrite');
  });
});
