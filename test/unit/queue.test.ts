// Unit tests of the bounded async queue (src/pipeline/queue.ts) that joins the pipeline stages.
// "Has not happened yet" is checked after nextTurn(): every promise job already queued has run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collector } from '../../src/http/heap-relief.js';
import { AsyncQueue } from '../../src/pipeline/queue.js';

/** Resolves after all currently queued promise jobs have run (setImmediate follows microtasks). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Tracks whether a promise has settled, without awaiting it. */
function watch<T>(p: Promise<T>): { readonly settled: boolean; readonly promise: Promise<T> } {
  const state = { settled: false, promise: p };
  p.then(() => { state.settled = true; }, () => { state.settled = true; });
  return state;
}

test('rejects a capacity that is not a positive integer with a TypeError', () => {
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new AsyncQueue<number>(bad), TypeError, `capacity ${bad}`);
  }
  assert.equal(new AsyncQueue<number>(3).capacity, 3);
});

test('hands items out in the order they were pushed', async () => {
  const q = new AsyncQueue<number>(8);
  for (let i = 0; i < 8; i++) await q.push(i);
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push((await q.shift())!);
  assert.deepEqual(out, [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('keeps FIFO order as the ring wraps around many times', async () => {
  const q = new AsyncQueue<number>(3);
  const out: number[] = [];
  let next = 0;
  for (let round = 0; round < 20; round++) {
    while (q.tryPush(next)) next++;
    out.push((await q.shift())!, (await q.shift())!);
  }
  out.push(...q.takeAvailable(10));
  assert.deepEqual(out, Array.from({ length: next }, (_, i) => i));
});

test('reports its size and refuses tryPush once full', () => {
  const q = new AsyncQueue<string>(2);
  assert.equal(q.size, 0);
  assert.equal(q.tryPush('a'), true);
  assert.equal(q.tryPush('b'), true);
  assert.equal(q.size, 2);
  assert.equal(q.tryPush('c'), false);
  assert.equal(q.size, 2);
  assert.deepEqual(q.takeAvailable(5), ['a', 'b']);
});

test('a waiting consumer receives the next pushed item directly', async () => {
  const q = new AsyncQueue<string>(1);
  const waiting = q.shift();
  assert.equal(q.tryPush('x'), true);
  assert.equal(await waiting, 'x');
  assert.equal(q.size, 0);
});

test('push waits while the queue is full and resumes when shift frees a slot', async () => {
  const q = new AsyncQueue<number>(1);
  await q.push(1);
  const second = watch(q.push(2));
  await nextTurn();
  assert.equal(second.settled, false, 'push into a full queue must wait');
  assert.equal(await q.shift(), 1);
  await second.promise;
  assert.equal(q.size, 1);
  assert.equal(await q.shift(), 2);
});

test('push waits while the queue is full and resumes when takeAvailable frees slots', async () => {
  const q = new AsyncQueue<number>(2);
  await q.push(1);
  await q.push(2);
  const third = watch(q.push(3));
  await nextTurn();
  assert.equal(third.settled, false);
  assert.deepEqual(q.takeAvailable(10), [1, 2]);
  await third.promise;
  assert.deepEqual(q.takeAvailable(10), [3]);
});

test('several waiting producers are admitted in the order they started waiting', async () => {
  const q = new AsyncQueue<string>(1);
  await q.push('a');
  const pending = [q.push('b'), q.push('c'), q.push('d')];
  const out: string[] = [];
  for (let i = 0; i < 4; i++) out.push((await q.shift())!);
  await Promise.all(pending);
  assert.deepEqual(out, ['a', 'b', 'c', 'd']);
});

test('a waiting producer keeps its turn ahead of a push made after the slot was freed', async () => {
  // Fairness: the parked push of 'b' was called before the push of 'late', so 'b' must come out
  // first; otherwise a busy producer can starve a parked one indefinitely.
  const q = new AsyncQueue<string>(1);
  await q.push('a');
  const parked = q.push('b');
  const first = q.shift(); // frees the slot and wakes the parked producer
  const late = q.push('late');
  assert.equal(await first, 'a');
  const out = [(await q.shift())!, (await q.shift())!];
  await Promise.all([parked, late]);
  assert.deepEqual(out, ['b', 'late']);
});

test('takeAvailable returns at most max items, without waiting, and nothing when empty', () => {
  const q = new AsyncQueue<number>(5);
  assert.deepEqual(q.takeAvailable(3), []);
  for (let i = 0; i < 5; i++) q.tryPush(i);
  assert.deepEqual(q.takeAvailable(3), [0, 1, 2]);
  assert.deepEqual(q.takeAvailable(0), []);
  assert.equal(q.size, 2);
  assert.deepEqual(q.takeAvailable(3), [3, 4]);
});

test('close lets consumers drain what is queued, then yields undefined forever', async () => {
  const q = new AsyncQueue<number>(4);
  await q.push(1);
  await q.push(2);
  q.close();
  assert.equal(q.closed, true);
  assert.equal(await q.shift(), 1);
  assert.equal(await q.shift(), 2);
  assert.equal(await q.shift(), undefined);
  assert.equal(await q.shift(), undefined);
});

test('close wakes waiting consumers with undefined', async () => {
  const q = new AsyncQueue<number>(1);
  const a = q.shift();
  const b = q.shift();
  q.close();
  assert.deepEqual(await Promise.all([a, b]), [undefined, undefined]);
});

test('after close, tryPush is false and push rejects', async () => {
  const q = new AsyncQueue<number>(2);
  q.close();
  assert.equal(q.tryPush(1), false);
  await assert.rejects(q.push(1), /closed/);
  assert.equal(q.size, 0);
});

test('close makes a producer waiting on a full queue reject instead of hanging', async () => {
  const q = new AsyncQueue<number>(1);
  await q.push(1);
  const parked = q.push(2);
  q.close();
  await assert.rejects(parked, /closed/);
  assert.equal(await q.shift(), 1);
  assert.equal(await q.shift(), undefined);
});

test('closing twice is harmless', async () => {
  const q = new AsyncQueue<number>(1);
  q.close();
  q.close();
  assert.equal(await q.shift(), undefined);
});

test('async iteration yields every item in order and ends after close', async () => {
  const q = new AsyncQueue<number>(2);
  const seen: number[] = [];
  const consumer = (async () => { for await (const item of q) seen.push(item); })();
  for (let i = 0; i < 10; i++) await q.push(i); // more items than capacity: needs the consumer
  q.close();
  await consumer;
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('falsy items (0, empty string, false, null) pass through untouched', async () => {
  const q = new AsyncQueue<unknown>(4);
  for (const v of [0, '', false, null]) q.tryPush(v);
  q.close();
  const seen: unknown[] = [];
  for await (const item of q) seen.push(item);
  assert.deepEqual(seen, [0, '', false, null]);
});

test('with weights, refuses an item that would pass maxWeight, yet admits an oversized item into an empty queue', () => {
  const q = new AsyncQueue<string>(10, { maxWeight: 10, weigh: (s) => s.length });
  assert.equal(q.tryPush('aaaa'), true);
  assert.equal(q.tryPush('bbbbbb'), true);
  assert.equal(q.weight, 10);
  assert.equal(q.tryPush('c'), false, 'a slot is free but the weight bound is reached');
  assert.deepEqual(q.takeAvailable(10), ['aaaa', 'bbbbbb']);
  assert.equal(q.weight, 0);
  assert.equal(q.tryPush('x'.repeat(50)), true, 'alone, an item heavier than the bound still passes');
  assert.equal(q.tryPush('y'), false, 'but nothing joins it');
});

test('with weights, parked producers are admitted in order as weight leaves, several at once when they fit', async () => {
  const q = new AsyncQueue<string>(10, { maxWeight: 10, weigh: (s) => s.length });
  await q.push('x'.repeat(10));
  const a = watch(q.push('aaa'));
  const b = watch(q.push('bbb'));
  const c = watch(q.push('c'.repeat(8)));
  await nextTurn();
  assert.equal(a.settled || b.settled || c.settled, false, 'all wait while the queue is at its bound');
  assert.equal(await q.shift(), 'x'.repeat(10));
  await nextTurn();
  assert.equal(a.settled && b.settled, true, 'both small items fit once the heavy one left');
  assert.equal(c.settled, false, 'the third does not fit beside them and keeps its turn');
  assert.equal(q.tryPush('z'), false, 'a newcomer does not overtake a parked producer');
  assert.deepEqual(q.takeAvailable(10), ['aaa', 'bbb']);
  await c.promise;
  assert.equal(await q.shift(), 'c'.repeat(8));
});

test('takeAvailable stops before the item that would pass its weight budget', () => {
  const q = new AsyncQueue<string>(10, { maxWeight: 100, weigh: (s) => s.length });
  for (const s of ['aaa', 'bbb', 'cccc', 'd']) assert.ok(q.tryPush(s));
  assert.deepEqual(q.takeAvailable(10, 7), ['aaa', 'bbb']);
  assert.deepEqual(q.takeAvailable(10, 3), [], 'the next item alone is over the budget');
  assert.deepEqual(q.takeAvailable(10), ['cccc', 'd']);
  assert.throws(() => new AsyncQueue<string>(1, { maxWeight: 0, weigh: () => 1 }), TypeError);
});

test('poll takes a queued item at once, admits a parked producer, and says undefined when empty', async () => {
  const q = new AsyncQueue<string>(1);
  assert.equal(q.poll(), undefined);
  assert.equal(q.tryPush('a'), true);
  const parked = watch(q.push('b'));
  await nextTurn();
  assert.equal(parked.settled, false, 'the queue is full, so b waits');
  assert.equal(q.poll(), 'a');
  await nextTurn();
  assert.equal(parked.settled, true, 'taking a made room for b');
  assert.equal(q.poll(), 'b');
  q.close();
  assert.equal(q.poll(), undefined);
});

test('an item taken through the async iterator is not kept while it waits for the next', async () => {
  // Regression: the iterator was an async generator, whose saved registers kept the last item it
  // yielded until the next arrived, so an idle HTTP session held its last answer (6 MB in the bench).
  const gc = collector();
  assert.ok(gc, 'the engine\'s collector');
  const q = new AsyncQueue<object>(4);
  const it = q[Symbol.asyncIterator]();
  const taken = await (async (): Promise<WeakRef<object>> => {
    q.tryPush({ payload: 'x'.repeat(1024) });
    const first = await it.next();
    assert.equal(first.done, false);
    return new WeakRef(first.value as object);
  })();
  const waiting = it.next();
  // The WeakRef's target is kept until the job that made it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(taken.deref(), undefined, 'the taken item is garbage once its taker let it go');
  q.close();
  assert.equal((await waiting).done, true);
});
