/**
 * checkEditsAt (a rewrite checked over a stretch of a file: a file another file includes, under
 * each main file; copies of a file included twice; a .htaccess file in its configuration) reads a
 * projection of the file where one is sure: the stretch's sections, every section that applies at
 * one of their request points kept whole, and what maps URLs. Its verdict must be the one the
 * whole file gives. Each case below is checked both ways, for every exact and naive rewrite the
 * planner makes for the file alone, under main files that set nothing, refuse everyone, or open
 * some directories again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { checkEditsAt, checkEditsReadings, planMigration } from '../../server/src/access';
import { parse, type OffsetEdit } from '../../server/src/syntax';
import { corpusFiles, needCorpus } from '../support/corpus';

const MAINS = [
  '',
  '<Directory />\n    Require all denied\n</Directory>\n',
  '<Directory />\n    Require all denied\n</Directory>\n<Directory /srv>\n    Require all granted\n</Directory>\n<Files ".ht*">\n    Require all denied\n</Files>\n',
  '<Directory />\n    AuthType Basic\n    AuthName "main"\n    AuthUserFile /dev/null\n    Require valid-user\n</Directory>\n',
];

/** For each rewrite the file alone gets: the verdict read on a projection and on the whole file. */
function verdicts(text: string): Array<{ main: number; at: number; projected: boolean; whole: boolean }> {
  const file = parse(text);
  const plan = planMigration(file, 'server');
  const out: Array<{ main: number; at: number; projected: boolean; whole: boolean }> = [];
  MAINS.forEach((main, mi) => {
    const body = text.endsWith('\n') ? text : text + '\n';
    const doc = parse(main + body);
    const n = main.length;
    for (const sp of plan.sections) {
      if (!sp.section) continue;
      for (const edits of [sp.exact?.edits, sp.naive?.edits]) {
        if (!edits?.length) continue;
        let from = sp.section.open.start;
        let to = sp.section.open.end;
        for (const e of edits) {
          from = Math.min(from, e.start);
          to = Math.max(to, e.end);
        }
        const shifted: OffsetEdit[] = edits.map((e) => ({ start: e.start + n, end: e.end + n, newText: e.newText }));
        const projected = checkEditsAt(doc, 'server', from + n, to + n, shifted) === null;
        const whole = checkEditsAt(doc, 'server', from + n, to + n, shifted, [], { wholeFile: true }) === null;
        out.push({ main: mi, at: sp.section.open.start, projected, whole });
      }
    }
  });
  return out;
}

const vhosts = (n: number, body: (i: number) => string): string =>
  Array.from({ length: n }, (_, i) => `<VirtualHost *:80>\n  ServerName s${i}.example.com\n  DocumentRoot /srv/s${i}\n${body(i)}</VirtualHost>\n`).join('');

const CASES: Array<{ name: string; text: string }> = [
  { name: 'virtual hosts, each with its own directory of host rules', text: vhosts(6, (i) => `  <Directory /srv/s${i}>\n    Order allow,deny\n    Allow from all\n  </Directory>\n`) },
  {
    name: 'virtual hosts with a password and Satisfy Any',
    text: vhosts(4, (i) => `  <Directory /srv/s${i}/private>\n    AuthType Basic\n    AuthName "x"\n    AuthUserFile /dev/null\n    Require valid-user\n    Order deny,allow\n    Deny from all\n    Allow from 10.${i}.0.0/16\n    Satisfy Any\n  </Directory>\n`),
  },
  {
    name: 'a server-level directory other hosts reach, and a location',
    text: `DocumentRoot /srv/www\n<Directory /srv/www>\n  Order allow,deny\n  Allow from all\n</Directory>\n<Location /status>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1\n</Location>\n${vhosts(2, (i) => `  Alias /shared /srv/www\n  <Directory /srv/s${i}>\n    Order allow,deny\n    Allow from all\n  </Directory>\n`)}`,
  },
  {
    name: 'an Alias inside a <Location> (the mapping is unknown)',
    text: `<Location /foo>\n  Alias /srv/s1\n</Location>\n${vhosts(3, (i) => `  <Directory /srv/s${i}>\n    Order deny,allow\n    Deny from all\n    Allow from 10.0.0.${i}\n  </Directory>\n`)}`,
  },
  {
    // With the Alias the URL /foo reaches /srv/s1, where the later <Location /foo> lets 10/8 past
    // the rewrite's `Require all denied`; without it, /foo maps to /srv/foo and the rewrite looks exact.
    name: 'an Alias in a <Location> of its own makes another <Location> reach the directory',
    text: 'DocumentRoot /srv\n<Location /foo>\n  Alias /srv/s1\n</Location>\n<Directory /srv/s1>\n  Order deny,allow\n  Deny from all\n</Directory>\n<Location /foo>\n  Require ip 10.0.0.0/8\n</Location>\n',
  },
  {
    name: 'a later section of another host that applies too',
    text: `${vhosts(2, (i) => `  <Directory /srv/s${i}>\n    Order allow,deny\n    Allow from all\n  </Directory>\n  <Files "*.cgi">\n    Require all denied\n  </Files>\n`)}<Directory /srv>\n  Require ip 10.0.0.0/8\n</Directory>\n`,
  },
];

describe('checkEditsAt: a projection reads as the whole file', function () {
  this.timeout(600_000);
  for (const c of CASES) {
    it(c.name, () => {
      const before = checkEditsReadings.projected;
      const vs = verdicts(c.text);
      assert.ok(vs.length > 0, 'the file has rewrites to check');
      for (const v of vs) assert.equal(v.projected, v.whole, `under main file #${v.main}, the section at offset ${v.at}`);
      if (c.name.startsWith('virtual hosts')) assert.ok(checkEditsReadings.projected > before, 'some checks read a projection');
    });
  }

  it('over the shared corpus: the same verdict either way, for every rewrite of every server file', function () {
    if (!needCorpus(this)) return;
    const before = { ...checkEditsReadings };
    let checked = 0;
    let held = 0;
    for (const f of corpusFiles()) {
      if (/htaccess/i.test(f)) continue;
      const text = fs.readFileSync(f, 'latin1');
      if (!/^\s*(order|allow|deny|satisfy)\b/im.test(text)) continue;
      for (const v of verdicts(text)) {
        checked++;
        if (v.whole) held++;
        assert.equal(v.projected, v.whole, `${f}: under main file #${v.main}, the section at offset ${v.at}`);
      }
    }
    const projected = checkEditsReadings.projected - before.projected;
    console.log(`      ${checked} rewrites checked both ways (${held} hold), ${projected} of the default readings on a projection`);
    assert.ok(checked > 100 && projected > 0);
  });
});
