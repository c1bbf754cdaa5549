// Robustness: answers far larger than usual, pipelined. Every id gets exactly one answer (a result,
// or -32603 when it is over server.max_message_bytes), the server keeps serving, memory stays bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineDecoder } from '../../src/client/framing.js';
import { MAIN, type Msg } from '../protocol/harness.js';
import { MB, peakRssBytes } from './observe.js';
import { scratchDir } from './drive.js';

/** A heap cap for the spawned server: what the queues hold must fit in it, beside what handlers need. */
const HEAP_CAP = '--max-old-space-size=320';
const LIMIT = 10 * 1024 * 1024;

/**
 * A line as a message. Answers of megabytes are not parsed whole (hundreds of them would dominate
 * the test's time): their head must be a result for a numeric id, and their length is recorded.
 */
function parseAnswer(line: string): Msg {
  if (line.length < 64 * 1024) return JSON.parse(line) as Msg;
  const head = /^\{"jsonrpc":"2\.0","id":(\d+),"result":\{/.exec(line);
  assert.ok(head, `a large line is a result: ${line.slice(0, 200)}`);
  return { jsonrpc: '2.0', id: Number(head[1]), result: {}, length: line.length };
}

/**
 * The built server read through the client's byte-level line decoder: the protocol harness keeps
 * its output in one growing string, which is too slow for hundreds of megabytes.
 */
class BigServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers = new Map<string, Msg[]>();
  stderr = '';
  peak = 0;
  readonly exited: Promise<number | null>;
  readonly #waiting = new Map<string, () => void>();
  readonly #decoder = new LineDecoder();

  constructor(t: { after(fn: () => void): void }, dir: string) {
    this.child = spawn(process.execPath, [HEAP_CAP, MAIN, '--project-root', dir], {
      cwd: dir, env: { ...process.env, HOME: dir, ROO_CONFIG_DIR: join(dir, '.roo-code') }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.after(() => { if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL'); });
    this.child.stdin.on('error', () => { /* the server may die first; the test then says so */ });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (c: string) => { this.stderr += c; });
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const line of this.#decoder.push(chunk)) {
        assert.equal(typeof line, 'string', 'no stdout line is over the client limit');
        const m = parseAnswer(line as string);
        const key = JSON.stringify(m.id);
        this.answers.set(key, [...(this.answers.get(key) ?? []), m]);
        this.#waiting.get(key)?.();
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    const sampler = setInterval(() => { this.peak = Math.max(this.peak, peakRssBytes(this.child.pid!)); }, 50);
    void this.exited.then(() => clearInterval(sampler));
    t.after(() => clearInterval(sampler));
  }

  send(m: unknown): void { this.child.stdin.write(`${JSON.stringify(m)}\n`); }

  answerTo(id: unknown, timeoutMs = 60_000): Promise<Msg> {
    const key = JSON.stringify(id);
    return new Promise((resolve, reject) => {
      const done = (): void => { clearTimeout(timer); resolve(this.answers.get(key)![0]!); };
      const timer = setTimeout(() => reject(new Error(`no answer to ${key}; stderr:\n${this.stderr.slice(-2000)}`)), timeoutMs);
      if (this.answers.has(key)) { done(); return; }
      this.#waiting.set(key, done);
      void this.exited.then((code) => reject(new Error(`the server exited (${code}) before answering ${key}; stderr:\n${this.stderr.slice(-2000)}`)));
    });
  }

  async initialize(): Promise<void> {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'large-answers', version: '1' } } });
    assert.ok((await this.answerTo('init')).result);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Pipelines the requests in one write, waits for every answer and a ping after them. */
  async pipeline(requests: { id: number; method: string; params: unknown }[]): Promise<void> {
    this.child.stdin.write(requests.map((r) => `${JSON.stringify({ jsonrpc: '2.0', ...r })}\n`).join(''));
    for (const r of requests) await this.answerTo(r.id);
    this.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    assert.deepEqual((await this.answerTo('after')).result, {}, 'the server still answers');
    this.peak = Math.max(this.peak, peakRssBytes(this.child.pid!));
    for (const r of requests) assert.equal(this.answers.get(String(r.id))?.length, 1, `id ${r.id} answered exactly once`);
  }

  async end(): Promise<void> {
    this.child.stdin.end();
    assert.equal(await this.exited, 0);
  }
}

test('a 9 MB roleDefinition read 20 times pipelined: each id answered once, oversize ones with -32603, server alive, memory bounded', async (t) => {
  const dir = scratchDir(t);
  writeFileSync(join(dir, '.roomodes'), JSON.stringify({ customModes: [{ slug: 'huge', name: 'Huge', roleDefinition: 'r'.repeat(9 * MB), groups: ['read'] }] }));
  const s = new BigServer(t, dir);
  await s.initialize();
  await s.pipeline(Array.from({ length: 20 }, (_, i) => i + 1).map((id) => (id % 2 === 1
    ? { id, method: 'tools/call', params: { name: 'get_mode_info', arguments: { mode_slug: 'huge' } } }
    : { id, method: 'resources/read', params: { uri: 'mode://huge' } })));
  for (let id = 1; id <= 20; id += 2) {
    // get_mode_info carries the role definition in its text and structured parts: over 10 MiB.
    const error = s.answers.get(String(id))![0]!.error;
    assert.equal(error?.code, -32603, `id ${id}: ${JSON.stringify(error).slice(0, 300)}`);
    assert.match(error.message, new RegExp(`^Response not sent: it is \\d+ bytes, over the limit of ${LIMIT} bytes \\(server\\.max_message_bytes\\)$`));
    assert.equal(error.data.limit, LIMIT);
  }
  // resources/read carries it once: under the limit, answered in full.
  for (let id = 2; id <= 20; id += 2) assert.ok((s.answers.get(String(id))![0]!.length as number) > 9 * MB, `id ${id} answered in full`);
  // Before the fix the queues held every serialised answer: this heap cap ran out, RSS passed 1 GB.
  assert.ok(s.peak < 600 * MB, `peak RSS ${(s.peak / MB).toFixed(0)} MB stays under 600 MB`);
  assert.match(s.stderr, /the answer to request 1 was replaced by an error: it is \d+ bytes/);
  await s.end();
});

test('200 pipelined get_task_info of a task whose first message is 1 MiB: all answered in full, memory bounded', async (t) => {
  const s = new BigServer(t, scratchDir(t));
  await s.initialize();
  s.send({ jsonrpc: '2.0', id: 'create', method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: 'm'.repeat(MB) } } });
  const created = await s.answerTo('create');
  const sessionId: unknown = created.result?.structuredContent?.session_id;
  assert.equal(typeof sessionId, 'string', JSON.stringify(created).slice(0, 500));
  // Before the fix, up to 256 such answers were joined into one string past V8's limit: the
  // writer threw RangeError and the process died.
  await s.pipeline(Array.from({ length: 200 }, (_, i) => ({
    id: i + 1, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: sessionId, include_messages: true } },
  })));
  for (let id = 1; id <= 200; id++) {
    const m = s.answers.get(String(id))![0]!;
    assert.equal(m.error, undefined, `id ${id} answered with a result: ${JSON.stringify(m.error)}`);
    assert.ok((m.length as number) > 3 * MB, `id ${id} carries the whole message (text, metadata, structuredContent)`);
  }
  assert.ok(s.peak < 500 * MB, `peak RSS ${(s.peak / MB).toFixed(0)} MB stays under 500 MB`);
  await s.end();
});
