// Issue 25's faults through the built server, replicas on one Redis: a GET stream resumed on another
// replica after its own was killed, a replica killed mid-burst, Redis stopped and started under
// load, and a session expired by Redis's TTL still answered as expired. The cluster of
// replica-calls.ts is shared by the tests that do not stop or configure it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedisClient } from '../../src/redis/client.js';
import { ownRedisMissing, redisMissing, startRedis, testRedis, within } from '../redis-server.js';
import { startProxy, startReplicas, until } from '../replicas.js';
import { tempDir, type Msg } from './harness.js';
import { HttpEndpoint } from './http-harness.js';
import { call, cluster, legacyCall, modesYaml, newSessions, nextId, ok, saveFile, stderrOf, switchLoad, type Cluster } from './replica-calls.js';

/**
 * A legacy session through the proxy subscribed to `uris`, with its GET stream open; the stream's
 * replica and the helpers both GET-stream tests use.
 */
async function heldStream(c: Cluster, uris: string[]) {
  const legacy = new HttpEndpoint(c.proxy.url);
  const sid = await legacy.session();
  const h = { 'mcp-session-id': sid };
  for (const uri of uris) {
    const sub = await legacy.post({ jsonrpc: '2.0', id: nextId(), method: 'resources/subscribe', params: { uri } }, h);
    assert.equal(sub.status, 200, `resources/subscribe ${uri}: ${sub.body}`);
  }
  const stream = await legacy.stream('GET', h);
  assert.equal(stream.res.statusCode, 200, 'the GET stream opened');
  const holder = Number(stream.res.headers['x-served-by']);
  return { legacy, sid, h, stream, holder };
}
const updatedUri = (uri: string) => (m: Msg): boolean => m.method === 'notifications/resources/updated' && (m.params as { uri?: string } | undefined)?.uri === uri;

/** Asserts `ids` are the events right after `lastSeen` on its stream: none missing, in order, each once. */
function assertFollows(ids: string[], lastSeen: string): void {
  const [stream, seq] = lastSeen.split('-');
  const nums = ids.map((id) => { assert.ok(id.startsWith(`${stream}-`), `${id} is of stream ${stream}`); return Number(id.split('-')[1]); });
  assert.deepEqual(nums, nums.map((_, k) => Number(seq) + 1 + k), `the events after ${lastSeen}, none missing, in order, once: ${ids.join(',')}`);
}

test('a GET stream resumed on another replica after its own was killed replays the events kept while it was away, in order, once', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const roomodes = join(c.project, '.roomodes');
  const probe = new RedisClient({ url: c.redis.url });
  t.after(() => probe.close());
  try {
    const { legacy, h, stream: first, holder } = await heldStream(c, ['mode://gamma', 'mode://delta']);
    saveFile(roomodes, modesYaml(['gamma', 'The gamma role.']));
    await first.next(updatedUri('mode://gamma'), 'mode://gamma updated on the GET stream', 15_000);
    const lastSeen = first.eventIds.at(-1)!;
    const token = lastSeen.split('-')[0]!;
    // The client drops its stream; the replica holding it keeps the session's events in the log.
    first.close();
    await first.closed;
    saveFile(roomodes, modesYaml(['gamma', 'The gamma role.'], ['delta', 'The delta role.']));
    await within(10_000, 'a Redis connection', probe.connected());
    await until('the delta update kept in the event log', async () => {
      const [, keys] = await probe.command('SCAN', '0', 'MATCH', `${c.prefix}sse:*${token}:events`, 'COUNT', '1000') as [string, string[]];
      if (keys.length !== 1) return undefined;
      return JSON.stringify(await probe.command('XRANGE', keys[0]!, '-', '+')).includes('mode://delta') ? true : undefined;
    }, 15_000);
    // Then its replica dies; the client comes back with the last id it has, and lands elsewhere.
    await c.replicas[holder]!.kill();
    const resumed = await legacy.stream('GET', { ...h, 'last-event-id': lastSeen });
    t.after(() => resumed.close());
    assert.equal(resumed.res.statusCode, 200, 'resumed');
    assert.notEqual(Number(resumed.res.headers['x-served-by']), holder, 'resumed on another replica');
    await resumed.next(updatedUri('mode://delta'), 'the missed mode://delta update, replayed', 15_000);
    t.diagnostic(`held by replica ${holder} (killed) up to ${lastSeen}; resumed on replica ${String(resumed.res.headers['x-served-by'])} with ${resumed.eventIds.join(',')}`);
    assertFollows(resumed.eventIds, lastSeen);
    assert.equal(resumed.messages.filter(updatedUri('mode://gamma')).length, 0, 'what the client had is not sent again');
    resumed.close();
    legacy.assertSchemaValid();
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; } finally {
    // The next tests want three replicas again.
    for (const r of c.replicas) if (!r.alive) { await r.start(); }
  }
});

