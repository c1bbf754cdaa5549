// `--store redis://…` through the built server: mode-file writes from two servers take turns under
// the Redis lease (no host lock file), changes are announced on the store's channel and a peer's
// announcement reloads a server, store-needing tools fail fast and precisely while Redis is down
// and recover without a restart, and the URL is checked before serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAIN, type Msg } from './harness.js';
import { META_2026, startHttp, type HttpServer } from './http-harness.js';
import { ownRedisMissing, redisMissing, startRedis, testRedis } from '../redis-server.js';
import { RedisClient } from '../../src/redis/client.js';
import { RedisSubscriber } from '../../src/redis/subscriber.js';

const HEADERS = { 'mcp-protocol-version': '2026-07-28' };

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'rms-store-proj-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function call(s: HttpServer, id: number, name: string, args: Record<string, unknown>): Promise<Msg> {
  const r = await s.modern(id, 'tools/call', { name, arguments: args });
  assert.equal(r.messages.length, 1, r.body);
  return r.messages[0]!;
}

const text = (m: Msg): string => JSON.stringify(m);

async function client(t: { after(fn: () => void): void }, url: string): Promise<RedisClient> {
  const c = new RedisClient({ url });
  t.after(() => c.close());
  await c.connected();
  return c;
}

test('mode-file writes from two servers on one store take turns under the lease: every create lands, no lock file', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t);
  const [a, b] = await Promise.all([0, 1].map(() => startHttp(t, ['--project-root', project, '--store', redis.url])));
  const slugs = Array.from({ length: 8 }, (_, i) => `m${i}`);
  const answers = await Promise.all(slugs.map((slug, i) => call(i % 2 ? b! : a!, i + 1, 'create_mode', {
    slug, name: slug.toUpperCase(), role_definition: `You handle ${slug}.`, groups: [{ group: 'read' }],
  })));
  for (const m of answers) assert.equal((m.result as { isError?: boolean } | undefined)?.isError, undefined, text(m));
  const file = readFileSync(join(project, '.roomodes'), 'utf8');
  for (const slug of slugs) assert.match(file, new RegExp(`slug: ${slug}\\b`), `${slug} in .roomodes`);
  assert.equal(existsSync(join(project, '.roomodes.lock')), false, 'the host lock file is not used with a store');
  // Mode-set writes take their turn under the store's lease as well (a pid lock file means nothing to another host).
  const sets = await Promise.all([a!, b!].map((s, i) => call(s, 50 + i, 'orchestrator_mode_create', { mode_name: `set${i}` })));
  for (const m of sets) assert.equal((m.result as { isError?: boolean } | undefined)?.isError, undefined, text(m));
  assert.equal(existsSync(join(project, '.task_orchestrator', '.modesets.lock')), false, 'no mode-set lock file either');
  const keys = await (await client(t, redis.url)).command('KEYS', 'rms:fence:*');
  assert.ok(Array.isArray(keys) && keys.length === 2, `fence counters for .roomodes and the mode sets: ${JSON.stringify(keys)}`);
});

test('a write waits while another replica holds the lease, then goes on', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t);
  const s = await startHttp(t, ['--project-root', project, '--store', redis.url]);
  // Started and tidied: the services (and their lease use) are up before the lease is taken by hand.
  await call(s, 1, 'list_modes', {});
  const c = await client(t, redis.url);
  const { createHash } = await import('node:crypto');
  const h = createHash('sha256').update('project:.roomodes').digest('hex').slice(0, 32);
  assert.equal(await c.command('SET', `rms:lease:{${h}}`, '7\nother-replica\n4242\nelsewhere', 'PX', '60000'), 'OK');
  const pending = call(s, 2, 'create_mode', { slug: 'waiter', name: 'Waiter', role_definition: 'You wait.', groups: [{ group: 'read' }] });
  // The write cannot finish while the lease is held: poll a little to see it has not.
  const settled = await Promise.race([pending.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 300))]);
  assert.equal(settled, false, 'the create waited for the lease');
  assert.equal(existsSync(join(project, '.roomodes')), false);
  await c.command('DEL', `rms:lease:{${h}}`);
  const done = await pending;
  assert.equal((done.result as { isError?: boolean }).isError, undefined, text(done));
  assert.match(readFileSync(join(project, '.roomodes'), 'utf8'), /slug: waiter/);
});

