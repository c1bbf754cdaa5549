// The records of legacy MCP sessions against a real redis-server: written and read back by another
// client, changes kept only while the session lives, news on pub/sub, the TTL, and records not ours refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOUNDS } from '../../src/bounds.js';
import { McpSessionLimitError, McpSessionRecords, McpSessionsFullError, parseNews, type McpSessionNews, type McpSessionRecord } from '../../src/http/session-records.js';
import { DatasetMarker } from '../../src/redis/dataset-marker.js';
import { StoreDataError } from '../../src/redis/input.js';
import { RedisSubscriber } from '../../src/redis/subscriber.js';
import { connectedClient, redisMissing, testRedis, within } from '../redis-server.js';

const SID = 'c2Vzc2lvbi1hYmNkZWZnaGlqa2xt';
const REC: McpSessionRecord = {
  protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo: { name: 'tester', version: '2' },
  initialized: false, logLevel: null, subscriptions: [], getStream: null, getHolder: null, seen: null,
};

test('a record written by one replica is read back by another, with its TTL; changes land only while it lives', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const a = new McpSessionRecords(await connectedClient(t, { url: redis.url }), { replicaId: 'a', prefix: 'm1:' });
  const bClient = await connectedClient(t, { url: redis.url });
  const b = new McpSessionRecords(bClient, { replicaId: 'b', prefix: 'm1:' });
  assert.equal(await b.load(SID), null, 'nothing before it is written');
  await a.create(SID, REC);
  assert.deepEqual(await b.load(SID), REC);
  const ttl = await bClient.command('PTTL', `m1:mcp:{${SID}}`);
  assert.ok(typeof ttl === 'number' && ttl > BOUNDS.http.sessionIdleMs - 10_000 && ttl <= BOUNDS.http.sessionIdleMs, `PTTL ${String(ttl)}`);
  await assert.rejects(a.create(SID, REC), StoreDataError, 'a second create of one id is refused');

  // Two replicas subscribing at once both keep theirs: each subscription is a field of its own.
  await Promise.all([a.change(SID, { subscribe: 'mode://code' }), b.change(SID, { subscribe: 'mode://architect/config' })]);
  assert.equal(await b.change(SID, { logLevel: 'warning', initialized: true }), true);
  assert.equal(await a.change(SID, { getStream: 'ab'.repeat(16), getHolder: 'b' }), true);
  assert.equal(await a.change(SID, { unsubscribe: 'mode://code' }), true);
  assert.deepEqual(await a.load(SID), {
    ...REC, initialized: true, logLevel: 'warning', subscriptions: ['mode://architect/config'], getStream: 'ab'.repeat(16), getHolder: 'b',
  });
  assert.throws(() => a.key('not an id!'), TypeError);
  await assert.rejects(a.change(SID, { subscribe: 'file:///etc/passwd' }), TypeError, 'only mode:// URIs are kept');

  assert.equal(await a.touch(SID), true);
  assert.equal(await b.end(SID), true);
  assert.equal(await a.end(SID), false, 'ending twice finds nothing the second time');
  assert.equal(await a.touch(SID), false);
  assert.equal(await a.change(SID, { logLevel: 'debug' }), false, 'a change to an ended session is refused');
  assert.equal(await bClient.command('EXISTS', `m1:mcp:{${SID}}`), 0, 'and does not bring the record back');
});

test('changes and endings are told on the channel, with the replica that made them', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const a = new McpSessionRecords(await connectedClient(t, { url: redis.url }), { replicaId: 'replica-a', prefix: 'm2:' });
  const heard: McpSessionNews[] = [];
  let wake: () => void = () => {};
  const sub = new RedisSubscriber({ url: redis.url }, (m) => {
    const news = a.readNews(m.message);
    if (typeof news !== 'string') heard.push(news);
    wake();
  });
  t.after(() => sub.close());
  await within(10_000, 'subscriber connection', sub.connected());
  await sub.subscribe(a.channel);
  const waitFor = (n: number): Promise<void> => within(5000, `${n} messages`, new Promise<void>((resolve) => {
    const check = (): void => { if (heard.length >= n) resolve(); };
    wake = check;
    check();
  }));
  await a.create(SID, REC);
  await a.change(SID, { logLevel: 'info' });
  await waitFor(1);
  await a.end(SID);
  await waitFor(2);
  assert.deepEqual(heard, [{ origin: 'replica-a', sid: SID, what: 'changed' }, { origin: 'replica-a', sid: SID, what: 'ended' }], 'create itself is not news: nobody holds a copy yet');
});