// Only the holder of a GET stream logs the session's notifications, so a change made after it died
// and before the client is back is logged by nobody: the replica taking the stream over sees that
// the client was last told of another catalogue than its own, and announces the difference.
test('a GET stream cut by the death of its replica and resumed on another misses nothing that happened in between', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const roomodes = join(c.project, '.roomodes');
  try {
    const { legacy, sid, h, stream: first, holder } = await heldStream(c, ['mode://epsilon', 'mode://zeta']);
    saveFile(roomodes, modesYaml(['epsilon', 'The epsilon role.']));
    await first.next(updatedUri('mode://epsilon'), 'mode://epsilon updated on the GET stream', 15_000);
    const lastSeen = first.eventIds.at(-1)!;
    await c.replicas[holder]!.kill();
    await within(10_000, 'the cut GET stream to end', first.closed);
    // A change while the client reconnects (a real client waits a backoff first).
    saveFile(roomodes, modesYaml(['epsilon', 'The epsilon role.'], ['zeta', 'The zeta role.']));
    await until('zeta in the catalogue of the replicas left', async () => {
      const list = ok(await legacyCall(legacy, sid, 'list_modes'), 'list_modes');
      return (list.modes as { slug: string }[]).some((m) => m.slug === 'zeta') ? true : undefined;
    }, 15_000);
    const resumed = await legacy.stream('GET', { ...h, 'last-event-id': lastSeen });
    t.after(() => resumed.close());
    assert.equal(resumed.res.statusCode, 200, 'resumed');
    // A replay is written as the stream attaches: what is not there at once is not coming.
    await resumed.next(updatedUri('mode://zeta'), 'the mode://zeta update made while no replica held the stream', 5000);
    assertFollows(resumed.eventIds, lastSeen);
    resumed.close();
    legacy.assertSchemaValid();
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; } finally {
    for (const r of c.replicas) if (!r.alive) { await r.start(); }
  }
});

test('a replica killed with SIGKILL mid-burst loses no acknowledged change: the others serve every session on', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const load = switchLoad(c.client, await newSessions(c.client, 6));
  const victim = c.replicas[1]!;
  try {
    await until('a burst under way', () => (load.acknowledged() >= 30 ? true : undefined), 15_000);
    await victim.kill();
    const before = load.acknowledged();
    await until('the burst going on without it', () => (load.acknowledged() >= before + 30 ? true : undefined), 15_000);
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; } finally {
    await load.stop();
    await victim.start();
  }
  t.diagnostic(`${load.acknowledged()} switches acknowledged, ${load.refused.length} refused, ${load.cut} cut by the kill`);
  assert.deepEqual(load.refused, [], 'no switch was refused');
  await load.assertKept(c.client);
});

