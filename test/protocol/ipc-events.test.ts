// Protocol tests of Roo events through the built server: the two poll queues (streaming, limits,
// drop counts), push notifications and their log-record form, and reconnecting after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paramsOf, startRig, type RooEventWire } from './ipc-rig.js';

const textOf = (e: RooEventWire): unknown => {
  const first: unknown = Array.isArray(e.payload) ? e.payload[0] : undefined;
  return typeof first === 'object' && first !== null && 'message' in first ? (first.message as { text?: unknown }).text : undefined;
};
const hasText = (text: string) => (payload: unknown): boolean => textOf({ eventName: 'message', payload }) === text;

test('polls a streamed message as partial, then complete, with the same ts', async (t) => {
  const rig = await startRig(t);
  const fake = rig.fake!;
  fake.streamMessage({ taskId: 't1', ts: 1700000000001, text: 'Hel', partial: true, action: 'created' });
  await rig.pushed('message', hasText('Hel'));
  const first = await rig.ok('roo_ipc_poll_ai_messages', { limit: 10 });
  assert.equal(first.isPartial, true);
  assert.deepEqual(first.events, [{ eventName: 'message', payload: [{ taskId: 't1', action: 'created', message: { ts: 1700000000001, type: 'say', say: 'text', text: 'Hel', partial: true } }] }]);
  assert.equal(first.dropped, 0);
  assert.equal(first.remaining, 0);

  fake.streamMessage({ taskId: 't1', ts: 1700000000001, text: 'Hello, world', partial: false, action: 'updated' });
  await rig.pushed('message', hasText('Hello, world'));
  const res = await rig.tool('roo_ipc_poll_ai_messages', { limit: 10 });
  const second = res.result.metadata;
  assert.equal(second.isPartial, false);
  assert.equal(second.events.length, 1);
  assert.equal(second.events[0].payload[0].message.ts, 1700000000001);
  assert.equal(second.events[0].payload[0].action, 'updated');
  assert.match(res.result.content[0].text, /\[complete\].*"Hello, world"/);

  const empty = await rig.ok('roo_ipc_poll_ai_messages');
  assert.deepEqual(empty, { events: [], isPartial: false, dropped: 0, remaining: 0 });
});

test('isPartial describes the last message returned when a poll stops mid-stream', async (t) => {
  const rig = await startRig(t);
  const fake = rig.fake!;
  fake.streamMessage({ taskId: 't1', ts: 5, text: 'a', partial: true, action: 'created' });
  fake.streamMessage({ taskId: 't1', ts: 5, text: 'ab', partial: false, action: 'updated' });
  fake.streamMessage({ taskId: 't1', ts: 6, text: 'c', partial: true, action: 'created' });
  await rig.pushed('message', hasText('c'));
  const one = await rig.ok('roo_ipc_poll_ai_messages');
  assert.equal((one.events as RooEventWire[]).map(textOf).join(), 'a');
  assert.equal(one.isPartial, true);
  assert.equal(one.remaining, 2);
  const next = await rig.ok('roo_ipc_poll_ai_messages');
  assert.equal((next.events as RooEventWire[]).map(textOf).join(), 'ab');
  assert.equal(next.isPartial, false);
  const last = await rig.ok('roo_ipc_poll_ai_messages', { limit: 5 });
  assert.equal((last.events as RooEventWire[]).map(textOf).join(), 'c');
  assert.equal(last.isPartial, true);
});

test('keeps the newest queue_limit events per queue, dropping the oldest and counting them once', async (t) => {
  const rig = await startRig(t, { ipc: { queue_limit: 3 } });
  const fake = rig.fake!;
  for (let i = 1; i <= 5; i += 1) {
    fake.streamMessage({ taskId: 't1', ts: i, text: `m${i}`, partial: false, action: 'created' });
    fake.broadcast('taskTokenUsageUpdated', ['t1', { totalTokensIn: i }, {}], i);
  }
  await rig.pushed('message', hasText('m5'));
  await rig.pushed('taskTokenUsageUpdated', (p) => Array.isArray(p) && (p[1] as { totalTokensIn?: number }).totalTokensIn === 5);
  const st = await rig.status();
  assert.equal(st.queueLimit, 3);
  assert.deepEqual(st.queued, { messages: 3, other: 3 });
  assert.deepEqual(st.dropped, { messages: 2, other: 2 });

  const messages = await rig.ok('roo_ipc_poll_ai_messages', { limit: 10 });
  assert.deepEqual((messages.events as RooEventWire[]).map(textOf), ['m3', 'm4', 'm5']);
  assert.equal(messages.dropped, 2);
  assert.equal(messages.remaining, 0);

  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 2 });
  assert.deepEqual((other.events as RooEventWire[]).map((e) => e.taskId), [3, 4]);
  assert.deepEqual((other.events as RooEventWire[])[0], { eventName: 'taskTokenUsageUpdated', payload: ['t1', { totalTokensIn: 3 }, {}], taskId: 3 });
  assert.equal(other.dropped, 2);
  assert.equal(other.remaining, 1);
  const rest = await rig.ok('roo_ipc_poll_other_events', { limit: 2 });
  assert.deepEqual((rest.events as RooEventWire[]).map((e) => e.taskId), [5]);
  assert.equal(rest.dropped, 0, 'drops are reported once');
  assert.equal(rest.remaining, 0);

  fake.streamMessage({ taskId: 't1', ts: 9, text: 'm9', partial: false, action: 'created' });
  await rig.pushed('message', hasText('m9'));
  const after = await rig.ok('roo_ipc_poll_ai_messages', { limit: 10 });
  assert.deepEqual((after.events as RooEventWire[]).map(textOf), ['m9']);
  assert.equal(after.dropped, 0);
  assert.deepEqual((await rig.status()).dropped, { messages: 2, other: 2 }, 'status keeps the totals');
});

