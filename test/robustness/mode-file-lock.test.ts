// The mode file's lock through the built server: writes of one process take turns in order, a lock
// held by another live process answers a typed retryable -32004 naming it, a FIFO planted as the
// lock file or the session lock is refused by name without a hang, and a cancelled wait writes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { startServer, type Msg, type ServerProcess } from '../protocol/harness.js';
import { startHttp } from '../protocol/http-harness.js';
import { endAndDrain, persistenceConfig, scratchDir } from './drive.js';

const mode = (slug: string, role = `Role of ${slug}.`): Record<string, unknown> => ({ slug, name: slug, role_definition: role, groups: [{ group: 'read' }] });

/** A lock file as a live process (this test) holds it: pid, random line, host, no start time. */
const holdLock = (path: string): void => writeFileSync(path, `${process.pid}\nheld-by-the-test\n${hostname()}\n\n`);

/** Resolves once the server `pid` first tries the lock at `lockPath` (its pid file appears beside it). */
function triesLock(dir: string, lockPath: string, pid: number): Promise<void> {
  const prefix = `${lockPath.slice(dir.length + 1)}.${pid}.`;
  return new Promise((resolve) => {
    const w = watch(dir, (_e, name) => { if (typeof name === 'string' && name.startsWith(prefix)) { w.close(); resolve(); } });
  });
}

const errorOf = (m: Msg): { code: number; message: string; data: Record<string, unknown> } => m.error;

