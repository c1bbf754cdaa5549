import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../src/log.js';
import { RpcError } from '../../src/rpc/errors.js';
import { SessionStore } from '../../src/tasks/sessions.js';

const T0 = Date.parse('2025-03-01T00:00:00.000Z');

function memoryStore(opts: { timeoutSeconds?: number; maxTombstones?: number } = {}) {
  const clock = { t: T0 };
  const store = new SessionStore({
    timeoutSeconds: opts.timeoutSeconds ?? 60, cleanupIntervalSeconds: 0, persistenceDir: null,
    log: silentLogger, now: () => clock.t,
    ...(opts.maxTombstones === undefined ? {} : { maxTombstones: opts.maxTombstones }),
  });
  return { store, clock };
}

const code = (n: number) => (err: unknown) => {
  assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
  assert.equal(err.code, n, err.message);
  return true;
};

test('create returns a session with an unguessable id, its task and ISO timestamps', async () => {
  const { store } = memoryStore();
  const s = await store.create({ modeSlug: 'code', initialMessage: 'build it' });
  assert.match(s.session_id, /^ses_[0-9a-f]{24}$/);
  assert.match(s.task.task_id, /^task_[0-9a-f]{24}$/);
  assert.equal(s.created_at, '2025-03-01T00:00:00.000Z');
  assert.equal(s.last_accessed, s.created_at);
  assert.equal(s.task.state, 'active');
  assert.deepEqual(s.task.messages, [{ role: 'user', content: 'build it', timestamp: s.created_at }]);
  assert.equal(store.size(), 1);
});

test('every access refreshes last_accessed and keeps the session alive past one timeout', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 60 });
  const s = await store.create({ modeSlug: 'code' });
  clock.t += 50_000;
  assert.equal((await store.get(s.session_id)).last_accessed, new Date(T0 + 50_000).toISOString());
  clock.t += 50_000;
  const again = await store.get(s.session_id);
  assert.equal(again.created_at, s.created_at);
  assert.equal(again.last_accessed, new Date(T0 + 100_000).toISOString());
});

test('modeOf answers the current mode, counts as an access and reports unknown and expired ids', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 60 });
  const s = await store.create({ modeSlug: 'code' });
  await store.switchMode(s.session_id, 'ask');
  clock.t += 50_000;
  assert.equal(await store.modeOf(s.session_id), 'ask');
  clock.t += 50_000; // 100 s after creation but 50 s after the modeOf access: still alive
  assert.equal((await store.get(s.session_id)).last_accessed, new Date(T0 + 100_000).toISOString());
  clock.t += 60_000;
  await assert.rejects(async () => store.modeOf(s.session_id), code(-32003));
  await assert.rejects(async () => store.modeOf('ses_000000000000000000000000'), code(-32002));
});

test('modeOf answers at once in memory when nothing waits on the session, and after a queued change otherwise', async () => {
  const { store } = memoryStore({ timeoutSeconds: 60 });
  const s = await store.create({ modeSlug: 'code' });
  assert.equal(store.modeOf(s.session_id), 'code', 'a plain value: no promise, no chain');
  const switching = store.switchMode(s.session_id, 'ask'); // queued on the session's chain
  const mode = store.modeOf(s.session_id);
  assert.ok(mode instanceof Promise, 'behind a pending change it waits its turn');
  assert.equal(await mode, 'ask');
  await switching;
  assert.equal(store.modeOf(s.session_id), 'ask');
});

test('an expired session answers -32003 on access, before any sweep, and an unknown id -32002', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 60 });
  const s = await store.create({ modeSlug: 'code' });
  clock.t += 60_000;
  await assert.rejects(store.get(s.session_id), code(-32003));
  await assert.rejects(store.switchMode(s.session_id, 'ask'), code(-32003));
  await assert.rejects(store.get('ses_000000000000000000000000'), code(-32002));
  assert.equal(store.size(), 0);
});

test('after the sweep removed an expired session it still answers -32003', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 10 });
  const old = await store.create({ modeSlug: 'code' });
  clock.t += 5_000;
  const young = await store.create({ modeSlug: 'ask' });
  clock.t += 6_000;
  assert.equal(await store.sweep(), 1);
  assert.equal(store.size(), 1);
  await assert.rejects(store.get(old.session_id), code(-32003));
  assert.equal((await store.get(young.session_id)).task.mode_slug, 'ask');
});

test('the tombstone set is bounded: the oldest expired id falls back to -32002', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 10, maxTombstones: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await store.create({ modeSlug: 'code' })).session_id);
    clock.t += 1;
  }
  clock.t += 20_000;
  assert.equal(await store.sweep(), 3);
  await assert.rejects(store.get(ids[0] as string), code(-32002));
  await assert.rejects(store.get(ids[1] as string), code(-32003));
  await assert.rejects(store.get(ids[2] as string), code(-32003));
});

