// Where a written file names `roo-modes-server` on PATH and PATH has none (the package is not on the
// registry yet), add-to-mcp-config and export say so on stderr with the ways to get it, and still
// write nothing of this machine into the file; with the command on PATH they say nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './harness.js';
import { runCli } from './cli-run.js';

const CLONE = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const MAIN_CJS = join(CLONE, 'dist', 'main.cjs');
const MODES = 'customModes:\n  - slug: docs-writer\n    name: Docs Writer\n    roleDefinition: You write docs.\n    groups: [read, [edit, {fileRegex: "\\\\.md$"}]]\n';

/** A project with a .roomodes, a HOME, and a bin folder holding a `roo-modes-server` stand-in. */
function place(t: Parameters<typeof tempDir>[0]): { proj: string; home: string; bin: string; empty: string } {
  const base = tempDir(t, 'rms-install-');
  const proj = join(base, 'proj');
  const home = join(base, 'home');
  const bin = join(base, 'bin');
  const empty = join(base, 'empty-bin');
  for (const d of [proj, home, bin, empty]) mkdirSync(d, { recursive: true });
  writeFileSync(join(proj, '.roomodes'), MODES);
  writeFileSync(join(bin, 'roo-modes-server'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'roo-modes-server'), 0o755);
  return { proj, home, bin, empty };
}

test('add-to-mcp-config for a project file warns when roo-modes-server is not on PATH, naming npm install -g, npm link and the node form', async (t) => {
  const { proj, home, empty } = place(t);
  const r = await runCli(['add-to-mcp-config', '--client', 'claude-code'], { home, cwd: proj, env: { PATH: empty } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^roo-modes-server add-to-mcp-config: warning: this entry runs "roo-modes-server" found on PATH, and there is no "roo-modes-server" on PATH here, so it cannot start yet\.$/m);
  assert.ok(r.stderr.includes(`npm install -g ${CLONE}, or npm link in that folder`), r.stderr);
  assert.ok(r.stderr.includes(`node ${MAIN_CJS}`), r.stderr);
  assert.doesNotMatch(r.stdout, /warning/, 'the hint is on stderr only');
  // The file itself stays portable: the bare command, no path of this machine.
  const written = readFileSync(join(proj, '.mcp.json'), 'utf8');
  assert.deepEqual(JSON.parse(written).mcpServers['roo-modes'], { type: 'stdio', command: 'roo-modes-server', args: [] });
  assert.ok(!written.includes(CLONE));
  // Run again: unchanged, and the command is still missing, so it is said again.
  const again = await runCli(['add-to-mcp-config', '--client', 'claude-code'], { home, cwd: proj, env: { PATH: empty } });
  assert.match(again.stdout, /^unchanged/);
  assert.match(again.stderr, /no "roo-modes-server" on PATH here/);
});

test('add-to-mcp-config says nothing about PATH when roo-modes-server is there, or for a per-user entry that runs absolute paths', async (t) => {
  const { proj, home, bin, empty } = place(t);
  const onPath = await runCli(['add-to-mcp-config', '--client', 'cursor'], { home, cwd: proj, env: { PATH: `${bin}:${dirname(process.execPath)}` } });
  assert.equal(onPath.code, 0, onPath.stderr);
  assert.doesNotMatch(onPath.stderr, /PATH/);
  const perUser = await runCli(['add-to-mcp-config', '--client', 'claude'], { home, cwd: proj, env: { PATH: empty } });
  assert.equal(perUser.code, 0, perUser.stderr);
  assert.doesNotMatch(perUser.stderr, /PATH/);
});

test('export --hook command warns when its launcher is not on PATH; the vendored check (the default) needs no warning', async (t) => {
  const { proj, home, bin, empty } = place(t);
  const cmd = await runCli(['export', '--to', 'claude-code', '--hook', 'command'], { home, cwd: proj, env: { PATH: empty } });
  assert.equal(cmd.code, 0, cmd.stdout + cmd.stderr);
  assert.match(cmd.stderr, /^roo-modes-server export: warning: the hook this export writes runs "roo-modes-server" found on PATH, and there is no "roo-modes-server" on PATH here/m);
  assert.ok(cmd.stderr.includes(`npm install -g ${CLONE}`), cmd.stderr);
  const agent = readFileSync(join(proj, '.claude', 'agents', 'docs-writer.md'), 'utf8');
  assert.match(agent, /roo-modes-server/);
  assert.ok(!agent.includes(CLONE), 'the agent file names no path of this machine');
  const found = await runCli(['export', '--to', 'claude-code', '--hook', 'command'], { home, cwd: proj, env: { PATH: bin } });
  assert.equal(found.code, 0, found.stdout + found.stderr);
  assert.doesNotMatch(found.stderr, /on PATH here/);
  const vendored = await runCli(['export', '--to', 'claude-code', '--hook', 'vendored'], { home, cwd: proj, env: { PATH: empty } });
  assert.equal(vendored.code, 0, vendored.stdout + vendored.stderr);
  assert.doesNotMatch(vendored.stderr, /on PATH here/);
});
