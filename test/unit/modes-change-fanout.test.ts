// Mode-change fan-out against a real redis-server: three replicas, each change delivered once to
// every other and never to its origin; malformed messages logged and dropped; the size bound; resync after a loss.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type Logger } from '../../src/log.js';
import type { ModesChange } from '../../src/modes/registry.js';
import { ChangeFanout, FanoutTooLargeError, parseMessage } from '../../src/modes/change-fanout.js';
import { connectedClient, redisMissing, testRedis, within } from '../redis-server.js';

/** A logger whose lines a test can wait for. */
function capturingLog(): { log: Logger; lines: string[]; line(pattern: RegExp): Promise<string> } {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (l: string) => void }[] = [];
  const log = createLogger({
    level: 'debug', forward: null,
    write: (l) => {
      lines.push(l);
      for (const w of [...waiters]) if (w.pattern.test(l)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(l); }
    },
  }, 'fanout');
  const line = (pattern: RegExp): Promise<string> => {
    const seen = lines.find((l) => pattern.test(l));
    return within(10_000, `log line ${pattern}`, seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pattern, resolve })));
  };
  return { log, lines, line };
}

/** Exceptions nobody caught while the test runs (a handler's throw re-thrown on a later tick lands here). */
function uncaught(t: TestContext): unknown[] {
  const failures: unknown[] = [];
  const onUncaught = (err: unknown): void => { failures.push(err); };
  process.on('uncaughtException', onUncaught);
  t.after(() => process.off('uncaughtException', onUncaught));
  return failures;
}

interface Replica { fanout: ChangeFanout; got: { change: ModesChange; origin: string }[]; count(n: number): Promise<void> }

async function replica(t: TestContext, url: string, id: string, log: Logger, extra: { onResync?: () => void } = {}): Promise<Replica> {
  const got: Replica['got'] = [];
  const waits: { n: number; resolve: () => void }[] = [];
  const fanout = new ChangeFanout({
    client: await connectedClient(t, { url }), redis: { url, backoff: { minMs: 10, maxMs: 100 } }, replicaId: id, prefix: 'fan:', log,
    onChange: (change, origin) => {
      got.push({ change, origin });
      for (const w of [...waits]) if (got.length >= w.n) { waits.splice(waits.indexOf(w), 1); w.resolve(); }
    },
    ...extra,
  });
  t.after(() => fanout.close());
  await within(10_000, `${id} subscribed`, fanout.start());
  const count = (n: number): Promise<void> => within(10_000, `${n} changes at ${id}`, got.length >= n ? Promise.resolve() : new Promise((resolve) => waits.push({ n, resolve })));
  return { fanout, got, count };
}

test('a change published by one replica reaches each other replica once and its origin never', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const { log } = capturingLog();
  const a = await replica(t, redis.url, 'replica-a', log);
  const b = await replica(t, redis.url, 'replica-b', log);
  const c = await replica(t, redis.url, 'replica-c', log);
  const change: ModesChange = { changedSlugs: ['code', 'my-mode'], listChanged: true, promptsChanged: true };
  assert.equal(await a.fanout.publish(change), 3, 'Redis handed it to all three subscribers');
  // Markers from the others, published after: each replica reads its channel in publish order, so
  // once a replica has its markers, a second copy of the change (or its own) would have come already.
  await c.fanout.publish({ changedSlugs: ['m1'], listChanged: false });
  await b.fanout.publish({ changedSlugs: ['m2'], listChanged: false });
  await Promise.all([a.count(2), b.count(2), c.count(2)]);
  assert.deepEqual(a.got, [
    { change: { changedSlugs: ['m1'], listChanged: false }, origin: 'replica-c' },
    { change: { changedSlugs: ['m2'], listChanged: false }, origin: 'replica-b' },
  ], 'the origin never hears its own change');
  assert.deepEqual(b.got, [{ change, origin: 'replica-a' }, { change: { changedSlugs: ['m1'], listChanged: false }, origin: 'replica-c' }]);
  assert.deepEqual(c.got, [{ change, origin: 'replica-a' }, { change: { changedSlugs: ['m2'], listChanged: false }, origin: 'replica-b' }]);
});

