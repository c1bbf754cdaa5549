// The Redis task-session store's cap and its reasons, against a real redis-server: one count for every
// replica, sessions told apart as expired, evicted, never made or lost in a restart, and Redis LOADING retryable.
import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../src/log.js';
import { RpcError } from '../../src/rpc/errors.js';
import type { RedisClient } from '../../src/redis/client.js';
import { DatasetMarker } from '../../src/redis/dataset-marker.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from '../../src/tasks/redis-store.js';
import {
  connectedClient, nextState, ownRedisMissing, pingLine, redisMissing, saveFiller, SLOW_LOADING_ARGS, startRedis, testRedis,
} from '../redis-server.js';
import { code } from './session-store-contract.js';

const FAST = { minMs: 20, maxMs: 200 };

function openStore(t: TestContext, client: RedisClient, options: Partial<RedisSessionStoreOptions> & { prefix: string }): RedisSessionStore {
  const store = new RedisSessionStore({ redis: client, timeoutSeconds: 60, cleanupIntervalSeconds: 0, log: silentLogger, ...options });
  t.after(() => store.close());
  return store;
}

/** An RpcError with `code` whose data carries `fields`. */
const answer = (n: number, fields: Record<string, unknown>, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
  assert.equal(err.code, n, err.message);
  const data = err.data as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) assert.deepEqual(data[k], v, `${k} in ${JSON.stringify(data)}`);
  if (message) assert.match(err.message, message);
  return true;
};

test('one cap for every replica: of 20 creates at once through two stores exactly 5 land, the rest are refused retryably; a session past its time makes room', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const prefix = `cap:${Date.now()}:`;
  const clock = { t: Date.now() };
  const options = { prefix, maxSessions: 5, timeoutSeconds: 60, now: () => clock.t };
  const probe = await connectedClient(t, { url: redis.url });
  const a = openStore(t, probe, options);
  const b = openStore(t, await connectedClient(t, { url: redis.url }), options);
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).create({ modeSlug: 'code' })));
  const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  assert.equal(made.length, 5, 'exactly the cap');
  for (const r of results) {
    if (r.status === 'rejected') {
      answer(-32004, { error_type: 'session_limit', retryable: true, written: false, max_sessions: 5, setting: 'store.max_task_sessions', retry_after_s: 60 },
        /Too many task sessions: .* 5, the most allowed \(store\.max_task_sessions\); nothing was created/)(r.reason);
    }
  }
  assert.equal(await probe.command('ZCARD', `${prefix}expiry`), 5);
  assert.equal((await probe.command('KEYS', `${prefix}sess:*`) as string[]).length, 5, 'Redis holds no session past the cap');
  await assert.rejects(a.create({ modeSlug: 'code', parentSessionId: made[0]!.session_id }), answer(-32004, { error_type: 'session_limit' }), 'a subtask counts too');

  clock.t += 30_000;
  await a.get(made[0]!.session_id); // one used again: it is not the one to go
  clock.t += 29_000;
  await assert.rejects(b.create({ modeSlug: 'code' }), answer(-32004, { retry_after_s: 1 }), 'nothing idle past its time yet, for a second more');
  clock.t += 1_000;
  const fresh = await b.create({ modeSlug: 'ask' });
  assert.equal(fresh.task.mode_slug, 'ask', 'the stale ones were swept to make room');
  await assert.rejects(a.get(made[1]!.session_id), code(-32003), 'and answer as expired');
  assert.equal((await a.get(made[0]!.session_id)).session_id, made[0]!.session_id);
  assert.equal(await probe.command('ZCARD', `${prefix}expiry`), 2);
});

test('a session whose record vanished before its time answers -32002 "evicted", not -32003 "expired", and holds no place under the cap', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const prefix = `evict:${Date.now()}:`;
  const store = openStore(t, client, { prefix, maxSessions: 1 });
  const s = await store.create({ modeSlug: 'code' });
  assert.equal(await client.command('EXISTS', `${prefix}gone:${s.session_id}`), 0, 'no tombstone while it lives');
  await client.command('DEL', `${prefix}sess:${s.session_id}`); // what a maxmemory eviction does, a second after its last use
  const evicted = answer(-32002, { reason: 'evicted', session_id: s.session_id }, /vanished from the shared store .* before its timeout: Redis dropped it to free memory/);
  await assert.rejects(store.get(s.session_id), evicted);
  assert.equal(await client.command('GET', `${prefix}gone:${s.session_id}`), 'evicted', 'the tombstone says why');
  await assert.rejects(store.switchMode(s.session_id, 'ask'), evicted, 'and keeps saying it');
  assert.equal((await store.create({ modeSlug: 'ask' })).task.mode_slug, 'ask', 'its place under the cap is free again');
});

test('after Redis restarted empty, ids of sessions from before answer "lost in a restart"; an id never made is unknown, and new sessions work', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const client = await connectedClient(t, { url: redis.url, backoff: FAST });
  const prefix = 'restart:';
  const marker = new DatasetMarker(prefix);
  t.after(marker.follow(client, () => undefined));
  const store = openStore(t, client, { prefix, marker });
  const before = await store.create({ modeSlug: 'code' });
  const back = nextState(client, 'connected');
  await redis.stop();
  await redis.start();
  await back;
  const lost = answer(-32002, { reason: 'lost_in_restart' }, /was restarted and lost its data .*create a new one with create_task/);
  await assert.rejects(store.get(before.session_id), lost);
  await assert.rejects(store.switchMode(before.session_id, 'ask'), lost);
  await assert.rejects(store.get(`ses_${'0'.repeat(24)}`), answer(-32002, { reason: 'unknown' }, /never there/));
  const after = await store.create({ modeSlug: 'ask' });
  assert.notEqual(after.session_id.slice(4, 10), before.session_id.slice(4, 10), 'the new dataset has a marker of its own');
  assert.equal((await store.get(after.session_id)).task.mode_slug, 'ask');
  await client.command('DEL', `${prefix}sess:${after.session_id}`);
  await assert.rejects(store.get(after.session_id), answer(-32002, { reason: 'evicted' }), 'a session of the new dataset that vanishes is not "lost in a restart"');
});

test('Redis still LOADING its data after a restart: every call fails at once, retryably, nothing changed; once loaded the session is back as it was', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: SLOW_LOADING_ARGS });
  const client = await connectedClient(t, { url: redis.url, backoff: FAST });
  const store = openStore(t, client, { prefix: 'loading:' });
  const s = await store.create({ modeSlug: 'code' });
  await saveFiller(client, 4000);
  const back = nextState(client, 'connected');
  await redis.stop();
  await redis.start();
  await back;
  assert.match(await pingLine(redis.port), /^-LOADING/, 'Redis is loading');
  const notReady = (err: unknown): boolean => answer(-32603, { retryable: true, redis_error: 'not_ready', may_have_run: false }, /LOADING/)(err);
  await assert.rejects(store.get(s.session_id), notReady);
  await assert.rejects(store.switchMode(s.session_id, 'ask'), notReady);
  await assert.rejects(store.create({ modeSlug: 'code' }), notReady);
  assert.match(await pingLine(redis.port), /^-LOADING/, 'still loading after the calls: each of them met it');
  for (const deadline = Date.now() + 30_000; await pingLine(redis.port) !== '+PONG';) {
    assert.ok(Date.now() < deadline, 'Redis finished loading within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the pace of polling
  }
  const r = await store.switchMode(s.session_id, 'ask');
  assert.equal(r.oldMode, 'code', 'the refused switch was never applied');
});
