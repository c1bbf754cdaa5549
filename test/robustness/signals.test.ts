// SIGTERM (and SIGINT, and stdin EOF) in the middle of pipelined work: the server answers every
// request it read, duplicates none, exits 0 promptly, and every acknowledged session is on disk.
// SIGSTOP of a server holding a session lock: nobody takes it over, and no acknowledged switch is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type Msg, type ServerProcess } from '../protocol/harness.js';
import { runSeed } from './prng.js';
import { checkServerMessage, jsonFilesIn } from './observe.js';
import { exitAndDrain, persistenceConfig, responsesById, scratchDir } from './drive.js';

const REQUESTS = 4000;
const PROMPT_EXIT_MS = 5000;

const CASES = [
  { signal: 'SIGTERM', slow: false, what: '' },
  { signal: 'SIGINT', slow: false, what: '' },
] as const;

for (const { signal } of CASES) {
  test(`on ${signal} under load: answers what it read, duplicates nothing, exits 0 promptly, keeps acknowledged sessions`, async (t) => {
    const rng = runSeed(`signals-${signal}`);
    const dir = scratchDir(t, 'rms-signal-');
    const storage = join(dir, 'sessions');
    const s = startServer(t, { args: ['--config', persistenceConfig(dir, storage)] });
    await s.initialize();

    const methods = new Map<number, { method: string; mode?: string }>();
    let text = '';
    for (let id = 1; id <= REQUESTS; id++) {
      const kind = rng.weighted<string>([[45, 'ping'], [25, 'create'], [15, 'list_modes'], [10, 'tools/list'], [5, 'resources/list']]);
      if (kind === 'create') {
        const mode = rng.pick(['code', 'architect', 'ask', 'debug']);
        methods.set(id, { method: 'create_task', mode });
        text += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: mode, initial_message: `job ${id}` } } })}\n`;
      } else if (kind === 'list_modes') {
        methods.set(id, { method: 'list_modes' });
        text += `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_modes', arguments: {} } })}\n`;
      } else {
        methods.set(id, { method: kind });
        text += `${JSON.stringify({ jsonrpc: '2.0', id, method: kind })}\n`;
      }
    }
    const killAfter = rng.int(100, 1500);
    s.write(text);
    let seen = 0;
    await s.waitFor((m) => typeof m.id === 'number' && ('result' in m || 'error' in m) && ++seen >= killAfter, 30_000, `${killAfter} responses`);
    const signalledAt = Date.now();
    s.child.kill(signal);
    const exit = await exitAndDrain(s);
    const took = Date.now() - signalledAt;
    assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 after ${signal}; stderr tail:\n${s.stderr.slice(-800)}`);
    assert.ok(took < PROMPT_EXIT_MS, `exited ${took} ms after ${signal}`);

    s.assertStdoutPure();
    for (const m of s.messages) {
      const c = checkServerMessage(m);
      assert.ok(!('problem' in c), `malformed message: ${JSON.stringify(m).slice(0, 300)}`);
    }
    const byId = responsesById(s.messages);
    byId.delete('"init"');
    let highest = 0;
    for (const [key, list] of byId) {
      assert.equal(list.length, 1, `one response for id ${key}`);
      const id = Number(key);
      assert.ok(Number.isInteger(id) && id >= 1 && id <= REQUESTS, `a response to a request we sent: ${key}`);
      // An error is an answer too (a server may refuse work it cannot finish in time); silence is not.
      highest = Math.max(highest, id);
    }
    // Requests are read in order, so everything sent before the last one answered was read before
    // the signal: each of those is owed a response.
    const unanswered = Array.from({ length: highest }, (_, i) => i + 1).filter((id) => !byId.has(String(id)));
    assert.deepEqual(unanswered.slice(0, 20), [], `${unanswered.length} requests before id ${highest} (the last answered) got no response`);
    assert.ok(highest >= killAfter, 'at least the responses seen before the signal');
    console.error(`[signals-${signal}] ${byId.size} of ${REQUESTS} answered (signal after ${killAfter}), exit after ${took} ms`);

    // Every acknowledged session is on disk, whole, in its mode.
    const files = new Map(jsonFilesIn(storage).map((f) => [f.name, f]));
    for (const f of files.values()) assert.ok(f.ok, `${f.name} is whole: ${f.error}`);
    for (const [key, [m]] of byId) {
      const sent = methods.get(Number(key));
      if (sent?.method !== 'create_task' || !m!.result || m!.result.isError) continue;
      const sessionId = m!.result.metadata.session_id as string;
      const f = files.get(`${sessionId}.json`);
      assert.ok(f?.ok, `acknowledged session ${sessionId} (request ${key}) is on disk`);
      const saved = f.value as { session_id: string; task: { mode_slug: string } };
      assert.equal(saved.session_id, sessionId);
      assert.equal(saved.task.mode_slug, sent.mode);
    }
  });
}

for (const how of ['SIGTERM', 'stdin EOF'] as const) {
  test(`on ${how} answers every request it read and exits promptly, even while mode-set calls wait on a lock another process holds`, async (t) => {
    const project = scratchDir(t, 'rms-signal-lock-');
    const s = startServer(t, { args: ['--project-root', project] });
    await s.initialize();
    const tools = ((await s.call('tools', 'tools/list')).result.tools as { name: string }[]).map((x) => x.name);
    if (!tools.includes('orchestrator_mode_backup')) {
      t.skip('the orchestrator_mode_* tools are not served yet');
      return;
    }
    // Another live process (this test) holds the project's mode-set lock, so backups queue behind it.
    const base = join(project, '.task_orchestrator');
    mkdirSync(base, { recursive: true });
    writeFileSync(join(base, '.modesets.lock'), `${process.pid}\n`);
    let text = '';
    for (let i = 1; i <= 200; i++) {
      text += i % 10 === 0
        ? `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'orchestrator_mode_backup', arguments: {} } })}\n`
        : `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' })}\n`;
    }
    s.write(`${text}{"jsonrpc":"2.0","id":"read-all","method":"ping"}\n`);
    // The ping after them is answered when it is dispatched, so all 200 were read before the shutdown.
    await s.response('read-all');
    const startedAt = Date.now();
    if (how === 'SIGTERM') {
      let flood = '';
      for (let i = 1; i <= 3000; i++) flood += `{"jsonrpc":"2.0","id":"flood-${i}","method":"ping"}\n`;
      s.write(flood);
      s.child.kill('SIGTERM');
    } else {
      s.child.stdin.end();
    }
    const exit = await exitAndDrain(s, PROMPT_EXIT_MS + 1000);
    const took = Date.now() - startedAt;
    assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 promptly after ${how} (killed after ${took} ms if not)`);
    assert.ok(took < PROMPT_EXIT_MS, `exited ${took} ms after ${how}`);
    s.assertStdoutPure();
    const byId = responsesById(s.messages);
    for (const [key, list] of byId) assert.equal(list.length, 1, `one response for id ${key}`);
    const unanswered = Array.from({ length: 200 }, (_, i) => i + 1).filter((id) => !byId.has(String(id)));
    assert.deepEqual(unanswered, [], `every request read before ${how} is answered (an error is an answer; silence is not)`);
  });
}

/** Two servers sharing one session store, with a short lock timeout so a refusal comes quickly. */
function twoServers(t: Parameters<typeof startServer>[0], lockTimeoutMs: number): { a: ServerProcess; b: ServerProcess; storage: string } {
  const dir = scratchDir(t, 'rms-lock-race-');
  const storage = join(dir, 'sessions');
  const config = persistenceConfig(dir, storage, { sessions: { persistence: { enabled: true, storage_path: storage, lock_timeout_ms: lockTimeoutMs } } });
  return { a: startServer(t, { args: ['--config', config] }), b: startServer(t, { args: ['--config', config] }), storage };
}

const savedMode = (storage: string, id: string): { mode: string; history: number } => {
  const saved = JSON.parse(readFileSync(join(storage, `${id}.json`), 'utf8')) as { task: { mode_slug: string; mode_history: unknown[] } };
  return { mode: saved.task.mode_slug, history: saved.task.mode_history.length };
};

test('a session lock held by a paused (SIGSTOP) server is never taken over, however old; the waiter gets -32603 and changes nothing', async (t) => {
  const { a, b, storage } = twoServers(t, 1500);
  await Promise.all([a.initialize(), b.initialize()]);
  const id = (await a.tool(1, 'create_task', { mode_slug: 'code' })).result.metadata.session_id as string;
  // A is stopped while holding the session's lock, and has been for a minute (older than any age limit).
  a.child.kill('SIGSTOP');
  t.after(() => { a.child.kill('SIGCONT'); });
  const lock = join(storage, `.${id}.lock`);
  writeFileSync(lock, `${a.child.pid}\nheld-by-a\n`);
  const past = (Date.now() - 60_000) / 1000;
  utimesSync(lock, past, past);

  const refused = await b.tool(2, 'switch_mode', { session_id: id, new_mode_slug: 'ask' });
  assert.equal(refused.error?.code, -32603, `a clear store error, not a takeover: ${JSON.stringify(refused).slice(0, 400)}`);
  assert.match(refused.error.message, new RegExp(`locked by process ${a.child.pid}`));
  assert.deepEqual(savedMode(storage, id), { mode: 'code', history: 0 }, 'nothing was changed');
  assert.equal(readFileSync(lock, 'utf8'), `${a.child.pid}\nheld-by-a\n`, 'the paused holder still has its lock');

  // Once the holder is gone (killed while paused), its lock is stale at once, whatever its age.
  a.child.kill('SIGKILL');
  await a.exit;
  const taken = await b.tool(3, 'switch_mode', { session_id: id, new_mode_slug: 'ask' });
  assert.ok(taken.result && !taken.result.isError, JSON.stringify(taken).slice(0, 400));
  assert.deepEqual(savedMode(storage, id), { mode: 'ask', history: 1 });
});

test('with one server paused at random moments, every acknowledged switch_mode of either server is kept', async (t) => {
  const rng = runSeed('lock-race');
  const { a, b, storage } = twoServers(t, 5000);
  await Promise.all([a.initialize(), b.initialize()]);
  const id = (await a.tool('create', 'create_task', { mode_slug: 'code' })).result.metadata.session_id as string;
  const modes = ['code', 'architect', 'ask', 'debug'];
  const acked: string[] = [];
  const ROUNDS = 15;
  for (let round = 0; round < ROUNDS; round++) {
    const pending: Promise<Msg>[] = [];
    for (let k = 0; k < 3; k++) {
      for (const [name, s] of [['a', a], ['b', b]] as const) {
        const reason = `${name}-${round}-${k}`;
        s.request(reason, 'tools/call', { name: 'switch_mode', arguments: { session_id: id, new_mode_slug: rng.pick(modes), reason } });
        pending.push(s.response(reason, 20_000));
      }
    }
    // Pause A for a while at a random point of its work, possibly while it holds the lock.
    a.child.kill('SIGSTOP');
    const pauseMs = rng.int(5, 150);
    await new Promise<void>((resolve) => setTimeout(resolve, pauseMs)); // the pause is the scenario, not a wait for an event
    a.child.kill('SIGCONT');
    for (const m of await Promise.all(pending)) {
      assert.ok(!m.error, `no switch fails while pauses are shorter than the lock timeout: ${JSON.stringify(m.error)}`);
      if (m.result && !m.result.isError) acked.push(String(m.id));
    }
  }
  const info = await b.tool('info', 'get_task_info', { session_id: id });
  const kept = (info.result.metadata.task.mode_history as { reason?: string }[]).map((h) => h.reason);
  assert.deepEqual(acked.filter((r) => !kept.includes(r)), [], 'every acknowledged switch is in the history');
  assert.equal(kept.length, acked.length, 'and nothing else');
  assert.equal(savedMode(storage, id).history, acked.length, 'the file on disk agrees');
});
