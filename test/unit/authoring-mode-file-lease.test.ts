// The mode-file lease against a real redis-server: two replicas serialised with increasing fencing
// tokens, busy after the deadline naming the holder, abort at once, an expired lease failing stillHolds.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lockRefusal } from '../../src/authoring/mode-file-lock.js';
import { LockBusyError } from '../../src/files/pid-lock.js';
import { ValidationError } from '../../src/rpc/errors.js';
import type { RedisClient } from '../../src/redis/client.js';
import { LeaseBusyError, RedisLeaseLock, type LeaseHolder, type LeaseLockOptions } from '../../src/authoring/mode-file-lease.js';
import { StoreDataError } from '../../src/redis/input.js';
import { connectedClient, ownRedisMissing, redisMissing, startRedis, testRedis, within } from '../redis-server.js';

const NAME = 'project/.roomodes';
const leaseKey = (name: string): string => `lk:lease:{${createHash('sha256').update(name).digest('hex').slice(0, 32)}}`;

async function replicas(t: TestContext, o: Partial<LeaseLockOptions> = {}): Promise<{ a: RedisLeaseLock; b: RedisLeaseLock; client: RedisClient }> {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const other = await connectedClient(t, { url: redis.url });
  return {
    a: new RedisLeaseLock(client, { replica: 'replica-a', prefix: 'lk:', ...o }),
    b: new RedisLeaseLock(other, { replica: 'replica-b', prefix: 'lk:', ...o }),
    client,
  };
}

/** Resolves with the holder the first time `acquire` finds the lease held. */
function waiting(): { onWait: (h: LeaseHolder | null) => void; seen: Promise<LeaseHolder | null> } {
  let onWait!: (h: LeaseHolder | null) => void;
  const seen = new Promise<LeaseHolder | null>((resolve) => { onWait = resolve; });
  return { onWait, seen };
}

test('writers on two replicas and two in one process take turns: no update lost, tokens increase with each turn', { skip: redisMissing }, async (t) => {
  const { a, b, client } = await replicas(t);
  await client.command('SET', 'lk:counter', 0);
  const tokens: number[] = [];
  let inside = 0;
  // A read-modify-write spread over three round trips: without the lease, turns would interleave and lose updates.
  const bump = (lock: RedisLeaseLock) => lock.run(NAME, async (lease) => {
    assert.equal(++inside, 1, 'one holder at a time');
    tokens.push(lease.token);
    const n = Number(await client.command('GET', 'lk:counter'));
    assert.equal(await lease.stillHolds(), true);
    await client.command('SET', 'lk:counter', n + 1);
    inside--;
  });
  await Promise.all(Array.from({ length: 8 }, (_, i) => bump(i % 2 === 0 ? a : b)).concat(Array.from({ length: 4 }, () => bump(a))));
  assert.equal(await client.command('GET', 'lk:counter'), '12');
  assert.equal(tokens.length, 12);
  for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i]! > tokens[i - 1]!, `token ${tokens[i]} after ${tokens[i - 1]}`);
  assert.equal(await client.command('EXISTS', leaseKey(NAME)), 0, 'the last release removed the lease');
});

