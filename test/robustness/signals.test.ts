// SIGTERM (and SIGINT, and stdin EOF) in the middle of pipelined work: the server answers every
// request it read, duplicates none, exits 0 promptly, and every acknowledged session is on disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../protocol/harness.js';
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