test('a malformed message on the channel is logged and dropped; the replica keeps receiving', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const { log, line } = capturingLog();
  const failures = uncaught(t);
  const b = await replica(t, redis.url, 'replica-b', log);
  const raw = await connectedClient(t, { url: redis.url });
  const bad = ['not json {', '[1,2]', '{"v":2,"origin":"x","changedSlugs":[],"listChanged":true}',
    '{"v":1,"origin":"x","changedSlugs":["../etc"],"listChanged":true}', '{"v":1,"origin":"x","changedSlugs":[],"listChanged":"yes"}'];
  for (const m of bad) await raw.command('PUBLISH', b.fanout.channel, m);
  await raw.command('PUBLISH', b.fanout.channel, JSON.stringify({ v: 1, origin: 'replica-a', changedSlugs: ['ok'], listChanged: false }));
  await b.count(1);
  await line(/WARNING \[fanout\] dropped a message on fan:modes:changed: not JSON \(starts "not json \{"\)/);
  await line(/dropped a message on fan:modes:changed: not a JSON object/);
  await line(/dropped a message on fan:modes:changed: version 2, expected 1/);
  await line(/dropped a message on fan:modes:changed: "changedSlugs" is not a list of mode slugs/);
  await line(/dropped a message on fan:modes:changed: "listChanged" is not a boolean/);
  assert.deepEqual(b.got, [{ change: { changedSlugs: ['ok'], listChanged: false }, origin: 'replica-a' }]);
  assert.deepEqual(failures, []);
});

test('a listener that throws is logged, not re-thrown on the next tick', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const { log, line } = capturingLog();
  const failures = uncaught(t);
  const fanout = new ChangeFanout({
    client: await connectedClient(t, { url: redis.url }), redis: { url: redis.url }, replicaId: 'b', prefix: 'fan:', log,
    onChange: () => { throw new Error('listener broke'); },
  });
  t.after(() => fanout.close());
  await fanout.start();
  const raw = await connectedClient(t, { url: redis.url });
  await raw.command('PUBLISH', fanout.channel, JSON.stringify({ v: 1, origin: 'a', changedSlugs: [], listChanged: true }));
  await line(/ERROR \[fanout\] a fan-out message failed Error: listener broke/);
  // One more round trip through the event loop for any next-tick re-throw to have happened.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(failures, []);
});

test('a change over the size bound is refused before publishing, and an oversize message is dropped on receipt', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const { log } = capturingLog();
  const a = await replica(t, redis.url, 'replica-a', log);
  const many = Array.from({ length: 30_000 }, (_, i) => `mode-${i}`);
  await assert.rejects(a.fanout.publish({ changedSlugs: many, listChanged: true }), (e: unknown) =>
    e instanceof FanoutTooLargeError && /^a mode change of \d+ bytes exceeds the fan-out bound of 262144 bytes; not published$/.test(e.message));
  assert.match(String(parseMessage('x'.repeat(20), 10)), /^20 bytes, over the bound of 10$/);
});

test('after the subscription is lost and comes back, onResync runs (missed changes are re-read) and changes arrive again', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const { log } = capturingLog();
  let resyncs = 0;
  let resynced!: () => void;
  const back = new Promise<void>((resolve) => { resynced = resolve; });
  const b = await replica(t, redis.url, 'replica-b', log, { onResync: () => { resyncs++; resynced(); } });
  assert.equal(resyncs, 0, 'the first connection is not a resync');
  const admin = await connectedClient(t, { url: redis.url });
  assert.equal(await admin.command('CLIENT', 'KILL', 'TYPE', 'pubsub'), 1);
  await within(10_000, 'onResync', back);
  assert.equal(resyncs, 1);
  const a = await replica(t, redis.url, 'replica-a', log);
  // The subscription was taken again before the link counted as connected.
  assert.deepEqual(await admin.command('PUBSUB', 'NUMSUB', b.fanout.channel), [b.fanout.channel, 2]);
  await a.fanout.publish({ changedSlugs: ['after'], listChanged: false });
  await b.count(1);
  assert.deepEqual(b.got, [{ change: { changedSlugs: ['after'], listChanged: false }, origin: 'replica-a' }]);
});
