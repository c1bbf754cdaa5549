// Protocol tests of request cancellation over the wire: notifications/cancelled for a tool call
// waiting on a silent Roo peer, for answered and unknown ids, and for id 0. The built server, real pipes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Msg } from './harness.js';
import { startRig, type Rig } from './ipc-rig.js';

/** A peer that takes queries but never answers them, and a query timeout far beyond the test. */
const SILENT_QUERIES = { fake: { answerQueries: false }, ipc: { query_timeout_ms: 60000 } } as const;

const responsesTo = (rig: Rig, id: unknown): Msg[] =>
  rig.s.messages.filter((m) => ('result' in m || 'error' in m) && JSON.stringify(m.id) === JSON.stringify(id));

/** Sends a get_modes call and resolves once the peer has received its GetModes. */
async function startGetModes(rig: Rig, id: number | string): Promise<void> {
  const asked = rig.fake!.nextCommand('GetModes');
  rig.s.request(id, 'tools/call', { name: 'roo_ipc_get_modes', arguments: {} });
  await asked;
}

test('never answers a cancelled request and keeps serving, up to a clean exit', async (t) => {
  const rig = await startRig(t, SILENT_QUERIES);
  await startGetModes(rig, 41);
  assert.equal((await rig.status()).pendingWaits, 1);

  rig.s.notify('notifications/cancelled', { requestId: 41, reason: 'the user gave up' });
  await rig.ping();
  assert.equal((await rig.status()).pendingWaits, 0, 'the wait for Roo was released');

  // A late answer from Roo must not revive the cancelled call.
  rig.fake!.broadcast('modesResponse', [[{ slug: 'late', name: 'Late' }]]);
  await rig.pushed('modesResponse');
  await rig.ping();
  assert.deepEqual(responsesTo(rig, 41), []);

  assert.deepEqual(await rig.s.end(), { code: 0, signal: null });
  assert.deepEqual(responsesTo(rig, 41), [], 'no response appeared before exit');
  assert.equal(rig.fake!.commands.filter((c) => c.commandName === 'GetModes').length, 1);
  rig.s.assertStdoutPure();
});

test('can cancel request id 0', async (t) => {
  const rig = await startRig(t, SILENT_QUERIES);
  await startGetModes(rig, 0);
  rig.s.notify('notifications/cancelled', { requestId: 0 });
  await rig.ping();
  assert.equal((await rig.status()).pendingWaits, 0);
  assert.deepEqual(await rig.s.end(), { code: 0, signal: null });
  assert.deepEqual(responsesTo(rig, 0), []);
});

test('ignores cancellations of answered, unknown or malformed request ids', async (t) => {
  const rig = await startRig(t);
  const answered = await rig.s.tool(5, 'roo_ipc_get_modes');
  assert.equal(answered.result.metadata.count, 3);
  const before = rig.s.messages.length;
  rig.s.notify('notifications/cancelled', { requestId: 5 });
  rig.s.notify('notifications/cancelled', { requestId: 'never-sent' });
  rig.s.notify('notifications/cancelled', { requestId: 123456 });
  rig.s.notify('notifications/cancelled', { requestId: null });
  rig.s.notify('notifications/cancelled', {});
  rig.s.notify('notifications/cancelled');
  assert.deepEqual((await rig.s.call(6, 'ping')).result, {});
  assert.deepEqual(rig.s.messages.slice(before).map((m) => m.id), [6], 'nothing but the ping answer');
  assert.equal(responsesTo(rig, 5).length, 1, 'the answered request still has exactly one response');
  assert.equal((await rig.s.tool(7, 'roo_ipc_get_modes')).result.metadata.count, 3, 'later calls are served');
  assert.deepEqual(await rig.s.end(), { code: 0, signal: null });
  rig.s.assertStdoutPure();
});

test('matches the cancelled id by type: cancelling "7" leaves request 7 running', async (t) => {
  const rig = await startRig(t, SILENT_QUERIES);
  await startGetModes(rig, 7);
  rig.s.notify('notifications/cancelled', { requestId: '7' });
  await rig.ping();
  assert.equal((await rig.status()).pendingWaits, 1, 'request 7 still waits');
  rig.fake!.broadcast('modesResponse', [[{ slug: 'code', name: 'Code' }]]);
  const res = await rig.s.response(7, 5000);
  assert.deepEqual(res.result.metadata, { modes: [{ slug: 'code', name: 'Code' }], count: 1 });
});

test('cancelling one of two identical queries leaves the other waiting for the shared answer', async (t) => {
  const rig = await startRig(t, SILENT_QUERIES);
  const asked = rig.fake!.nextCommand('GetModes');
  rig.s.request(20, 'tools/call', { name: 'roo_ipc_get_modes', arguments: {} });
  rig.s.request(21, 'tools/call', { name: 'roo_ipc_get_modes', arguments: {} });
  await asked;
  assert.equal((await rig.status()).pendingWaits, 1, 'both calls share one wait');
  rig.s.notify('notifications/cancelled', { requestId: 20 });
  await rig.ping();
  assert.equal((await rig.status()).pendingWaits, 1, 'the other caller keeps the wait alive');
  rig.fake!.broadcast('modesResponse', [[{ slug: 'ask', name: 'Ask' }]]);
  const res = await rig.s.response(21, 5000);
  assert.equal(res.result.metadata.count, 1);
  await rig.ping();
  assert.deepEqual(responsesTo(rig, 20), []);
  assert.equal(rig.fake!.commands.length, 1, 'one GetModes served both callers');
});