test('a waiter on another replica gets busy after its deadline, naming the holding replica; the file lock\'s refusal reads it', { skip: redisMissing }, async (t) => {
  const { a, b } = await replicas(t);
  const held = await a.acquire(NAME);
  const started = Date.now();
  const err = await b.acquire(NAME, { waitMs: 300 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof LeaseBusyError && err instanceof LockBusyError, String(err));
  assert.ok(Date.now() - started >= 300, 'not before the deadline');
  assert.equal(err.holder?.replica, 'replica-a');
  assert.equal(err.owner, process.pid);
  assert.match(err.message, /^the lease on project\/\.roomodes stayed held by replica replica-a \(process \d+ on .+\) for \d+ ms$/);
  const answer = lockRefusal(err, NAME, 'the mode file project/.roomodes');
  assert.ok(answer instanceof ValidationError);
  assert.deepEqual({ ...(answer.data as object), message: undefined, recovery_suggestions: undefined }, {
    message: undefined, recovery_suggestions: undefined, error_type: 'busy', retryable: true, written: false, file: NAME, holder_pid: process.pid,
  });
  // A second waiter of the holder's own process waits in its queue: busy too, naming no replica.
  const queued = await a.acquire(NAME, { waitMs: 100 }).then(() => null, (e: unknown) => e);
  assert.ok(queued instanceof LeaseBusyError && queued.holder === null, String(queued));
  assert.match(queued.message, /held by an earlier writer of this replica/);
  await held.release();
});

test('an abort ends the wait at once, on another replica and in this process\'s queue, and counts as cancelled', { skip: redisMissing }, async (t) => {
  const { a, b } = await replicas(t);
  const held = await a.acquire(NAME);
  const remote = new AbortController();
  const w = waiting();
  const pending = b.acquire(NAME, { waitMs: 30_000, signal: remote.signal, onWait: w.onWait });
  assert.equal((await within(10_000, 'the wait to start', w.seen))?.replica, 'replica-a');
  const stopped = Date.now();
  remote.abort(new Error('the server is stopping'));
  await within(10_000, 'the aborted wait', assert.rejects(pending, /the server is stopping/));
  assert.ok(Date.now() - stopped < 1000, `ended ${Date.now() - stopped} ms after the abort`);
  const answer = lockRefusal(new Error('x'), NAME, 'the mode file', remote.signal);
  assert.ok(answer instanceof ValidationError && (answer.data as { error_type: string }).error_type === 'cancelled');

  const local = new AbortController();
  const queued = a.acquire(NAME, { waitMs: 30_000, signal: local.signal });
  const at = Date.now();
  local.abort(new Error('request cancelled'));
  await within(10_000, 'the aborted queue wait', assert.rejects(queued, /request cancelled/));
  assert.ok(Date.now() - at < 1000);
  // The queue still works for the next one once the holder lets go.
  await held.release();
  const next = await a.acquire(NAME, { waitMs: 5000 });
  assert.ok(next.token > held.token);
  await next.release();
});

test('an expired lease fails stillHolds and renew; its late release leaves the next holder\'s lease alone', { skip: redisMissing }, async (t) => {
  const { a, b, client } = await replicas(t, { leaseMs: 150 });
  const first = await a.acquire(NAME);
  assert.equal(await first.stillHolds(), true);
  assert.equal(await a.stillHolds(NAME, first.token), true);
  assert.equal(await first.stillHolds(60_000), false, 'less than the asked margin is left');
  await within(10_000, 'expiry of the lease', (async () => {
    while (await client.command('EXISTS', leaseKey(NAME)) !== 0) await new Promise((r) => setTimeout(r, 20));
  })());
  assert.equal(await first.stillHolds(), false);
  assert.equal(await first.renew(), false);
  const second = await b.acquire(NAME, { waitMs: 0 });
  assert.ok(second.token > first.token, `token ${second.token} after ${first.token}`);
  assert.equal(await b.stillHolds(NAME, first.token), false);
  await first.release();
  assert.equal(await second.stillHolds(), true, 'the old holder\'s release did not delete the new lease');
  assert.equal(await second.renew(), true);
  const pttl = await client.command('PTTL', leaseKey(NAME));
  assert.ok(typeof pttl === 'number' && pttl > 0 && pttl <= 150);
  await second.release();
  assert.equal(await client.command('EXISTS', leaseKey(NAME)), 0);
});

test('a lease value this server did not write is refused as store data', { skip: redisMissing }, async (t) => {
  const { a, client } = await replicas(t);
  await client.command('SET', leaseKey(NAME), 'someone else\'s lock');
  await assert.rejects(a.acquire(NAME, { waitMs: 0 }), (e: unknown) => e instanceof StoreDataError && e.key === leaseKey(NAME));
  await assert.rejects(a.stillHolds(NAME, 1), StoreDataError);
});

test('run() resolves with the work\'s result when Redis is gone by release time (the lease runs out by itself)', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const lock = new RedisLeaseLock(await connectedClient(t, { url: redis.url }), { replica: 'replica-a', prefix: 'lk:' });
  const out = await lock.run(NAME, async () => { await redis.stop(); return 'written'; });
  assert.equal(out, 'written');
  await assert.rejects(lock.acquire(NAME, { waitMs: 0 }), (e: unknown) => e instanceof Error && 'retryable' in e && e.retryable === true, 'Redis down: a retryable error, not busy');
});
