// Protocol tests of the bridge facing a misbehaving or missing Roo peer: bad frames, a peer that
// never acks or vanishes mid-query, and socket paths that cannot work. The MCP side must keep serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { encodeFrame } from '../../src/ipc/frames.js';
import { FakeRoo, waitUntil } from '../fixtures/fake-roo.js';
import { logText, startRig, type RooEventWire } from './ipc-rig.js';

test('skips garbage, invalid JSON and unknown frames with a logged reason and loses no event', async (t) => {
  const rig = await startRig(t, { logLevel: 'warning' });
  const fake = rig.fake!;
  const emoji = 'naïve 🏗️ ✓ 日本';
  fake.broadcast('taskActive', ['before']);
  fake.writeRaw(Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x0c]));
  fake.writeRaw('{"type":"message","data":{"type":"Bogus","origin":"server","data":{"x":1}}}\f');
  fake.writeRaw('{"type":"message","data":{"type":"TaskEvent",\f');
  fake.writeRaw('{"type":"other-event","data":{"type":"Ack","origin":"server","data":{"clientId":"evil","pid":1,"ppid":1}}}\f');
  fake.writeRaw(encodeFrame({ type: 'TaskEvent', origin: 'server', data: { eventName: 'taskModeSwitched', payload: ['split', emoji] } }), { splitEveryByte: true });
  fake.broadcast('taskActive', ['after']);
  await rig.pushed('taskActive', (p) => Array.isArray(p) && p[0] === 'after');

  const reasons = rig.s.messages.filter((m) => m.method === 'notifications/message').map(logText);
  assert.deepEqual(reasons, [
    'skipped an IPC frame: not valid JSON',
    'skipped an IPC frame: not a known IpcMessage',
    'skipped an IPC frame: not valid JSON',
    'skipped an IPC frame: not a node-ipc "message" frame',
  ]);
  // stderr is a separate pipe, so its copy of the warning may trail the notification.
  await waitUntil(() => /WARNING \[roo-ipc\] skipped an IPC frame: not a known IpcMessage/.test(rig.s.stderr), 'the warning reaches stderr');

  const st = await rig.status();
  assert.equal(st.connected, true, 'bad frames do not cost the connection');
  assert.equal(st.connections, 1);
  assert.equal(st.clientId, fake.clients[0], 'a forged Ack under another event name changed nothing');
  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 10 });
  assert.deepEqual(other.events as RooEventWire[], [
    { eventName: 'taskActive', payload: ['before'] },
    { eventName: 'taskModeSwitched', payload: ['split', emoji] },
    { eventName: 'taskActive', payload: ['after'] },
  ]);
  assert.equal(other.dropped, 0);
  await rig.ping();
  const modes = await rig.ok('roo_ipc_get_modes');
  assert.equal(modes.count, 3, 'commands still work after the bad frames');
  rig.s.assertStdoutPure();
});

test('decodes a large message frame delivered one byte per write', async (t) => {
  const rig = await startRig(t);
  const text = `${'long streamed text with 💻 and ❓ '.repeat(40)}end`;
  const frame = encodeFrame({ type: 'TaskEvent', origin: 'server', data: { eventName: 'message', payload: [{ taskId: 't', action: 'created', message: { ts: 1, type: 'say', say: 'text', text, partial: false } }] } });
  rig.fake!.writeRaw(frame, { splitEveryByte: true });
  await rig.pushed('message');
  const polled = await rig.ok('roo_ipc_poll_ai_messages');
  const event = (polled.events as RooEventWire[])[0]!;
  assert.equal((event.payload as [{ message: { text: string } }])[0].message.text, text);
  assert.equal(polled.isPartial, false);
});

test('explains a peer that accepts but never acks, keeps serving, and recovers once it acks', async (t) => {
  const rig = await startRig(t, { fake: { silent: true }, logLevel: 'warning' });
  const fake = rig.fake!;
  await rig.untilStatus((st) => st.state === 'handshaking', 'the bridge waits for the Ack');
  const err = await rig.fails('roo_ipc_cancel_task');
  assert.equal(err.code, -32004);
  assert.match(err.message, /waiting for the Ack/);
  assert.deepEqual(fake.commands, [], 'nothing is sent before the Ack');
  await rig.ping();

  const warned = await rig.logged('never sent an Ack within 5000 ms', 12000);
  assert.equal(logText(warned), `${rig.socket} accepted the connection but never sent an Ack within 5000 ms`);
  const st = await rig.untilStatus((x) => x.lastError !== undefined, 'the timeout is the last error');
  assert.equal(st.connected, false);
  assert.match(st.lastError!, /never sent an Ack within 5000 ms/);
  await rig.ping();

  fake.silent = false;
  const acked = fake.nextClient();
  fake.dropConnections();
  const clientId = await acked;
  await rig.untilStatus((x) => x.connected && x.clientId === clientId, 'connected once the peer acks');
  const received = fake.nextCommand();
  await rig.ok('roo_ipc_cancel_task');
  assert.equal((await received).clientId, clientId);
});

