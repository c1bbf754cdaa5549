// The resumable-stream event log against a real redis-server: replay after an id on another
// client, both bounds, the oversize event, refusals of bad, foreign, too old and expired ids, and Redis data not ours.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventId } from '../../src/http/sse.js';
import { RedisEventLog, ResumeRefusedError, type ResumeRefusal } from '../../src/http/event-log.js';
import { StoreDataError } from '../../src/redis/input.js';
import type { RedisClient } from '../../src/redis/client.js';
import { connectedClient, redisMissing, testRedis, within } from '../redis-server.js';

const OWNER = 'c2Vzc2lvbi1h_-1';

/** A log on the test's Redis under its own prefix, with a new stream. */
async function freshLog(t: TestContext, prefix: string): Promise<{ client: RedisClient; log: RedisEventLog; stream: string }> {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const log = new RedisEventLog(client, { prefix });
  return { client, log, stream: log.newStream() };
}

async function refused(p: Promise<unknown>, reason: ResumeRefusal, status: number): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ResumeRefusedError, String(e));
    assert.equal(e.reason, reason);
    assert.equal(e.status, status);
    assert.match(e.message, /^cannot resume: Last-Event-ID "/);
    return true;
  });
}

test('a replay on another replica returns exactly the events after the given id, in order, with ids the HTTP door parses', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const one = new RedisEventLog(await connectedClient(t, { url: redis.url }), { prefix: 'evt1:' });
  const two = new RedisEventLog(await connectedClient(t, { url: redis.url }), { prefix: 'evt1:' });
  const stream = one.newStream();
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) ids.push(await one.append(OWNER, stream, JSON.stringify({ n: i, text: 'é' })));
  assert.deepEqual(ids.map((id) => parseEventId(id)), [1, 2, 3, 4, 5].map((seq) => ({ stream, seq })));
  const r = await two.replay(OWNER, ids[1]!);
  assert.equal(r.stream, stream);
  assert.equal(r.finished, false);
  assert.deepEqual(r.events, [3, 4, 5].map((n) => ({ id: ids[n - 1], data: JSON.stringify({ n, text: 'é' }) })));
  assert.deepEqual((await two.replay(OWNER, ids[4]!)).events, [], 'nothing was missed after the last event');
  assert.deepEqual((await two.replay(OWNER, ` ${ids[3]!} `, stream)).events.map((e) => e.id), [ids[4]], 'spaces around the header value are ignored');
  assert.equal(await one.finish(OWNER, stream), true);
  assert.equal((await two.replay(OWNER, ids[4]!)).finished, true);
  // Each replay is a fresh read: the same id gives the same events again, and nothing more.
  assert.deepEqual((await one.replay(OWNER, ids[2]!)).events.map((e) => e.id), [ids[3], ids[4]]);
});

test('the count bound keeps the newest events; resuming from before them is refused as too old', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const log = new RedisEventLog(client, { prefix: 'evt2:', maxEvents: 3 });
  const stream = log.newStream();
  const ids: string[] = [];
  for (let i = 1; i <= 6; i++) ids.push(await log.append(OWNER, stream, `e${i}`));
  assert.equal(await client.command('XLEN', `evt2:sse:{${OWNER}}:${stream}:events`), 3);
  assert.deepEqual((await log.replay(OWNER, ids[2]!)).events.map((e) => e.data), ['e4', 'e5', 'e6']);
  await refused(log.replay(OWNER, ids[1]!), 'too_old', 404);
  await refused(log.replay(OWNER, `${stream}-0`), 'too_old', 404);
});

test('the byte bound trims the oldest events; an event over it alone is not kept and a resume across it is refused', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const log = new RedisEventLog(client, { prefix: 'evt3:', maxBytes: 10, ttlMs: 60_000 });
  const stream = log.newStream();
  const key = `evt3:sse:{${OWNER}}:${stream}:events`;
  const a = await log.append(OWNER, stream, 'aaaa');
  const b = await log.append(OWNER, stream, 'bbbb');
  const c = await log.append(OWNER, stream, 'cccc');
  assert.equal(await client.command('XLEN', key), 2, '12 bytes do not fit in 10: the oldest went');
  assert.deepEqual((await log.replay(OWNER, a)).events.map((e) => e.data), ['bbbb', 'cccc']);
  await refused(log.replay(OWNER, `${stream}-0`), 'too_old', 404);
  const pttl = await client.command('PTTL', key);
  assert.ok(typeof pttl === 'number' && pttl > 0 && pttl <= 60_000, `the stream expires (PTTL ${String(pttl)})`);
  const big = await log.append(OWNER, stream, 'x'.repeat(11));
  assert.equal(await client.command('EXISTS', key), 0, 'nothing is kept when the newest event alone is over the bound');
  await refused(log.replay(OWNER, c), 'too_old', 404);
  await refused(log.replay(OWNER, b), 'too_old', 404);
  assert.deepEqual((await log.replay(OWNER, big)).events, []);
  const d = await log.append(OWNER, stream, 'dd');
  assert.deepEqual(parseEventId(d)?.seq, 5, 'numbering goes on after the oversize event');
  assert.deepEqual((await log.replay(OWNER, big)).events, [{ id: d, data: 'dd' }]);
});

