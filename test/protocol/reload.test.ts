// Protocol tests of the live catalogue through the built server: mode files changing while it runs
// (list_changed for resources and prompts, fresh lists after), and the project root taken from the
// client's roots when none was configured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';
import { pollUntil } from '../robustness/observe.js';

type TestCtx = Parameters<typeof startServer>[0];
/** A wire value read in assertions; the harness types parsed messages loosely (Msg.result). */
type Loose = Msg['result'];

const BUILTIN = ['code', 'architect', 'ask', 'debug', 'orchestrator'];
const modeYaml = (slug: string, name: string, groups = '[read]'): string =>
  `  - slug: ${slug}\n    name: ${name}\n    roleDefinition: The ${slug} role.\n    whenToUse: Use for ${slug} work.\n    groups: ${groups}\n`;
const modesFile = (...modes: string[]): string => `customModes:\n${modes.join('')}`;

function rpc(s: ServerProcess): (method: string, params?: unknown) => Promise<Msg> {
  let n = 0;
  return (method, params) => s.call(`q${++n}`, method, params);
}

/** A running server on its own project dir and HOME (the global config dir lives in HOME). */
async function liveServer(t: TestCtx, warmUp = true): Promise<{ s: ServerProcess; call: ReturnType<typeof rpc>; project: string; configDir: string }> {
  const project = tempDir(t, 'rms-proj-');
  const home = tempDir(t, 'rms-home-');
  const configDir = join(home, '.roo-code');
  const s = startServer(t, { args: ['--project-root', project], env: { HOME: home, ROO_CONFIG_DIR: configDir } });
  await s.initialize('2025-06-18');
  const call = rpc(s);
  // The catalogue (and the watch on the mode files) starts with the first request that needs it;
  // prompts/list is one, and it is answered only once the watchers are in place.
  if (warmUp) await call('prompts/list');
  return { s, call, project, configDir };
}

const sinceIndex = (s: ServerProcess, from: number, method: string): Msg[] =>
  s.messages.slice(from).filter((m) => m.method === method);

/** Both list_changed notifications sent after message index `from`. */
async function bothListChanged(s: ServerProcess, from: number, what: string, timeoutMs = 8000): Promise<void> {
  for (const method of ['notifications/resources/list_changed', 'notifications/prompts/list_changed']) {
    await s.waitFor((m) => m.method === method && s.messages.indexOf(m) >= from, timeoutMs, `${method} after ${what}`);
  }
}

/** Applies a change to the mode files and waits for both list_changed notifications after it. */
async function changeAndAwait(s: ServerProcess, apply: () => void, what: string): Promise<void> {
  const from = s.messages.length;
  apply();
  await bothListChanged(s, from, what);
}

async function allResources(call: ReturnType<typeof rpc>): Promise<Loose[]> {
  const out: Loose[] = [];
  let cursor: string | undefined;
  do {
    const res = await call('resources/list', cursor === undefined ? {} : { cursor });
    out.push(...res.result.resources);
    cursor = res.result.nextCursor;
  } while (cursor !== undefined);
  return out;
}

const promptNames = async (call: ReturnType<typeof rpc>): Promise<string[]> =>
  ((await call('prompts/list')).result.prompts as Loose[]).map((p) => p.name);

test('announces listChanged for resources and prompts', async (t) => {
  const s = startServer(t);
  const init = await s.initialize('2025-06-18');
  assert.equal(init.result.capabilities.resources.listChanged, true);
  assert.equal(init.result.capabilities.prompts.listChanged, true);
  s.assertStdoutPure();
});

