// Legacy MCP sessions shared by two built servers on one test Redis (--store): a session started on
// one is served by the other, its state changes travel, DELETE ends it everywhere, the GET stream
// survives its replica's SIGKILL, and a stopped Redis gives retryable 503s until it is back.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type Msg } from './harness.js';
import { startHttp, type HttpServer } from './http-harness.js';
import { connectedClient, ownRedisMissing, redisMissing, startRedis, testRedis, type TestRedis } from '../redis-server.js';

const WATCHING = /watching \d+ folders for changes to the mode files/;
const CONNECTED = /connected to the store/;

const modesFile = (role: string): string =>
  `customModes:\n  - slug: reviewer\n    name: Reviewer\n    roleDefinition: ${role}\n    groups: [read]\n`;

/** Polls `check` until it holds or the deadline passes (no fixed sleeps). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A replica on `redis`, its mode files watched and its store connected. */
async function replica(t: TestContext, redis: TestRedis, project: string): Promise<HttpServer> {
  const s = await startHttp(t, ['--project-root', project, '--store', redis.url, '--log-level', 'debug']);
  await until('the mode files watched and the store connected', () => WATCHING.test(s.stderr) && CONNECTED.test(s.stderr));
  return s;
}

interface Pair { a: HttpServer; b: HttpServer; project: string; sid: string; h: { 'mcp-session-id': string } }

/** Two replicas on `redis` (default: the test's Redis) sharing one project, and a session initialized on `a`. */
async function started(t: TestContext, given?: TestRedis): Promise<Pair> {
  const redis = given ?? await testRedis(t);
  const project = tempDir(t, 'rms-store-sessions-');
  const [a, b] = await Promise.all([replica(t, redis, project), replica(t, redis, project)]);
  const sid = await initialize(a);
  return { a, b, project, sid, h: { 'mcp-session-id': sid } };
}

/** initialize on `s`; the session id. */
async function initialize(s: HttpServer): Promise<string> {
  const init = await s.post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'store-test', version: '1' } } });
  assert.equal(init.status, 200, init.body);
  const sid = init.headers['mcp-session-id'];
  assert.ok(typeof sid === 'string');
  return sid;
}

const rpc = (id: number | string, method: string, params: Record<string, unknown> = {}): Msg => ({ jsonrpc: '2.0', id, method, params });

