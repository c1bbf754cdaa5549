// The Redis client against a real redis-server: commands and error replies, 1,000 pipelined commands
// in order, SELECT on every connect, the reply byte bound, the command timeout, the pending bound, scripts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RedisCommander } from '../../src/redis/client.js';
import {
  REDIS_ERROR_KINDS, RedisConnectionError, RedisQueueFullError, RedisReplyBoundError, RedisReplyError, RedisTimeoutError,
} from '../../src/redis/errors.js';
import { BOUNDS } from '../../src/bounds.js';
import { resolveOptions } from '../../src/redis/options.js';
import { backoffDelay } from '../../src/redis/reconnect.js';
import type { RedisArg } from '../../src/redis/resp.js';
import { RedisScript } from '../../src/redis/script.js';
import { connectedClient, nextState, redisMissing, testRedis, within } from '../redis-server.js';

const key = (name: string): string => `rms-test:${process.pid}:${name}`;

test('answers commands and keeps Redis\'s error message and prefix; the connection stays usable', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  assert.equal(await client.command('SET', key('s'), 'héllo'), 'OK');
  assert.equal(await client.command('GET', key('s')), 'héllo');
  assert.equal(await client.command('GET', key('absent')), null);
  assert.equal(await client.command('HSET', key('h'), 'a', 1, 'b', 2), 2);
  assert.deepEqual(await client.command('HGETALL', key('h')), ['a', '1', 'b', '2']);
  await assert.rejects(client.command('LPUSH', key('s'), 'x'), (e: unknown) => {
    assert.ok(e instanceof RedisReplyError);
    assert.equal(e.prefix, 'WRONGTYPE');
    assert.match(e.serverMessage, /^WRONGTYPE Operation against a key holding the wrong kind of value/);
    assert.equal(e.retryable, false);
    return true;
  });
  assert.equal(await client.command('PING'), 'PONG');
});

test('1,000 pipelined INCRs on one connection are answered in order', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  await client.command('DEL', key('n'));
  const replies = await Promise.all(Array.from({ length: 1000 }, () => client.command('INCR', key('n'))));
  assert.deepEqual(replies, Array.from({ length: 1000 }, (_, i) => i + 1));
});

test('selects the URL\'s database on connect and again on reconnect', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const db3 = await connectedClient(t, { url: `${redis.url}/3`, backoff: { minMs: 10, maxMs: 100 } });
  const db0 = await connectedClient(t, { url: redis.url });
  await db0.command('DEL', key('db'));
  await db3.command('SET', key('db'), 'three');
  assert.equal(await db0.command('GET', key('db')), null, 'another database');
  const id = await db3.command('CLIENT', 'ID');
  const lost = nextState(db3, 'disconnected');
  const back = nextState(db3, 'connected');
  assert.equal(await db0.command('CLIENT', 'KILL', 'ID', String(id)), 1);
  await lost;
  await back;
  assert.equal(await db3.command('GET', key('db')), 'three', 'the new connection selected database 3 again');
});

test('a reply larger than the byte bound is refused, the connection closed, and the client reconnects', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url, maxReplyBytes: 64 * 1024, backoff: { minMs: 10, maxMs: 100 } });
  await client.command('SET', key('big'), 'x'.repeat(100_000));
  const lost = nextState(client, 'disconnected');
  // Both assertions hold their promise from the start, so neither rejection goes unhandled for a moment.
  await Promise.all([
    assert.rejects(client.command('GET', key('big')), (e: unknown) => e instanceof RedisReplyBoundError && e.bound === 'bytes' && !e.retryable),
    assert.rejects(client.command('PING'), (e: unknown) => e instanceof RedisConnectionError && e.retryable && /exceeds 65536 bytes/.test(e.message),
      'the command behind it lost its connection, and may retry'),
  ]);
  await lost;
  await within(10_000, 'reconnect', client.connected());
  assert.equal(await client.command('STRLEN', key('big')), 100_000);
});

test('a command without a reply within the timeout fails retryably and resets the connection', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url, commandTimeoutMs: 300, backoff: { minMs: 10, maxMs: 100 } });
  const lost = nextState(client, 'disconnected');
  const started = Date.now();
  await Promise.all([
    assert.rejects(client.command('BLPOP', key('never'), 0),
      (e: unknown) => e instanceof RedisTimeoutError && e.retryable && /BLPOP within 300 ms/.test(e.message)),
    assert.rejects(client.command('PING'), (e: unknown) => e instanceof RedisConnectionError && e.retryable, 'its order can no longer be trusted'),
  ]);
  assert.ok(Date.now() - started >= 250, `timed out after ${Date.now() - started} ms`);
  await lost;
  await within(10_000, 'reconnect', client.connected());
  assert.equal(await client.command('PING'), 'PONG');
});

