import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ModesetLock } from '../../src/modesets/lock.js';
import { makeProject, rpcError } from './modesets-helpers.js';

const FIXED = new Date('2025-03-04T05:06:07.890Z');

test('backups made in the same second never collide and never overwrite one another', async (t) => {
  const p = await makeProject({ now: () => FIXED });
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'dev' });
  const results = await Promise.all([
    p.call('orchestrator_mode_backup'), p.call('orchestrator_mode_backup'), p.call('orchestrator_mode_backup'),
    p.call('orchestrator_mode_backup', { backup_name: 'tag' }), p.call('orchestrator_mode_backup', { backup_name: 'tag' }),
  ]);
  const names = results.map((r) => r.metadata.backup_file as string);
  assert.equal(new Set(names).size, 5);
  assert.deepEqual([...names].sort(), [
    'mode_backup_20250304_050607.yaml', 'mode_backup_20250304_050607_2.yaml', 'mode_backup_20250304_050607_3.yaml',
    'mode_backup_20250304_050607_tag.yaml', 'mode_backup_20250304_050607_tag_2.yaml',
  ]);
  assert.deepEqual((await readdir(p.backups)).sort(), [...names].sort());
});

test('restore of an unknown backup answers -32004 listing the existing ones', async (t) => {
  const p = await makeProject({ now: () => FIXED });
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'dev' });
  await p.call('orchestrator_mode_backup');
  const err = await rpcError(() => p.call('orchestrator_mode_restore', { backup_file: 'mode_backup_19990101_000000.yaml' }));
  assert.equal(err.code, -32004);
  const data = err.data as Record<string, unknown>;
  assert.equal(data.error_type, 'not_found');
  assert.deepEqual(data.available, ['mode_backup_20250304_050607.yaml']);
});

test('restore refuses a tampered backup without touching any set', async (t) => {
  const p = await makeProject({ now: () => FIXED });
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'dev' });
  const b = (await p.call('orchestrator_mode_backup')).metadata;
  const path = b.backup_location as string;
  await writeFile(path, (await readFile(path, 'utf8')).replace('slug: code', 'slug: hacked'));
  await writeFile(join(p.roles, 'dev.yaml'), 'customModes: []\n');
  const err = await rpcError(() => p.call('orchestrator_mode_restore', { backup_file: b.backup_file }));
  assert.equal(err.code, -32004);
  assert.equal((err.data as Record<string, unknown>).error_type, 'backup_invalid');
  assert.equal(await readFile(join(p.roles, 'dev.yaml'), 'utf8'), 'customModes: []\n');
});

test('restore with activate_after_restore activates the set; without the binding the pointer is left alone', async (t) => {
  const p = await makeProject({ now: () => FIXED });
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'one' });
  const b = (await p.call('orchestrator_mode_backup', { include_session_binding: false })).metadata;
  assert.equal(b.session_binding_included, false);
  const plain = (await p.call('orchestrator_mode_restore', { backup_file: b.backup_file })).metadata;
  assert.deepEqual(plain.unchanged_files, ['one.yaml']);
  assert.equal('active_mode_set' in plain, false);
  assert.equal('safety_backup_location' in plain, false, 'nothing was overwritten, so no safety backup');
  const reloads = p.reloads;
  const act = (await p.call('orchestrator_mode_restore', { backup_file: b.backup_file, activate_after_restore: true })).metadata;
  assert.equal(act.activated, 'one.yaml');
  assert.equal(await readFile(join(p.sets, 'active_mode_set'), 'utf8'), 'one.yaml\n');
  assert.equal(p.reloads, reloads + 1);
});

