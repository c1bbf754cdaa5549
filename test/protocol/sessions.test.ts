// Protocol tests of session lookup and expiry through the built server: unknown ids (-32002),
// expired ones (-32003) before and after the cleanup sweep, and every access refreshing the clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';

type TestCtx = Parameters<typeof startServer>[0];

function withConfig(t: TestCtx, config: unknown, extra: string[] = []): { args: string[] } {
  const file = join(tempDir(t, 'rms-cfg-'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return { args: ['--config', file, ...extra] };
}

function tools(s: ServerProcess): (name: string, args: Record<string, unknown>) => Promise<Msg> {
  let n = 0;
  return (name, args) => s.tool(`q${++n}`, name, args);
}

function code(res: Msg): number | 'ok' {
  if (res.error !== undefined) return res.error.code;
  assert.notEqual(res.result.isError, true);
  return 'ok';
}

/** Waits for a moment on the wall clock: session expiry is measured in real time. */
async function until(epochMs: number): Promise<void> {
  const left = epochMs - Date.now();
  if (left > 0) await delay(left);
}

/** Polls a condition that has no event of its own, failing at the deadline. */
async function poll(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

const SESSION_TOOLS: [string, Record<string, unknown>][] = [
  ['get_task_info', {}],
  ['switch_mode', { new_mode_slug: 'code' }],
  ['validate_tool_use', { tool_name: 'read_file' }],
  ['complete_task', { status: 'completed' }],
  ['create_task', { mode_slug: 'code' }], // as parent_session_id
];
const withSession = (args: Record<string, unknown>, name: string, id: string): Record<string, unknown> =>
  (name === 'create_task' ? { ...args, parent_session_id: id } : { ...args, session_id: id });

test('answers an unknown session id with -32002 from every tool that takes one', async (t) => {
  const s = startServer(t);
  await s.initialize();
  const call = tools(s);
  for (const id of ['ses_0123456789abcdef01234567', 'nope', 'ses_../../etc/passwd', 'SES_0123456789ABCDEF01234567']) {
    for (const [name, args] of SESSION_TOOLS) {
      const res = await call(name, withSession(args, name, id));
      assert.equal(code(res), -32002, `${name} with ${id}`);
      assert.equal(typeof res.error.data, 'object');
    }
  }
  s.assertStdoutPure();
});

test('answers an expired session with -32003 on every later access, distinct from an unknown one', async (t) => {
  const s = startServer(t, withConfig(t, { sessions: { timeout: 1, cleanup_interval: 3600 } }));
  await s.initialize();
  const call = tools(s);
  const created = await call('create_task', { mode_slug: 'ask' });
  const id = created.result.metadata.session_id as string;
  await until(Date.parse(created.result.metadata.created_at) + 1050);
  for (const [name, args] of SESSION_TOOLS) {
    const res = await call(name, withSession(args, name, id));
    assert.equal(code(res), -32003, `${name} on the expired session`);
    assert.match(res.error.message + JSON.stringify(res.error.data), /expired/i);
    assert.match(res.error.message, /idle for over 1 s\)\. Start a new task with create_task$/, 'the message says what to do');
  }
  assert.equal(code(await call('get_task_info', { session_id: 'ses_0123456789abcdef01234567' })), -32002);
  s.assertStdoutPure();
});

for (const persistence of [false, true]) {
  test(`keeps answering -32003 after the cleanup sweep removed the session (persistence ${persistence ? 'on' : 'off'})`, async (t) => {
    const config = {
      sessions: { timeout: 1, cleanup_interval: 1, persistence: { enabled: persistence, storage_path: tempDir(t, 'rms-store-') } },
    };
    const s = startServer(t, withConfig(t, config, ['--log-level', 'debug']));
    await s.initialize();
    const call = tools(s);
    const id = (await call('create_task', { mode_slug: 'code' })).result.metadata.session_id as string;
    // The sweep logs what it removed; that line is the event that the session is gone from memory.
    await poll(() => /swept 1 expired session/.test(s.stderr), 15000, 'the sweep to remove the session');
    assert.equal(code(await call('get_task_info', { session_id: id })), -32003);
    assert.equal(code(await call('switch_mode', { session_id: id, new_mode_slug: 'ask' })), -32003);
    s.assertStdoutPure();
  });
}

test('every access refreshes last_accessed, so a used session outlives the timeout and an idle one does not', async (t) => {
  const s = startServer(t, withConfig(t, { sessions: { timeout: 2, cleanup_interval: 3600 } }));
  await s.initialize();
  const call = tools(s);
  const busy = (await call('create_task', { mode_slug: 'architect' })).result.metadata;
  const idle = (await call('create_task', { mode_slug: 'architect' })).result.metadata;
  const start = Date.parse(busy.created_at);
  // Each access comes 1 s after the previous one was sent (half the timeout, leaving room for a
  // loaded machine). The second comes after the timeout counted from creation, the third after
  // the timeout counted from the first access: each kind of access must have counted.
  const steps: [string, Record<string, unknown>][] = [
    ['validate_tool_use', { session_id: busy.session_id, tool_name: 'write_to_file', file_path: 'plan.md' }],
    ['switch_mode', { session_id: busy.session_id, new_mode_slug: 'code' }],
    ['get_task_info', { session_id: busy.session_id, include_hierarchy: true }],
  ];
  let sentAt = start;
  for (const [name, args] of steps) {
    await until(sentAt + 1000);
    sentAt = Date.now();
    assert.equal(code(await call(name, args)), 'ok', `${name} at +${sentAt - start} ms finds the session alive`);
  }
  const info = await call('get_task_info', { session_id: busy.session_id });
  assert.ok(Date.parse(info.result.metadata.last_accessed) >= sentAt, 'last_accessed is the latest access');
  assert.ok(Date.parse(info.result.metadata.last_accessed) - start >= 2000, 'the session is older than the timeout');
  assert.equal(info.result.metadata.task.mode_slug, 'code');
  assert.equal(code(await call('get_task_info', { session_id: idle.session_id })), -32003, 'the idle session expired meanwhile');
  s.assertStdoutPure();
});