test('changes are announced on the store channel, and a peer\'s announcement reloads this server', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t);
  writeFileSync(join(project, 'AGENTS.md'), 'Be brief.\n');
  const s = await startHttp(t, ['--project-root', project, '--store', redis.url]);
  const heard: string[] = [];
  const sub = new RedisSubscriber({ url: redis.url }, (m) => heard.push(m.message));
  t.after(() => sub.close());
  await sub.connected();
  await sub.subscribe('rms:modes:changed');
  const created = await call(s, 1, 'create_mode', { slug: 'told', name: 'Told', role_definition: 'You are told.', groups: [{ group: 'read' }] });
  assert.equal((created.result as { isError?: boolean }).isError, undefined, text(created));
  const deadline = Date.now() + 5000;
  while (!heard.some((m) => m.includes('"told"')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const message = JSON.parse(heard.find((m) => m.includes('"told"')) ?? 'null') as { v: number; origin: string; changedSlugs: string[]; listChanged: boolean } | null;
  assert.ok(message, `an announcement of "told": ${JSON.stringify(heard)}`);
  assert.equal(message.v, 1);
  assert.deepEqual(message.changedSlugs, ['told']);
  assert.equal(message.listChanged, true);

  // Another server says every prompt changed (its AGENTS.md watcher fired): nothing changed here on
  // disk, so only the peer's message can make this server announce the composed prompts as updated.
  const listen = await s.stream('POST', { ...HEADERS, 'mcp-method': 'subscriptions/listen' }, {
    jsonrpc: '2.0', id: 9, method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: ['mode://code/system_prompt'] }, _meta: META_2026 },
  });
  t.after(() => listen.close());
  await listen.next((m) => m.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement');
  const c = await client(t, redis.url);
  await c.command('PUBLISH', 'rms:modes:changed', JSON.stringify({ v: 1, origin: 'peer-1', changedSlugs: [], listChanged: false, promptsChanged: true }));
  const updated = await listen.next((m) => m.method === 'notifications/resources/updated', 'resources/updated after the peer\'s message');
  assert.equal((updated.params as { uri: string }).uri, 'mode://code/system_prompt');
  // A message that is not one of ours is dropped with a warning, and the server goes on.
  await c.command('PUBLISH', 'rms:modes:changed', '{"v":1,"origin":"x y","changedSlugs":"all"}');
  assert.equal((await call(s, 3, 'list_modes', {})).error, undefined);
});

