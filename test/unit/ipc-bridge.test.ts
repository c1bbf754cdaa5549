// RooBridge against the fake Roo peer over a temp unix socket: handshake, queues, push, queries,
// reconnects, and every way the socket can be missing or misbehave.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { RooBridge, type BridgeOptions, type RooEvent } from '../../src/ipc/bridge.js';
import { encodeFrame } from '../../src/ipc/frames.js';
import type { Logger } from '../../src/log.js';
import { ValidationError } from '../../src/rpc/errors.js';
import { FakeRoo, waitUntil, type FakeRooOptions } from '../fixtures/fake-roo.js';

/** A logger that keeps warnings so tests can see what was skipped. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger & { warnings: string[] } = {
    warnings, debug() {}, info() {}, notice() {}, error() {},
    warn(message) { warnings.push(message); },
    child() { return log; },
  };
  return log;
}

/** Collects pushed events and lets a test await the n-th one. */
class Sink {
  readonly events: RooEvent[] = [];
  #waiters: Array<{ n: number; resolve: () => void }> = [];
  readonly push = (e: RooEvent): void => {
    this.events.push(e);
    this.#waiters = this.#waiters.filter((w) => (this.events.length >= w.n ? (w.resolve(), false) : true));
  };
  until(n: number): Promise<void> {
    if (this.events.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'roo-ipc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Setup { fake: FakeRoo; bridge: RooBridge; sink: Sink; log: ReturnType<typeof recordingLogger>; clientId: string; path: string }

async function connected(t: TestContext, fakeOpts: FakeRooOptions = {}, bridgeOpts: Partial<BridgeOptions> = {}): Promise<Setup> {
  const path = join(tempDir(t), 'roo.sock');
  const fake = new FakeRoo({ path, ...fakeOpts });
  await fake.listen();
  const sink = new Sink();
  const log = recordingLogger();
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 1000, queryTimeoutMs: 30_000, log, onEvent: sink.push, ...bridgeOpts });
  t.after(async () => { await bridge.close(); await fake.close(); });
  const acked = fake.nextClient();
  bridge.start();
  const clientId = await acked;
  await waitUntil(() => bridge.ready, 'the bridge is ready');
  return { fake, bridge, sink, log, clientId, path };
}

test('start() returns before any connection exists and the bridge is not ready yet', async (t) => {
  const path = join(tempDir(t), 'roo.sock');
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 1000, log: recordingLogger() });
  t.after(() => bridge.close());
  bridge.start();
  assert.equal(bridge.ready, false);
  assert.equal(bridge.status().state, 'connecting');
});

test('adopts the clientId from the Ack and sends it in every command', async (t) => {
  const { fake, bridge, clientId } = await connected(t);
  const status = bridge.status();
  assert.equal(status.connected, true);
  assert.equal(status.clientId, clientId);
  assert.match(clientId, /^[0-9a-f]{12}$/);
  assert.equal(status.serverPid, fake.pid);
  assert.equal(status.serverPpid, process.pid);
  const got = fake.nextCommand('CancelTask');
  assert.equal(bridge.send('CancelTask'), clientId);
  const cmd = await got;
  assert.deepEqual({ clientId: cmd.clientId, socket: cmd.socketClientId, valid: cmd.valid }, { clientId, socket: clientId, valid: true });
  assert.equal('data' in cmd, false);
});

test('queues message events apart from other events and pushes every event to onEvent', async (t) => {
  const { fake, bridge, sink } = await connected(t);
  fake.streamMessage({ taskId: 't1', ts: 1, text: 'hi', partial: false, action: 'created' });
  fake.broadcast('taskStarted', ['t1']);
  fake.broadcast('evalPass', undefined, 42);
  await sink.until(3);
  assert.deepEqual(sink.events.map((e) => e.eventName), ['message', 'taskStarted', 'evalPass']);
  assert.deepEqual(sink.events[2], { eventName: 'evalPass', taskId: 42 });
  assert.deepEqual(bridge.status().queued, { messages: 1, other: 2 });
  const messages = bridge.pollMessages(10);
  assert.equal(messages.events.length, 1);
  assert.deepEqual(bridge.pollOther(1).events.map((e) => e.eventName), ['taskStarted']);
  assert.deepEqual(bridge.pollOther(1).events.map((e) => e.eventName), ['evalPass']);
  assert.deepEqual(bridge.status().queued, { messages: 0, other: 0 });
});

