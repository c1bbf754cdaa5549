// The behaviour every task-session store owes the tools (memory/files in src/tasks/local-store.ts, Redis in
// src/tasks/redis-store.ts): one table of cases, run against each store by its own test file.
import * as assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { RpcError } from '../../src/rpc/errors.js';
import type { TaskSessionStore } from '../../src/tasks/session-store.js';

export const T0 = Date.parse('2025-03-01T00:00:00.000Z');

export interface Clock { t: number }
export interface StoreOptions { timeoutSeconds?: number; cleanupIntervalSeconds?: number }
/** A fresh, empty store on the given clock (closed by the opener in t.after). */
export type OpenStore = (t: TestContext, clock: Clock, options: StoreOptions) => Promise<TaskSessionStore>;

export const code = (n: number) => (err: unknown) => {
  assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
  assert.equal(err.code, n, err.message);
  return true;
};

type Case = (open: (options?: StoreOptions) => Promise<{ store: TaskSessionStore; clock: Clock }>) => Promise<void>;

const CASES: Record<string, Case> = {
  'create returns a session with an unguessable id, its task and ISO timestamps': async (open) => {
    const { store } = await open();
    const s = await store.create({ modeSlug: 'code', initialMessage: 'build it' });
    assert.match(s.session_id, /^ses_[0-9a-f]{24}$/);
    assert.match(s.task.task_id, /^task_[0-9a-f]{24}$/);
    assert.equal(s.created_at, '2025-03-01T00:00:00.000Z');
    assert.equal(s.last_accessed, s.created_at);
    assert.equal(s.task.state, 'active');
    assert.deepEqual(s.task.messages, [{ role: 'user', content: 'build it', timestamp: s.created_at }]);
    assert.equal(await store.size(), 1);
    assert.deepEqual(await store.get(s.session_id), s, 'read back as created');
  },

  'every access refreshes last_accessed and keeps the session alive past one timeout': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 60 });
    const s = await store.create({ modeSlug: 'code' });
    clock.t += 50_000;
    assert.equal((await store.get(s.session_id)).last_accessed, new Date(T0 + 50_000).toISOString());
    clock.t += 50_000;
    const again = await store.get(s.session_id);
    assert.equal(again.created_at, s.created_at);
    assert.equal(again.last_accessed, new Date(T0 + 100_000).toISOString());
  },

  'modeOf answers the current mode, counts as an access and reports unknown and expired ids': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 60 });
    const s = await store.create({ modeSlug: 'code' });
    await store.switchMode(s.session_id, 'ask');
    clock.t += 50_000;
    assert.equal(await store.modeOf(s.session_id), 'ask');
    clock.t += 50_000; // 100 s after creation but 50 s after the modeOf access: still alive
    assert.equal((await store.get(s.session_id)).last_accessed, new Date(T0 + 100_000).toISOString());
    clock.t += 60_000;
    await assert.rejects(async () => store.modeOf(s.session_id), code(-32003));
    await assert.rejects(async () => store.modeOf('ses_000000000000000000000000'), code(-32002));
  },

  'an expired session answers -32003 on access, before any sweep, and an unknown id -32002': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 60 });
    const s = await store.create({ modeSlug: 'code' });
    clock.t += 60_000;
    await assert.rejects(store.get(s.session_id), code(-32003));
    await assert.rejects(store.switchMode(s.session_id, 'ask'), code(-32003));
    await assert.rejects(store.get('ses_000000000000000000000000'), code(-32002));
    assert.equal(await store.size(), 0);
  },

  'after the sweep removed an expired session it still answers -32003': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 10 });
    const old = await store.create({ modeSlug: 'code' });
    clock.t += 5_000;
    const young = await store.create({ modeSlug: 'ask' });
    clock.t += 6_000;
    assert.equal(await store.sweep(), 1);
    assert.equal(await store.size(), 1);
    await assert.rejects(store.get(old.session_id), code(-32003));
    assert.equal((await store.get(young.session_id)).task.mode_slug, 'ask');
  },

  'ids that are not ses_ plus 24 lowercase hex are refused as unknown': async (open) => {
    const { store } = await open();
    for (const bad of ['', 'ses_', '../../etc/passwd', 'ses_ABCDEF000000000000000000', 'ses_000000000000000000000000/x', 'ses_00000000000000000000000']) {
      await assert.rejects(store.get(bad), code(-32002), bad);
      await assert.rejects(store.complete(bad, 'completed'), code(-32002), bad);
      await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: bad }), code(-32002), bad);
    }
  },

  'switchMode returns the old mode and appends to the mode history': async (open) => {
    const { store, clock } = await open();
    const s = await store.create({ modeSlug: 'code' });
    clock.t += 1000;
    const r = await store.switchMode(s.session_id, 'architect', 'design first');
    assert.equal(r.oldMode, 'code');
    assert.equal(r.session.task.mode_slug, 'architect');
    assert.deepEqual(r.session.task.mode_history, [{ from: 'code', to: 'architect', reason: 'design first', at: '2025-03-01T00:00:01.000Z' }]);
    assert.equal(r.session.last_accessed, '2025-03-01T00:00:01.000Z');
    assert.deepEqual(await store.get(s.session_id), r.session, 'read back as changed');
  },

  'complete finishes once, records the result, and later switches or completions fail with -32004': async (open) => {
    const { store, clock } = await open();
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
  },

  'a refused change still counts as an access': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 10 });
    const s = await store.create({ modeSlug: 'code' });
    await store.complete(s.session_id, 'completed');
    clock.t += 6_000;
    await assert.rejects(store.switchMode(s.session_id, 'ask'), code(-32004));
    clock.t += 6_000; // 12 s after creation, 6 s after the refused switch
    assert.equal((await store.get(s.session_id)).last_accessed, new Date(T0 + 12_000).toISOString());
  },

  'two concurrent completions of one task: exactly one wins': async (open) => {
    const { store } = await open();
    const s = await store.create({ modeSlug: 'code' });
    const results = await Promise.allSettled([store.complete(s.session_id, 'completed'), store.complete(s.session_id, 'failed')]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  },

  'a child links to its parent both ways and hierarchy shows both directions': async (open) => {
    const { store } = await open();
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
  },

  'a parent that is unknown, expired or finished is refused and no child is left behind': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 10 });
    await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: 'ses_111111111111111111111111' }), code(-32002));
    assert.equal(await store.size(), 0);
    const done = await store.create({ modeSlug: 'code' });
    await store.complete(done.session_id, 'completed');
    await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: done.session_id }), code(-32004));
    assert.equal(await store.size(), 1);
    const old = await store.create({ modeSlug: 'code' });
    clock.t += 10_000;
    await assert.rejects(async () => store.create({ modeSlug: 'code', parentSessionId: old.session_id }), code(-32003));
    assert.equal(await store.size(), 1); // `old` was dropped on access; `done` waits for the sweep
    assert.equal(await store.sweep(), 1);
    assert.equal(await store.size(), 0);
  },

  'hierarchy omits children that expired': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 10 });
    const parent = await store.create({ modeSlug: 'orchestrator' });
    const a = await store.create({ modeSlug: 'code', parentSessionId: parent.session_id });
    await store.create({ modeSlug: 'ask', parentSessionId: parent.session_id });
    clock.t += 6_000;
    await store.get(parent.session_id);
    await store.get(a.session_id);
    clock.t += 6_000;
    const h = await store.hierarchy(parent.session_id);
    assert.deepEqual(h.children.map((c) => c.session_id), [a.session_id]);
  },

  'completing without cascade lists the active children and leaves them active': async (open) => {
    const { store } = await open();
    const p = await store.create({ modeSlug: 'orchestrator' });
    const a = await store.create({ modeSlug: 'code', parentSessionId: p.session_id });
    const b = await store.create({ modeSlug: 'ask', parentSessionId: p.session_id });
    await store.complete(b.session_id, 'completed');
    const r = await store.complete(p.session_id, 'completed');
    assert.deepEqual(r.activeChildren.map((c) => c.session_id), [a.session_id]);
    assert.deepEqual(r.cancelledChildren, []);
    assert.equal((await store.get(a.session_id)).task.state, 'active');
  },

  'cascade cancels every active descendant, recursively, and leaves finished ones alone': async (open) => {
    const { store, clock } = await open();
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
      assert.equal((await store.get(c.session_id)).task.state, 'cancelled', 'the cancellation was stored');
    }
    assert.equal((await store.get(b.session_id)).task.state, 'completed');
    assert.equal((await store.get(b.session_id)).task.result, 'done early');
  },

  'the cleanup timer sweeps expired sessions on its own': async (open) => {
    const { store, clock } = await open({ timeoutSeconds: 1, cleanupIntervalSeconds: 0.02 });
    await store.init();
    const s = await store.create({ modeSlug: 'code' });
    clock.t += 2_000;
    const deadline = Date.now() + 5_000;
    while (await store.size() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await store.size(), 0);
    await assert.rejects(store.get(s.session_id), code(-32003));
  },
};

/**
 * The cases, each a function of the test context that runs it on fresh stores from `openStore`. The
 * test file itself calls test()/t.test() on them, so the runner counts them under that file.
 */
export function contractCases(openStore: OpenStore): [string, (t: TestContext) => Promise<void>][] {
  return Object.entries(CASES).map(([name, run]) => [name, async (t: TestContext) => {
    const clock: Clock = { t: T0 };
    await run(async (options = {}) => ({ store: await openStore(t, clock, options), clock }));
  }]);
}