test('Redis stopped and started under load: precise retryable errors at once, tools without a session keep working, then recovery with no acknowledged write lost', { skip: ownRedisMissing }, async (t) => {
  // Its own Redis with an append-only file synced on every write: what a restart must not lose.
  const redis = await startRedis(t, { args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  const project = tempDir(t, 'rms-replicas-outage-');
  const replicas = await startReplicas(t, 2, { args: ['--store', redis.url, '--project-root', project] });
  const client = new HttpEndpoint((await startProxy(t, replicas)).url);
  const sessions = await newSessions(client, 4);
  const load = switchLoad(client, sessions);
  try {
    await until('some acknowledged switches', () => (load.acknowledged() >= 20 ? true : undefined), 15_000);
    await redis.stop();
    const refusedBefore = load.refused.length;
    await until('switches refused while Redis is down', () => (load.refused.length >= refusedBefore + 8 ? true : undefined), 15_000);
    // Reads that need no store are served all along.
    ok(await call(client, 'list_modes'), 'list_modes while Redis is down');
    ok(await call(client, 'get_mode_info', { mode_slug: 'code' }), 'get_mode_info while Redis is down');
    // validate_tool_use judges by the session's current mode, which is in Redis: it fails closed
    // (retryable), never answers on a guess.
    const check = await call(client, 'validate_tool_use', { session_id: sessions[0], tool_name: 'read_file' });
    assert.equal(check.ok, false, 'validate_tool_use fails closed while Redis is down');
    const down = await call(client, 'get_task_info', { session_id: sessions[0] });
    assert.equal(down.ok, false, 'a call that needs the store fails while Redis is down');
    await redis.start();
    // Every replica serves the store again, none restarted.
    for (const r of replicas) {
      await until(`replica ${r.index} to serve sessions again`, async () => ((await call(new HttpEndpoint(r.url), 'get_task_info', { session_id: sessions[0] })).ok ? true : undefined), 20_000, 100);
    }
    const before = load.acknowledged();
    await until('switches acknowledged after the restart', () => (load.acknowledged() >= before + 20 ? true : undefined), 15_000);
  } catch (err) { t.diagnostic(stderrOf(replicas)); throw err; } finally {
    await load.stop();
  }
  assert.ok(replicas.every((r) => r.alive && r.starts === 1), 'no replica was restarted');
  assert.equal(load.cut, 0, 'every call was answered');
  assert.ok(load.refused.length > 0, 'some calls met the outage');
  for (const { ms, o } of load.refused) {
    assert.ok(!o.ok && o.data.retryable === true, `a refusal during the outage is retryable: ${JSON.stringify(o)}`);
    assert.ok(!o.ok && /redis|store/i.test(o.message), `the message names the store: ${!o.ok ? o.message : ''}`);
    assert.ok(ms < 5000, `refused within 5 s, not after a hang (${ms} ms)`);
  }
  t.diagnostic(`${load.acknowledged()} switches acknowledged, ${load.refused.length} refused (slowest refusal ${Math.max(...load.refused.map((f) => f.ms))} ms)`);
  await load.assertKept(client);
});

test('a session idle past sessions.timeout is dropped by Redis and still answered as expired (-32003), not unknown (-32002)', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t, 'rms-replicas-ttl-');
  const prefix = `rms-ttl-${process.pid}:`;
  const config = join(project, 'server-config.json');
  // The sweep is left far off, so it is Redis's own TTL that drops the session.
  writeFileSync(config, JSON.stringify({ sessions: { timeout: 1, cleanup_interval: 3600 }, store: { url: redis.url, prefix } }));
  const replicas = await startReplicas(t, 2, { args: ['--config', config, '--project-root', project] });
  const [a, b] = replicas.map((r) => new HttpEndpoint(r.url)) as [HttpEndpoint, HttpEndpoint];
  const sid = ok(await call(a, 'create_task', { mode_slug: 'code' }), 'create_task').session_id as string;
  ok(await call(b, 'get_task_info', { session_id: sid }), 'the other replica sees the new session');
  const probe = new RedisClient({ url: redis.url });
  t.after(() => probe.close());
  await within(10_000, 'a Redis connection', probe.connected());
  await until('Redis to drop the idle session by its TTL', async () => (await probe.command('EXISTS', `${prefix}sess:${sid}`) === 0 ? true : undefined), 10_000, 50);
  const expired = await call(b, 'get_task_info', { session_id: sid });
  assert.equal(expired.ok, false, 'an expired session is not served');
  assert.equal(!expired.ok && expired.code, -32003, `expired, not unknown: ${JSON.stringify(expired)}`);
  const unknown = await call(a, 'get_task_info', { session_id: 'ses_neverexisted0000000000000000' });
  assert.equal(!unknown.ok && unknown.code, -32002, `an id never created is unknown: ${JSON.stringify(unknown)}`);
});