test('a record lives for its TTL after the last use, and no longer', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const recs = new McpSessionRecords(client, { replicaId: 'a', prefix: 'm3:', ttlMs: 300 });
  await recs.create(SID, REC);
  const deadline = Date.now() + 5000;
  while (await recs.load(SID) !== null) {
    assert.ok(Date.now() < deadline, 'the record outlived its TTL by seconds');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.equal(await recs.touch(SID), false);
});

test('the records of every replica are counted together: past the cap a create is refused with the wait, and room comes back as records end, expire or vanish', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const options = { prefix: 'm6:', ttlMs: 60_000, maxSessions: 3 };
  const a = new McpSessionRecords(client, { ...options, replicaId: 'a' });
  const b = new McpSessionRecords(await connectedClient(t, { url: redis.url }), { ...options, replicaId: 'b' });
  const sids = Array.from({ length: 10 }, () => a.newId());
  const results = await Promise.allSettled(sids.map((sid, i) => (i % 2 === 0 ? a : b).create(sid, REC)));
  const made = sids.filter((_, i) => results[i]!.status === 'fulfilled');
  assert.equal(made.length, 3, 'exactly the cap, however the creates interleave');
  for (const r of results) {
    if (r.status === 'rejected') {
      assert.ok(r.reason instanceof McpSessionsFullError, String(r.reason));
      assert.equal(r.reason.max, 3);
      assert.ok(r.reason.retryAfterMs > 59_000 && r.reason.retryAfterMs <= 60_000, `wait ${r.reason.retryAfterMs} ms`);
    }
  }
  assert.equal(await client.command('ZCARD', 'm6:mcp:live'), 3);
  assert.equal(await a.end(made[0]!), true);
  await a.create(sids[9]!.replace(/.$/, 'Z'), REC); // an ended one makes room
  await client.command('DEL', a.key(made[1]!)); // what an eviction does
  assert.equal(await b.why(made[1]!), 'evicted');
  assert.equal(await client.command('ZSCORE', 'm6:mcp:live', made[1]!), null, 'an evicted record holds no place');
  await b.create(b.newId(), REC);
  await assert.rejects(b.create(b.newId(), REC), McpSessionsFullError);
  assert.equal(await a.why(a.newId()), 'unknown');
  assert.equal(await a.why(made[2]!), 'live');
});

test('a record gone by its TTL reads as expired and its place is taken back when the index is full; one of a lost dataset reads as lost', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const marker = new DatasetMarker('m7:');
  const recs = new McpSessionRecords(client, { replicaId: 'a', prefix: 'm7:', ttlMs: 300, maxSessions: 1, marker });
  const first = recs.newId();
  await recs.create(first, REC);
  assert.equal(await client.command('GET', 'm7:epoch'), first.slice(0, 6), 'the first record wrote the marker its id carries');
  const before = Number(await client.command('ZSCORE', 'm7:mcp:live', first));
  assert.equal(await recs.touch(first), true);
  assert.ok(Number(await client.command('ZSCORE', 'm7:mcp:live', first)) >= before, 'a touch moves its expiry in the index');
  for (const deadline = Date.now() + 5000; await client.command('EXISTS', recs.key(first)) === 1;) {
    assert.ok(Date.now() < deadline, 'the record outlived its TTL by seconds');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.equal(await recs.why(first), 'expired');
  const second = recs.newId();
  await recs.create(second, REC); // the index was full of one expired entry: trimmed, then counted
  assert.equal(await client.command('ZCARD', 'm7:mcp:live'), 1);
  // A new dataset (what a restart without persistence leaves): the id's tag is one this process saw, no longer the marker.
  await client.command('DEL', recs.key(second), 'm7:mcp:live');
  await client.command('SET', 'm7:epoch', 'abc123');
  assert.equal(await recs.why(second), 'lost_in_restart');
  assert.equal(await recs.why(`abc123${'x'.repeat(32)}`), 'unknown', 'an id of the current dataset that is not there is not "lost"');
});

