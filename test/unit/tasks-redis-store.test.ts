// The Redis task-session store against a real redis-server: the same contract as the memory store,
// then what only Redis does (TTL expiry by Redis itself, two replicas racing, Redis down and back, bad data).
import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../src/log.js';
import { SessionStoreError } from '../../src/rpc/errors.js';
import type { RedisClient } from '../../src/redis/client.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from '../../src/tasks/redis-store.js';
import { connectedClient, nextState, ownRedisMissing, redisMissing, startRedis, testRedis, within, type TestRedis } from '../redis-server.js';
import { code, contractCases } from './session-store-contract.js';

const FAST = { minMs: 20, maxMs: 200 };

/** A store on `client` with its own prefix (so cases sharing one Redis never see each other), closed in t.after. */
function openStore(t: TestContext, client: RedisClient, options: Partial<RedisSessionStoreOptions> & { prefix: string }): RedisSessionStore {
  const store = new RedisSessionStore({ redis: client, timeoutSeconds: 60, cleanupIntervalSeconds: 0, log: silentLogger, ...options });
  t.after(() => store.close());
  return store;
}

/** Polls `check` (every 20 ms) until it holds or the deadline passes: waits on Redis's own clock, never a fixed sleep. */
async function until(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const storeError = (retryable: boolean, kind?: string) => (err: unknown) => {
  assert.ok(err instanceof SessionStoreError, `expected a SessionStoreError, got ${String(err)}`);
  const data = err.data as { retryable: boolean; redis_error?: string; store: string };
  assert.equal(err.code, -32603);
  assert.equal(data.store, 'redis');
  assert.equal(data.retryable, retryable, err.message);
  if (kind !== undefined) assert.equal(data.redis_error, kind, err.message);
  return true;
};

test('the Redis store keeps the session store contract', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  let n = 0;
  const cases = contractCases(async (tt, clock, o) => openStore(tt, client, {
    prefix: `contract${n++}:${Date.now()}:`, timeoutSeconds: o.timeoutSeconds ?? 60, cleanupIntervalSeconds: o.cleanupIntervalSeconds ?? 0, now: () => clock.t,
  }));
  for (const [name, run] of cases) await t.test(name, run);
});

test('Redis drops an idle session by its TTL on its own; the access or sweep that finds it gone writes its tombstone, and the id answers -32003 until the tombstone ends too', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const prefix = `ttl:${Date.now()}:`;
  const store = openStore(t, client, { prefix, timeoutSeconds: 0.4, tombstoneSeconds: 0.8 });
  const [s1, s2] = [await store.create({ modeSlug: 'code' }), await store.create({ modeSlug: 'ask' })];
  const gone = (s: { session_id: string }): string => `${prefix}gone:${s.session_id}`;
  assert.equal(await client.command('EXISTS', gone(s1)), 0, 'a live session has no tombstone');
  // EXISTS is not an access: only Redis's own expiry can make the keys go.
  await until(5000, 'Redis expiring both session keys', async () => await client.command('EXISTS', `${prefix}sess:${s1.session_id}`, `${prefix}sess:${s2.session_id}`) === 0);
  assert.equal(await store.size(), 2, 'the index still lists them until a sweep or an access');
  await assert.rejects(store.get(s1.session_id), code(-32003), 'the access finds it past its time');
  assert.equal(await client.command('GET', gone(s1)), 'expired', 'and writes its tombstone');
  assert.equal(await store.sweep(), 1, 'the sweep writes the other one\'s');
  assert.equal(await client.command('GET', gone(s2)), 'expired');
  assert.equal(await store.size(), 0);
  await assert.rejects(store.switchMode(s2.session_id, 'ask'), code(-32003));
  await until(5000, 'Redis expiring the tombstones', async () => await client.command('EXISTS', gone(s1), gone(s2)) === 0);
  await assert.rejects(store.get(s1.session_id), code(-32002), 'past the tombstone lifetime the id is unknown');
});

