// Files the server reads on request, made hostile: the mode-set pointer as a link to a private key,
// a link to /dev/zero, a FIFO, a 300 MB sparse file; a FIFO rules file, session file and config
// file; a project rules file linked out of the project. Each is refused by name, never echoed, never hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, startServer, type Msg } from '../protocol/harness.js';
import { endAndDrain, persistenceConfig, scratchDir } from './drive.js';

const SECRET = 'PRIVATE-KEY-MARKER-7f3a9c';
const canMkfifo = spawnSync('mkfifo', ['--help']).status === 0;

/** A project with a valid set in roles/ and the pointer made by `make`. */
function project(t: { after(fn: () => void): void }, make: (pointer: string, base: string) => void): { root: string; pointer: string; base: string } {
  const base = scratchDir(t, 'rms-pointer-');
  const root = join(base, 'project');
  mkdirSync(join(root, '.task_orchestrator', 'roles'), { recursive: true });
  writeFileSync(join(root, '.task_orchestrator', 'roles', 'team.yaml'), 'customModes:\n  - slug: team\n    name: Team\n    roleDefinition: x\n    groups: [read]\n');
  writeFileSync(join(base, 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n-----END OPENSSH PRIVATE KEY-----\n`);
  const pointer = join(root, '.task_orchestrator', 'active_mode_set');
  make(pointer, base);
  return { root, pointer, base };
}

const errorOf = (m: Msg): { code: number; message: string } => m.error as { code: number; message: string };

const POINTERS: { name: string; make: (pointer: string, base: string) => void; problem: RegExp; fifo?: boolean }[] = [
  { name: 'a symlink to a private key', make: (p, base) => symlinkSync(join(base, 'id_ed25519'), p), problem: /symbolic link/ },
  { name: 'a symlink to /dev/zero', make: (p) => symlinkSync('/dev/zero', p), problem: /symbolic link/ },
  { name: 'a FIFO', make: (p) => { spawnSync('mkfifo', [p]); }, problem: /FIFO/, fifo: true },
  { name: 'a 300 MB sparse file', make: (p) => { writeFileSync(p, 'team.yaml\n'); truncateSync(p, 300 * 1024 * 1024); }, problem: /larger than/ },
];

for (const c of POINTERS) {
  test(`a mode-set pointer that is ${c.name} is a -32004 naming the file; modes still load and the server exits on EOF`, { skip: c.fifo && !canMkfifo ? 'mkfifo is not available' : false }, async (t) => {
    const { root, pointer } = project(t, c.make);
    const s = startServer(t, { args: ['--project-root', root] });
    await s.initialize();
    const modes = await s.tool(1, 'list_modes');
    assert.ok(modes.result, `list_modes answers despite the pointer: ${JSON.stringify(modes.error)}`);
    const list = await s.tool(2, 'orchestrator_mode_list');
    assert.equal(errorOf(list).code, -32004, JSON.stringify(list));
    assert.ok(errorOf(list).message.includes(pointer), `the error names the pointer file: ${errorOf(list).message}`);
    assert.match(errorOf(list).message, c.problem);
    assert.ok(!s.lines.some((l) => l.includes(SECRET)), 'the private key never reaches stdout');
    // Selecting a set replaces the bad pointer (that is how a user repairs it).
    const select = await s.tool(3, 'orchestrator_mode_select', { mode_file: 'team.yaml', backup_current: false });
    assert.ok(select.result, JSON.stringify(select.error));
    const after = await s.tool(4, 'orchestrator_mode_list');
    assert.equal(after.result.metadata.current_mode, 'team.yaml');
    const exit = await endAndDrain(s, 5000);
    assert.deepEqual(exit, { code: 0, signal: null }, 'the server exits on EOF');
    s.assertStdoutPure();
  });
}

test('a FIFO pointer does not keep the server from exiting on SIGTERM', { skip: canMkfifo ? false : 'mkfifo is not available' }, async (t) => {
  const { root } = project(t, (p) => { spawnSync('mkfifo', [p]); });
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const list = await s.tool(1, 'orchestrator_mode_list');
  assert.equal(errorOf(list).code, -32004);
  const exited = s.exit;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.kill(), 5000);
  const exit = await exited;
  clearTimeout(timer);
  assert.equal(exit.signal, null, 'the server ended by itself, not by SIGKILL');
});

test('a pointer holding something other than a set name is never echoed', async (t) => {
  const { root } = project(t, (p) => writeFileSync(p, `${SECRET}\n`));
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const list = await s.tool(1, 'orchestrator_mode_list');
  assert.ok(list.result, JSON.stringify(list.error));
  assert.ok(!s.lines.some((l) => l.includes(SECRET)), 'the pointer content is not shown');
  const modes = spawnSync(process.execPath, [MAIN, 'modes', '--project-root', root], { encoding: 'utf8', timeout: 10_000 });
  assert.ok(!`${modes.stdout}${modes.stderr}`.includes(SECRET), 'the modes command does not show it either');
});

test('rules files: a project rule linked out of the project is left out; a FIFO rule never hangs the prompt', { skip: canMkfifo ? false : 'mkfifo is not available' }, async (t) => {
  const { root, base } = project(t, () => undefined);
  mkdirSync(join(root, '.roo', 'rules'), { recursive: true });
  writeFileSync(join(root, '.roo', 'rules', 'a-kept.md'), 'Kept rule text.');
  symlinkSync(join(base, 'id_ed25519'), join(root, '.roo', 'rules', 'b-key.md'));
  spawnSync('mkfifo', [join(root, '.roorules-code')]);
  spawnSync('mkfifo', [join(root, '.roo', 'rules', 'c-fifo.md')]);
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const res = await s.call(1, 'resources/read', { uri: 'mode://code/system_prompt' });
  const text = JSON.stringify(res.result);
  assert.ok(text.includes('Kept rule text.'), 'the ordinary rule is in the prompt');
  assert.ok(!text.includes(SECRET), 'the linked key is not');
  assert.deepEqual(await endAndDrain(s, 5000), { code: 0, signal: null });
});

test('a FIFO or symlink where a session file should be is skipped, not waited on', { skip: canMkfifo ? false : 'mkfifo is not available' }, async (t) => {
  const base = scratchDir(t, 'rms-store-fifo-');
  const storage = join(base, 'sessions');
  mkdirSync(storage);
  spawnSync('mkfifo', [join(storage, `ses_${'a'.repeat(24)}.json`)]);
  writeFileSync(join(base, 'secret.json'), SECRET);
  symlinkSync(join(base, 'secret.json'), join(storage, `ses_${'b'.repeat(24)}.json`));
  const s = startServer(t, { args: ['--config', persistenceConfig(base, storage)] });
  await s.initialize();
  const modes = await s.tool(1, 'list_modes');
  assert.ok(modes.result, JSON.stringify(modes.error));
  const created = await s.tool(2, 'create_task', { mode_slug: 'code' });
  assert.ok(created.result, JSON.stringify(created.error));
  assert.ok(!s.lines.some((l) => l.includes(SECRET)));
  assert.deepEqual(await endAndDrain(s, 5000), { code: 0, signal: null });
});

test('a FIFO config file is refused with exit 2 and one line naming it', { skip: canMkfifo ? false : 'mkfifo is not available' }, async (t) => {
  const base = scratchDir(t, 'rms-config-fifo-');
  const config = join(base, 'config.json');
  spawnSync('mkfifo', [config]);
  const child = spawn(process.execPath, [MAIN, '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(code, 2, `exit 2, got ${code}; stderr: ${stderr}`);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.ok(stderr.includes(config) && /FIFO/.test(stderr), stderr);
});
