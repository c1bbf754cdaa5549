// Protocol tests of session persistence through the built server: acknowledged changes survive
// kill -9, two processes share one storage directory, and unreadable files are skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';

type TestCtx = Parameters<typeof startServer>[0];
/** A wire value read in assertions; the harness types parsed messages loosely (Msg.result). */
type Loose = Msg['result'];
type Tool = (name: string, args: Record<string, unknown>) => Promise<Msg>;

/** A storage directory and the config file that points a server at it. */
function store(t: TestCtx, sessions: Record<string, unknown> = {}): { dir: string; args: string[] } {
  const dir = join(tempDir(t, 'rms-store-'), 'sessions');
  const file = join(tempDir(t, 'rms-cfg-'), 'config.json');
  writeFileSync(file, JSON.stringify({ sessions: { ...sessions, persistence: { enabled: true, storage_path: dir } } }));
  return { dir, args: ['--config', file] };
}

async function serve(t: TestCtx, args: string[]): Promise<{ s: ServerProcess; tool: Tool }> {
  const s = startServer(t, { args });
  await s.initialize();
  let n = 0;
  return { s, tool: (name, a) => s.tool(`q${++n}`, name, a) };
}

function ok(res: Msg): Loose {
  assert.equal(res.error, undefined, `expected a result, got ${JSON.stringify(res.error)}`);
  return res.result.metadata;
}

/** kill -9 and wait for the process to be gone; the stdout seen so far must be clean. */
async function crash(s: ServerProcess): Promise<void> {
  s.assertStdoutPure();
  s.kill();
  const { signal } = await s.exit;
  assert.equal(signal, 'SIGKILL');
}

test('every acknowledged create, switch and complete survives kill -9', async (t) => {
  const { dir, args } = store(t);

  let { s, tool } = await serve(t, args);
  const parent = ok(await tool('create_task', { mode_slug: 'orchestrator', initial_message: 'Plan the release' }));
  await crash(s);

  ({ s, tool } = await serve(t, args));
  let info = ok(await tool('get_task_info', { session_id: parent.session_id }));
  assert.equal(info.task.task_id, parent.task_id);
  assert.equal(info.task.state, 'active');
  assert.deepEqual(info.task.messages.map((m: { role: string; content: string }) => [m.role, m.content]), [['user', 'Plan the release']]);
  const child = ok(await tool('create_task', { mode_slug: 'code', parent_session_id: parent.session_id }));
  await crash(s);

  ({ s, tool } = await serve(t, args));
  info = ok(await tool('get_task_info', { session_id: parent.session_id, include_hierarchy: true }));
  assert.deepEqual(info.task.child_task_ids, [child.task_id]);
  assert.deepEqual(info.hierarchy.children.map((c: { session_id: string }) => c.session_id), [child.session_id]);
  ok(await tool('switch_mode', { session_id: child.session_id, new_mode_slug: 'debug', reason: 'tests fail' }));
  await crash(s);

  ({ s, tool } = await serve(t, args));
  info = ok(await tool('get_task_info', { session_id: child.session_id, include_hierarchy: true }));
  assert.equal(info.task.mode_slug, 'debug');
  assert.deepEqual(info.task.mode_history.map((h: { from: string; to: string; reason?: string }) => [h.from, h.to, h.reason]), [['code', 'debug', 'tests fail']]);
  assert.equal(info.task.parent_task_id, parent.task_id);
  assert.equal(info.hierarchy.parent.session_id, parent.session_id);
  const done = ok(await tool('complete_task', { session_id: parent.session_id, status: 'completed', result: 'Released' }));
  await crash(s);

  ({ s, tool } = await serve(t, args));
  info = ok(await tool('get_task_info', { session_id: parent.session_id }));
  assert.equal(info.task.state, 'completed');
  assert.equal(info.task.completed_at, done.completed_at);
  assert.deepEqual(info.task.messages.at(-1), { role: 'assistant', content: 'Released', timestamp: done.completed_at });
  assert.equal(ok(await tool('get_task_info', { session_id: child.session_id })).task.state, 'active');
  assert.equal((await tool('switch_mode', { session_id: parent.session_id, new_mode_slug: 'code' })).error.code, -32004, 'finished stays finished');
  await crash(s);

  const files = readdirSync(dir).sort();
  assert.deepEqual(files, [`${parent.session_id}.json`, `${child.session_id}.json`].sort(), 'one file per session, no leftovers');
  // Session ids are capabilities: only the owner may list or read them.
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const f of files) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, `${f} is owner-only`);
});