test('ids that are not ses_ plus 24 lowercase hex are refused as unknown', async () => {
  const { store } = memoryStore();
  for (const bad of ['', 'ses_', '../../etc/passwd', 'ses_ABCDEF000000000000000000', 'ses_000000000000000000000000/x', 'ses_00000000000000000000000']) {
    await assert.rejects(store.get(bad), code(-32002), bad);
    await assert.rejects(store.complete(bad, 'completed'), code(-32002), bad);
  }
});

test('switchMode returns the old mode and appends to the mode history', async () => {
  const { store, clock } = memoryStore();
  const s = await store.create({ modeSlug: 'code' });
  clock.t += 1000;
  const r = await store.switchMode(s.session_id, 'architect', 'design first');
  assert.equal(r.oldMode, 'code');
  assert.equal(r.session.task.mode_slug, 'architect');
  assert.deepEqual(r.session.task.mode_history, [{ from: 'code', to: 'architect', reason: 'design first', at: '2025-03-01T00:00:01.000Z' }]);
  assert.equal(r.session.last_accessed, '2025-03-01T00:00:01.000Z');
});

test('complete finishes once, records the result, and later switches or completions fail with -32004', async () => {
  const { store, clock } = memoryStore();
  const s = await store.create({ modeSlug: 'code', initialMessage: 'go' });
  clock.t += 2000;
  const r = await store.complete(s.session_id, 'completed', 'shipped');
  assert.equal(r.session.task.state, 'completed');
  assert.equal(r.session.task.completed_at, '2025-03-01T00:00:02.000Z');
  assert.equal(r.session.task.result, 'shipped');
  assert.deepEqual(r.session.task.messages.map((m) => m.role), ['user', 'assistant']);
  await assert.rejects(store.complete(s.session_id, 'failed'), (err: unknown) => code(-32004)(err) && /completed/.test((err as Error).message));
  await assert.rejects(store.switchMode(s.session_id, 'ask'), (err: unknown) => code(-32004)(err) && /completed/.test((err as Error).message));
  assert.equal((await store.get(s.session_id)).task.state, 'completed');
});

test('two concurrent completions of one task: exactly one wins', async () => {
  const { store } = memoryStore();
  const s = await store.create({ modeSlug: 'code' });
  const results = await Promise.allSettled([store.complete(s.session_id, 'completed'), store.complete(s.session_id, 'failed')]);
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('a child links to its parent both ways and hierarchy shows both directions', async () => {
  const { store } = memoryStore();
  const parent = await store.create({ modeSlug: 'orchestrator' });
  const child = await store.create({ modeSlug: 'code', parentSessionId: parent.session_id });
  assert.equal(child.task.parent_task_id, parent.task.task_id);
  assert.deepEqual((await store.get(parent.session_id)).task.child_task_ids, [child.task.task_id]);
  const down = await store.hierarchy(parent.session_id);
  assert.equal(down.parent, undefined);
  assert.deepEqual(down.children.map((c) => [c.session_id, c.task.mode_slug, c.task.state]), [[child.session_id, 'code', 'active']]);
  const up = await store.hierarchy(child.session_id);
  assert.equal(up.parent?.session_id, parent.session_id);
  assert.equal(up.parent?.task.mode_slug, 'orchestrator');
  assert.deepEqual(up.children, []);
});

test('a parent that is unknown, expired or finished is refused and no child is left behind', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 10 });
  await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: 'ses_111111111111111111111111' }), code(-32002));
  assert.equal(store.size(), 0);
  const done = await store.create({ modeSlug: 'code' });
  await store.complete(done.session_id, 'completed');
  await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: done.session_id }), code(-32004));
  assert.equal(store.size(), 1);
  const old = await store.create({ modeSlug: 'code' });
  clock.t += 10_000;
  await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: old.session_id }), code(-32003));
  assert.equal(store.size(), 1); // `old` was dropped on access; `done` waits for the sweep
  assert.equal(await store.sweep(), 1);
  assert.equal(store.size(), 0);
});

test('hierarchy omits children that expired', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 10 });
  const parent = await store.create({ modeSlug: 'orchestrator' });
  const a = await store.create({ modeSlug: 'code', parentSessionId: parent.session_id });
  await store.create({ modeSlug: 'ask', parentSessionId: parent.session_id });
  clock.t += 6_000;
  await store.get(parent.session_id);
  await store.get(a.session_id);
  clock.t += 6_000;
  const h = await store.hierarchy(parent.session_id);
  assert.deepEqual(h.children.map((c) => c.session_id), [a.session_id]);
});

