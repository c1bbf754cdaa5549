// The Redis client and subscriber through a redis-server stopped and started again on the same port:
// commands fail at once and retryably while it is down, both recover by themselves, subscriptions return.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisConnectionError, RedisUnavailableError } from '../../src/redis/errors.js';
import { RedisSubscriber, type PubSubMessage } from '../../src/redis/subscriber.js';
import { connectedClient, nextState, ownRedisMissing, startRedis, within } from '../redis-server.js';

const FAST = { minMs: 20, maxMs: 200 };

test('Redis stopped: commands fail at once and retryably; Redis back: the client recovers by itself', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const client = await connectedClient(t, { url: redis.url, backoff: FAST });
  const events: string[] = [];
  client.onState((e) => events.push(e.state));
  const inFlight = assert.rejects(client.command('BLPOP', 'nothing', 0),
    (e: unknown) => e instanceof RedisConnectionError && e.retryable, 'in flight when it went: a connection error');
  const lost = nextState(client, 'disconnected');
  await redis.stop();
  await inFlight;
  await lost;
  for (let i = 0; i < 3; i++) {
    const started = Date.now();
    await assert.rejects(client.command('SET', 'k', 'v'), (e: unknown) => e instanceof RedisUnavailableError && e.retryable && e.kind === 'unavailable');
    // At once: well below the 5 s a connect attempt or a command may take (margin for a loaded machine).
    assert.ok(Date.now() - started < 1000, `refused at once, not after ${Date.now() - started} ms`);
  }
  const back = nextState(client, 'connected');
  await redis.start();
  await back;
  assert.equal(await client.command('SET', 'k', 'v'), 'OK');
  assert.equal(await client.command('GET', 'k'), 'v');
  assert.deepEqual(events, ['disconnected', 'connected'], 'one event per transition, however many attempts failed');
});

test('pub/sub: messages and pattern messages reach the handler, and subscriptions return after a restart', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const inbox: PubSubMessage[] = [];
  const waiters: (() => void)[] = [];
  const subscriber = new RedisSubscriber({ url: redis.url, backoff: FAST }, (m) => { inbox.push(m); waiters.shift()?.(); });
  t.after(() => subscriber.close());
  const nextMessage = async (): Promise<PubSubMessage> => {
    if (inbox.length === 0) await within(5000, 'pub/sub message', new Promise<void>((resolve) => waiters.push(resolve)));
    return inbox.shift()!;
  };
  const publisher = await connectedClient(t, { url: redis.url, backoff: FAST });
  await within(10_000, 'subscriber connection', subscriber.connected());
  await subscriber.subscribe('news', 'sport');
  await subscriber.psubscribe('ev:*');

  assert.equal(await publisher.command('PUBLISH', 'news', 'héllo'), 1);
  assert.deepEqual(await nextMessage(), { channel: 'news', message: 'héllo' });
  assert.equal(await publisher.command('PUBLISH', 'ev:1', 'x'), 1);
  assert.deepEqual(await nextMessage(), { pattern: 'ev:*', channel: 'ev:1', message: 'x' });
  await subscriber.unsubscribe('sport');
  assert.equal(await publisher.command('PUBLISH', 'sport', 'gone'), 0, 'unsubscribed');

  const subLost = nextState(subscriber, 'disconnected');
  const subBack = nextState(subscriber, 'connected');
  const pubBack = nextState(publisher, 'connected');
  await redis.stop();
  await subLost;
  await assert.rejects(subscriber.subscribe('late'), (e: unknown) => e instanceof RedisUnavailableError && e.retryable);
  await redis.start();
  await subBack;
  await pubBack;
  assert.equal(await publisher.command('PUBLISH', 'news', 'again'), 1, 'news subscribed again');
  assert.deepEqual(await nextMessage(), { channel: 'news', message: 'again' });
  assert.equal(await publisher.command('PUBLISH', 'ev:2', 'y'), 1, 'the pattern too');
  assert.deepEqual(await nextMessage(), { pattern: 'ev:*', channel: 'ev:2', message: 'y' });
  assert.equal(await publisher.command('PUBLISH', 'sport', 'still gone'), 0, 'nor what was unsubscribed');
  assert.equal(await publisher.command('PUBLISH', 'late', 'z'), 0, 'nor what failed while down');
  assert.equal(inbox.length, 0);
});