test('reports a streamed message as partial until its final update arrives', async (t) => {
  const { fake, bridge, sink } = await connected(t);
  fake.streamMessage({ taskId: 't1', ts: 7, text: 'Hel', partial: true, action: 'created' });
  fake.streamMessage({ taskId: 't1', ts: 7, text: 'Hello', partial: true, action: 'updated' });
  await sink.until(2);
  const first = bridge.pollMessages(5);
  assert.equal(first.events.length, 2);
  assert.equal(first.isPartial, true);
  fake.streamMessage({ taskId: 't1', ts: 7, text: 'Hello there', partial: false, action: 'updated' });
  await sink.until(3);
  const last = bridge.pollMessages(5);
  assert.equal(last.isPartial, false);
  assert.deepEqual(last.events[0]?.payload, [{ taskId: 't1', action: 'updated', message: { ts: 7, type: 'say', say: 'text', text: 'Hello there', partial: false } }]);
  assert.deepEqual(bridge.pollMessages(5), { events: [], isPartial: false, dropped: 0, remaining: 0 });
});

test('drops the oldest events of a full queue and counts them per queue', async (t) => {
  const { fake, bridge, sink } = await connected(t, {}, { queueLimit: 3 });
  for (let i = 0; i < 5; i += 1) fake.streamMessage({ taskId: 't', ts: i, text: `m${i}`, partial: false, action: 'created' });
  for (let i = 0; i < 4; i += 1) fake.broadcast('taskActive', [`t${i}`]);
  await sink.until(9);
  assert.deepEqual(bridge.status().dropped, { messages: 2, other: 1 });
  assert.deepEqual(bridge.status().queued, { messages: 3, other: 3 });
  const msgs = bridge.pollMessages(10);
  assert.equal(msgs.dropped, 2);
  assert.deepEqual(msgs.events.map((e) => (e.payload as Array<{ message: { ts: number } }>)[0]?.message.ts), [2, 3, 4]);
  const other = bridge.pollOther(10);
  assert.equal(other.dropped, 1);
  assert.deepEqual(other.events.map((e) => e.payload), [['t1'], ['t2'], ['t3']]);
  assert.equal(bridge.pollOther(10).dropped, 0, 'drops are reported once');
  assert.deepEqual(bridge.status().dropped, { messages: 2, other: 1 }, 'status keeps the totals');
});

test('keeps serving when onEvent throws', async (t) => {
  const { fake, bridge, log } = await connected(t, {}, { onEvent: () => { throw new Error('boom'); } });
  const reply = bridge.query('modes');
  assert.equal(((await reply) as unknown[][])[0]?.length, 3);
  assert.equal(bridge.status().connected, true);
  assert.equal(log.warnings.length, 0);
  assert.equal(fake.clients.length, 1);
});

test('answers a query with the matching response and shares one command among concurrent callers', async (t) => {
  const { fake, bridge } = await connected(t);
  const [a, b] = await Promise.all([bridge.query('modes'), bridge.query('modes')]);
  assert.deepEqual(a, [fake.modes]);
  assert.deepEqual(b, [fake.modes]);
  assert.equal(fake.commands.filter((c) => c.commandName === 'GetModes').length, 1);
  const models = await bridge.query('models');
  assert.deepEqual(Object.keys((models as Array<Record<string, unknown>>)[0] ?? {}), ['roo/sonic']);
  assert.equal(bridge.status().pendingWaits, 0);
});

test('an aborted caller leaves while another caller of the same query still gets the answer', async (t) => {
  const { fake, bridge } = await connected(t, { answerQueries: false });
  const controller = new AbortController();
  const sent = fake.nextCommand('GetCommands');
  const first = bridge.query('commands', controller.signal);
  const second = bridge.query('commands');
  await sent;
  controller.abort();
  await assert.rejects(first, (err: unknown) => err instanceof ValidationError && /cancelled/.test(err.message));
  fake.broadcast('commandsResponse', [[{ name: 'x', source: 'global' }]]);
  assert.deepEqual(await second, [[{ name: 'x', source: 'global' }]]);
});

test('stops waiting when the only caller aborts', async (t) => {
  const { bridge } = await connected(t, { answerQueries: false });
  const controller = new AbortController();
  const pending = bridge.query('modes', controller.signal);
  assert.equal(bridge.status().pendingWaits, 1);
  controller.abort();
  await assert.rejects(pending, ValidationError);
  assert.equal(bridge.status().pendingWaits, 0);
});

