import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockQueue } from '../../src/files/lock-queue.js';
import { LockBusyError } from '../../src/files/pid-lock.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lock-queue-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A step that finishes only when told to, so the test decides the interleaving. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { open, opened };
}

test('turns at one path run one at a time in the order they were asked for', async (t) => {
  const lock = join(await tempDir(t), '.x.lock');
  const q = new LockQueue();
  const log: string[] = [];
  const first = gate();
  const runs = [
    q.run(lock, async () => { log.push('1 in'); await first.opened; log.push('1 out'); }),
    q.run(lock, async () => { log.push('2 in'); log.push('2 out'); }),
    q.run(lock, async () => { log.push('3 in'); log.push('3 out'); }),
  ];
  await new Promise<void>((resolve) => setImmediate(resolve));
  first.open();
  await Promise.all(runs);
  assert.deepEqual(log, ['1 in', '1 out', '2 in', '2 out', '3 in', '3 out']);
});

test('a caller cancelled while queued leaves at once, and the ones after it still wait for the one before', async (t) => {
  const lock = join(await tempDir(t), '.x.lock');
  const q = new LockQueue();
  const log: string[] = [];
  const first = gate();
  const stop = new AbortController();
  const aIn = gate();
  const a = q.run(lock, async () => { log.push('a in'); aIn.open(); await first.opened; log.push('a out'); });
  const b = q.run(lock, async () => { log.push('b ran'); }, { signal: stop.signal, refuse: (err) => new Error(`refused: ${String(err)}`) });
  const c = q.run(lock, async () => { log.push('c in'); });
  await aIn.opened;
  stop.abort('gone');
  await assert.rejects(b, /refused: gone/);
  assert.deepEqual(log, ['a in'], 'c does not overtake a while b left');
  first.open();
  await Promise.all([a, c]);
  assert.deepEqual(log, ['a in', 'a out', 'c in']);
});

test('refuse sees only errors of the wait; the function\'s own errors pass unchanged', async (t) => {
  const dir = await tempDir(t);
  const q = new LockQueue({ timeoutMs: 50, pollMs: 5 });
  const own = new Error('from fn');
  const refuse = (err: unknown): unknown => new Error(`refused: ${err instanceof LockBusyError ? 'busy' : String(err)}`);
  await assert.rejects(q.run(join(dir, '.a.lock'), async () => { throw own; }, { refuse }), (err) => err === own);
  const held = join(dir, '.b.lock');
  await writeFile(held, `${process.pid}\nheld\n${hostname()}\n\n`);
  await assert.rejects(q.run(held, async () => 'never', { refuse }), /refused: busy/);
});
