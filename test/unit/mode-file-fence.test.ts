// The store's records of fenced files against a real redis-server: a write is recorded only under
// its current lease and never over a later token, each record knows which writes it is built on,
// and a file is told apart as in step, a stale copy of a write still landing, or edited by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOUNDS } from '../../src/bounds.js';
import { RedisLeaseLock } from '../../src/authoring/mode-file-lease.js';
import { hashOf, look, newWriteId } from '../../src/authoring/projection.js';
import { connectedClient, redisMissing, testRedis } from '../redis-server.js';

const FIELD = '.roomodes';

async function locks(t: Parameters<typeof testRedis>[0]) {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const o = { prefix: 'rec-test:', leaseMs: 60_000 };
  return { client, a: new RedisLeaseLock(client, { replica: 'a', ...o }), b: new RedisLeaseLock(client, { replica: 'b', ...o }) };
}

const write = (token: number, content: string, basedOn = '', base = 'absent') => ({ id: newWriteId(), token, hash: hashOf(content), content, base, basedOn });

test('a write is recorded only while its lease is current, never over a later token, and nothing is written when refused', { skip: redisMissing }, async (t) => {
  const { a, b } = await locks(t);
  const first = await a.acquire('f');
  const w1 = write(first.token, 'one');
  assert.equal(await a.records.commit(first.ref, FIELD, w1), 'recorded');
  await first.release();
  // The lease is gone: the holder's late commit is refused and the record is unchanged.
  assert.equal(await a.records.commit(first.ref, FIELD, write(first.token, 'late', w1.id)), 'lease_lost');
  const second = await b.acquire('f');
  assert.ok(second.token > first.token);
  assert.equal(await a.records.commit(first.ref, FIELD, write(first.token, 'late')), 'lease_lost');
  const w2 = write(second.token, 'two', w1.id, w1.hash);
  assert.equal(await b.records.commit(second.ref, FIELD, w2), 'recorded');
  const state = await a.records.read(a.tagOf('f'), FIELD);
  assert.equal(state.record?.id, w2.id);
  assert.deepEqual(state.record?.chain, [w2.id, w1.id], 'built on the write before it');
  assert.equal(await a.records.content(a.tagOf('f'), FIELD), 'two');
  // A token lower than the recorded one (the fencing counter went back) cannot write over it.
  assert.equal(await b.records.commit(second.ref, FIELD, write(first.token, 'older')), 'later_token');
  assert.equal(await a.records.content(a.tagOf('f'), FIELD), 'two');
  await second.release();
});

test('a write not built on the record starts a new chain; a chain longer than the bound is marked as not whole', { skip: redisMissing }, async (t) => {
  const { a } = await locks(t);
  const lease = await a.acquire('g');
  const tag = a.tagOf('g');
  let prev = '';
  for (let i = 0; i <= BOUNDS.store.recordChain; i++) {
    const w = write(lease.token, `v${i}`, prev);
    assert.equal(await a.records.commit(lease.ref, FIELD, w), 'recorded');
    prev = w.id;
  }
  const long = (await a.records.read(tag, FIELD)).record!;
  assert.equal(long.chain.length, BOUNDS.store.recordChain);
  assert.equal(long.full, false, 'older writes fell off the chain');
  const edit = write(lease.token, 'after a hand edit', '');
  await a.records.commit(lease.ref, FIELD, edit);
  const fresh = (await a.records.read(tag, FIELD)).record!;
  assert.deepEqual([fresh.chain, fresh.full], [[edit.id], true], 'a write on a hand edit starts over, whole');
  await lease.release();
});

test('a file is in step, a stale copy (of a write still landing, or of what it replaces), or edited by hand; a landed write is forgotten', { skip: redisMissing }, async (t) => {
  const { a } = await locks(t);
  const lease = await a.acquire('h');
  const tag = a.tagOf('h');
  const w = write(lease.token, 'new', '', hashOf('old'));
  await a.records.commit(lease.ref, FIELD, w);
  let state = await a.records.read(tag, FIELD);
  assert.equal(look(hashOf('new'), state), 'in_step');
  assert.equal(look(hashOf('old'), state), 'stale', 'the file the write replaces, before its rename lands');
  assert.equal(look(hashOf('mine'), state), 'edited');
  assert.equal(look('absent', state), 'edited');
  await a.records.intend(tag, FIELD, { id: 'f'.repeat(16), next: hashOf('repair'), base: hashOf('x') });
  await a.records.landed(tag, FIELD, w.id);
  state = await a.records.read(tag, FIELD);
  assert.deepEqual(state.intents.map((i) => i.id), ['f'.repeat(16)], 'only the landed write was forgotten');
  assert.equal(look(hashOf('old'), state), 'edited', 'once the write landed, the old content is a hand edit again');
  assert.equal(look(hashOf('repair'), state), 'stale');
  // A write that is no longer the record is not forgotten by the one-step check after its rename.
  const next = write(lease.token, 'newer', w.id, hashOf('new'));
  await a.records.commit(lease.ref, FIELD, next);
  assert.equal(await a.records.landedAsRecord(tag, FIELD, 'f'.repeat(16)), false);
  assert.equal(await a.records.landedAsRecord(tag, FIELD, next.id), true);
  assert.deepEqual((await a.records.read(tag, FIELD)).intents.map((i) => i.id), ['f'.repeat(16)]);
  await lease.release();
});

test('the writes still landing are bounded per file: the oldest goes first', { skip: redisMissing }, async (t) => {
  const { a } = await locks(t);
  const tag = a.tagOf('i');
  for (let i = 0; i < BOUNDS.store.intentsPerFile + 3; i++) await a.records.intend(tag, FIELD, { id: i.toString(16).padStart(16, '0'), next: hashOf(`c${i}`), base: 'absent' });
  const { intents } = await a.records.read(tag, FIELD);
  assert.equal(intents.length, BOUNDS.store.intentsPerFile);
  assert.equal(intents[0]!.id, (3).toString(16).padStart(16, '0'));
});