test('an access moves the TTL forward; a cascade cancellation, not an access, leaves it', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const prefix = `refresh:${Date.now()}:`;
  const store = openStore(t, client, { prefix, timeoutSeconds: 30, tombstoneSeconds: 100 });
  const parent = await store.create({ modeSlug: 'orchestrator' });
  const child = await store.create({ modeSlug: 'code', parentSessionId: parent.session_id });
  const pttl = async (id: string): Promise<number> => Number(await client.command('PTTL', `${prefix}sess:${id}`));
  await until(5000, 'the TTL running down', async () => await pttl(parent.session_id) < 29_700);
  await store.get(parent.session_id);
  assert.ok(await pttl(parent.session_id) > 29_700, 'the access set the TTL again');
  const childTtl = await pttl(child.session_id);
  await store.complete(parent.session_id, 'completed', undefined, true);
  assert.ok(await pttl(child.session_id) <= childTtl, 'cancelling the child did not count as its access');
});

test('two replicas, 200 concurrent switches of one session: every acknowledged change is in the history exactly once', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const prefix = `race:${Date.now()}:`;
  const a = openStore(t, await connectedClient(t, { url: redis.url }), { prefix });
  const bClient = await connectedClient(t, { url: redis.url });
  const b = openStore(t, bClient, { prefix });
  const s = await a.create({ modeSlug: 'm-start' });
  const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).switchMode(s.session_id, `m${i}`, `r${i}`)));
  const acknowledged = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ i, oldMode: r.value.oldMode }] : []));
  assert.equal(acknowledged.length, 200, `refused: ${results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)).slice(0, 3).join('; ')}`);
  const history = (await b.get(s.session_id)).task.mode_history;
  assert.equal(history.length, 200);
  assert.deepEqual(history.map((h) => h.reason).sort(), acknowledged.map(({ i }) => `r${i}`).sort(), 'each acknowledged switch once');
  history.forEach((h, k) => assert.equal(h.from, k === 0 ? 'm-start' : history[k - 1]!.to, `entry ${k} follows the one before`));
  for (const { i, oldMode } of acknowledged) assert.equal(oldMode, history.find((h) => h.reason === `r${i}`)!.from, `switch ${i} saw the mode it replaced`);
  assert.equal(await bClient.command('HGET', `${prefix}sess:${s.session_id}`, 'version'), '201', 'one version per change, none lost or doubled');

  // Children made at once through both replicas all land in the parent, and one completion wins.
  const kids = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).create({ modeSlug: 'code', parentSessionId: s.session_id })));
  const parent = await a.get(s.session_id);
  assert.deepEqual([...parent.task.child_task_ids].sort(), kids.map((k) => k.task.task_id).sort());
  const finals = await Promise.allSettled([a.complete(s.session_id, 'completed'), b.complete(s.session_id, 'failed')]);
  assert.deepEqual(finals.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('Redis stopped: a precise retryable error at once; Redis back: the same store works and kept its sessions', { skip: ownRedisMissing }, async (t) => {
  // AOF on, so the restart keeps what was acknowledged before it.
  const redis: TestRedis = await startRedis(t, { args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  const client = await connectedClient(t, { url: redis.url, backoff: FAST });
  const store = openStore(t, client, { prefix: 'down:' });
  const s = await store.create({ modeSlug: 'code' });
  await store.switchMode(s.session_id, 'ask');
  const lost = nextState(client, 'disconnected');
  await redis.stop();
  await lost;
  const started = Date.now();
  await assert.rejects(store.get(s.session_id), storeError(true, 'unavailable'));
  await assert.rejects(store.switchMode(s.session_id, 'debug'), (err: unknown) => storeError(true)(err)
    && /Redis at 127\.0\.0\.1:\d+/.test((err as Error).message) && (err as SessionStoreError & { data: { may_have_run: boolean } }).data.may_have_run === false);
  await assert.rejects(store.create({ modeSlug: 'code' }), storeError(true));
  await assert.rejects(store.sweep(), storeError(true));
  assert.ok(Date.now() - started < 1000, `refused at once, not after ${Date.now() - started} ms`);
  const back = nextState(client, 'connected');
  await redis.start();
  await back;
  const r = await store.switchMode(s.session_id, 'debug');
  assert.equal(r.oldMode, 'ask', 'the acknowledged switch survived the restart');
  assert.deepEqual(r.session.task.mode_history.map((h) => h.to), ['ask', 'debug'], 'and the refused one was never applied');
  assert.equal((await store.create({ modeSlug: 'code' })).task.state, 'active');
});

test('what Redis hands back is checked: a malformed record, a wrong key type and foreign index members give precise errors', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const prefix = `bad:${Date.now()}:`;
  const store = openStore(t, client, { prefix });
  const s = await store.create({ modeSlug: 'code' });
  const key = `${prefix}sess:${s.session_id}`;
  await client.command('HSET', key, 'data', '{"format":1,');
  await assert.rejects(store.get(s.session_id), (err: unknown) => storeError(false)(err) && /malformed/.test((err as Error).message) && /not JSON/.test((err as Error).message));
  await client.command('HSET', key, 'version', 'seven');
  await assert.rejects(store.switchMode(s.session_id, 'ask'), (err: unknown) => storeError(false)(err) && /version "seven"/.test((err as Error).message));
  await client.command('DEL', key);
  await client.command('SET', key, 'a string');
  await assert.rejects(store.get(s.session_id), storeError(false, 'reply'));
  await client.command('ZADD', `${prefix}expiry`, 0, 'not-a-session');
  assert.equal(await store.sweep(), 0, 'the foreign member is dropped, not counted');
  assert.equal(await client.command('ZSCORE', `${prefix}expiry`, 'not-a-session'), null);
});

test('stores under different prefixes on one Redis never see each other\'s sessions; a bad prefix or a timeout Redis cannot hold is refused at start', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const one = openStore(t, client, { prefix: `one:${Date.now()}:` });
  const two = openStore(t, client, { prefix: `two:${Date.now()}:` });
  const s = await one.create({ modeSlug: 'code' });
  await assert.rejects(two.get(s.session_id), code(-32002));
  assert.equal(await two.size(), 0);
  assert.throws(() => new RedisSessionStore({ redis: client, prefix: 'has space', timeoutSeconds: 1, cleanupIntervalSeconds: 0, log: silentLogger }), TypeError);
  assert.throws(() => new RedisSessionStore({ redis: client, timeoutSeconds: 1e11, cleanupIntervalSeconds: 0, log: silentLogger }), /must stay under 100000000000 seconds/);
  await within(5000, 'a read through the first store', one.get(s.session_id));
});

test('Redis too slow: the change fails as retryable and says it may have been made', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: ['--enable-debug-command', 'yes'] });
  const client = await connectedClient(t, { url: redis.url, backoff: FAST, commandTimeoutMs: 200 });
  const other = await connectedClient(t, { url: redis.url });
  const store = openStore(t, client, { prefix: 'slow:' });
  const s = await store.create({ modeSlug: 'code' });
  const sleeping = other.command('DEBUG', 'SLEEP', '1'); // the server answers nobody for a second
  await assert.rejects(store.switchMode(s.session_id, 'ask'), (err: unknown) => storeError(true, 'timeout')(err)
    && (err as SessionStoreError & { data: { may_have_run: boolean } }).data.may_have_run === true);
  await sleeping;
  await within(10_000, 'the client reconnecting', client.connected());
  const again = await store.switchMode(s.session_id, 'debug');
  assert.ok(['code', 'ask'].includes(again.oldMode), `the timed-out switch ran or did not, nothing else: ${again.oldMode}`);
});

test('two replicas sweeping at once remove each expired session once between them', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const prefix = `sweep:${Date.now()}:`;
  const clock = { t: Date.now() };
  const a = openStore(t, await connectedClient(t, { url: redis.url }), { prefix, timeoutSeconds: 10, now: () => clock.t });
  const b = openStore(t, await connectedClient(t, { url: redis.url }), { prefix, timeoutSeconds: 10, now: () => clock.t });
  const ids = await Promise.all(Array.from({ length: 30 }, () => a.create({ modeSlug: 'code' })));
  clock.t += 5_000;
  const kept = await b.create({ modeSlug: 'ask' });
  clock.t += 6_000;
  const [byA, byB] = await Promise.all([a.sweep(), b.sweep()]);
  assert.equal(byA + byB, 30, `removed ${byA} + ${byB}`);
  assert.equal(await a.size(), 1);
  for (const s of ids) await assert.rejects(b.get(s.session_id), code(-32003));
  assert.equal((await a.get(kept.session_id)).task.mode_slug, 'ask');
});