test('times out a query Roo never answers', async (t) => {
  const { bridge } = await connected(t, { answerQueries: false }, { queryTimeoutMs: 50 });
  await assert.rejects(bridge.query('models'), (err: unknown) => err instanceof ValidationError && /did not answer GetModels within 50 ms/.test(err.message));
});

test('fails a pending query at once when the peer vanishes, long before the query timeout', { timeout: 10_000 }, async (t) => {
  const { fake, bridge } = await connected(t, { answerQueries: false }, { queryTimeoutMs: 60_000 });
  const sent = fake.nextCommand('GetModes');
  const pending = bridge.query('modes');
  await sent;
  fake.dropConnections();
  await assert.rejects(pending, (err: unknown) => err instanceof ValidationError && /Lost the connection to Roo Code/.test(err.message));
  assert.throws(() => bridge.send('CancelTask'), ValidationError);
});

test('reconnects after the peer restarts and sends the new clientId', { timeout: 10_000 }, async (t) => {
  const { fake, bridge, clientId } = await connected(t);
  const next = fake.nextClient();
  await fake.restart();
  const fresh = await next;
  assert.notEqual(fresh, clientId);
  await waitUntil(() => bridge.status().clientId === fresh, 'the bridge adopts the new clientId');
  assert.equal(bridge.status().connections, 2);
  assert.equal(bridge.status().reconnectAttempts, 0);
  const got = fake.nextCommand('CancelTask');
  bridge.send('CancelTask');
  assert.equal((await got).clientId, fresh);
});

test('treats a peer that never acks as not ready, drops it, and retries until one acks', { timeout: 10_000 }, async (t) => {
  const path = join(tempDir(t), 'silent.sock');
  const fake = new FakeRoo({ path, silent: true });
  await fake.listen();
  let accepted = 0;
  const twice = new Promise<void>((resolve) => fake.on('connection', () => { accepted += 1; if (accepted === 2) resolve(); }));
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 1000, handshakeTimeoutMs: 50, log: recordingLogger() });
  t.after(async () => { await bridge.close(); await fake.close(); });
  bridge.start();
  await twice;
  assert.equal(bridge.ready, false);
  await waitUntil(() => /never sent an Ack within 50 ms/.test(bridge.status().lastError ?? ''), 'the handshake timeout is reported');
  assert.throws(() => bridge.send('GetModes'), (err: unknown) => err instanceof ValidationError && /never sent an Ack/.test(err.message));
  fake.silent = false;
  await waitUntil(() => bridge.ready, 'the bridge connects once the peer acks');
});

test('reports a socket path that does not exist, fails calls at once, and keeps retrying', { timeout: 10_000 }, async (t) => {
  const path = join(tempDir(t), 'missing.sock');
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 60_000, log: recordingLogger() });
  t.after(() => bridge.close());
  bridge.start();
  await waitUntil(() => bridge.status().reconnectAttempts >= 2, 'two attempts failed');
  const s = bridge.status();
  assert.equal(s.connected, false);
  assert.match(s.lastError ?? '', /ENOENT/);
  await assert.rejects(bridge.query('modes'), (err: unknown) => {
    assert.ok(err instanceof ValidationError);
    assert.equal(err.code, -32004);
    assert.match(err.message, /ENOENT/);
    assert.match(JSON.stringify(err.data), /ROO_CODE_IPC_SOCKET_PATH/);
    return true;
  });
  // A peer appearing later is picked up by the retry loop.
  const fake = new FakeRoo({ path });
  t.after(() => fake.close());
  await fake.listen();
  await waitUntil(() => bridge.ready, 'the bridge connects once the socket appears');
});

test('reports a path that is a regular file as not a socket', { timeout: 10_000 }, async (t) => {
  const path = join(tempDir(t), 'plain.txt');
  writeFileSync(path, 'not a socket');
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 1000, log: recordingLogger() });
  t.after(() => bridge.close());
  bridge.start();
  await waitUntil(() => /is not a socket \(it is a regular file\)/.test(bridge.status().lastError ?? ''), 'the file is reported as not a socket');
  assert.throws(() => bridge.send('CancelTask'), (err: unknown) => err instanceof ValidationError && /not a socket/.test(err.message));
});

