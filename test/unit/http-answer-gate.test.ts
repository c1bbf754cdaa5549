// The stateless door's gate on answers made at once (src/http/unread.ts, AnswerGate): at most
// `limit` run, the rest wait in order, a release lets the next in, and one whose client left while
// it waited never runs and takes no place. And the heap relief after large answers (heap-relief.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collector, HeapRelief } from '../../src/http/heap-relief.js';
import { AnswerGate } from '../../src/http/unread.js';

const MiB = 1024 * 1024;

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('at most limit requests make answers at once; the others start in order as places are released', async () => {
  const gate = new AnswerGate(2);
  const started: number[] = [];
  const releases = new Map<number, () => void>();
  const entries = [1, 2, 3, 4, 5].map((n) => gate.enter(() => false).then((release) => {
    assert.ok(release, `request ${n} gets a place`);
    started.push(n);
    releases.set(n, release);
  }));
  await tick();
  assert.deepEqual(started, [1, 2], 'two run, three wait');
  assert.deepEqual([gate.running, gate.waiting], [2, 3]);
  releases.get(2)!();
  releases.get(2)!(); // a second call of the same release frees nothing more
  await tick();
  assert.deepEqual(started, [1, 2, 3], 'the first waiter goes next, and only one');
  assert.deepEqual([gate.running, gate.waiting], [2, 2]);
  releases.get(1)!();
  releases.get(3)!();
  await Promise.all(entries);
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  releases.get(4)!();
  releases.get(5)!();
  assert.deepEqual([gate.running, gate.waiting], [0, 0]);
});

test('a request whose client left while it waited never runs and takes no place', async () => {
  const gate = new AnswerGate(1);
  const first = await gate.enter(() => false);
  assert.ok(first);
  const left = { gone: false };
  const waiting = gate.enter(() => left.gone);
  const next = gate.enter(() => false);
  left.gone = true;
  first();
  assert.equal(await waiting, null, 'the departed client gets no place');
  const release = await next;
  assert.ok(release, 'the request behind it runs instead');
  assert.equal(gate.running, 1);
  release();
  assert.equal(gate.running, 0);
});

test('the heap is collected after every budget of large answers written, and once more when they stop; small answers never collect', async () => {
  const collected: true[] = [];
  const relief = new HeapRelief(10 * MiB, 30, () => collected.push(true), 100_000);
  for (let i = 0; i < 1000; i++) relief.wrote(4096);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(collected.length, 0, 'small answers never collect');
  for (let i = 0; i < 9; i++) relief.wrote(3 * MiB);
  assert.equal(collected.length, 2, '27 MiB of large answers against a 10 MiB budget: two collections at once');
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(collected.length, 3, 'one more once the large answers stopped (what was left of the budget)');
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(collected.length, 3, 'and no more while nothing is written');
  relief.freed(6 * MiB);
  relief.freed(4096);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(collected.length, 4, 'a connection that left with large answers unread makes one more, later');
  relief.close();
});

test('once the burst\'s collection is made and nothing large happens for a while, one last collection', async () => {
  const collected: true[] = [];
  const relief = new HeapRelief(100 * MiB, 20, () => collected.push(true), 200);
  relief.freed(6 * MiB);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(collected.length, 1, 'the collection after the burst');
  relief.wrote(3 * MiB);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(collected.length, 2, 'a large answer in between: its own collection after it, and the last one waits again');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(collected.length, 3, 'then the last one, once quiet');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(collected.length, 3, 'and nothing more while nothing happens');
  relief.close();
});

test('the collection after a burst really collects, with the engine\'s own collector', async () => {
  // Without it nothing is forced and the bound rests on V8's own timing: if Node ever refuses it, this says so.
  // Regression: the one after a burst once passed an options object that Node 20's engine accepted and
  // did nothing with, so RSS stayed up until V8's memory reducer ran, 10 s or more later.
  assert.equal(typeof collector(), 'function');
  const relief = new HeapRelief(10 * MiB, 5);
  const ref = ((): WeakRef<object> => new WeakRef({ garbage: 'x'.repeat(64) }))();
  relief.freed(6 * MiB);
  await new Promise((resolve) => setTimeout(resolve, 50));
  relief.close();
  assert.equal(ref.deref(), undefined, 'an object nothing refers to is gone after the quiet collection');
});