test('completing without cascade lists the active children and leaves them active', async () => {
  const { store } = memoryStore();
  const p = await store.create({ modeSlug: 'orchestrator' });
  const a = await store.create({ modeSlug: 'code', parentSessionId: p.session_id });
  const b = await store.create({ modeSlug: 'ask', parentSessionId: p.session_id });
  await store.complete(b.session_id, 'completed');
  const r = await store.complete(p.session_id, 'completed');
  assert.deepEqual(r.activeChildren.map((c) => c.session_id), [a.session_id]);
  assert.deepEqual(r.cancelledChildren, []);
  assert.equal((await store.get(a.session_id)).task.state, 'active');
});

test('cascade cancels every active descendant, recursively, and leaves finished ones alone', async () => {
  const { store, clock } = memoryStore();
  const root = await store.create({ modeSlug: 'orchestrator' });
  const a = await store.create({ modeSlug: 'code', parentSessionId: root.session_id });
  const b = await store.create({ modeSlug: 'debug', parentSessionId: root.session_id });
  const a1 = await store.create({ modeSlug: 'ask', parentSessionId: a.session_id });
  const b1 = await store.create({ modeSlug: 'ask', parentSessionId: b.session_id });
  await store.complete(b.session_id, 'completed', 'done early');
  clock.t += 3000;
  const r = await store.complete(root.session_id, 'failed', 'abandoned', true);
  assert.deepEqual(r.activeChildren, []);
  assert.deepEqual(new Set(r.cancelledChildren.map((c) => c.session_id)), new Set([a.session_id, a1.session_id, b1.session_id]));
  for (const c of r.cancelledChildren) {
    assert.equal(c.task.state, 'cancelled');
    assert.equal(c.task.completed_at, '2025-03-01T00:00:03.000Z');
    assert.equal(c.last_accessed, '2025-03-01T00:00:00.000Z'); // cancelling is not an access
  }
  assert.equal((await store.get(b.session_id)).task.state, 'completed');
  assert.equal((await store.get(b.session_id)).task.result, 'done early');
});

test('a sweep over 100,000 sessions yields to the event loop while it runs', async () => {
  const { store, clock } = memoryStore({ timeoutSeconds: 1 });
  for (let i = 0; i < 100_000; i++) await store.create({ modeSlug: 'code' });
  assert.equal(store.size(), 100_000);
  clock.t += 5_000;
  let finished = false;
  let ticksDuringSweep = 0;
  const tick = (): void => {
    if (finished) return;
    ticksDuringSweep++;
    setImmediate(tick);
  };
  const sweep = store.sweep().then((n) => { finished = true; return n; });
  setImmediate(tick);
  assert.equal(await sweep, 100_000);
  assert.ok(ticksDuringSweep > 0, 'no other callback ran during the sweep');
  assert.equal(store.size(), 0);
});

test('the memory held per live session is reported (10,000 sessions)', async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const { store } = memoryStore();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10_000; i++) await store.create({ modeSlug: 'code', initialMessage: `Fix the failing test #${i}` });
  gc?.();
  const after = process.memoryUsage().heapUsed;
  console.error(`tasks-sessions: ~${Math.round((after - before) / 10_000)} bytes of heap per live session (10,000 sessions${gc ? ', after gc' : ', no --expose-gc'})`);
  assert.equal(store.size(), 10_000);
});

test('the cleanup timer sweeps expired sessions on its own', async () => {
  const clock = { t: T0 };
  const store = new SessionStore({ timeoutSeconds: 1, cleanupIntervalSeconds: 0.02, persistenceDir: null, log: silentLogger, now: () => clock.t });
  await store.init();
  try {
    const s = await store.create({ modeSlug: 'code' });
    clock.t += 2_000;
    const deadline = Date.now() + 5_000;
    while (store.size() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(store.size(), 0);
    await assert.rejects(store.get(s.session_id), code(-32003));
  } finally {
    await store.close();
  }
});

test('the cleanup timer never keeps the process alive', () => {
  const url = new URL('../../src/tasks/sessions.ts', import.meta.url).href;
  const script = `
    const { SessionStore } = await import(${JSON.stringify(url)});
    const log = { debug() {}, info() {}, notice() {}, warn() {}, error() {}, child() { return log; } };
    const store = new SessionStore({ timeoutSeconds: 60, cleanupIntervalSeconds: 1, persistenceDir: null, log });
    await store.init();
    await store.create({ modeSlug: 'code' });`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000, encoding: 'utf8' });
  assert.equal(r.signal, null, 'the child had to be killed: something kept it alive');
  assert.equal(r.status, 0, r.stderr);
});