test('with Redis down, store tools answer at once with a retryable error, the others keep working, and all recover', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const project = tempDir(t);
  const s = await startHttp(t, ['--project-root', project, '--store', redis.url]);
  const made = await call(s, 1, 'create_task', { mode_slug: 'code' });
  const sid = (made.result as { structuredContent: { session_id: string } }).structuredContent.session_id;
  await redis.stop();
  const started = Date.now();
  const down = await call(s, 2, 'get_task_info', { session_id: sid });
  assert.ok(Date.now() - started < 2000, 'answered at once, not after a timeout');
  assert.equal(down.error?.code, -32603, text(down));
  const data = down.error?.data as { retryable: boolean; store: string; may_have_run: boolean };
  assert.equal(data.retryable, true);
  assert.equal(data.store, 'redis');
  assert.match(down.error!.message, /Redis at 127\.0\.0\.1:\d+/);
  const write = await call(s, 3, 'create_mode', { slug: 'later', name: 'Later', role_definition: 'Later.', groups: [{ group: 'read' }] });
  assert.equal(write.error?.code, -32004, text(write));
  assert.equal((write.error?.data as { error_type: string; written: boolean; retryable: boolean }).error_type, 'store_unavailable');
  assert.equal((write.error?.data as { written: boolean }).written, false);
  assert.equal(existsSync(join(project, '.roomodes')), false, 'nothing written without the lease');
  // Tools that need no store are not held up.
  const served = (m: Msg): Record<string, unknown> => {
    const r = m.result as { isError?: boolean; structuredContent?: Record<string, unknown> } | undefined;
    assert.ok(r && r.isError === undefined && r.structuredContent, text(m));
    return r.structuredContent;
  };
  assert.ok((served(await call(s, 4, 'list_modes', {})).modes as unknown[]).length >= 5);
  assert.equal(served(await call(s, 5, 'get_mode_info', { mode_slug: 'code' })).slug, 'code');
  // validate_tool_use judges by the session's current mode, kept in Redis: it fails closed, retryable.
  const check = await call(s, 6, 'validate_tool_use', { session_id: sid, tool_name: 'read_file' });
  assert.equal(check.error?.code, -32603, text(check));
  assert.equal((check.error?.data as { retryable: boolean }).retryable, true);
  await redis.start();
  // The server reconnects by itself (backoff); poll until the session answers again.
  const deadline = Date.now() + 15_000;
  let back: Msg | undefined;
  for (let id = 10; Date.now() < deadline; id++) {
    back = await call(s, id, 'get_task_info', { session_id: sid });
    if (back.error === undefined || back.error.code !== -32603) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The test's Redis keeps nothing across a restart (no AOF): the session is gone, and said to be.
  assert.equal(back?.error?.code, -32002, back && text(back));
  assert.match(back!.error!.message, /shared store \(Redis at/);
  const again = await call(s, 99, 'create_task', { mode_slug: 'code' });
  assert.equal(again.error, undefined, text(again));
  assert.match(s.stderr, /lost the store redis:\/\/127\.0\.0\.1:\d+/);
  assert.match(s.stderr, /reconnected to the store/);
});

test('the store URL is checked before serving, and its password is never echoed', () => {
  const run = (args: string[], env: Record<string, string> = {}): { status: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [MAIN, 'serve', '--http', '--port', '0', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 10_000 });
    return { status: r.status, stderr: r.stderr };
  };
  const bad = run(['--store', 'http://127.0.0.1:6379']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /store\.url \(--store \/ ROO_MODES_STORE\): Redis URL: the scheme is "http:"/);
  const env = run([], { ROO_MODES_STORE: 'redis://:s3cret-pass@127.0.0.1:notaport' });
  assert.equal(env.status, 2, env.stderr);
  assert.match(env.stderr, /store\.url/);
  assert.doesNotMatch(env.stderr, /s3cret-pass/);
});

test('a server killed with SIGKILL mid-burst loses no acknowledged session change: another server has every one, once', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t);
  const [a, b] = await Promise.all([0, 1].map(() => startHttp(t, ['--project-root', project, '--store', redis.url])));
  const made = await call(a!, 1, 'create_task', { mode_slug: 'code' });
  const sid = (made.result as { structuredContent: { session_id: string } }).structuredContent.session_id;
  const acknowledged: string[] = [];
  const burst = Array.from({ length: 200 }, (_, i) => (async () => {
    const reason = `step-${i}`;
    try {
      const m = await call(a!, 100 + i, 'switch_mode', { session_id: sid, new_mode_slug: i % 2 ? 'code' : 'ask', reason });
      if (m.error === undefined) acknowledged.push(reason);
    } catch { /* the connection died with the server: not acknowledged */ }
  })());
  // Killed once some changes are acknowledged and more are still in flight.
  const deadline = Date.now() + 10_000;
  while (acknowledged.length < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  a!.kill();
  await Promise.all(burst);
  assert.ok(acknowledged.length >= 20, `changes acknowledged before the kill: ${acknowledged.length}`);
  const info = await call(b!, 2, 'get_task_info', { session_id: sid });
  const history = (info.result as { structuredContent: { task: { mode_history: { reason?: string }[] } } }).structuredContent.task.mode_history;
  const reasons = history.map((h) => h.reason);
  for (const r of acknowledged) assert.equal(reasons.filter((x) => x === r).length, 1, `${r} is in the history once`);
  assert.equal(new Set(reasons).size, reasons.length, 'no change applied twice');
});

