import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDecider } from '../../src/cli/plugin-decision.js';

const modes = (pattern: string): string => `customModes:
  - slug: notes
    name: Notes
    roleDefinition: Writes notes.
    groups:
      - read
      - - edit
        - fileRegex: ${pattern}
`;

function project(t: { after(fn: () => void): void }): { root: string; env: NodeJS.ProcessEnv } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rms-inproc-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'home'));
  return { root, env: { HOME: join(root, 'home'), ROO_CONFIG_DIR: join(root, 'home', '.roo-code') } };
}

/** Sets a file's times an hour back (or `at` ms), out of the window in which a change could hide in one clock tick. */
const age = (file: string, at = Date.now() - 3_600_000): void => utimesSync(file, at / 1000, at / 1000);
const allowed = async (d: ReturnType<typeof createDecider>, file: string): Promise<boolean | string> => {
  const r = await d.decide('notes', 'write', { filePath: file, content: 'x' });
  return 'fail' in r ? `fail: ${r.fail}` : !r.deny;
};

test('the decider reads the modes once, and again only when a mode file changes (size, time or inode)', async (t) => {
  const { root, env } = project(t);
  const file = join(root, '.roomodes');
  writeFileSync(file, modes('\\.md$'));
  age(file);
  const d = createDecider(root, env);
  assert.equal(await allowed(d, 'a.md'), true);
  assert.equal(await allowed(d, 'a.tx'), false);
  // Same size, same time, same inode: taken as unchanged, so the old pattern still decides.
  const before = statSync(file);
  writeFileSync(file, modes('\\.tx$'));
  utimesSync(file, before.atime, before.mtime);
  assert.equal(await allowed(d, 'a.tx'), false, 'a file that looks unchanged is not read again');
  age(file, before.mtimeMs + 1000);
  assert.equal(await allowed(d, 'a.tx'), true, 'a new modification time is a change');
  // A new file renamed over the old one: another inode, even with the same size and time.
  const t0 = statSync(file).mtimeMs;
  writeFileSync(join(root, 'next'), modes('\\.md$'));
  age(join(root, 'next'), t0);
  renameSync(join(root, 'next'), file);
  assert.equal(await allowed(d, 'a.md'), true, 'another inode is a change');
  rmSync(file);
  assert.match(String(await allowed(d, 'a.md')), /^fail: unknown mode "notes" in .*; the modes in force: code, architect/);
});

test('modes written just now are read again at every call until the files have been still for a while', async (t) => {
  const { root, env } = project(t);
  const file = join(root, '.roomodes');
  writeFileSync(file, modes('\\.md$'));
  const d = createDecider(root, env);
  assert.equal(await allowed(d, 'a.md'), true);
  const before = statSync(file);
  writeFileSync(file, modes('\\.tx$'));
  utimesSync(file, before.atime, before.mtime);
  assert.equal(await allowed(d, 'a.tx'), true, 'a change in the same clock tick is still seen');
});

test('a global mode and the active mode set count as for the hook; a broken file is named when the mode is missing', async (t) => {
  const { root, env } = project(t);
  mkdirSync(env.ROO_CONFIG_DIR!);
  writeFileSync(join(env.ROO_CONFIG_DIR!, 'modes.yaml'), modes('^docs/'));
  const d = createDecider(root, env);
  assert.equal(await allowed(d, 'docs/a.txt'), true);
  assert.equal(await allowed(d, 'a.md'), false);
  assert.match(String(await allowed(d, 'docs/../../x')), /^false$/);
  const bad = await d.decide('notes', 'write', { filePath: 42 });
  assert.match('fail' in bad ? bad.fail : '', /tool_input\.filePath must be a non-empty string/);
  // A mode set made active (a new pointer, a new file in roles/) stands in for .roomodes.
  mkdirSync(join(root, '.task_orchestrator', 'roles'), { recursive: true });
  writeFileSync(join(root, '.task_orchestrator', 'roles', 'set.yaml'), modes('\\.tx$'));
  writeFileSync(join(root, '.task_orchestrator', 'active_mode_set'), 'set.yaml\n');
  assert.equal(await allowed(d, 'a.tx'), true);
  assert.equal(await allowed(d, 'docs/a.txt'), false, 'the project\'s mode wins over the global one');
  writeFileSync(join(root, '.task_orchestrator', 'roles', 'set.yaml'), 'customModes: [\n');
  assert.equal(await allowed(d, 'docs/a.txt'), true, 'a broken set hides nothing: the global mode stands');
  writeFileSync(join(env.ROO_CONFIG_DIR!, 'modes.yaml'), 'customModes:\n  - slug: notes\n');
  assert.match(String(await allowed(d, 'a.md')), /^fail: unknown mode "notes" .*problems in the mode files: .*(set\.yaml|modes\.yaml):\d/);
});

test('a modes file that appears deep in a folder tree that did not exist is seen at the next call', async (t) => {
  const { root, env } = project(t);
  const config = join(env.HOME!, '.config');
  mkdirSync(config);
  for (const f of [config, env.HOME!, root]) age(f);
  const d = createDecider(root, { ...env, XDG_CONFIG_HOME: undefined });
  assert.match(String(await allowed(d, 'a.md')), /^fail: unknown mode "notes"/);
  // Roo Code's own global file in VS Code's storage, a tree of five new folders.
  const settings = join(config, 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'settings');
  mkdirSync(settings, { recursive: true });
  writeFileSync(join(settings, 'custom_modes.yaml'), modes('\\.md$'));
  age(join(settings, 'custom_modes.yaml'));
  assert.equal(await allowed(d, 'a.md'), true);
});
