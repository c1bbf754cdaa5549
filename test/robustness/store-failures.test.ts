// A session store that cannot work: a storage_path that is a file is refused at start (exit 2, one
// line); a store that breaks while serving leaves the other tools working, and the session tools
// answer -32004 naming the folder and the OS error for a refused write (as every refused write
// does), -32603 naming the folder for a read the store cannot do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, startServer } from '../protocol/harness.js';
import { endAndDrain, persistenceConfig, scratchDir } from './drive.js';

for (const [what, layout] of [
  ['is a file', (storage: string) => { writeFileSync(storage, 'not a folder'); return storage; }],
  ['lies under a file', (storage: string) => { writeFileSync(storage, 'not a folder'); return join(storage, 'sessions'); }],
] as const) {
  test(`a storage_path that ${what} stops the start with exit 2 and one line naming it`, (t) => {
    const dir = scratchDir(t, 'rms-store-start-');
    const storage = layout(join(dir, 'store'));
    const r = spawnSync(process.execPath, [MAIN, '--config', persistenceConfig(dir, storage)], { input: '', encoding: 'utf8', timeout: 10_000 });
    assert.equal(r.status, 2, `exit 2; stderr: ${r.stderr}`);
    assert.equal(r.stdout, '', 'nothing on stdout');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0]!.includes(storage) && /not a directory/.test(lines[0]!), lines[0]);
  });
}

test('a store that breaks while serving: list_modes and get_mode_info keep working; session tools name the path and OS error (-32004 for a refused write)', async (t) => {
  const dir = scratchDir(t, 'rms-store-run-');
  const storage = join(dir, 'sessions');
  mkdirSync(storage);
  const s = startServer(t, { args: ['--config', persistenceConfig(dir, storage)] });
  await s.initialize();
  // The folder is replaced by a file after the start-up check, before the first tool call.
  rmSync(storage, { recursive: true });
  writeFileSync(storage, 'not a folder');
  const modes = await s.tool(1, 'list_modes');
  assert.ok(modes.result && !modes.result.isError, `list_modes needs no store: ${JSON.stringify(modes.error)}`);
  const info = await s.tool(2, 'get_mode_info', { mode_slug: 'code' });
  assert.ok(info.result && !info.result.isError, JSON.stringify(info.error));
  const created = await s.tool(3, 'create_task', { mode_slug: 'code' });
  assert.equal(created.error?.code, -32004, JSON.stringify(created).slice(0, 400));
  assert.ok(created.error.message.includes(storage), `names the store: ${created.error.message}`);
  assert.match(created.error.message, /a part of the path is a file, not a folder \(ENOTDIR\)/, 'and the OS error');
  assert.deepEqual([created.error.data.error_type, created.error.data.path, created.error.data.os_error], ['file_not_writable', storage, 'ENOTDIR']);

  // Repaired, the store works again without a restart; breaking it under a live session is reported too.
  rmSync(storage);
  mkdirSync(storage);
  const ok = await s.tool(4, 'create_task', { mode_slug: 'code' });
  assert.ok(ok.result && !ok.result.isError, JSON.stringify(ok.error));
  const id = ok.result.metadata.session_id as string;
  rmSync(storage, { recursive: true });
  writeFileSync(storage, 'not a folder');
  // A write refused by the OS is the caller's to fix (-32004, as every refused write); a read the
  // store cannot do stays the store's own failure (-32603), each naming the folder.
  const switched = await s.tool(5, 'switch_mode', { session_id: id, new_mode_slug: 'ask' });
  assert.equal(switched.error?.code, -32004, `switch_mode: ${JSON.stringify(switched).slice(0, 400)}`);
  assert.ok(switched.error.message.includes(storage), switched.error.message);
  assert.equal(switched.error.data.os_error, 'ENOTDIR', switched.error.message);
  const read = await s.tool(6, 'get_task_info', { session_id: id });
  assert.equal(read.error?.code, -32603, `get_task_info: ${JSON.stringify(read).slice(0, 400)}`);
  assert.ok(read.error.message.includes(storage), read.error.message);
  assert.equal(read.error.data.store_path, storage);
  assert.ok((await s.tool(7, 'list_modes')).result, 'still serving');
  assert.deepEqual(await endAndDrain(s, 5000), { code: 0, signal: null });
  s.assertStdoutPure();
});