test('a bridge with no socket configured is disabled and says how to enable it', async () => {
  const bridge = new RooBridge({ socketPath: null, host: null, port: null, queueLimit: 10, queryTimeoutMs: 1000, log: recordingLogger() });
  bridge.start();
  assert.equal(bridge.status().enabled, false);
  assert.equal(bridge.status().state, 'disabled');
  assert.throws(() => bridge.send('CancelTask'), (err: unknown) =>
    err instanceof ValidationError && /not enabled/.test(err.message) && /ROO_CODE_IPC_SOCKET_PATH/.test(JSON.stringify(err.data)));
  await bridge.close();
});

test('connects over TCP when host and port are given', async (t) => {
  const fake = new FakeRoo();
  await fake.listen();
  const address = fake.address;
  if (!('port' in address)) throw new Error('the fake should listen on TCP');
  const bridge = new RooBridge({ socketPath: null, host: address.host, port: address.port, queueLimit: 10, queryTimeoutMs: 5000, log: recordingLogger() });
  t.after(async () => { await bridge.close(); await fake.close(); });
  bridge.start();
  await waitUntil(() => bridge.ready, 'the TCP bridge is ready');
  assert.equal(bridge.status().target, `127.0.0.1:${address.port}`);
  assert.deepEqual(await bridge.query('modes'), [fake.modes]);
});

test('skips garbage, invalid JSON and unknown messages on the socket without dropping the connection', async (t) => {
  const { fake, bridge, sink, log, clientId } = await connected(t);
  fake.writeRaw(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x41]), Buffer.from('\f{not json\f{"type":"message","data":{"type":"Disconnect"}}\f')]));
  fake.broadcast('taskIdle', ['t']);
  await sink.until(1);
  assert.deepEqual(sink.events, [{ eventName: 'taskIdle', payload: ['t'] }]);
  assert.equal(log.warnings.filter((w) => w.startsWith('skipped an IPC frame')).length, 3);
  assert.equal(bridge.status().clientId, clientId);
  assert.equal(fake.clients.length, 1);
});

test('decodes an event written one byte at a time, emoji included', async (t) => {
  const { fake, sink } = await connected(t);
  const payload = [[{ slug: 'architect', name: '🏗️ Architect' }]];
  fake.writeRaw(encodeFrame({ type: 'TaskEvent', origin: 'server', data: { eventName: 'modesResponse', payload } }), { splitEveryByte: true });
  await sink.until(1);
  assert.deepEqual(sink.events[0], { eventName: 'modesResponse', payload });
});

test('discards an oversize frame, logs it, and decodes the next frame', async (t) => {
  const { fake, sink, log, bridge } = await connected(t, {}, { maxFrameBytes: 1024 });
  fake.broadcast('modelsResponse', [{ big: 'x'.repeat(5000) }]);
  fake.broadcast('taskIdle', ['t']);
  await sink.until(1);
  assert.deepEqual(sink.events.map((e) => e.eventName), ['taskIdle']);
  assert.ok(log.warnings.some((w) => /discarded an IPC frame of \d+ bytes \(limit 1024\)/.test(w)));
  assert.equal(bridge.status().connected, true);
});

test('close() fails pending waits and stops reconnecting', async (t) => {
  const { fake, bridge } = await connected(t, { answerQueries: false });
  const failed = assert.rejects(bridge.query('modes'), (err: unknown) => err instanceof ValidationError && /shutting down/.test(err.message));
  await bridge.close();
  await failed;
  assert.equal(bridge.status().state, 'closed');
  await waitUntil(() => fake.connectionCount === 0, 'the peer sees the connection close');
});

test('a query made while the first connection is still being dialled waits for it instead of failing', async (t) => {
  const path = join(tempDir(t), 'roo.sock');
  const fake = new FakeRoo({ path });
  await fake.listen();
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 5000, log: recordingLogger() });
  t.after(async () => { await bridge.close(); await fake.close(); });
  bridge.start();
  assert.equal(bridge.ready, false);
  const modes = await bridge.query('modes');
  assert.ok(Array.isArray(modes));
});

test('after the first attempt failed, calls fail at once', async (t) => {
  const path = join(tempDir(t), 'missing.sock');
  const bridge = new RooBridge({ socketPath: path, host: null, port: null, queueLimit: 10, queryTimeoutMs: 5000, log: recordingLogger() });
  t.after(() => bridge.close());
  bridge.start();
  await bridge.firstContact();
  assert.match(bridge.status().lastError ?? '', /ENOENT|does not exist|no such/i);
  await assert.rejects(bridge.query('modes'), ValidationError);
});
