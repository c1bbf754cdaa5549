// Issue 35's stale writers through the built server: two replicas on one Redis and one project,
// one of them stalled past its lease (a delayed rename, SIGSTOP/SIGCONT, SIGKILL) while the other
// writes. Every acknowledged create_mode stays, the file parses at every look, and the stalled
// replica's client is told whether its write counted. Leases are 1 s here (store.lease_ms).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modeEntries } from '../../src/authoring/mode-file-edit.js';
import { isRecord } from '../../src/rpc/jsonrpc.js';
import { redisMissing, testRedis } from '../redis-server.js';
import { Replica, until } from '../replicas.js';
import { watchParses } from '../mode-file-looks.js';
import { tempDir } from './harness.js';
import { HttpEndpoint } from './http-harness.js';
import { call, stderrOf, type Json, type Outcome } from './replica-calls.js';

const LEASE_MS = 1000;

interface Pair { project: string; file: string; a: Replica; b: Replica; onA: HttpEndpoint; onB: HttpEndpoint }

/** Replica a (stalled at `stall`, ROO_MODES_TEST_STALL's form) and replica b, on a Redis and a project of their own. */
async function pair(t: TestContext, stall: string): Promise<Pair> {
  const redis = await testRedis(t);
  const project = tempDir(t, 'rms-fence-proj-');
  const config = join(project, 'server-config.json');
  writeFileSync(config, JSON.stringify({ store: { prefix: `rms-fence-${process.pid}:`, lease_ms: LEASE_MS } }));
  const args = ['--store', redis.url, '--config', config, '--project-root', project];
  const a = new Replica(0, { args, env: { ROO_MODES_TEST_STALL: stall } });
  const b = new Replica(1, { args });
  t.after(async () => { await Promise.all([a.dispose(), b.dispose()]); });
  await Promise.all([a.start(), b.start()]);
  return { project, file: join(project, '.roomodes'), a, b, onA: new HttpEndpoint(a.url), onB: new HttpEndpoint(b.url) };
}

const create = (to: HttpEndpoint, slug: string): Promise<Outcome> =>
  call(to, 'create_mode', { slug, name: slug, role_definition: `The ${slug} role.`, groups: [{ group: 'read' }] });

const slugsIn = (file: string): string[] => modeEntries(readFileSync(file, 'utf8')).map((e) => (isRecord(e) ? String(e.slug) : '?'));

/** create_mode calls on `to`, one at a time, until stopped (at the latest after the test): each call's slug and outcome, in order. */
function writer(t: TestContext, to: HttpEndpoint, prefix: string) {
  const calls: { slug: string; o?: Outcome }[] = [];
  const state = { on: true };
  const done = (async () => {
    while (state.on) {
      const call = { slug: `${prefix}${calls.length}` } as { slug: string; o?: Outcome };
      calls.push(call);
      call.o = await create(to, call.slug);
    }
  })();
  t.after(() => { state.on = false; });
  return {
    calls,
    acked: (): string[] => calls.filter((c) => c.o?.ok).map((c) => c.slug),
    refused: (): { slug: string; o: Outcome }[] => calls.filter((c): c is { slug: string; o: Outcome } => c.o !== undefined && !c.o.ok),
    async stop() { state.on = false; await done; },
  };
}

function assertNotWritten(o: Outcome): void {
  assert.ok(!o.ok, `the stale write was refused: ${JSON.stringify(o)}`);
  assert.equal(o.code, -32004, JSON.stringify(o));
  assert.equal(o.data.written, false, JSON.stringify(o.data));
  assert.equal(o.data.retryable, true, JSON.stringify(o.data));
}

/** Every acknowledged slug is in the file, once; the stalled call's slug is there exactly when it was acknowledged. */
function assertKept(p: Pair, acked: string[], stalled: { slug: string; o: Outcome }): void {
  const slugs = slugsIn(p.file);
  assert.deepEqual(acked.filter((s) => !slugs.includes(s)), [], `acknowledged creates lost (file: ${slugs.join(',')})`);
  assert.equal(new Set(slugs).size, slugs.length, `no mode twice: ${slugs.join(',')}`);
  assert.equal(slugs.includes(stalled.slug), stalled.o.ok, `${stalled.slug} is in the file exactly when its call was acknowledged: ${JSON.stringify(stalled.o)}`);
}

test('a rename delayed past the lease: the other replica\'s acknowledged writes stay and the delayed write counts', { skip: redisMissing }, async (t) => {
  const p = await pair(t, `rename:${4 * LEASE_MS}`);
  const looks = watchParses(t, p.file);
  try {
    const stalled = create(p.onA, 'from-a');
    await until('replica a stalled before its rename', () => (/test stall: pausing \d+ ms before the rename/.test(p.a.stderr) ? true : undefined), 15_000);
    // Written while a's rename waits; one that meets a's late rename is refused (retryable, nothing written) and tried again.
    const acked: string[] = [];
    for (const slug of ['b1', 'b2', 'b3']) {
      let o = await create(p.onB, slug);
      for (let tries = 1; !o.ok && o.data.retryable === true && o.data.written === false && tries < 5; tries++) o = await create(p.onB, slug);
      assert.ok(o.ok, JSON.stringify(o));
      acked.push(slug);
    }
    const o = await stalled;
    await looks.stop();
    assert.ok(o.ok, `the delayed write was committed before its stall, so it counts: ${JSON.stringify(o)}`);
    assertKept(p, acked, { slug: 'from-a', o });
    assert.match(p.a.stderr + p.b.stderr, /WARNING .*repaired .*\.roomodes: it held a stale copy/, 'the repair of the stale file is logged');
  } catch (err) { t.diagnostic(stderrOf([p.a, p.b])); throw err; }
});