test('sends list_changed for resources and prompts when .roomodes changes, and the next lists reflect it', async (t) => {
  const { s, call, project } = await liveServer(t);
  const roomodes = join(project, '.roomodes');
  assert.equal((await allResources(call)).length, 15);

  await changeAndAwait(s, () => writeFileSync(roomodes, modesFile(modeYaml('reviewer', '🔍 Reviewer'))), 'creating .roomodes');
  // Logged at info, the default level (the README's table of levels), naming what changed.
  await pollUntil(() => /INFO \[[\w.-]+\] modes reloaded; changed: reviewer\n/.test(s.stderr), 'the reload at info', 5000);
  const added = await allResources(call);
  assert.equal(added.length, 18);
  assert.deepEqual(added.filter((r) => r.uri.startsWith('mode://reviewer')).map((r) => [r.name, r.title]), [['reviewer', '🔍 Reviewer'], ['reviewer_config', '🔍 Reviewer - Configuration'], ['reviewer_system_prompt', '🔍 Reviewer - System Prompt']]);
  assert.deepEqual(await promptNames(call), [...BUILTIN, 'reviewer']);
  const listed = (await call('tools/call', { name: 'list_modes', arguments: { source: 'project' } })).result.metadata;
  assert.deepEqual(listed.modes.map((m: { slug: string }) => m.slug), ['reviewer']);

  let from = s.messages.length;
  writeFileSync(roomodes, modesFile(modeYaml('reviewer', '🔍 Reviewer'), modeYaml('code', '💻 House Code', '[read, edit]')));
  await bothListChanged(s, from, 'overriding code');
  const code = (await allResources(call)).find((r) => r.uri === 'mode://code');
  assert.equal(code?.title, '💻 House Code');
  const read = JSON.parse((await call('resources/read', { uri: 'mode://code' })).result.contents[0].text);
  assert.equal(read.source, 'project');
  assert.equal(read.tool_groups.command.enabled, false);

  from = s.messages.length;
  rmSync(roomodes);
  await bothListChanged(s, from, 'deleting .roomodes');
  assert.equal((await allResources(call)).length, 15);
  assert.deepEqual(await promptNames(call), BUILTIN);
  assert.equal(JSON.parse((await call('resources/read', { uri: 'mode://code' })).result.contents[0].text).source, 'builtin');
  s.assertStdoutPure();
});

test('sends list_changed when the global modes.yaml appears in the config dir while running', async (t) => {
  const { s, call, configDir } = await liveServer(t);
  await changeAndAwait(s, () => {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'modes.yaml'), modesFile(modeYaml('translator', '🌐 Translator')));
  }, 'creating the global modes.yaml');
  const listed = (await call('tools/call', { name: 'list_modes', arguments: { source: 'global' } })).result.metadata;
  assert.deepEqual(listed.modes.map((m: { slug: string }) => m.slug), ['translator']);
  assert.deepEqual(await promptNames(call), [...BUILTIN, 'translator']);
  s.assertStdoutPure();
});

test('keeps the good modes of a .roomodes with a bad one, and reports the bad one on stderr', async (t) => {
  const { s, call, project } = await liveServer(t);
  const bad = '  - slug: "not a slug!"\n    name: Broken\n    roleDefinition: x\n    groups: [read]\n';
  await changeAndAwait(s, () => writeFileSync(join(project, '.roomodes'), modesFile(modeYaml('reviewer', '🔍 Reviewer'), bad)), 'a half-bad .roomodes');
  assert.deepEqual(await promptNames(call), [...BUILTIN, 'reviewer']);
  assert.match(s.stderr, /\.roomodes:\d+/);
  s.assertStdoutPure();
});

test('notices a .roomodes written right after the first request that needed the catalogue', async (t) => {
  // No retries here: a client may well edit its modes a moment after connecting. The change must
  // be seen even if it lands before the server finished setting up its file watcher.
  const { s, call, project } = await liveServer(t, false);
  assert.equal((await call('resources/list')).result.resources.length, 15);
  const from = s.messages.length;
  writeFileSync(join(project, '.roomodes'), modesFile(modeYaml('reviewer', '🔍 Reviewer')));
  await bothListChanged(s, from, 'the early .roomodes', 3000);
  assert.deepEqual(await promptNames(call), [...BUILTIN, 'reviewer']);
  s.assertStdoutPure();
});

/** A server with no configured project that declares the roots capability. */
async function rootsServer(t: TestCtx, capabilities: Record<string, unknown> = { roots: { listChanged: true } }): Promise<ServerProcess> {
  const s = startServer(t, { env: { ROO_PROJECT_ROOT: undefined } });
  await s.initialize('2025-06-18', capabilities);
  return s;
}