test('two servers sharing one storage directory see each other\'s sessions and changes', async (t) => {
  const { args } = store(t);
  const a = await serve(t, args);
  const b = await serve(t, args);

  const task = ok(await a.tool('create_task', { mode_slug: 'architect', initial_message: 'Design the cache' }));
  const switched = ok(await b.tool('switch_mode', { session_id: task.session_id, new_mode_slug: 'code', reason: 'design done' }));
  assert.equal(switched.old_mode, 'architect');
  const seenByA = ok(await a.tool('get_task_info', { session_id: task.session_id }));
  assert.equal(seenByA.task.mode_slug, 'code');
  assert.deepEqual(seenByA.task.mode_history.map((h: { from: string; to: string }) => [h.from, h.to]), [['architect', 'code']]);

  const fromB = ok(await b.tool('create_task', { mode_slug: 'ask', parent_session_id: task.session_id }));
  const parentSeenByA = ok(await a.tool('get_task_info', { session_id: task.session_id, include_hierarchy: true }));
  assert.deepEqual(parentSeenByA.hierarchy.children.map((c: { task_id: string }) => c.task_id), [fromB.task_id]);
  ok(await a.tool('complete_task', { session_id: fromB.session_id, status: 'failed', result: 'no answer' }));
  assert.equal(ok(await b.tool('get_task_info', { session_id: fromB.session_id })).task.state, 'failed');
  assert.equal((await b.tool('complete_task', { session_id: fromB.session_id, status: 'completed' })).error.code, -32004);

  // Interleaved switches of one session from both processes: the lock keeps every one of them.
  const modes = ['ask', 'debug'];
  const calls: Promise<Msg>[] = [];
  for (let i = 0; i < 8; i++) {
    calls.push(a.tool('switch_mode', { session_id: task.session_id, new_mode_slug: modes[i % 2]!, reason: `a${i}` }));
    calls.push(b.tool('switch_mode', { session_id: task.session_id, new_mode_slug: modes[(i + 1) % 2]!, reason: `b${i}` }));
  }
  for (const res of await Promise.all(calls)) ok(res);
  const history = ok(await b.tool('get_task_info', { session_id: task.session_id })).task.mode_history as Record<string, string>[];
  assert.equal(history.length, 17, 'no switch was lost');
  for (let i = 1; i < history.length; i++) assert.equal(history[i]!.from, history[i - 1]!.to, 'each switch starts where the previous ended');
  a.s.assertStdoutPure();
  b.s.assertStdoutPure();
});

test('skips an unreadable session file with a warning on stderr and keeps serving', async (t) => {
  const { dir, args } = store(t);
  const first = await serve(t, args);
  const good = ok(await first.tool('create_task', { mode_slug: 'debug' }));
  assert.deepEqual(await first.s.end(), { code: 0, signal: null });

  const broken = 'ses_0123456789abcdef01234567';
  const wrongShape = 'ses_89abcdef0123456789abcdef';
  writeFileSync(join(dir, `${broken}.json`), '{"format":1,"session_id":');
  writeFileSync(join(dir, `${wrongShape}.json`), JSON.stringify({ format: 1, session_id: wrongShape, last_accessed: new Date().toISOString(), task: { task_id: 'x' } }));
  const { s, tool } = await serve(t, args);
  assert.equal(ok(await tool('list_modes', {})).count, 5);
  assert.equal(ok(await tool('get_task_info', { session_id: good.session_id })).task.mode_slug, 'debug');
  assert.match(s.stderr, new RegExp(`${broken}\\.json`));
  assert.match(s.stderr, new RegExp(`${wrongShape}\\.json`));
  assert.match(s.stderr, /WARN/);
  assert.equal((await tool('get_task_info', { session_id: broken })).error.code, -32002);
  assert.ok(ok(await tool('create_task', { mode_slug: 'ask' })).session_id);
  assert.ok(existsSync(join(dir, `${broken}.json`)), 'an unreadable file is left for a person to look at');
  s.assertStdoutPure();
});

test('answers -32003 for a persisted session that expired while no server ran', async (t) => {
  const { args } = store(t, { timeout: 1 });
  const first = await serve(t, args);
  const created = ok(await first.tool('create_task', { mode_slug: 'code' }));
  assert.deepEqual(await first.s.end(), { code: 0, signal: null });
  const left = Date.parse(created.created_at) + 1050 - Date.now();
  if (left > 0) await delay(left); // expiry is wall-clock time itself
  const { s, tool } = await serve(t, args);
  assert.equal((await tool('get_task_info', { session_id: created.session_id })).error.code, -32003);
  s.assertStdoutPure();
});

test('an access before kill -9 still counts after the restart', async (t) => {
  // Timeout 4 s; the access at +2 s moves expiry to +6 s. Checked after +4 s (past the expiry
  // from creation), the session is alive only if that access survived the crash. The 2 s between
  // the check and the moved expiry leave room for a slow restart on a loaded machine.
  const { args } = store(t, { timeout: 4 });
  let { s, tool } = await serve(t, args);
  const used = ok(await tool('create_task', { mode_slug: 'code' }));
  const idle = ok(await tool('create_task', { mode_slug: 'code' }));
  const start = Date.parse(used.created_at);
  const left = start + 2000 - Date.now();
  if (left > 0) await delay(left); // expiry is wall-clock time itself
  ok(await tool('get_task_info', { session_id: used.session_id }));
  await crash(s);
  ({ s, tool } = await serve(t, args));
  const wait = start + 4050 - Date.now();
  if (wait > 0) await delay(wait);
  const info = ok(await tool('get_task_info', { session_id: used.session_id }));
  assert.ok(Date.parse(info.last_accessed) - start >= 4000);
  assert.equal((await tool('get_task_info', { session_id: idle.session_id })).error.code, -32003, 'the session nobody used expired');
  s.assertStdoutPure();
});
