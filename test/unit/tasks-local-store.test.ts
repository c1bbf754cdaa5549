import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../src/log.js';
import { LocalSessionStore } from '../../src/tasks/local-store.js';
import { code, contractCases, T0 } from './session-store-contract.js';

// The behaviour every store shares (test/unit/session-store-contract.ts), on the store kept in memory.
const contract = contractCases(async (t, clock, o) => {
  const store = new LocalSessionStore({
    timeoutSeconds: o.timeoutSeconds ?? 60, cleanupIntervalSeconds: o.cleanupIntervalSeconds ?? 0, persistenceDir: null,
    log: silentLogger, now: () => clock.t,
  });
  t.after(() => store.close());
  return store;
});
for (const [name, run] of contract) test(name, run);

function memoryStore(opts: { timeoutSeconds?: number; maxTombstones?: number } = {}) {
  const clock = { t: T0 };
  const store = new LocalSessionStore({
    timeoutSeconds: opts.timeoutSeconds ?? 60, cleanupIntervalSeconds: 0, persistenceDir: null,
    log: silentLogger, now: () => clock.t,
    ...(opts.maxTombstones === undefined ? {} : { maxTombstones: opts.maxTombstones }),
  });
  return { store, clock };
}

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
  console.error(`tasks-local-store: ~${Math.round((after - before) / 10_000)} bytes of heap per live session (10,000 sessions${gc ? ', after gc' : ', no --expose-gc'})`);
  assert.equal(store.size(), 10_000);
});

test('the cleanup timer never keeps the process alive', () => {
  const url = new URL('../../src/tasks/local-store.ts', import.meta.url).href;
  const script = `
    const { LocalSessionStore } = await import(${JSON.stringify(url)});
    const log = { debug() {}, info() {}, notice() {}, warn() {}, error() {}, child() { return log; } };
    const store = new LocalSessionStore({ timeoutSeconds: 60, cleanupIntervalSeconds: 1, persistenceDir: null, log });
    await store.init();
    await store.create({ modeSlug: 'code' });`;
  const r = spawnSync(process.execPath, ['--import', new URL('../ts/register.mjs', import.meta.url).href, '--input-type=module', '-e', script], { timeout: 20_000, encoding: 'utf8' });
  assert.equal(r.signal, null, 'the child had to be killed: something kept it alive');
  assert.equal(r.status, 0, r.stderr);
});
