// Honest answers through the built server when Redis forgets: a session evicted by maxmemory
// (allkeys-lru) says so instead of "expired"; after Redis restarts empty, sessions from before say they
// were lost in the restart; while a restarted Redis is still LOADING, every answer is retryable.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { RedisClient } from '../../src/redis/client.js';
import { connectedClient, ownRedisMissing, pingLine, saveFiller, SLOW_LOADING_ARGS, startRedis, type TestRedis } from '../redis-server.js';
import { until } from '../replicas.js';
import { tempDir } from './harness.js';
import { startHttp, type HttpServer } from './http-harness.js';
import { call, legacyCall, ok } from './replica-calls.js';

const PING = { jsonrpc: '2.0', id: 'p', method: 'ping' };

/** A replica on `redis` with its store connected. */
async function replica(t: TestContext, redis: TestRedis): Promise<HttpServer> {
  const s = await startHttp(t, ['--store', redis.url, '--project-root', tempDir(t, 'rms-reasons-')]);
  await until('the store connected', () => (/connected to the store/.test(s.stderr) ? true : undefined));
  return s;
}

/**
 * Sets a key's idle time as LRU eviction reads it, keeping its value and TTL: DUMP and RESTORE …
 * IDLETIME in one script (the dump is binary, and stays inside Redis). With ARGV[2] the key is first
 * set to that value (a filler key), without a TTL.
 */
const AGE = `
if ARGV[2] then redis.call('SET', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
local dump = redis.call('DUMP', KEYS[1])
return redis.call('RESTORE', KEYS[1], ttl, dump, 'REPLACE', 'IDLETIME', ARGV[1])`;
const age = (client: RedisClient, key: string, seconds: number, value?: string) =>
  client.command('EVAL', AGE, 1, key, seconds, ...(value === undefined ? [] : [value]));

