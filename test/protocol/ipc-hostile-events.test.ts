// Protocol tests of hostile Roo events through the built server: an event nested 10,000 levels deep
// and one of 15 MiB each arrive as a truncation marker with a warning; the bridge and MCP keep serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paramsOf, startRig, type Rig } from './ipc-rig.js';

const LIMIT = 10 * 1024 * 1024;

/** A raw TaskEvent frame around a payload given as JSON text (so the test never builds it as a value). */
const frame = (eventName: string, payloadJson: string): string =>
  `{"type":"message","data":{"type":"TaskEvent","origin":"server","data":{"eventName":"${eventName}","payload":${payloadJson}}}}\f`;

/** After the hostile event, an ordinary one still flows end to end, and MCP still answers. */
async function stillServing(rig: Rig): Promise<void> {
  rig.fake!.broadcast('taskCompleted', ['after']);
  await rig.pushed('taskCompleted', (p) => Array.isArray(p) && p[0] === 'after');
  await rig.ping();
  assert.equal((await rig.status()).connected, true, 'the bridge is still connected');
}

test('a TaskEvent nested 10,000 levels deep arrives with its payload replaced by a marker, and a warning', async (t) => {
  const rig = await startRig(t);
  const deep = '['.repeat(10_000) + '"x"' + ']'.repeat(10_000);
  rig.fake!.writeRaw(frame('message', deep));
  const pushed = await rig.pushed('message');
  const marker = [{ truncated: true, reason: 'payload removed by roo-modes-server: its payload nests deeper than 1000 levels' }];
  assert.deepEqual(paramsOf(pushed).payload, marker);
  const polled = await rig.ok('roo_ipc_poll_ai_messages', { limit: 10 });
  assert.deepEqual(polled.events, [{ eventName: 'message', payload: marker }]);
  await stillServing(rig);
  assert.match(rig.s.stderr, /truncated a Roo "message" event: its payload nests deeper than 1000 levels/);
  rig.s.assertStdoutPure();
});

test('a 15 MiB TaskEvent arrives as a marker naming its size and the limit; polls and pushes stay within the output limit', async (t) => {
  const rig = await startRig(t);
  const big = JSON.stringify([{ taskId: 't', action: 'created', message: { ts: 1, type: 'say', say: 'text', text: 'b'.repeat(15 * 1024 * 1024) } }]);
  rig.fake!.writeRaw(frame('message', big));
  rig.fake!.writeRaw(frame('message', big));
  const pushed = await rig.pushed('message');
  let seen = 0;
  await rig.s.waitFor((m) => m.method === 'notifications/roo/event' && ++seen === 2, 10_000, 'the second push');
  const [payload] = paramsOf(pushed).payload as [{ truncated: boolean; reason: string }];
  assert.equal(payload.truncated, true);
  assert.match(payload.reason, new RegExp(`its frame is \\d+ bytes, over the limit of ${LIMIT / 4} bytes`));
  const res = await rig.tool('roo_ipc_poll_ai_messages', { limit: 10 });
  assert.ok(res.result, `the poll is answered: ${JSON.stringify(res.error)}`);
  assert.equal(res.result.metadata.events.length, 2);
  for (const line of rig.s.lines) assert.ok(Buffer.byteLength(line) <= LIMIT, `a stdout line of ${line.length} characters is within the limit`);
  await stillServing(rig);
  assert.match(rig.s.stderr, /truncated a Roo "message" event: its frame is \d+ bytes/);
});
