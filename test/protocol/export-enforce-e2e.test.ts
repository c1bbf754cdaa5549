// The exported Cursor hook and OpenCode plugin against the real deciders (needs h-hook's hook cursor
// and serve --http's /hooks/claude-code): Cursor's hooks.json line run by a shell, the plugin over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAIN, tempDir } from './harness.js';
import { HttpServer } from './http-harness.js';
import { runCli } from './cli-run.js';

type Ctx = { after(fn: () => void): void };

const ROOMODES = JSON.stringify({
  customModes: [{ slug: 'docs-writer', name: 'Docs writer', roleDefinition: 'You write the docs.', groups: ['read', ['edit', { fileRegex: '^docs/' }]] }],
});

function project(t: Ctx): { root: string; env: Record<string, string>; bin: string } {
  const root = realpathSync(tempDir(t, 'rms-e2e-'));
  const home = tempDir(t, 'rms-e2e-home-');
  writeFileSync(join(root, '.roomodes'), ROOMODES);
  for (const dir of ['docs', 'src']) mkdirSync(join(root, dir));
  // The package as installed elsewhere: a `roo-modes-server` on PATH that runs this build.
  const bin = tempDir(t, 'rms-e2e-bin-');
  writeFileSync(join(bin, 'roo-modes-server'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(bin, 'roo-modes-server'), 0o755);
  return { root, bin, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

/** A PATH holding node (this one) and the system's tools, and nothing of this package. */
const NODE_ONLY = `${dirname(process.execPath)}:/usr/bin:/bin`;

for (const kind of ['the check file (default)', 'roo-modes-server (--hook command)'] as const) test(`the hooks.json line running ${kind}, run by a shell as Cursor runs it, denies and lets through as the mode says`, async (t) => {
  const { root, env, bin } = project(t);
  const vendored = kind.startsWith('the check');
  const r = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer', ...(vendored ? [] : ['--hook', 'command'])], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const [entry] = (JSON.parse(readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')) as { hooks: { preToolUse: { command: string; failClosed: boolean }[] } }).hooks.preToolUse;
  assert.equal(entry!.failClosed, true);
  // Cursor runs a project's hooks in the project root; the PATH launcher must not depend on it.
  const run = (payload: unknown, path = vendored ? NODE_ONLY : `${bin}:/usr/bin:/bin`, cwd = vendored ? root : tempDir(t, 'rms-e2e-cwd-')) => spawnSync('/bin/sh', ['-c', entry!.command], {
    input: JSON.stringify(payload), encoding: 'utf8', cwd,
    env: { PATH: path, HOME: env.HOME, CURSOR_PROJECT_DIR: root, CLAUDE_PROJECT_DIR: root },
  });
  const event = (tool_name: string, tool_input: Record<string, unknown>) => ({
    hook_event_name: 'preToolUse', conversation_id: 'c1', generation_id: 'g1', tool_name, tool_input, tool_use_id: 'tool_1', cwd: '', workspace_roots: [root],
  });
  const denied = (out: string): boolean => out.trim() !== '' && (JSON.parse(out) as { permission?: string }).permission === 'deny';
  const out = run(event('Write', { file_path: join(root, 'src', 'a.ts'), contents: 'x' }));
  assert.ok(denied(out.stdout), out.stdout + out.stderr);
  assert.match(out.stdout, /\^docs\//);
  const ok = run(event('Write', { file_path: join(root, 'docs', 'a.md'), contents: 'x' }));
  assert.equal(ok.status, 0, ok.stderr);
  assert.ok(!denied(ok.stdout), ok.stdout);
  assert.ok(denied(run(event('Shell', { command: 'ls', cwd: root })).stdout), 'a mode without command may not run Shell');
  const noNode = mkdtempSync(join(tmpdir(), 'rms-e2e-nonode-'));
  t.after(() => rmSync(noNode, { recursive: true, force: true }));
  const missing = run(event('Write', { file_path: join(root, 'docs', 'a.md') }), vendored ? noNode : '/usr/bin:/bin');
  assert.notEqual(missing.status, 0, 'no launcher: a failure, which failClosed turns into a block');
  if (vendored) {
    const elsewhere = run(event('Write', { file_path: join(root, 'docs', 'a.md') }), NODE_ONLY, tempDir(t, 'rms-e2e-cwd-'));
    assert.notEqual(elsewhere.status, 0, 'run outside the project root the check is not found: a failure too');
  }
});

test('the plugin with --plugin-url asks serve --http, with the token, and blocks without it', async (t) => {
  const { root, env, bin } = project(t);
  const r = await runCli(['export', '--to', 'opencode', '--plugin', '--plugin-url', 'http://127.0.0.1:3000/hooks/claude-code'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const server = new HttpServer(['--project-root', root], { ROO_MODES_HTTP_TOKEN: 'e2e-token-of-32-characters-long', PATH: `${bin}:${process.env.PATH ?? ''}` });
  t.after(() => { server.child.kill(); });
  const origin = new URL(await server.ready).origin;
  // The same plugin, pointed at this server's port (the export above named a fixed one).
  const text = readFileSync(join(root, '.opencode', 'plugins', 'roo-modes.js'), 'utf8').replaceAll('http://127.0.0.1:3000/', `${origin}/`);
  const file = join(root, '.opencode', 'plugins', 'live.js');
  writeFileSync(file, text);
  const { RooModesPlugin } = await import(pathToFileURL(file).href) as { RooModesPlugin(i: { directory: string }): Promise<Record<string, (input: object, output?: object) => Promise<void>>> };
  const hooks = await RooModesPlugin({ directory: root });
  await hooks['chat.params']!({ sessionID: 's1', agent: 'docs-writer' });
  const call = async (tool: string, args: object): Promise<string | undefined> => {
    try { await hooks['tool.execute.before']!({ tool, sessionID: 's1', callID: 'c' }, { args }); return undefined; } catch (err) { return (err as Error).message; }
  };
  const saved = process.env.ROO_MODES_HTTP_TOKEN;
  t.after(() => { process.env.ROO_MODES_HTTP_TOKEN = saved; });
  process.env.ROO_MODES_HTTP_TOKEN = 'e2e-token-of-32-characters-long';
  assert.match((await call('write', { filePath: join(root, 'src', 'a.ts'), content: 'x' }))!, /Mode docs-writer .*\^docs\//);
  assert.equal(await call('write', { filePath: join(root, 'docs', 'a.md'), content: 'x' }), undefined);
  assert.match((await call('bash', { command: 'ls' }))!, /"command" group/);
  delete process.env.ROO_MODES_HTTP_TOKEN;
  assert.match((await call('write', { filePath: join(root, 'docs', 'a.md'), content: 'x' }))!, /could not be checked: HTTP 401/);
});