test('pushes each Roo event as notifications/roo/event, with taskId only when Roo sent one', async (t) => {
  const rig = await startRig(t);
  const fake = rig.fake!;
  fake.broadcast('taskModeSwitched', ['t1', 'architect']);
  fake.broadcast('evalPass', null, 17);
  const switched = await rig.pushed('taskModeSwitched');
  const passed = await rig.pushed('evalPass');
  assert.deepEqual(paramsOf(switched), { eventName: 'taskModeSwitched', payload: ['t1', 'architect'] });
  // Roo sent no payload: the event carries none (results and notifications hold no nulls).
  assert.deepEqual(paramsOf(passed), { eventName: 'evalPass', taskId: 17 });
  assert.equal(rig.s.messages.filter((m) => m.method === 'notifications/message').length, 0, 'no log records before logging/setLevel');
  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 10 });
  assert.equal((other.events as RooEventWire[]).length, 2, 'pushed events are still queued for polling');
  rig.s.assertStdoutPure();
});

test('sends no notifications/roo/event when ipc.push_notifications is false, yet still queues the event', async (t) => {
  const rig = await startRig(t, { ipc: { push_notifications: false } });
  rig.fake!.broadcast('taskStarted', ['t1']);
  // The event is queued before any notification would be, so seeing it queued means none was sent.
  await rig.untilStatus((st) => st.queued.other === 1, 'the event is queued');
  await rig.ping();
  assert.deepEqual(rig.s.messages.filter((m) => typeof m.method === 'string' && m.method.startsWith('notifications/')), []);
  const other = await rig.ok('roo_ipc_poll_other_events');
  assert.deepEqual(other.events, [{ eventName: 'taskStarted', payload: ['t1'] }]);
});

test('after logging/setLevel info each event also arrives as an info log record from roo-ipc', async (t) => {
  const rig = await startRig(t, { ipc: { push_notifications: false }, logLevel: 'info' });
  rig.fake!.broadcast('taskCompleted', ['t1', { totalCost: 0.5 }, {}, { isSubtask: false }], 3);
  const record = await rig.s.waitFor((m) => m.method === 'notifications/message' && (paramsOf(m).data as { eventName?: unknown } | undefined)?.eventName === 'taskCompleted', 5000, 'the log record of the event');
  assert.deepEqual(paramsOf(record), {
    level: 'info', logger: 'roo-ipc',
    data: { eventName: 'taskCompleted', payload: ['t1', { totalCost: 0.5 }, {}, { isSubtask: false }], taskId: 3 },
  });
  await rig.ping();
  assert.equal(rig.s.messages.filter((m) => m.method === 'notifications/roo/event').length, 0);
});

test('sends no event log records at a logging level above info, but still pushes the event', async (t) => {
  const rig = await startRig(t, { logLevel: 'warning' });
  rig.fake!.broadcast('taskIdle', ['t1']);
  await rig.pushed('taskIdle');
  await rig.ping();
  assert.equal(rig.s.messages.filter((m) => m.method === 'notifications/message').length, 0);
});

test('reconnects after Roo restarts and sends later commands with the new clientId', async (t) => {
  const rig = await startRig(t);
  const fake = rig.fake!;
  const before = await rig.status();
  fake.broadcast('taskActive', ['kept-1']);
  await rig.pushed('taskActive');

  await fake.close();
  const down = await rig.untilStatus((st) => !st.connected, 'the bridge noticed the restart');
  assert.equal('clientId' in down, false, 'no clientId while disconnected');
  const err = await rig.fails('roo_ipc_cancel_task');
  assert.equal(err.code, -32004);
  assert.match(err.message, new RegExp(`^Not connected to Roo Code at ${rig.socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await rig.ping();

  const acked = fake.nextClient();
  await fake.listen();
  const newId = await acked;
  assert.notEqual(newId, before.clientId);
  const after = await rig.untilStatus((st) => st.connected && st.clientId === newId, 'reconnected with the new clientId');
  assert.equal(after.connections, 2);
  assert.equal(after.reconnectAttempts, 0);
  assert.equal('lastError' in after, false, 'no error since the reconnect');

  const received = fake.nextCommand();
  const meta = await rig.ok('roo_ipc_resume_task', { task_id: 'kept-1' });
  assert.equal(meta.clientId, newId);
  assert.deepEqual(await received, { clientId: newId, socketClientId: newId, commandName: 'ResumeTask', data: 'kept-1', valid: true });
  const modes = await rig.ok('roo_ipc_get_modes');
  assert.equal(modes.count, 3, 'queries are answered on the new connection');

  const other = await rig.ok('roo_ipc_poll_other_events', { limit: 10 });
  assert.deepEqual((other.events as RooEventWire[]).map((e) => e.eventName), ['taskActive', 'modesResponse'], 'events from before the restart are kept');
});

test('reconnects after a VS Code restart on the same path (restart in one step)', async (t) => {
  const rig = await startRig(t);
  const fake = rig.fake!;
  const first = fake.clients[0];
  const acked = fake.nextClient();
  await fake.restart();
  const newId = await acked;
  await rig.untilStatus((st) => st.connected && st.clientId === newId, 'reconnected');
  const received = fake.nextCommand();
  await rig.ok('roo_ipc_cancel_task');
  const command = await received;
  assert.equal(command.clientId, newId);
  assert.notEqual(command.clientId, first);
});