test('writes of one process to a mode file take turns in the order they came', async (t) => {
  const project = scratchDir(t);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  assert.ok((await s.tool('make', 'create_mode', mode('ordered'))).result, 'created');
  const n = 30;
  for (let i = 1; i <= n; i++) s.request(`u${i}`, 'tools/call', { name: 'update_mode', arguments: { slug: 'ordered', role_definition: `Version ${i}.` } });
  for (let i = 1; i <= n; i++) {
    const r = await s.response(`u${i}`, 30_000);
    assert.ok(r.result && !r.result.isError, `update ${i}: ${JSON.stringify(r.error ?? r.result).slice(0, 300)}`);
  }
  assert.match(readFileSync(join(project, '.roomodes'), 'utf8'), new RegExp(`Version ${n}\\.`), 'the last update sent is the one in force');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('a mode file locked by another live process: a typed retryable -32004 naming the holder; nothing written', async (t) => {
  const project = scratchDir(t);
  const lockPath = join(project, '.roomodes.lock');
  holdLock(lockPath);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  // The server waits for the holder (10 s) before it answers.
  s.request('c', 'tools/call', { name: 'create_mode', arguments: mode('blocked') });
  const r = await s.response('c', 30_000);
  const e = errorOf(r);
  assert.equal(e?.code, -32004, JSON.stringify(r).slice(0, 400));
  assert.match(e.message, new RegExp(`process ${process.pid}`));
  assert.match(e.message, /Nothing was written/);
  assert.equal(e.data.error_type, 'busy');
  assert.equal(e.data.retryable, true);
  assert.equal(e.data.written, false);
  assert.equal(e.data.holder_pid, process.pid);
  assert.equal(e.data.file, lockPath);
  assert.equal(existsSync(join(project, '.roomodes')), false, 'nothing was written');
  assert.doesNotMatch(s.stderr, /LockBusyError/);
  // Released, the same call goes through.
  rmSync(lockPath);
  assert.ok((await s.tool('again', 'create_mode', mode('blocked'))).result, 'works once the lock is free');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('two servers writing one mode file at once: each write lands or is refused as busy, never -32603', async (t) => {
  const project = scratchDir(t);
  const servers = [startServer(t, { args: ['--project-root', project] }), startServer(t, { args: ['--project-root', project] })];
  await Promise.all(servers.map((s) => s.initialize()));
  const per = 60;
  servers.forEach((s, k) => { for (let i = 0; i < per; i++) s.request(`w${i}`, 'tools/call', { name: 'create_mode', arguments: mode(`s${k}-m${i}`) }); });
  const written: string[] = [];
  for (const [k, s] of servers.entries()) {
    for (let i = 0; i < per; i++) {
      const r = await s.response(`w${i}`, 60_000);
      if (r.result && !r.result.isError) { written.push(`s${k}-m${i}`); continue; }
      assert.equal(r.error?.code, -32004, `server ${k} write ${i}: ${JSON.stringify(r).slice(0, 400)}`);
      assert.equal(r.error.data.error_type, 'busy');
      assert.equal(r.error.data.retryable, true);
    }
  }
  const text = readFileSync(join(project, '.roomodes'), 'utf8');
  for (const slug of written) assert.match(text, new RegExp(`slug: ${slug}\\b`), `${slug} was acknowledged and is in the file`);
  for (const s of servers) assert.doesNotMatch(s.stderr, /Internal error|LockBusyError/);
  for (const s of servers) assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('a FIFO planted as the mode file lock or as the mode file is refused by name, at once, and serving goes on', async (t) => {
  const project = scratchDir(t);
  const lockPath = join(project, '.roomodes.lock');
  execFileSync('mkfifo', [lockPath]);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const r = await s.tool('c', 'create_mode', mode('piped'));
  assert.equal(r.error?.code, -32004, JSON.stringify(r).slice(0, 400));
  assert.equal(r.error.data.error_type, 'lock_file_unusable');
  assert.equal(r.error.data.file, lockPath);
  assert.match(r.error.message, /FIFO/);
  assert.ok(r.error.message.includes(lockPath), r.error.message);
  rmSync(lockPath);
  execFileSync('mkfifo', [join(project, '.roomodes')]);
  const m = await s.tool('m', 'create_mode', mode('piped'));
  assert.equal(m.error?.code, -32004, JSON.stringify(m).slice(0, 400));
  assert.ok(m.error.message.includes(join(project, '.roomodes')), m.error.message);
  assert.ok((await s.tool('list', 'list_modes')).result, 'still serving');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('a FIFO planted as a session lock file is refused by name, at once, at start and on a change', async (t) => {
  const dir = scratchDir(t);
  const storage = join(dir, 'sessions');
  const config = persistenceConfig(dir, storage);
  const first = startServer(t, { args: ['--config', config] });
  await first.initialize();
  const id = (await first.tool('c', 'create_task', { mode_slug: 'code' })).result.metadata.session_id as string;
  assert.deepEqual(await endAndDrain(first), { code: 0, signal: null });
  const lockPath = join(storage, `.${id}.lock`);
  execFileSync('mkfifo', [lockPath]);
  const s = startServer(t, { args: ['--config', config] });
  await s.initialize();
  const r = await s.tool('sw', 'switch_mode', { session_id: id, new_mode_slug: 'ask' });
  assert.ok(r.error, JSON.stringify(r).slice(0, 400));
  assert.notEqual(r.error.message, 'Internal error', s.stderr);
  assert.ok(r.error.message.includes(lockPath), r.error.message);
  assert.match(r.error.message, /FIFO/);
  assert.ok((await s.tool('info', 'get_task_info', { session_id: id })).result, 'reading the session still works');
  assert.doesNotMatch(s.stderr, /could not start/);
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('a write cancelled while it waits for the lock ends its wait and writes nothing', async (t) => {
  const project = scratchDir(t);
  const lockPath = join(project, '.roomodes.lock');
  holdLock(lockPath);
  const s: ServerProcess = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const waiting = triesLock(project, lockPath, s.child.pid!);
  s.request('w', 'tools/call', { name: 'create_mode', arguments: mode('cancelled') });
  await waiting;
  s.notify('notifications/cancelled', { requestId: 'w', reason: 'test' });
  // The next write queues behind the cancelled one: it starts waiting only once that one has left.
  s.request('next', 'tools/call', { name: 'create_mode', arguments: mode('after') });
  const list = await s.tool('l', 'list_modes');
  assert.ok(list.result);
  rmSync(lockPath);
  const next = await s.response('next', 15_000);
  assert.ok(next.result && !next.result.isError, JSON.stringify(next).slice(0, 400));
  const text = readFileSync(join(project, '.roomodes'), 'utf8');
  assert.match(text, /slug: after/);
  assert.doesNotMatch(text, /slug: cancelled/, 'the cancelled write never happened');
  assert.equal(s.messages.filter((m) => m.id === 'w').length, 0, 'the cancelled request gets no answer');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('serve --http: SIGTERM while a write waits for the mode file lock exits 0 within the drain grace', async (t) => {
  const project = scratchDir(t);
  const lockPath = join(project, '.roomodes.lock');
  holdLock(lockPath);
  const s = await startHttp(t, ['--project-root', project]);
  const sid = await s.session();
  const waiting = triesLock(project, lockPath, s.child.pid!);
  const answer = s.post({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'create_mode', arguments: mode('draining') } }, { 'mcp-session-id': sid })
    .then((r) => r, (err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  await waiting;
  const signalled = Date.now();
  s.child.kill('SIGTERM');
  const exit = await s.exit;
  const took = Date.now() - signalled;
  assert.deepEqual(exit, { code: 0, signal: null }, s.stderr);
  // The grace is 2 s; a wait that could not be stopped took the lock's whole 10 s timeout.
  assert.ok(took < 6000, `exited ${took} ms after SIGTERM`);
  // Answered (nothing written, cancelled), or at least ended: never left hanging.
  const got = await answer;
  if (!(got instanceof Error)) {
    const error = got.messages.find((m) => m.id === 'w')?.error;
    assert.equal(error?.code, -32004, got.body);
    assert.equal(error.data.error_type, 'cancelled');
    assert.equal(error.data.written, false);
  }
  assert.equal(existsSync(join(project, '.roomodes')), false, 'the stopped write wrote nothing');
});
