// The full-pass runner: jobs run in a worker thread started from the bundled server (or inline
// without one), one at a time, the newest per document; a job its document has outgrown is
// dropped or stopped, and its promise resolves with null.
import assert from 'node:assert/strict';
import { FullPassRunner, type FullPassJob } from '../../server/src/lsp/full-pass';
import { createService } from '../../server/src/service';
import { generateConfig } from '../../bench/run';
import { SERVER_JS, ensureServerBuilt } from './lsp-client';

const SMALL = '<Directory "/srv/app">\n    Order allow,deny\n    Allow from 10.1.2.3\n    Deny from all\n</Directory>\n';
const job = (text: string, uri = 'file:///full-pass/httpd.conf'): FullPassJob => ({ text, uri, context: 'server', settings: {} });
const codes = (fs: Array<{ rule: string }> | null) => (fs ?? []).map((f) => f.rule);

for (const mode of ['worker', 'inline'] as const) {
  describe(`FullPassRunner (${mode})`, function () {
    this.timeout(60_000);
    let runner: FullPassRunner;
    before(() => {
      if (mode === 'worker') ensureServerBuilt();
    });
    beforeEach(() => {
      runner = new FullPassRunner(mode === 'worker' ? SERVER_JS : null);
    });
    afterEach(() => runner.dispose());

    it('gives the findings of the full analysis', async () => {
      const got = await runner.run('a', job(SMALL));
      const want = createService().analyze({ text: SMALL, uri: 'file:///full-pass/httpd.conf', context: 'server', depth: 'full' }).findings;
      assert.deepEqual(got, JSON.parse(JSON.stringify(want)));
      assert.ok(codes(got).includes('access-intent'), 'the full pass has the request-point check');
      assert.equal(runner.started, mode === 'worker' ? 1 : 0);
    });

    it('a newer job for the same document replaces the running one', async () => {
      // A large file keeps the first job busy while the second arrives.
      const first = runner.run('a', job(generateConfig(3000, 3)));
      const second = runner.run('a', job(SMALL));
      assert.equal(await first, null, 'the stale job resolves with null');
      assert.ok(codes(await second).includes('access-intent'));
      // In a worker the stale job's thread is stopped and a fresh one takes the next job.
      assert.equal(runner.started, mode === 'worker' ? 2 : 0);
    });

    it('jobs for different documents wait their turn and all finish', async () => {
      const results = await Promise.all(['a', 'b', 'c'].map((k) => runner.run(k, job(SMALL, `file:///full-pass/${k}.conf`))));
      for (const r of results) assert.ok(codes(r).includes('access-intent'));
      assert.equal(runner.started, mode === 'worker' ? 1 : 0, 'one worker for all of them');
    });

    it('share joins a running or waiting job for the same text (one pass serves both) and replaces one for another text', async () => {
      const running = runner.run('a', job(SMALL));
      const waiting = runner.run('b', job(SMALL, 'file:///full-pass/b.conf'));
      const joinRunning = runner.share('a', job(SMALL));
      const joinWaiting = runner.share('b', job(SMALL, 'file:///full-pass/b.conf'));
      // The very same findings object: no second pass was made.
      assert.equal(await joinRunning, await running);
      assert.equal(await joinWaiting, await waiting);
      assert.ok(codes(await running).includes('access-intent'));
      const old = runner.run('c', job(generateConfig(3000, 3), 'file:///full-pass/c.conf'));
      const other = runner.share('c', job(SMALL, 'file:///full-pass/c.conf'));
      assert.equal(await old, null, 'a job for another text of the document is stale');
      assert.ok(codes(await other).includes('access-intent'));
    });

    it('a job no longer wanted when its turn comes is dropped', async () => {
      const busy = runner.run('a', job(SMALL));
      let wanted = true;
      const dropped = runner.run('b', job(SMALL, 'file:///full-pass/b.conf'), () => wanted);
      wanted = false;
      assert.ok(codes(await busy).includes('access-intent'));
      assert.equal(await dropped, null);
    });

    it('dispose resolves what is waiting with null', async () => {
      const a = runner.run('a', job(SMALL));
      const b = runner.run('b', job(SMALL, 'file:///full-pass/b.conf'));
      runner.dispose();
      assert.deepEqual(await Promise.all([a, b]), [null, null]);
      assert.equal(await runner.run('c', job(SMALL)), null, 'nothing runs after dispose');
    });
  });
}

describe('FullPassRunner (worker) out of memory', function () {
  this.timeout(120_000);
  before(() => ensureServerBuilt());

  it('a pass that exhausts its heap ends its worker, not the server; the next job gets a new worker', async () => {
    const logged: string[] = [];
    const runner = new FullPassRunner(SERVER_JS, (m) => logged.push(m), 16);
    try {
      assert.equal(await runner.run('big', job(generateConfig(20000, 5))), null);
      assert.ok(logged.some((m) => /full-pass worker stopped|memory/i.test(m)), `the loss is reported: ${logged.join(' | ')}`);
      assert.ok(codes(await runner.run('small', job(SMALL))).includes('access-intent'));
      assert.equal(runner.started, 2);
    } finally {
      runner.dispose();
    }
  });
});