test('a server waits a bounded time for its store before listening, then serves anyway and connects when the store comes', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t);
  const project = tempDir(t);
  // Reachable: connected before the ready line, so a balancer's first request finds the store.
  const up = await startHttp(t, ['--project-root', project, '--store', redis.url]);
  const connected = up.stderr.indexOf('connected to the store');
  assert.ok(connected >= 0 && connected < up.stderr.indexOf('listening on'), up.stderr);
  up.kill();
  // Unreachable at start: a warning, then the ready line; tools without the store work.
  await redis.stop();
  const s = await startHttp(t, ['--project-root', project, '--store', redis.url]);
  assert.match(s.stderr, /cannot reach the store redis:\/\/127\.0\.0\.1:\d+/);
  assert.match(s.stderr, /warning: the store redis:\/\/127\.0\.0\.1:\d+ is not reachable yet \(.*ECONNREFUSED.*\); serving anyway/);
  assert.ok((await call(s, 1, 'list_modes', {})).result, 'list_modes answers');
  assert.equal((await call(s, 2, 'create_task', { mode_slug: 'code' })).error?.code, -32603);
  await redis.start();
  const deadline = Date.now() + 15_000;
  let made: Msg | undefined;
  for (let id = 3; Date.now() < deadline; id++) {
    made = await call(s, id, 'create_task', { mode_slug: 'code' });
    if (made.error === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(made?.error, undefined, made && text(made));
  assert.match(s.stderr, /INFO \[store\] connected to the store/);
});

test('a wrong Redis password reads as refused credentials, not as "not reachable yet, retry later"', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: ['--requirepass', 'right-password'] });
  const project = tempDir(t);
  const s = await startHttp(t, ['--project-root', project, '--store', `redis://:wrong-password@127.0.0.1:${redis.port}`]);
  assert.match(s.stderr, /warning: the store redis:\/\/\*\*\*@127\.0\.0\.1:\d+ refused the credentials \(.*WRONGPASS.*\); serving anyway: tools that need the store fail until the password/);
  assert.doesNotMatch(s.stderr, /not reachable yet|retry later/);
  assert.doesNotMatch(s.stderr, /wrong-password/, 'the password is never printed');
  const refused = await call(s, 1, 'create_task', { mode_slug: 'code' });
  assert.equal(refused.error?.data?.retryable, false, text(refused));
  assert.equal(refused.error?.data?.redis_error, 'auth', text(refused));
  assert.match(refused.error?.message ?? '', /refused the credentials/);
});

test('a rediss:// store is reached over TLS, its certificate checked against the CAs Node is given', { skip: ownRedisMissing }, async (t) => {
  const dir = fileURLToPath(new URL('../fixtures/redis-tls/', import.meta.url));
  const files = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), ca: join(dir, 'cert.pem') };
  const redis = await startRedis(t, { tls: files });
  const project = tempDir(t);
  const url = `rediss://localhost:${redis.port}`;
  // Trusted through NODE_EXTRA_CA_CERTS, as the deployment page says for a private CA.
  const s = await startHttp(t, ['--project-root', project, '--store', url], { NODE_EXTRA_CA_CERTS: files.ca });
  const made = await call(s, 1, 'create_task', { mode_slug: 'code' });
  assert.equal(made.error, undefined, text(made));
  // Without it the certificate is refused, and the store stays away: no silent plain-text fallback.
  const untrusted = await startHttp(t, ['--project-root', project, '--store', url]);
  assert.match(untrusted.stderr, /cannot reach the store rediss:\/\/localhost:\d+: .*certificate/i);
  assert.equal((await call(untrusted, 1, 'create_task', { mode_slug: 'code' })).error?.code, -32603);
});

test('stdio servers share task sessions through the store too, the first call finding it connected', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t);
  const run = (call: { name: string; arguments: Record<string, unknown> }): Msg => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: call },
    ].map((m) => JSON.stringify(m)).join('\n');
    const r = spawnSync(process.execPath, [MAIN, '--store', redis.url, '--project-root', project], { input: `${lines}\n`, encoding: 'utf8', timeout: 20_000 });
    const answer = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Msg).find((m) => m.id === 2);
    assert.ok(answer, `an answer to the call: ${r.stdout}\n${r.stderr}`);
    return answer;
  };
  const made = run({ name: 'create_task', arguments: { mode_slug: 'code' } });
  assert.equal(made.error, undefined, text(made));
  const sid = (made.result as { structuredContent: { session_id: string } }).structuredContent.session_id;
  const info = run({ name: 'get_task_info', arguments: { session_id: sid } });
  assert.equal((info.result as { structuredContent: { task: { mode_slug: string } } }).structuredContent.task.mode_slug, 'code', text(info));
});