test('a session started on one replica is served by the other, which sees its state changes; DELETE on one ends it on both', { skip: redisMissing }, async (t) => {
  const { a, b, project, h } = await started(t);
  assert.equal((await b.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status, 202);
  const call = await b.post(rpc(1, 'tools/call', { name: 'list_modes', arguments: {} }), h);
  assert.equal(call.status, 200, call.body);
  assert.match(JSON.stringify(call.messages[0]?.result), /code/);
  const read = await b.post(rpc(2, 'resources/read', { uri: 'mode://architect' }), h);
  assert.equal(read.messages[0]?.result?.contents?.[0]?.uri, 'mode://architect', read.body);

  // A holds the GET stream; the level is set through B; A's copy must know it to send A's log records.
  const stream = await a.stream('GET', h);
  assert.equal(stream.res.statusCode, 200);
  assert.deepEqual((await b.post(rpc(3, 'logging/setLevel', { level: 'debug' }), h)).messages[0]?.result, {});
  let edits = 0;
  await until('a log message on the GET stream held by the replica that did not set the level', async () => {
    writeFileSync(join(project, '.roomodes'), modesFile(`Reviews ${++edits}.`));
    try { await stream.next((m) => m.method === 'notifications/message', 'a log message', 1000); return true; } catch { return false; }
  }, 15_000);
  stream.close();

  const del = await a.send('DELETE', undefined, h);
  assert.equal(del.status, 200);
  const after = await b.post(rpc(4, 'ping'), h);
  assert.equal(after.status, 404, 'the other replica knows at once');
  assert.equal((await a.post(rpc(5, 'ping'), h)).status, 404);
  a.assertSchemaValid();
  b.assertSchemaValid();
});

test('a subscription made on one replica is announced once, on the GET stream the other holds', { skip: redisMissing }, async (t) => {
  const { a, b, project, h } = await started(t);
  const stream = await b.stream('GET', h);
  assert.equal(stream.res.statusCode, 200);
  assert.deepEqual((await a.post(rpc(1, 'resources/subscribe', { uri: 'mode://reviewer' }), h)).messages[0]?.result, {});
  const updates = (): Msg[] => stream.messages.filter((m) => m.method === 'notifications/resources/updated' && (m.params as { uri?: string } | undefined)?.uri === 'mode://reviewer');
  writeFileSync(join(project, '.roomodes'), modesFile('Reviews.'));
  await stream.next(() => updates().length === 1, 'resources/updated on the GET stream');
  // A second edit: had the first been sent twice (once per replica), the copy would be here by now.
  writeFileSync(join(project, '.roomodes'), modesFile('Reviews again.'));
  await stream.next(() => updates().length === 2, 'the second resources/updated');
  const prompts = stream.messages.filter((m) => m.method === 'notifications/prompts/list_changed').length;
  assert.equal(prompts, 2, 'each change announced once');
  const numbers = stream.eventIds.map((id) => Number(id.split('-')[1]));
  assert.deepEqual(numbers, numbers.map((_, i) => numbers[0]! + i), 'event ids rise by one, none repeated');
  stream.close();
});

test('the GET stream of a replica killed mid-stream resumes on another with every missed event once, in order, then live', { skip: redisMissing }, async (t) => {
  const { a, b, project, h } = await started(t);
  await a.post(rpc(1, 'resources/subscribe', { uri: 'mode://reviewer' }), h);
  const onA = await a.stream('GET', h);
  writeFileSync(join(project, '.roomodes'), modesFile('One.'));
  await onA.next((m) => m.method === 'notifications/resources/updated', 'the first update on A');
  writeFileSync(join(project, '.roomodes'), modesFile('Two.'));
  await onA.next((m) => onA.messages.filter((x) => x.method === 'notifications/resources/updated').length === 2 && m === onA.messages.at(-1), 'the second update on A');
  const seen = [...onA.eventIds];
  const texts = onA.messages.map((m) => JSON.stringify(m));
  assert.ok(seen.length >= 4, `events on A: ${seen.join(' ')}`);
  a.kill();
  await a.exit;

  // The client had processed only the first event when A died: everything after it comes from B.
  const resumed = await b.stream('GET', { ...h, 'last-event-id': seen[0]! });
  assert.equal(resumed.res.statusCode, 200);
  await resumed.next(() => resumed.messages.length >= seen.length - 1, 'the missed events');
  assert.deepEqual(resumed.eventIds.slice(0, seen.length - 1), seen.slice(1));
  assert.deepEqual(resumed.messages.slice(0, seen.length - 1).map((m) => JSON.stringify(m)), texts.slice(1));
  // Live on B, numbered after A's events.
  writeFileSync(join(project, '.roomodes'), modesFile('Three.'));
  await resumed.next(() => resumed.messages.slice(seen.length - 1).some((m) => m.method === 'notifications/resources/updated'), 'a live update on B');
  const token = seen[0]!.split('-')[0]!;
  const last = Number(seen.at(-1)!.split('-')[1]);
  assert.equal(resumed.eventIds[seen.length - 1], `${token}-${last + 1}`);
  assert.equal(new Set(resumed.eventIds).size, resumed.eventIds.length, 'no event twice');
  resumed.close();

  const refused = async (last: string, status: number, says: RegExp): Promise<void> => {
    const r = await b.send('GET', undefined, { ...h, accept: 'text/event-stream', 'last-event-id': last });
    assert.equal(r.status, status, `${last}: ${r.body}`);
    assert.match(r.messages[0]?.error?.message, says);
  };
  await refused('not-an-id!', 400, /^Bad Request: cannot resume: .* is not an event id of this server/);
  await refused(`${'0'.repeat(32)}-1`, 404, /another stream/);
  await refused(`${token}-${last + 50}`, 404, /later than any event/);
});

test('with Redis stopped the GET stream ends unwritten, a session not held here is a retryable 503 while the replica holding it serves on, and after Redis is back it is served again without a restart', { skip: ownRedisMissing }, async (t) => {
  // Append-only file on: the restarted Redis still has the session (a real deployment's durability setting).
  const redis = await startRedis(t, { args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  const { a, b, project, sid, h } = await started(t, redis);
  const stream = await a.stream('GET', h);
  assert.equal(stream.res.statusCode, 200);
  await redis.stop();
  // An event the log cannot keep is never written: the GET response ends instead (the client resumes later).
  writeFileSync(join(project, '.roomodes'), modesFile('While Redis is down.'));
  await until('the GET response ending', () => stream.ended);
  assert.deepEqual(stream.messages, [], 'no event reached the client');
  assert.match(a.stderr, /GET stream [0-9a-f]{32} of an MCP session ended: .*Last-Event-ID/);
  const down = await b.post(rpc(1, 'tools/call', { name: 'list_modes', arguments: {} }), h);
  assert.equal(down.status, 503, down.body);
  assert.equal(down.headers['retry-after'], '1');
  const error = down.messages[0]?.error;
  assert.equal(error?.code, -32603);
  assert.equal(error?.data?.retryable, true);
  assert.equal(error?.data?.store, 'redis');
  assert.match(error?.message, /session store \(Redis at redis:\/\/127\.0\.0\.1:\d+\) cannot be used: finding the session failed/);
  // The replica holding the session goes on serving it: what needs no store answers, what changes
  // the session's record fails on its own, retryable.
  const held = await a.post(rpc(4, 'tools/call', { name: 'list_modes', arguments: {} }), h);
  assert.equal(held.status, 200, held.body);
  assert.equal(held.messages[0]?.error, undefined, held.body);
  const level = await a.post(rpc(5, 'logging/setLevel', { level: 'debug' }), h);
  assert.equal(level.messages[0]?.error?.code, -32603, level.body);
  assert.equal(level.messages[0]?.error?.data?.retryable, true, level.body);
  const init = await a.post(rpc('i2', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x' } }));
  // Degraded, not refused (issue 35 §4; store-degrade.test.ts tests it in full): a session of A alone.
  assert.equal(init.status, 200, `a new session is accepted as a local one while its record cannot be kept: ${init.body}`);
  await redis.start();
  await until('B serving the session again', async () => (await b.post(rpc(2, 'ping'), h)).status === 200, 15_000);
  const call = await b.post(rpc(3, 'tools/call', { name: 'list_modes', arguments: {} }), h);
  assert.equal(call.status, 200, call.body);
  const keys = await (await connectedClient(t, { url: redis.url })).command('KEYS', 'rms:mcp:{*');
  assert.deepEqual(keys, [`rms:mcp:{${sid}}`], 'the local session left no record behind');
});
