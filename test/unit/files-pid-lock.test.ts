import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquirePidLock, breakIfStale, LockBusyError, processAlive } from '../../src/files/pid-lock.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pid-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A pid that belonged to a process which has exited. */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.ok(r.pid !== undefined && r.pid > 0);
  return r.pid;
};

test('holds the pid in the lock file while taken and removes the file on release', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const lock = await acquirePidLock(path);
  assert.match(await readFile(path, 'utf8'), new RegExp(`^${process.pid}\n`));
  await lock.release();
  await lock.release();
  assert.deepEqual(await readdir(dir), []);
});

test('a second taker waits for the holder to release', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const first = await acquirePidLock(path);
  let secondHeld = false;
  const second = acquirePidLock(path, { pollMs: 2 }).then((l) => { secondHeld = true; return l; });
  // Give the second taker several looks at the held lock before releasing.
  const deadline = Date.now() + 50;
  while (Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 5));
  assert.equal(secondHeld, false, 'the second taker must not get a held lock');
  await first.release();
  await (await second).release();
  assert.deepEqual(await readdir(dir), []);
});

test('gives up with LockBusyError naming a live holder after the timeout', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  await writeFile(path, `${process.ppid}\n`);
  await assert.rejects(acquirePidLock(path, { timeoutMs: 40, pollMs: 5 }), (err: unknown) => err instanceof LockBusyError && err.owner === process.ppid);
  assert.equal(await readFile(path, 'utf8'), `${process.ppid}\n`, 'a live holder\'s lock is left alone');
  assert.deepEqual(await readdir(dir), ['.x.lock'], 'no pid file is left behind');
});

test('takes over a lock whose process has exited and reports the old owner', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const dead = deadPid();
  assert.equal(processAlive(dead), false);
  await writeFile(path, `${dead}\n`);
  const broken: Array<number | null> = [];
  const lock = await acquirePidLock(path, { timeoutMs: 1000, onBreak: (owner) => broken.push(owner) });
  assert.deepEqual(broken, [dead]);
  assert.match(await readFile(path, 'utf8'), new RegExp(`^${process.pid}\n`));
  await lock.release();
  assert.deepEqual(await readdir(dir), [], 'the stale lock moved aside is deleted too');
});

test('a breaker that died while taking over leaves nothing that blocks the next one', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  await writeFile(path, `${deadPid()}\n`);
  await writeFile(`${path}.breaking`, `${deadPid()}\n`);
  const lock = await acquirePidLock(path, { timeoutMs: 2000 });
  await lock.release();
  assert.deepEqual(await readdir(dir), []);
});

test('a live owner keeps its lock however old it is; another host\'s lock goes stale when its heartbeat stops', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const past = (Date.now() - 60_000) / 1000;
  await writeFile(path, `${process.ppid}\nabc\n`);
  await utimes(path, past, past);
  assert.deepEqual(await breakIfStale(path, { leaseMs: 10_000 }), { kind: 'held', owner: process.ppid }, 'an old lock of a live process on this host is held');
  await writeFile(path, `${process.ppid}\nabc\n${hostname()}-elsewhere\n\n`);
  assert.deepEqual(await breakIfStale(path, { leaseMs: 120_000 }), { kind: 'held', owner: process.ppid }, 'a fresh heartbeat from another host is held');
  await utimes(path, past, past);
  assert.deepEqual(await breakIfStale(path, { leaseMs: 10_000 }), { kind: 'broken', owner: process.ppid }, 'a stopped heartbeat from another host is stale');
  assert.deepEqual(await readdir(dir), []);
});

test('a live pid that started at another time than the holder (a reused pid) is stale', { skip: existsSync('/proc/self/stat') ? false : 'no /proc on this system' }, async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  await writeFile(path, `${process.ppid}\nabc\n${hostname()}\n1\n`);
  assert.deepEqual(await breakIfStale(path), { kind: 'broken', owner: process.ppid });
});