test('a task session and an MCP session evicted by Redis (maxmemory, allkeys-lru) a moment after their last use answer that they were evicted, not expired', { skip: ownRedisMissing }, async (t) => {
  // Every key sampled on each eviction, so the idlest goes first, as the test arranges below.
  const redis = await startRedis(t, { args: ['--maxmemory-policy', 'allkeys-lru', '--maxmemory-samples', '64'] });
  const s = await replica(t, redis);
  const probe = await connectedClient(t, { url: redis.url });
  const task = ok(await call(s, 'create_task', { mode_slug: 'code' }), 'create_task').session_id as string;
  const sid = await s.session();
  ok(await legacyCall(s, sid, 'get_task_info', { session_id: task }), 'both used just now');
  const keys = [`rms:sess:${task}`, `rms:mcp:{${sid}}`];
  // The sessions become the idlest keys, then filler keys, less idle, push Redis past its maxmemory.
  for (const key of keys) {
    assert.ok(Number(await probe.command('PTTL', key)) > 0, `${key} lives, with its TTL`);
    await age(probe, key, 100_000);
  }
  const used = Number(/used_memory:(\d+)/.exec(await probe.command('INFO', 'memory') as string)![1]);
  await probe.command('CONFIG', 'SET', 'maxmemory', String(used + 512 * 1024));
  // Redis evicts before each write that finds it over maxmemory: the idlest keys first.
  for (let i = 0; await probe.command('EXISTS', ...keys) !== 0; i++) {
    assert.ok(i < 200, 'Redis evicted the sessions');
    await age(probe, `filler:${i}`, 50_000, 'x'.repeat(64 * 1024));
  }

  // What the answers below read was used more recently, and stayed: the indexes and the dataset marker.
  assert.equal(await probe.command('EXISTS', 'rms:expiry', 'rms:mcp:live', 'rms:epoch'), 3);

  const gone = await call(s, 'get_task_info', { session_id: task });
  assert.ok(!gone.ok);
  assert.equal(gone.code, -32002, `not -32003 "expired": ${gone.message}`);
  assert.equal(gone.data.reason, 'evicted');
  assert.match(gone.message, /vanished from the shared store .* before its timeout: Redis dropped it to free memory/);
  const legacy = await s.post(PING, { 'mcp-session-id': sid });
  assert.equal(legacy.status, 404, legacy.body);
  assert.match(legacy.messages[0]?.error?.message, /^Session not found: its record vanished from the shared store before it expired \(Redis dropped it to free memory/);
  assert.match(s.stderr, /vanished from the store before .*set maxmemory-policy noeviction/);
});

test('after Redis restarts empty, a task session and an MCP session from before answer that the store lost them in a restart; new ones work', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const [a, b] = await Promise.all([replica(t, redis), replica(t, redis)]);
  const task = ok(await call(a, 'create_task', { mode_slug: 'code' }), 'create_task').session_id as string;
  const sid = await a.session();
  ok(await legacyCall(b, sid, 'list_modes'), 'B holds a copy of the session too');
  await redis.stop();
  await redis.start();
  // Each replica reads the dataset marker as it reconnects, and says what it found.
  await until('both replicas noticing the lost data', () => ([a, b].every((r) => /the store redis:\/\/\S+ lost its data: its dataset marker went from/.test(r.stderr)) ? true : undefined), 15_000);
  for (const r of [a, b]) {
    const lost = await call(r, 'get_task_info', { session_id: task });
    assert.ok(!lost.ok);
    assert.equal(lost.code, -32002);
    assert.equal(lost.data.reason, 'lost_in_restart', lost.message);
    assert.match(lost.message, /The shared store \(Redis at 127\.0\.0\.1:\d+\) was restarted and lost its data .*create a new one with create_task/);
    const legacy = await r.post(PING, { 'mcp-session-id': sid });
    assert.equal(legacy.status, 404, legacy.body);
    assert.equal(legacy.messages[0]?.error?.message, 'Session not found: the shared store was restarted and lost its data, this session with it; initialize a new one');
  }
  const never = await call(b, 'get_task_info', { session_id: `ses_${'0'.repeat(24)}` });
  assert.ok(!never.ok && never.data.reason === 'unknown', 'an id no dataset made is unknown');
  const fresh = ok(await call(b, 'create_task', { mode_slug: 'ask' }), 'create_task after the restart').session_id as string;
  ok(await call(a, 'get_task_info', { session_id: fresh }), 'served by the other replica');
  ok(await legacyCall(b, await a.session(), 'list_modes'), 'a new MCP session works across replicas');
});

test('while a restarted Redis is still LOADING its data, task tools answer retryable errors and initialize makes a local session; once loaded every session is back', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: SLOW_LOADING_ARGS });
  const s = await replica(t, redis);
  const probe = await connectedClient(t, { url: redis.url });
  const task = ok(await call(s, 'create_task', { mode_slug: 'code' }), 'create_task').session_id as string;
  await saveFiller(probe, 4000);
  await redis.stop();
  await redis.start();
  await until('the replica reconnected', () => (/reconnected to the store/.test(s.stderr) ? true : undefined), 15_000);
  assert.match(await pingLine(redis.port), /^-LOADING/, 'Redis is loading');
  const info = await call(s, 'get_task_info', { session_id: task });
  assert.ok(!info.ok);
  assert.deepEqual([info.code, info.data.retryable, info.data.redis_error, info.data.may_have_run], [-32603, true, 'not_ready', false], info.message);
  assert.match(info.message, /LOADING/);
  const init = await s.post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  // A Redis still loading is away like a stopped one: the session goes on as this replica's alone (issue 35 §4).
  assert.equal(init.status, 200, init.body);
  assert.match(s.stderr, /new legacy MCP sessions are kept on this replica alone/);
  assert.match(await pingLine(redis.port), /^-LOADING/, 'still loading after the calls: each of them met it');
  await until('Redis done loading and the session served again', async () => ((await call(s, 'get_task_info', { session_id: task })).ok ? true : undefined), 30_000, 100);
  assert.doesNotMatch(s.stderr, /lost its data/, 'the data came back from disk: no loss is reported');
});