test('malformed, foreign, unknown and future ids are refused precisely, as the HTTP door answers today (400 / 404)', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const log = new RedisEventLog(await connectedClient(t, { url: redis.url }), { prefix: 'evt4:' });
  const mine = log.newStream();
  const other = log.newStream();
  const id = await log.append(OWNER, mine, 'one');
  const theirs = await log.append('another-session', other, 'theirs');
  for (const bad of ['', 'garbage', '1-2', `${mine}-`, `${mine}-x`, `${mine}-1234567890123456`, `${mine.toUpperCase()}-1`, `${mine}-1-2`]) {
    await refused(log.replay(OWNER, bad), 'malformed', 400);
  }
  await refused(log.replay('not a session id!', id), 'malformed', 400);
  await refused(log.replay(OWNER, theirs), 'unknown_stream', 404);
  await refused(log.replay(OWNER, `${other}-1`), 'unknown_stream', 404);
  await refused(log.replay(OWNER, id, other), 'foreign_stream', 404);
  await refused(log.replay(OWNER, `${mine}-2`), 'ahead', 404);
  assert.deepEqual((await log.replay('another-session', theirs)).events, [], 'the owner itself resumes it');
});

test('an owner keeps at most maxStreams streams: the oldest finished ones go first, unfinished ones stay', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const log = new RedisEventLog(client, { prefix: 'evt7:', maxStreams: 2 });
  const [s1, s2, s3, s4] = [log.newStream(), log.newStream(), log.newStream(), log.newStream()];
  const live = await log.append(OWNER, s1, 'the GET stream, never finished');
  const done = await log.append(OWNER, s2, 'an answered request');
  await log.finish(OWNER, s2);
  const third = await log.append(OWNER, s3, 'another');
  await refused(log.replay(OWNER, done), 'unknown_stream', 404);
  assert.deepEqual((await log.replay(OWNER, live)).events, [], 'the unfinished oldest stream stays');
  const fourth = await log.append(OWNER, s4, 'one more, none finished');
  for (const id of [live, third, fourth]) assert.deepEqual((await log.replay(OWNER, id)).events, []);
  assert.deepEqual(await client.command('LRANGE', `evt7:sse:{${OWNER}}:streams`, 0, -1), [s1, s3, s4]);
  assert.equal(await client.command('EXISTS', `evt7:sse:{${OWNER}}:${s2}:events`, `evt7:sse:{${OWNER}}:${s2}:meta`), 0);
});

test('a stream unused for its TTL is gone: its ids then name no stream', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const log = new RedisEventLog(client, { prefix: 'evt5:', ttlMs: 200 });
  const stream = log.newStream();
  const id = await log.append(OWNER, stream, 'short-lived');
  const meta = `evt5:sse:{${OWNER}}:${stream}:meta`;
  await within(10_000, 'expiry of the stream', (async () => {
    while (await client.command('EXISTS', meta) !== 0) await new Promise((r) => setTimeout(r, 20));
  })());
  await refused(log.replay(OWNER, id), 'unknown_stream', 404);
});

test('an entry in the stream that this server did not write is refused as store data, not replayed', { skip: redisMissing }, async (t) => {
  const { client, log, stream } = await freshLog(t, 'evt6:');
  const first = await log.append(OWNER, stream, 'ours');
  await log.append(OWNER, stream, 'ours too');
  const key = `evt6:sse:{${OWNER}}:${stream}:events`;
  await client.command('XDEL', key, '0-2');
  await client.command('XADD', key, '0-3', 'other', 'field');
  await assert.rejects(log.replay(OWNER, first), (e: unknown) => e instanceof StoreDataError && /0-3.*0-2 was expected/.test(e.message) && e.key === key);
  // A stream holding more than this log ever keeps (written with a larger bound) is not replayed in part.
  const small = new RedisEventLog(client, { prefix: 'evt6:', maxEvents: 2 });
  const full = log.newStream();
  for (const d of ['x', 'y', 'z']) await log.append(OWNER, full, d);
  await assert.rejects(small.replay(OWNER, `${full}-0`), (e: unknown) => e instanceof StoreDataError && /holds more than 2 events/.test(e.message));
});

test('options and names are checked before anything reaches Redis', async () => {
  const never = { command: () => Promise.reject(new Error('not reached')) };
  assert.throws(() => new RedisEventLog(never, { prefix: 'a{b}:' }), /key prefix "a\{b\}:": expected/);
  assert.throws(() => new RedisEventLog(never, { maxEvents: 0 }), /maxEvents: expected a positive integer/);
  const log = new RedisEventLog(never);
  assert.match(log.newStream(), /^[0-9a-f]{32}$/);
  await assert.rejects(log.append('ok', 'not-a-stream', 'x'), /stream name "not-a-stream": expected/);
});

test('a mark kept with an append comes back with a replay: the newest one given, checked as outside input', { skip: redisMissing }, async (t) => {
  const { client, log, stream } = await freshLog(t, 'evtmark:');
  const first = await log.append(OWNER, stream, '{"n":1}');
  assert.equal((await log.replay(OWNER, first)).mark, null, 'no mark given yet');
  await log.append(OWNER, stream, '{"n":2}', 'a'.repeat(32));
  await log.append(OWNER, stream, '{"n":3}');
  assert.equal((await log.replay(OWNER, first)).mark, 'a'.repeat(32), 'an append without a mark keeps the newest one');
  await log.append(OWNER, stream, '{"n":4}', 'b'.repeat(32));
  assert.equal((await log.replay(OWNER, first)).mark, 'b'.repeat(32));
  await assert.rejects(log.append(OWNER, stream, '{}', 'not a mark!'), TypeError);
  await client.command('HSET', `evtmark:sse:{${OWNER}}:${stream}:meta`, 'mark', 'x y');
  await assert.rejects(log.replay(OWNER, first), (e: unknown) => e instanceof StoreDataError && /stream mark/.test(e.message));
});