const STOPS = 2;
const PAUSE_MS = 400;

for (const point of ['rename', 'commit'] as const) {
  test(`both replicas writing, one stopped (SIGSTOP) past its lease just before its ${point}, ${STOPS} times: no acknowledged write lost`, { skip: redisMissing }, async (t) => {
    const p = await pair(t, `${point}:${PAUSE_MS}`);
    const looks = watchParses(t, p.file);
    const [onA, onB] = [writer(t, p.onA, 'a'), writer(t, p.onB, 'b')];
    // The start of each pause, by replica a's clock (the same host's).
    const pauses = (): number[] => [...p.a.stderr.matchAll(new RegExp(`^(\\S+) WARNING \\[store\\] test stall: pausing \\d+ ms before the ${point} of`, 'gm'))].map((m) => Date.parse(m[1]!));
    const stopped: string[] = [];
    try {
      for (let tries = 0; stopped.length < STOPS; tries++) {
        assert.ok(tries < 10 * STOPS, 'the stop landed inside a pause often enough');
        const [fromA, fromB, seen] = [onA.acked().length, onB.acked().length, pauses().length];
        await until('writes on both replicas', () => (onA.acked().length > fromA && onB.acked().length > fromB ? true : undefined), 20_000);
        const began = await until(`replica a pausing before its ${point}`, () => (pauses().length > seen ? pauses().at(-1) : undefined), 20_000, 5);
        process.kill(p.a.pid!, 'SIGSTOP');
        // A stop sent after the pause ended (this test process was slow to look) proves nothing: go on and try again.
        if (Date.now() >= began + PAUSE_MS) { process.kill(p.a.pid!, 'SIGCONT'); continue; }
        stopped.push(onA.calls.at(-1)!.slug);
        const during = onB.acked().length;
        try {
          // Its lease runs out while it is stopped; the other replica takes over and writes on.
          await until('writes acknowledged while replica a is stopped', () => (onB.acked().length >= during + 5 ? true : undefined), 20_000);
        } finally { process.kill(p.a.pid!, 'SIGCONT'); }
      }
      const [fromA, fromB] = [onA.acked().length, onB.acked().length];
      await until('writes on both after the last stop', () => (onA.acked().length >= fromA + 2 && onB.acked().length >= fromB + 2 ? true : undefined), 20_000);
      await Promise.all([onA.stop(), onB.stop()]);
      const reads = await looks.stop();
      const outcome = (slug: string): Outcome => onA.calls.find((c) => c.slug === slug)!.o!;
      t.diagnostic(`acknowledged: ${onA.acked().length} on a, ${onB.acked().length} on b; refused: ${onA.refused().length} on a, ${onB.refused().length} on b; the file parsed at ${reads} looks; stopped calls: ${stopped.map((s) => `${s} ${outcome(s).ok ? 'counted' : (outcome(s) as { data: Json }).data.error_type}`).join(', ')}`);
      for (const { slug, o } of [...onA.refused(), ...onB.refused()]) assert.ok(!o.ok && o.data.retryable === true && o.data.written === false, `a refusal (${slug}) is retryable and wrote nothing: ${JSON.stringify(o)}`);
      const slugs = slugsIn(p.file);
      const acked = [...onA.acked(), ...onB.acked()];
      assert.deepEqual(acked.filter((s) => !slugs.includes(s)), [], `acknowledged creates lost (file: ${slugs.join(',')})`);
      assert.deepEqual([...onA.refused(), ...onB.refused()].map((r) => r.slug).filter((s) => slugs.includes(s)), [], 'no refused create is in the file');
      assert.equal(new Set(slugs).size, slugs.length, `no mode twice: ${slugs.join(',')}`);
      for (const slug of stopped) {
        if (point === 'commit') assertNotWritten(outcome(slug));
        else assert.ok(outcome(slug).ok, `${slug} was recorded before the stop, so it counts: ${JSON.stringify(outcome(slug))}`);
      }
      if (point === 'rename') assert.match(p.a.stderr + p.b.stderr, /WARNING .*repaired .*\.roomodes: it held a stale copy/, 'the repair is logged');
    } catch (err) { await Promise.all([onA.stop(), onB.stop()]); t.diagnostic(stderrOf([p.a, p.b])); throw err; }
  });
}

for (const point of ['commit', 'rename'] as const) {
  const recorded = point === 'rename';
  test(`a replica killed (SIGKILL) just before its ${point}: ${recorded ? 'its recorded write lands through the next writer' : 'nothing of its write is in the file'}`, { skip: redisMissing }, async (t) => {
    const p = await pair(t, `${point}:5000`);
    const looks = watchParses(t, p.file);
    try {
      const cut = create(p.onA, 'from-a').then(() => 'answered', () => 'cut');
      await until(`replica a stalled before its ${point}`, () => (new RegExp(`test stall: pausing \\d+ ms before the ${point}`).test(p.a.stderr) ? true : undefined), 15_000);
      await p.a.kill();
      assert.equal(await cut, 'cut', 'the killed replica never answered');
      // The next writer waits out the dead replica's lease (1 s), then writes.
      const o = await create(p.onB, 'b1');
      assert.ok(o.ok, JSON.stringify(o));
      await looks.stop();
      assert.deepEqual(slugsIn(p.file), recorded ? ['from-a', 'b1'] : ['b1']);
      if (recorded) assert.match(p.b.stderr, /WARNING .*repaired .*\.roomodes: it held a stale copy/, 'the repair is logged');
    } catch (err) { t.diagnostic(stderrOf([p.a, p.b])); throw err; }
  });
}