/** Waits for the server's next roots/list request (after index `from`) and answers it with `dir`. */
async function answerRoots(s: ServerProcess, from: number, dirs: string[]): Promise<void> {
  const req = await s.waitFor((m) => m.method === 'roots/list' && 'id' in m && s.messages.indexOf(m) >= from, 8000, 'the server\'s roots/list request');
  assert.equal(req.jsonrpc, '2.0');
  s.send({ jsonrpc: '2.0', id: req.id, result: { roots: dirs.map((d, i) => ({ uri: pathToFileURL(d).href, name: `root ${i}` })) } });
}

test('asks the client for roots after initialized and serves the modes of the first file:// root', async (t) => {
  const project = tempDir(t, 'rms-root-');
  writeFileSync(join(project, '.roomodes'), modesFile(modeYaml('reviewer', '🔍 Reviewer')));
  const other = tempDir(t, 'rms-root2-');
  writeFileSync(join(other, '.roomodes'), modesFile(modeYaml('tester', '🧪 Tester')));
  const s = await rootsServer(t);
  const call = rpc(s);

  let from = s.messages.length;
  await answerRoots(s, 0, [project, other]);
  await bothListChanged(s, from, 'adopting the client root');
  const first = (await call('tools/call', { name: 'list_modes', arguments: { source: 'project' } })).result.metadata;
  assert.deepEqual(first.modes.map((m: { slug: string }) => m.slug), ['reviewer'], 'the first root is the project');
  // File checks are now confined to the adopted root, not the server's working directory.
  const task = (await call('tools/call', { name: 'create_task', arguments: { mode_slug: 'code' } })).result.metadata;
  const allowed = async (file_path: string): Promise<boolean> =>
    (await call('tools/call', { name: 'validate_tool_use', arguments: { session_id: task.session_id, tool_name: 'write_to_file', file_path } })).result.metadata.allowed;
  assert.equal(await allowed(join(project, 'src', 'a.py')), true);
  assert.equal(await allowed(join(other, 'a.py')), false);

  // The client's roots change: the server asks again and moves to the new first root.
  from = s.messages.length;
  s.notify('notifications/roots/list_changed');
  await answerRoots(s, from, [other]);
  await bothListChanged(s, from, 'adopting the new root');
  const second = (await call('tools/call', { name: 'list_modes', arguments: { source: 'project' } })).result.metadata;
  assert.deepEqual(second.modes.map((m: { slug: string }) => m.slug), ['tester']);
  assert.equal(s.messages.filter((m) => m.method === 'roots/list').length, 2);
  s.assertStdoutPure();
});

test('keeps serving when the client answers roots/list with an error or with no file:// root', async (t) => {
  const s = await rootsServer(t);
  const call = rpc(s);
  const req = await s.waitFor((m) => m.method === 'roots/list' && 'id' in m, 8000, 'roots/list');
  s.send({ jsonrpc: '2.0', id: req.id, error: { code: -32603, message: 'no roots here' } });
  const from = s.messages.length;
  s.notify('notifications/roots/list_changed');
  const again = await s.waitFor((m) => m.method === 'roots/list' && s.messages.indexOf(m) >= from, 8000, 'the second roots/list');
  s.send({ jsonrpc: '2.0', id: again.id, result: { roots: [{ uri: 'https://example.com/repo' }] } });
  assert.equal((await call('tools/call', { name: 'list_modes', arguments: {} })).result.metadata.count, 5);
  s.assertStdoutPure();
});

test('does not ask for roots when the client lacks the capability or a project root is configured', async (t) => {
  const bare = await rootsServer(t, {});
  const project = tempDir(t, 'rms-proj-');
  const configured = startServer(t, { args: ['--project-root', project] });
  await configured.initialize('2025-06-18', { roots: { listChanged: true } });
  for (const s of [bare, configured]) {
    const call = rpc(s);
    await call('tools/list'); // the services are up, so a roots/list request would be out by now
    await call('ping');
    assert.deepEqual(sinceIndex(s, 0, 'roots/list'), []);
    s.assertStdoutPure();
  }
});
