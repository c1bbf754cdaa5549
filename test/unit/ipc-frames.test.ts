// Unit tests for the pure IPC pieces: frame decoding and parsing, the ring buffer, backoff, pipe paths.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, platformSocketPath } from '../../src/ipc/roo-socket.js';
import { EventQueues, isPartialMessage, RingBuffer, taskIdOf } from '../../src/ipc/events.js';
import { encodeFrame, FrameDecoder, parseFrame, taskCommand, type FrameEvent, type IpcMessage } from '../../src/ipc/frames.js';

const modesReply: IpcMessage = {
  type: 'TaskEvent', origin: 'server',
  data: { eventName: 'modesResponse', payload: [[{ slug: 'architect', name: '🏗️ Architect' }, { slug: 'debug', name: '🪲 Debug' }]] },
};
const ack: IpcMessage = { type: 'Ack', origin: 'server', data: { clientId: '6811b0f5580c', pid: 10, ppid: 1 } };

const texts = (events: FrameEvent[]): string[] => events.map((e) => (e.kind === 'frame' ? e.text : `<oversize ${e.bytes}>`));

test('decodes a frame delivered one byte per chunk, multibyte characters included', () => {
  const bytes = Buffer.from(encodeFrame(modesReply), 'utf8');
  const decoder = new FrameDecoder();
  const out: FrameEvent[] = [];
  for (let i = 0; i < bytes.length; i += 1) out.push(...decoder.push(bytes.subarray(i, i + 1)));
  assert.equal(out.length, 1);
  const parsed = parseFrame(texts(out)[0]!);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.message, modesReply);
  assert.equal(decoder.pendingBytes, 0);
});

test('reassembles a 4-byte UTF-8 character split in the middle across chunks', () => {
  const frame = Buffer.from('{"type":"message","data":{"type":"TaskEvent","origin":"server","data":{"eventName":"x","payload":["🪃"]}}}\f', 'utf8');
  const emoji = frame.indexOf(Buffer.from('🪃', 'utf8'));
  const decoder = new FrameDecoder();
  const first = decoder.push(frame.subarray(0, emoji + 2));
  const second = decoder.push(frame.subarray(emoji + 2));
  assert.deepEqual(first, []);
  const parsed = parseFrame(texts(second)[0]!);
  assert.ok(parsed.ok && parsed.message.type === 'TaskEvent');
  assert.deepEqual(parsed.message.data.payload, ['🪃']);
});

test('returns several frames from one chunk and keeps the unfinished tail for the next', () => {
  const decoder = new FrameDecoder();
  const a = encodeFrame(ack);
  const b = encodeFrame(modesReply);
  const out = decoder.push(Buffer.from(a + b + b.slice(0, 20), 'utf8'));
  assert.deepEqual(texts(out), [a.slice(0, -1), b.slice(0, -1)]);
  assert.equal(decoder.pendingBytes, 20);
  assert.deepEqual(texts(decoder.push(Buffer.from(b.slice(20), 'utf8'))), [b.slice(0, -1)]);
});

test('skips empty frames between delimiters', () => {
  const decoder = new FrameDecoder();
  assert.deepEqual(texts(decoder.push(Buffer.from(`\f\f${encodeFrame(ack)}\f`, 'utf8'))), [encodeFrame(ack).slice(0, -1)]);
});

test('discards an oversize frame up to its delimiter, reports its size once, and decodes the next one', () => {
  const decoder = new FrameDecoder(150);
  const big = 'x'.repeat(200);
  const out = [...decoder.push(Buffer.from(big.slice(0, 120))), ...decoder.push(Buffer.from(big.slice(120))), ...decoder.push(Buffer.from(`\f${encodeFrame(ack).slice(0, 40)}`))];
  assert.deepEqual(out, [{ kind: 'oversize', bytes: 200 }]);
  assert.deepEqual(texts(decoder.push(Buffer.from(encodeFrame(ack).slice(40)))), [encodeFrame(ack).slice(0, -1)]);
});

test('counts the frame cap in UTF-8 bytes, not characters', () => {
  const decoder = new FrameDecoder(10);
  // Four emoji are 4 characters of 2 UTF-16 units each but 16 bytes.
  assert.deepEqual(decoder.push(Buffer.from('🪃🪃🪃🪃\f', 'utf8')), [{ kind: 'oversize', bytes: 16 }]);
});

test('reset forgets a half-received frame', () => {
  const decoder = new FrameDecoder();
  decoder.push(Buffer.from('{"type":"mess'));
  decoder.reset();
  assert.equal(decoder.pendingBytes, 0);
  assert.deepEqual(texts(decoder.push(Buffer.from(encodeFrame(ack)))), [encodeFrame(ack).slice(0, -1)]);
});