test('one subscription past the bound is refused and nothing is written', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const recs = new McpSessionRecords(client, { replicaId: 'a', prefix: 'm4:' });
  await recs.create(SID, { ...REC, subscriptions: Array.from({ length: BOUNDS.store.mcpSubscriptions }, (_, i) => `mode://m${i}`) });
  await assert.rejects(recs.change(SID, { subscribe: 'mode://one-more' }), McpSessionLimitError);
  assert.equal(await recs.change(SID, { subscribe: 'mode://m7' }), true, 'one already kept is no new field');
  assert.equal((await recs.load(SID))?.subscriptions.length, BOUNDS.store.mcpSubscriptions);
  await assert.rejects(recs.create('b3RoZXItc2Vzc2lvbi1pZA', { ...REC, capabilities: { big: 'x'.repeat(BOUNDS.store.mcpSessionBytes) } }), McpSessionLimitError);
});

test('records this server did not write are refused with the key and the problem', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const recs = new McpSessionRecords(client, { replicaId: 'a', prefix: 'm5:' });
  const key = recs.key(SID);
  const good = ['v', '1', 'version', '2025-11-25', 'caps', '{}', 'client', '{}', 'init', '0', 'level', '', 'get', '', 'holder', ''];
  const cases: [string, string[], RegExp][] = [
    ['unknown field', ['evil', '1'], /unknown field "evil"/],
    ['record version', ['v', '2'], /record version "2"/],
    ['protocol version', ['version', '1999-01-01'], /protocol version/],
    ['caps not JSON', ['caps', '{nope'], /"caps" is not JSON/],
    ['caps an array', ['caps', '[]'], /"caps" is not a JSON object/],
    ['caps too deep', ['caps', '{"a":'.repeat(40) + '1' + '}'.repeat(40)], /nests deeper/],
    ['client extra key', ['client', '{"name":"x","evil":1}'], /client info/],
    ['init', ['init', 'yes'], /"init"/],
    ['level', ['level', 'loud'], /not a log level/],
    ['get', ['get', '../x'], /stream name/],
    ['holder', ['holder', 'a b'], /replica id/],
    ['seen', ['seen', 'not-hex'], /catalogue digest/],
    ['subscription', ['s:http://x', '1'], /not a mode:\/\/ URI/],
    ['too many bytes', ['caps', JSON.stringify({ x: 'y'.repeat(BOUNDS.store.mcpSessionBytes) })], /exceeds/],
  ];
  for (const [what, override, problem] of cases) {
    await client.command('DEL', key);
    await client.command('HSET', key, ...good, ...override);
    await assert.rejects(recs.load(SID), (e: unknown) => {
      assert.ok(e instanceof StoreDataError, `${what}: ${String(e)}`);
      assert.equal(e.key, key);
      assert.match(e.message, problem, what);
      return true;
    });
  }
  // A record written before "seen" existed reads with none; one written with it reads it back.
  await client.command('DEL', key);
  await client.command('HSET', key, ...good);
  assert.equal((await recs.load(SID))?.seen, null);
  assert.equal(await recs.change(SID, { seen: 'ab'.repeat(16) }, false), true);
  assert.equal((await recs.load(SID))?.seen, 'ab'.repeat(16));
  await client.command('DEL', key);
  await client.command('HSET', key, 'v', '1');
  await assert.rejects(recs.load(SID), /the field "version" is missing/);
});

test('messages on the channel are read as outside input', () => {
  assert.deepEqual(parseNews('{"v":1,"origin":"r1","sid":"c2Vzc2lvbi1hYmNkZWZnaGlqa2xt","what":"ended"}'), { origin: 'r1', sid: SID, what: 'ended' });
  for (const [text, why] of [
    ['nope', /not JSON/], ['[]', /not a JSON object/], ['{"v":2}', /version 2/],
    ['{"v":1,"origin":"a b","sid":"c2Vzc2lvbi1hYmNkZWZnaGlqa2xt","what":"ended"}', /origin/],
    ['{"v":1,"origin":"a","sid":"short","what":"ended"}', /sid/],
    ['{"v":1,"origin":"a","sid":"c2Vzc2lvbi1hYmNkZWZnaGlqa2xt","what":"exploded"}', /what/],
    [JSON.stringify({ pad: 'x'.repeat(BOUNDS.store.mcpMessageBytes) }), /over/],
  ] as const) assert.match(String(parseNews(text)), why);
});
