// Per-key ordering of the session store: one key in call order, failures do not stop the chain,
// other keys are not held back, and idle() waits for work queued while it waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedChains } from '../../src/tasks/chains.js';

test('runs operations on one key in call order, past failures, without holding other keys', async () => {
  const chains = new KeyedChains();
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const first = chains.run('a', async () => { await gate; order.push('a1'); });
  const failing = chains.run('a', async () => { order.push('a2'); throw new Error('boom'); });
  const third = chains.run('a', async () => { order.push('a3'); return 3; });
  const other = await chains.run('b', async () => { order.push('b1'); return 'b'; });
  assert.equal(other, 'b');
  assert.deepEqual(order, ['b1'], 'key b ran while key a waited');
  release();
  await first;
  await assert.rejects(failing, /boom/);
  assert.equal(await third, 3);
  assert.deepEqual(order, ['b1', 'a1', 'a2', 'a3']);
});

test('idle() resolves only after work queued while it waits', async () => {
  const chains = new KeyedChains();
  const done: string[] = [];
  void chains.run('a', async () => {
    await new Promise((r) => setImmediate(r));
    void chains.run('a', async () => { done.push('later'); });
    done.push('first');
  });
  await chains.idle();
  assert.deepEqual(done, ['first', 'later']);
});