test('rejects a non-positive frame cap at construction', () => {
  assert.throws(() => new FrameDecoder(0), TypeError);
});

test('parseFrame names why a frame was skipped: invalid JSON, wrong envelope, unknown message', () => {
  assert.deepEqual(parseFrame('{not json'), { ok: false, reason: 'not valid JSON' });
  assert.deepEqual(parseFrame('\u0000\u00ff garbage'), { ok: false, reason: 'not valid JSON' });
  assert.deepEqual(parseFrame('{"type":"error","data":{}}'), { ok: false, reason: 'not a node-ipc "message" frame' });
  assert.deepEqual(parseFrame('[1,2]'), { ok: false, reason: 'not a node-ipc "message" frame' });
  for (const inner of [
    { type: 'Connect', origin: 'server', data: {} },
    { type: 'Ack', origin: 'server', data: { clientId: 'a', pid: '1', ppid: 1 } },
    { type: 'Ack', origin: 'client', data: { clientId: 'a', pid: 1, ppid: 1 } },
    { type: 'TaskEvent', origin: 'server', data: { payload: [] } },
    { type: 'TaskEvent', origin: 'server', data: { eventName: 'x', taskId: 'seven' } },
  ]) {
    assert.deepEqual(parseFrame(JSON.stringify({ type: 'message', data: inner })), { ok: false, reason: 'not a known IpcMessage' }, JSON.stringify(inner));
  }
});

test('parseFrame keeps taskId and relayClientId, and leaves a missing or null payload out', () => {
  for (const payload of [undefined, null]) {
    const parsed = parseFrame(JSON.stringify({ type: 'message', data: { type: 'TaskEvent', origin: 'server', relayClientId: 'r1', data: { eventName: 'evalPass', payload, taskId: 7 } } }));
    assert.deepEqual(parsed, { ok: true, message: { type: 'TaskEvent', origin: 'server', relayClientId: 'r1', data: { eventName: 'evalPass', taskId: 7 } } });
  }
});

test('parseFrame keeps a tuple payload as it is and makes a bare value a one-element tuple', () => {
  const event = (payload: unknown) => parseFrame(JSON.stringify({ type: 'message', data: { type: 'TaskEvent', origin: 'server', data: { eventName: 'e', payload } } }));
  assert.deepEqual(event(['t1', { a: 1 }]), { ok: true, message: { type: 'TaskEvent', origin: 'server', data: { eventName: 'e', payload: ['t1', { a: 1 }] } } });
  assert.deepEqual(event('t1'), { ok: true, message: { type: 'TaskEvent', origin: 'server', data: { eventName: 'e', payload: ['t1'] } } });
  assert.deepEqual(event({ a: 1 }), { ok: true, message: { type: 'TaskEvent', origin: 'server', data: { eventName: 'e', payload: [{ a: 1 }] } } });
});

test('encodes a TaskCommand in the envelope Roo expects, omitting absent data', () => {
  assert.equal(encodeFrame(taskCommand('abc123abc123', 'GetModes')),
    '{"type":"message","data":{"type":"TaskCommand","origin":"client","clientId":"abc123abc123","data":{"commandName":"GetModes"}}}\f');
  const round = parseFrame(encodeFrame(taskCommand('c', 'ResumeTask', 'task-1')).slice(0, -1));
  assert.deepEqual(round, { ok: true, message: { type: 'TaskCommand', origin: 'client', clientId: 'c', data: { commandName: 'ResumeTask', data: 'task-1' } } });
});

test('ring buffer keeps the newest items, counts overwritten ones, and takes oldest first', () => {
  const ring = new RingBuffer<number>(3);
  for (let i = 1; i <= 5; i += 1) ring.push(i);
  assert.equal(ring.size, 3);
  assert.equal(ring.dropped, 2);
  assert.deepEqual(ring.take(2), [3, 4]);
  ring.push(6);
  ring.push(7);
  assert.deepEqual(ring.take(10), [5, 6, 7]);
  assert.equal(ring.size, 0);
  assert.equal(ring.dropped, 2);
  assert.deepEqual(ring.take(1), []);
});

test('event queues separate message events and report drops once per poll', () => {
  const q = new EventQueues(2);
  for (let i = 0; i < 3; i += 1) q.push({ eventName: 'message', payload: [i] });
  q.push({ eventName: 'taskStarted', payload: ['t'] });
  assert.deepEqual(q.messages.poll(1), { events: [{ eventName: 'message', payload: [1] }], dropped: 1, remaining: 1 });
  assert.deepEqual(q.messages.poll(5), { events: [{ eventName: 'message', payload: [2] }], dropped: 0, remaining: 0 });
  assert.deepEqual(q.other.poll(5), { events: [{ eventName: 'taskStarted', payload: ['t'] }], dropped: 0, remaining: 0 });
});