test('fails an in-flight get_modes at once when the peer vanishes, not after the timeout', async (t) => {
  const rig = await startRig(t, { fake: { answerQueries: false }, ipc: { query_timeout_ms: 60000 } });
  const fake = rig.fake!;
  fake.broadcast('taskActive', ['queued-before-the-loss']);
  await rig.pushed('taskActive');
  const asked = fake.nextCommand('GetModes');
  rig.s.request(900, 'tools/call', { name: 'roo_ipc_get_modes', arguments: {} });
  await asked;
  assert.equal((await rig.status()).pendingWaits, 1);
  const started = Date.now();
  fake.dropConnections();
  const res = await rig.s.response(900, 5000);
  assert.ok(Date.now() - started < 10000, `failed long before the 60 s timeout (${Date.now() - started} ms)`);
  assert.equal(res.error.code, -32004);
  assert.equal(res.error.message, `Lost the connection to Roo Code: Roo Code closed the connection at ${rig.socket}`);
  assert.equal(typeof res.error.data.message, 'string');
  await rig.ping();
  assert.equal((await rig.status()).pendingWaits, 0);

  fake.answerQueries = true;
  const st = await rig.untilStatus((x) => x.connected, 'reconnected');
  const received = fake.nextCommand('GetModes');
  assert.equal((await rig.ok('roo_ipc_get_modes')).count, 3);
  assert.equal((await received).clientId, st.clientId);
  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 10 });
  assert.deepEqual((other.events as RooEventWire[]).map((e) => e.eventName), ['taskActive', 'modesResponse'], 'the event queued before the loss is kept');
});

test('discards a frame over 16 MiB with a logged reason and reads the next one', async (t) => {
  const rig = await startRig(t, { logLevel: 'warning' });
  const huge = encodeFrame({ type: 'TaskEvent', origin: 'server', data: { eventName: 'modelsResponse', payload: ['x'.repeat(17 * 1024 * 1024)] } });
  rig.fake!.writeRaw(huge);
  rig.fake!.broadcast('taskActive', ['after-the-huge-one']);
  await rig.pushed('taskActive');
  const warned = await rig.logged('discarded an IPC frame');
  assert.equal(logText(warned), `discarded an IPC frame of ${Buffer.byteLength(huge) - 1} bytes (limit ${16 * 1024 * 1024})`);
  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 10 });
  assert.deepEqual(other.events, [{ eventName: 'taskActive', payload: ['after-the-huge-one'] }]);
  assert.equal((await rig.status()).connected, true);
});

test('names a socket path that does not exist, keeps serving, and connects once Roo appears', async (t) => {
  const rig = await startRig(t, { fake: false });
  const expected = `no socket at ${rig.socket} (ENOENT): Roo Code is not listening there`;
  const st = await rig.untilStatus((x) => x.lastError !== undefined, 'the first attempt failed');
  assert.equal(st.lastError, expected);
  assert.equal(st.connected, false);
  assert.equal('clientId' in st, false, 'no clientId before the first Ack');
  const err = await rig.fails('roo_ipc_get_modes');
  assert.equal(err.code, -32004);
  assert.ok(err.message.includes(expected), err.message);
  assert.match(err.message, /ROO_CODE_IPC_SOCKET_PATH/);
  assert.equal((err.data as { last_error?: unknown }).last_error, expected);
  await rig.ping();

  const fake = new FakeRoo({ path: rig.socket });
  t.after(() => fake.close());
  const acked = fake.nextClient();
  await fake.listen();
  const clientId = await acked;
  await rig.untilStatus((x) => x.connected && x.clientId === clientId, 'connected once Roo listens', 10000);
});

test('names a socket path that is a regular file', async (t) => {
  const rig = await startRig(t, { fake: false, connect: false });
  writeFileSync(rig.socket, 'not a socket');
  const expected = `${rig.socket} is not a socket (it is a regular file); point the socket path at the one Roo Code creates`;
  const st = await rig.untilStatus((x) => x.lastError === expected, 'the file is recognised', 5000);
  assert.equal(st.connected, false);
  const err = await rig.fails('roo_ipc_cancel_task');
  assert.equal(err.code, -32004);
  assert.ok(err.message.includes(expected), err.message);
  await rig.ping();
  rig.s.assertStdoutPure();
});

test('names a socket path that is a directory', async (t) => {
  const rig = await startRig(t, { fake: false, connect: false });
  mkdirSync(rig.socket);
  const expected = `${rig.socket} is not a socket (it is a directory); point the socket path at the one Roo Code creates`;
  await rig.untilStatus((x) => x.lastError === expected, 'the directory is recognised', 5000);
  await rig.ping();
});