test('past the pending bound a command fails at once; the ones in flight still get their replies', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url, maxPending: 8 });
  const pusher = await connectedClient(t, { url: redis.url });
  await client.command('DEL', key('q'));
  const blocked = client.command('BLPOP', key('q'), 0);
  const queued = Array.from({ length: 7 }, (_, i) => client.command('ECHO', `e${i}`));
  await assert.rejects(within(1000, 'refusal', client.command('PING')),
    (e: unknown) => e instanceof RedisQueueFullError && e.retryable && /8 Redis commands already wait/.test(e.message));
  await pusher.command('LPUSH', key('q'), 'v');
  assert.deepEqual(await blocked, [key('q'), 'v']);
  assert.deepEqual(await Promise.all(queued), Array.from({ length: 7 }, (_, i) => `e${i}`));
  assert.equal(await client.command('PING'), 'PONG', 'room again once replies came');
});

test('a script runs by SHA and falls back to EVAL on NOSCRIPT (after SCRIPT FLUSH)', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const sent: string[] = [];
  const recording: RedisCommander = { command: (...args: RedisArg[]) => { sent.push(String(args[0])); return client.command(...args); } };
  const script = new RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])");
  await client.command('DEL', key('sc'));
  await client.command('SCRIPT', 'FLUSH');
  assert.equal(await script.run(recording, [key('sc')], [5]), 5);
  assert.deepEqual(sent, ['EVALSHA', 'EVAL'], 'NOSCRIPT, then EVAL');
  assert.deepEqual(await client.command('SCRIPT', 'EXISTS', script.sha), [1], 'EVAL cached it under the SHA we computed');
  sent.length = 0;
  assert.equal(await script.run(recording, [key('sc')], [5]), 10);
  assert.deepEqual(sent, ['EVALSHA'], 'by SHA alone once cached');
  await client.command('SET', key('str'), 'x');
  const failing = new RedisScript("return redis.call('LPUSH', KEYS[1], 'y')");
  await assert.rejects(failing.run(client, [key('str')]), (e: unknown) => e instanceof RedisReplyError && /WRONGTYPE/.test(e.serverMessage),
    'other errors pass through');
});

test('the reconnect wait doubles per attempt, is capped, and keeps between half and all of it', () => {
  const b = { minMs: 100, maxMs: 1000 };
  assert.equal(backoffDelay(0, b, () => 0), 50);
  assert.equal(backoffDelay(0, b, () => 1), 100);
  assert.equal(backoffDelay(2, b, () => 1), 400);
  assert.equal(backoffDelay(3, b, () => 0.5), 600);
  assert.equal(backoffDelay(4, b, () => 1), 1000);
  assert.equal(backoffDelay(500, b, () => 0), 500);
});

test('the error table: exactly the failures a later attempt can get past are retryable', () => {
  const retryable = Object.entries(REDIS_ERROR_KINDS).filter(([, v]) => v.retryable).map(([k]) => k).sort();
  assert.deepEqual(retryable, ['connection', 'not_ready', 'queue_full', 'timeout', 'unavailable']);
  assert.equal(new RedisTimeoutError('GET', 5).retryable, true);
  assert.equal(new RedisReplyError('ERR x').retryable, false);
  // "Not now" replies: the command did not run, and a later try may succeed.
  for (const text of ['LOADING Redis is loading the dataset in memory', 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.', 'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to \'no\'.']) {
    const e = new RedisReplyError(text);
    assert.deepEqual([e.kind, e.retryable, e.serverMessage], ['not_ready', true, text]);
  }
  assert.equal(new RedisReplyError('LOADINGX y').kind, 'reply', 'the first word must match exactly');
});

test('options left unset come from the bounds table', () => {
  const { connection, backoff, target } = resolveOptions({ url: 'redis://h:1/2' });
  const b = BOUNDS.redis;
  assert.deepEqual({ ...connection, backoff }, {
    connectTimeoutMs: b.connectTimeoutMs, commandTimeoutMs: b.commandTimeoutMs, maxPending: b.maxPending,
    maxBytes: b.maxReplyBytes, maxDepth: b.maxReplyDepth, backoff: { minMs: b.reconnectMinMs, maxMs: b.reconnectMaxMs },
  });
  assert.equal(target.db, 2);
});
