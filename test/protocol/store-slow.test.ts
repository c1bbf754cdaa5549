// A Redis that answers slowly (issue 35 §8), through the built server: a small TCP proxy in the test
// delays every byte between the server and a real redis-server. A little slower than usual, every
// call answers correctly; slower than store.command_timeout_ms, the calls that need the store answer
// the retryable error within that timeout, the others are not held up, new legacy sessions are
// local ones, and nothing hangs; once Redis is quick again, everything is served from the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { RedisClient } from '../../src/redis/client.js';
import { redisMissing, testRedis, within } from '../redis-server.js';
import { until } from '../replicas.js';
import { tempDir } from './harness.js';
import { startHttp, type HttpServer } from './http-harness.js';
import { call, legacyCall, nextId, ok, type Outcome } from './replica-calls.js';

const TIMEOUT_MS = 400;

/** A TCP proxy that holds every chunk `delay.ms` before passing it on, in order, both ways. */
async function delayingProxy(t: { after(fn: () => void | Promise<void>): void }, port: number): Promise<{ port: number; delay: { ms: number } }> {
  const delay = { ms: 0 };
  const sockets = new Set<Socket>();
  // Each direction is a queue: a chunk leaves at its time, never before the one ahead of it.
  const relay = (from: Socket, to: Socket): void => {
    const queue: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | null = null;
    const flush = (): void => {
      timer = null;
      while (queue.length > 0 && queue[0]!.at <= Date.now()) if (!to.destroyed) to.write(queue.shift()!.chunk); else queue.shift();
      if (queue.length > 0) timer = setTimeout(flush, queue[0]!.at - Date.now());
    };
    from.on('data', (chunk: Buffer) => {
      const at = Math.max(Date.now() + delay.ms, queue.at(-1)?.at ?? 0);
      queue.push({ at, chunk });
      if (timer === null) timer = setTimeout(flush, at - Date.now());
    });
    from.on('close', () => { if (timer) clearTimeout(timer); to.destroy(); });
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }));
  return { port: (server.address() as AddressInfo).port, delay };
}

/** Runs `fn` and returns what it gave and how long it took. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - start };
}

async function initialize(s: HttpServer): Promise<string> {
  const init = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'slow', version: '1' } } });
  assert.equal(init.status, 200, `initialize: ${init.body}`);
  const sid = String(init.headers['mcp-session-id']);
  assert.equal((await s.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid })).status, 202);
  return sid;
}

function retryable(o: Outcome, what: string): void {
  assert.equal(o.ok, false, `${what} fails while Redis is too slow`);
  if (o.ok) return;
  assert.equal(o.data.retryable, true, `${what}: retryable (${o.code} ${o.message} ${JSON.stringify(o.data)})`);
}

test('a slow Redis: calls answer correctly while it is within the command timeout, with the retryable error within it past that, and nothing hangs', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const proxy = await delayingProxy(t, redis.port);
  const dir = tempDir(t, 'rms-slow-');
  const config = join(dir, 'config.json');
  const prefix = `slow${process.pid}:`;
  writeFileSync(config, JSON.stringify({ store: { url: `redis://127.0.0.1:${proxy.port}`, prefix, command_timeout_ms: TIMEOUT_MS } }));
  const s = await startHttp(t, ['--config', config, '--project-root', dir]);
  const probe = new RedisClient({ url: redis.url });
  t.after(() => probe.close());
  await within(10_000, 'a Redis connection', probe.connected());
  try {
    const task = ok(await call(s, 'create_task', { mode_slug: 'code' }), 'create_task, Redis quick').session_id as string;

    // Slower, still within the timeout: 60 ms each way, a round trip of 120 ms against 400.
    proxy.delay.ms = 60;
    const sid = await initialize(s);
    assert.equal(await probe.command('EXISTS', `${prefix}mcp:{${sid}}`), 1, 'a session made while Redis is slow is still recorded');
    const created = await timed(() => legacyCall(s, sid, 'create_task', { mode_slug: 'code' }));
    const slowTask = ok(created.value, 'create_task, Redis slow').session_id as string;
    ok(await call(s, 'switch_mode', { session_id: slowTask, new_mode_slug: 'architect' }), 'switch_mode, Redis slow');
    const info = ok(await call(s, 'get_task_info', { session_id: slowTask }), 'get_task_info, Redis slow');
    assert.equal((info.task as { mode_slug: string }).mode_slug, 'architect', 'the switch made while Redis was slow is kept');
    t.diagnostic(`create_task took ${created.ms} ms with a 120 ms round trip`);

    // Slower than the timeout: 1 s each way.
    proxy.delay.ms = 1000;
    const burst = await timed(() => Promise.all([
      ...Array.from({ length: 6 }, () => call(s, 'get_task_info', { session_id: task })),
      call(s, 'create_task', { mode_slug: 'code' }),
    ]));
    for (const [i, o] of burst.value.entries()) retryable(o, `call ${i} with Redis past its timeout`);
    assert.ok(burst.value.some((o) => !o.ok && /gave no reply to \S+ within 400 ms/.test(o.message)), 'the configured timeout (store.command_timeout_ms) is the one that ran out, and the error says so');
    assert.ok(burst.ms < TIMEOUT_MS + 1500, `the calls that need the store answered within their timeout: ${burst.ms} ms (timeout ${TIMEOUT_MS} ms)`);
    // What needs no store is not held up by it, in either era.
    const modes = await timed(() => call(s, 'list_modes'));
    ok(modes.value, 'list_modes, Redis too slow');
    assert.ok(modes.ms < 1000, `list_modes took ${modes.ms} ms`);
    ok(await legacyCall(s, sid, 'get_mode_info', { mode_slug: 'code' }), 'get_mode_info in the session held here');
    // A new legacy session is accepted, as a local one, without waiting for Redis longer than the timeout.
    const local = await timed(() => initialize(s));
    assert.ok(local.ms < TIMEOUT_MS + 1500, `initialize took ${local.ms} ms`);
    ok(await legacyCall(s, local.value, 'list_modes'), 'list_modes in the local session');
    retryable(await legacyCall(s, local.value, 'create_task', { mode_slug: 'code' }), 'create_task in the local session');

    // Quick again: the replica recovers by itself.
    proxy.delay.ms = 0;
    await until('get_task_info served from the store again', async () => ((await call(s, 'get_task_info', { session_id: task })).ok ? true : undefined), 15_000, 100);
    const again = await initialize(s);
    assert.equal(await probe.command('EXISTS', `${prefix}mcp:{${again}}`), 1, 'new sessions are recorded again');
    const after = ok(await call(s, 'get_task_info', { session_id: slowTask }), 'get_task_info after');
    assert.equal((after.task as { mode_slug: string }).mode_slug, 'architect');
    assert.match(s.stderr, /lost the store .*: the Redis connection was reset after \S+ timed out/, 'the slow store is said once, as lost');
  } catch (err) { t.diagnostic(s.stderr.slice(-4000)); throw err; }
});
