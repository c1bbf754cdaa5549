// The tier's own DevTools client, without a browser: NUL-framed messages split anywhere, answers
// paired with their commands (errors too), events to listeners, and a closed pipe failing what waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Cdp } from './cdp.js';

function pipes(): { cdp: Cdp; sent: string[]; browser: PassThrough } {
  const toBrowser = new PassThrough();
  const browser = new PassThrough();
  const sent: string[] = [];
  toBrowser.setEncoding('utf8').on('data', (t: string) => sent.push(t));
  return { cdp: new Cdp(toBrowser, browser), sent, browser };
}

test('commands go out NUL-ended; answers split across chunks find their command, errors reject it', async () => {
  const { cdp, sent, browser } = pipes();
  const a = cdp.send('Target.createTarget', { url: 'about:blank' });
  const b = cdp.send('Runtime.evaluate', { expression: '1' }, 'S1');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent.join('').split('\0'), [
    '{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}',
    '{"id":2,"method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"S1"}', '',
  ]);
  const events: string[] = [];
  cdp.on((e) => events.push(`${e.method}@${e.sessionId ?? ''}`));
  const wire = '{"id":2,"error":{"message":"no such session"}}\0{"method":"Page.loadEventFired","params":{},"sessionId":"S1"}\0{"id":1,"result":{"targetId":"T"}}\0';
  for (const piece of [wire.slice(0, 7), wire.slice(7, 50), wire.slice(50)]) browser.write(piece);
  assert.deepEqual(await a, { targetId: 'T' });
  await assert.rejects(b, /^Error: Runtime\.evaluate: no such session$/);
  assert.deepEqual(events, ['Page.loadEventFired@S1']);
});

test('a browser that goes away fails the commands still waiting', async () => {
  const { cdp, browser } = pipes();
  const waiting = cdp.send('Browser.getVersion');
  browser.end();
  await assert.rejects(waiting, /Chromium went away during Browser\.getVersion/);
});