test('a leftover temp file from a crashed write never shows up as a set or a backup', async (t) => {
  const p = await makeProject({ now: () => FIXED });
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'dev' });
  await p.call('orchestrator_mode_backup');
  // What a kill -9 between "write temp" and "rename" leaves behind.
  await writeFile(join(p.roles, '.dev.yaml.4242.abcdef.tmp'), 'customModes: [torn');
  await writeFile(join(p.roles, '.other.yaml.4242.abcdef.tmp'), 'customModes: []\n');
  await writeFile(join(p.backups, '.mode_backup_20250304_050607_2.yaml.1.ab.tmp'), 'torn');
  const list = (await p.call('orchestrator_mode_list', { include_invalid: true })).metadata;
  assert.deepEqual((list.available_modes as Record<string, unknown>[]).map((r) => [r.filename, r.status]), [['dev.yaml', 'valid']]);
  const backup = (await p.call('orchestrator_mode_backup')).metadata;
  assert.deepEqual(backup.sets_backed_up, ['dev.yaml']);
  assert.equal(backup.backup_file, 'mode_backup_20250304_050607_2.yaml');
  const err = await rpcError(() => p.call('orchestrator_mode_select', { mode_file: '.dev.yaml.4242.abcdef.tmp' }));
  assert.equal(err.code, -32006);
  // No write of ours leaves a temp file behind.
  await p.call('orchestrator_mode_select', { mode_file: 'dev.yaml' });
  const tmp = (await readdir(p.sets)).concat(await readdir(p.roles), await readdir(p.backups)).filter((n) => n.endsWith('.tmp'));
  assert.deepEqual(tmp.sort(), ['.dev.yaml.4242.abcdef.tmp', '.mode_backup_20250304_050607_2.yaml.1.ab.tmp', '.other.yaml.4242.abcdef.tmp']);
});

test('the lock serialises operations in order and takes over a lock left by a dead process', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const { mkdir } = await import('node:fs/promises');
  await mkdir(p.sets, { recursive: true });
  const lockPath = join(p.sets, '.modesets.lock');
  // A pid that cannot be alive (beyond Linux's pid_max).
  await writeFile(lockPath, '99999999\n');
  const lock = new ModesetLock({ timeoutMs: 2000 });
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const first = lock.run(lockPath, async () => { order.push('first:start'); await gate; order.push('first:end'); });
  const second = lock.run(lockPath, async () => { order.push('second'); });
  await new Promise<void>((r) => setImmediate(r));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first:start', 'first:end', 'second']);
  assert.deepEqual((await readdir(p.sets)).filter((n) => n.includes('lock')), [], 'the lock file is removed afterwards');
});

test('calls run in the order they were made even when their preparation finishes in reverse', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const { mkdir } = await import('node:fs/promises');
  const lockPath = join(p.sets, '.modesets.lock');
  const lock = new ModesetLock({ timeoutMs: 2000 });
  const order: string[] = [];
  let releaseFirst!: () => void;
  const firstPrepared = new Promise<void>((r) => { releaseFirst = r; });
  // The first call's preparation (creating the lock's folder) is slow, the second's instant: the
  // second must still wait its turn (a folder created before joining the queue let it overtake).
  const first = lock.run(lockPath, async () => { order.push('first'); }, undefined, async () => { await firstPrepared; await mkdir(p.sets, { recursive: true }); });
  const second = lock.run(lockPath, async () => { order.push('second'); }, undefined, async () => { await mkdir(p.sets, { recursive: true }); });
  await new Promise<void>((r) => setImmediate(r));
  releaseFirst();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first', 'second']);
});

test('the lock waits for a live holder and gives up with -32004 after its timeout', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const { mkdir } = await import('node:fs/promises');
  await mkdir(p.sets, { recursive: true });
  const lockPath = join(p.sets, '.modesets.lock');
  await writeFile(lockPath, `${process.ppid}\n`);
  const lock = new ModesetLock({ timeoutMs: 100, pollMs: 10 });
  const err = await rpcError(() => lock.run(lockPath, async () => 'never'));
  assert.equal(err.code, -32004);
  assert.equal((err.data as Record<string, unknown>).error_type, 'busy');
});