test('the holder renews its heartbeat while it holds the lock', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const lock = await acquirePidLock(path, { leaseMs: 60 });
  const past = (Date.now() - 60_000) / 1000;
  await utimes(path, past, past);
  const deadline = Date.now() + 5000;
  while ((await stat(path)).mtimeMs < Date.now() - 30_000 && Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 10));
  assert.ok((await stat(path)).mtimeMs > Date.now() - 30_000, 'the mtime was renewed');
  await lock.release();
  assert.deepEqual(await readdir(dir), []);
});

test('a lock without a readable pid is held for a moment, then stale', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  await writeFile(path, '');
  assert.deepEqual(await breakIfStale(path), { kind: 'held', owner: null });
  const past = (Date.now() - 5_000) / 1000;
  await utimes(path, past, past);
  assert.deepEqual(await breakIfStale(path), { kind: 'broken', owner: null });
});

test('of several processes breaking one stale lock at once, exactly one removes it', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  for (let round = 0; round < 20; round++) {
    await writeFile(path, `${deadPid()}\n`);
    const results = await Promise.all(Array.from({ length: 8 }, () => breakIfStale(path)));
    assert.equal(results.filter((r) => r.kind === 'broken').length, 1, `round ${round}: ${JSON.stringify(results)}`);
    assert.deepEqual(await readdir(dir), []);
  }
});

test('takers racing over locks left by dead owners never hold one at the same time', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const dead = `${deadPid()}\n`;
  let holders = 0;
  let most = 0;
  let turns = 0;
  // Every holder "dies" holding the lock: it leaves a dead pid in the file instead of releasing, so
  // each turn ends in a stale lock that all the waiting takers race to take over.
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = 0; i < 15; i++) {
      await acquirePidLock(path, { timeoutMs: 10_000, pollMs: 1 });
      holders++;
      most = Math.max(most, holders);
      for (let k = 0; k < 3; k++) await new Promise<void>((r) => setImmediate(r));
      holders--;
      turns++;
      await writeFile(path, dead);
    }
  }));
  assert.equal(turns, 8 * 15);
  assert.equal(most, 1, 'two takers held the lock at once');
  assert.deepEqual(await readdir(dir), ['.x.lock']);
});

test('separate processes racing over locks left by dead owners never hold one at the same time', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const log = join(dir, 'log');
  await writeFile(log, '');
  const dead = `${deadPid()}\n`;
  const moduleUrl = new URL('../../src/files/pid-lock.ts', import.meta.url).href;
  // Each child takes the lock 20 times; while holding it, it appends "in" then "out" to the log,
  // then leaves a dead pid in the lock (as if it had crashed) instead of releasing it.
  const child = `
    import { appendFileSync, writeFileSync } from 'node:fs';
    const { acquirePidLock } = await import(${JSON.stringify(moduleUrl)});
    for (let i = 0; i < 20; i++) {
      await acquirePidLock(${JSON.stringify(path)}, { timeoutMs: 20000, pollMs: 1 });
      appendFileSync(${JSON.stringify(log)}, 'in ' + process.pid + '\\n');
      await new Promise((r) => setImmediate(r));
      appendFileSync(${JSON.stringify(log)}, 'out ' + process.pid + '\\n');
      writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(dead)});
    }`;
  const runs = Array.from({ length: 4 }, () => new Promise<number | null>((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', new URL('../ts/register.mjs', import.meta.url).href, '--input-type=module', '-e', child], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('error', reject);
    p.on('exit', (code) => resolve(code));
  }));
  assert.deepEqual(await Promise.all(runs), [0, 0, 0, 0]);
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 4 * 20 * 2);
  for (let i = 0; i < lines.length; i += 2) {
    const [inn, out] = [lines[i]!.split(' '), lines[i + 1]!.split(' ')];
    assert.deepEqual([inn[0], out[0], out[1]], ['in', 'out', inn[1]], `overlap at line ${i + 1}`);
  }
  assert.deepEqual((await readdir(dir)).sort(), ['.x.lock', 'log']);
});

test('releasing a lock that was taken over never removes the new holder\'s lock', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, '.x.lock');
  const mine = await acquirePidLock(path);
  await unlink(path); // as a takeover by age would have moved it aside
  await writeFile(path, `${process.ppid}\n`);
  await mine.release();
  assert.equal(await readFile(path, 'utf8'), `${process.ppid}\n`);
});