test('recognises partial messages and lifecycle task ids', () => {
  const msg = (partial: unknown) => ({ eventName: 'message', payload: [{ taskId: 't', action: 'updated', message: { ts: 1, type: 'say', partial } }] });
  assert.equal(isPartialMessage(msg(true)), true);
  assert.equal(isPartialMessage(msg(false)), false);
  assert.equal(isPartialMessage(msg(undefined)), false);
  assert.equal(isPartialMessage({ eventName: 'taskStarted', payload: ['t'] }), false);
  assert.equal(taskIdOf({ eventName: 'taskCreated', payload: ['abc'] }), 'abc');
  assert.equal(taskIdOf({ eventName: 'taskCreated', payload: [] }), null);
});

test('backoff doubles from 100 ms, stays within its jitter band, and caps at 10 s', () => {
  assert.equal(backoffDelay(1, 100, 10_000, () => 0), 50);
  assert.equal(backoffDelay(1, 100, 10_000, () => 0.999999), 100);
  assert.equal(backoffDelay(4, 100, 10_000, () => 0.999999), 800);
  assert.equal(backoffDelay(50, 100, 10_000, () => 0.999999), 10_000);
  assert.equal(backoffDelay(50, 100, 10_000, () => 0), 5_000);
});

test('maps a socket path to a named pipe on Windows the way node-ipc does', () => {
  assert.equal(platformSocketPath('/tmp/roo.sock', 'linux'), '/tmp/roo.sock');
  assert.equal(platformSocketPath('/tmp/roo.sock', 'win32'), '\\\\.\\pipe\\tmp-roo.sock');
  assert.equal(platformSocketPath('\\\\.\\pipe\\x', 'win32'), '\\\\.\\pipe\\x');
});

test('parseFrame keeps a TaskEvent nested too deep, with its payload replaced by a marker and a warning', () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  const text = `{"type":"message","data":{"type":"TaskEvent","origin":"server","data":{"eventName":"message","taskId":3,"payload":${deep}}}}`;
  const parsed = parseFrame(text);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.message, { type: 'TaskEvent', origin: 'server', data: { eventName: 'message', taskId: 3,
    payload: [{ truncated: true, reason: 'payload removed by roo-modes-server: its payload nests deeper than 1000 levels' }] } });
  assert.equal(parsed.warning, 'truncated a Roo "message" event: its payload nests deeper than 1000 levels');
  const shallow = parseFrame(`{"type":"message","data":{"type":"TaskEvent","origin":"server","data":{"eventName":"message","payload":${'['.repeat(900)}${']'.repeat(900)}}}}`);
  assert.ok(shallow.ok && shallow.warning === undefined, 'a payload within the bound is kept as it is');
});

test('parseFrame replaces the payload of a TaskEvent whose frame is over the event limit, naming both sizes', () => {
  const text = JSON.stringify({ type: 'message', data: { type: 'TaskEvent', origin: 'server', data: { eventName: 'message', payload: ['é'.repeat(600)] } } });
  const bytes = Buffer.byteLength(text);
  const parsed = parseFrame(text, 1000);
  assert.ok(parsed.ok && parsed.message.type === 'TaskEvent');
  assert.deepEqual(parsed.message.data.payload, [{ truncated: true, reason: `payload removed by roo-modes-server: its frame is ${bytes} bytes, over the limit of 1000 bytes` }]);
  assert.match(parsed.warning ?? '', /^truncated a Roo "message" event: its frame is \d+ bytes/);
  const ok = parseFrame(text, bytes);
  assert.ok(ok.ok && ok.warning === undefined && ok.message.type === 'TaskEvent' && Array.isArray(ok.message.data.payload));
});

test('ring buffer bounded by weight drops the oldest items to make room, and take stops at its weight budget', () => {
  const ring = new RingBuffer<string>(100, 10);
  ring.push('a', 4);
  ring.push('b', 4);
  ring.push('c', 4);
  assert.deepEqual([ring.size, ring.weight, ring.dropped], [2, 8, 1], 'a made room for c');
  ring.push('huge', 50);
  assert.deepEqual([ring.size, ring.weight, ring.dropped], [1, 50, 3], 'alone, an item heavier than the bound is still kept');
  ring.push('d', 3);
  ring.push('e', 3);
  ring.push('f', 3);
  assert.deepEqual(ring.take(10, 5), ['d'], 'the budget stops before e');
  assert.deepEqual(ring.take(10, 1), ['e'], 'the first item is always taken');
  assert.deepEqual(ring.take(10), ['f']);
  assert.equal(ring.weight, 0);
});
