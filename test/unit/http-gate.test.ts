// Unit tests of the HTTP door's pure parts: loopback names, Host parsing, the request gate (Host,
// Origin, token), the bind rule, event ids, and how outgoing messages are told apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindProblem, checkRequest, hostName, isLoopback } from '../../src/http/security.js';
import { parseEventId } from '../../src/http/sse.js';
import { describe } from '../../src/http/wire.js';
import { statusOf } from '../../src/http/stateless.js';

test('loopback names and Host parsing', () => {
  for (const h of ['localhost', '127.0.0.1', '127.3.2.1', '[::1]', '::1', 'app.localhost']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '10.0.0.1', 'example.com', 'localhost.example.com', '[::2]']) assert.ok(!isLoopback(h), h);
  assert.equal(hostName('localhost:3000'), 'localhost');
  assert.equal(hostName('[::1]:8080'), '[::1]');
  assert.equal(hostName('Example.COM'), 'example.com');
  assert.equal(hostName('a b'), null);
  assert.equal(hostName('user@evil:1'), null);
});

test('the gate: Host, Origin and token', () => {
  const gate = { bindHost: '127.0.0.1', allowedOrigins: ['https://app.example.com'], token: null };
  assert.equal(checkRequest({ host: '127.0.0.1:3000' }, gate), null);
  assert.equal(checkRequest({ host: 'evil.example:3000' }, gate)?.status, 403);
  assert.equal(checkRequest({}, gate)?.status, 400, 'no Host');
  assert.equal(checkRequest({ host: 'localhost', origin: 'http://evil.example' }, gate)?.status, 403);
  assert.equal(checkRequest({ host: 'localhost', origin: 'null' }, gate)?.status, 403, 'an opaque origin');
  assert.equal(checkRequest({ host: 'localhost', origin: 'https://app.example.com' }, gate), null);
  assert.equal(checkRequest({ host: 'localhost', origin: 'http://[::1]:5173' }, gate), null);
  const open = { bindHost: '0.0.0.0', allowedOrigins: [], token: 'a-token-of-enough-length' };
  assert.equal(checkRequest({ host: 'server.lan:3000', authorization: 'Bearer a-token-of-enough-length' }, open), null, 'any Host when bound beyond loopback');
  assert.equal(checkRequest({ host: 'server.lan:3000' }, open)?.status, 401);
  assert.equal(checkRequest({ host: 'server.lan:3000', authorization: 'Bearer a-token-of-enough-lengtH' }, open)?.status, 403, 'a wrong token: no challenge');
  assert.equal(checkRequest({ host: 'server.lan:3000', authorization: 'Bearer a-token-of-enough-lengtH' }, open)?.headers, undefined);
  assert.equal(checkRequest({ host: 'server.lan:3000', authorization: 'Basic a-token-of-enough-length' }, open)?.status, 401);
});

test('binding beyond loopback needs a token or the explicit waiver', () => {
  assert.equal(bindProblem('127.0.0.1', null, false), null);
  assert.match(bindProblem('0.0.0.0', null, false) ?? '', /without a token/);
  assert.equal(bindProblem('0.0.0.0', 'tok', false), null);
  assert.equal(bindProblem('0.0.0.0', null, true), null);
});

test('event ids, answer recognition and stateless statuses', () => {
  assert.deepEqual(parseEventId('3-17'), { stream: '3', seq: 17 });
  assert.equal(parseEventId('3'), null);
  assert.equal(parseEventId('../x-1'), null);
  const line = (text: string): Buffer => Buffer.from(text);
  assert.deepEqual(describe(line('{"jsonrpc":"2.0","id":"a\\"b","result":{}}')).answerTo, 'a"b');
  assert.equal(describe(line(JSON.stringify({ jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'x' } }))).errorCode, -32601);
  const note = describe(line(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } })));
  assert.equal(note.method, 'notifications/progress');
  assert.equal(note.progressToken, 7);
  assert.equal(note.answerTo, undefined);
  const serverRequest = describe(line('{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}'));
  assert.equal(serverRequest.method, 'roots/list', 'a server request is not an answer');
  assert.deepEqual([-32601, -32020, -32021, -32022, -32602, -32001].map(statusOf), [404, 400, 400, 400, 200, 200]);
});

/** Enough of a ServerResponse for SseStream: records writes; `behind` says the client has not taken the last write. */
function fakeResponse(behind: () => boolean): { res: import('node:http').ServerResponse; frames: string[]; destroyed: () => boolean; close(): void; drain(): void } {
  const frames: string[] = [];
  let destroyed = false;
  const on: Record<string, (() => void)[]> = { close: [], drain: [], finish: [] };
  const res = {
    headersSent: false,
    writeHead() { this.headersSent = true; return this; },
    flushHeaders() {},
    on(event: string, fn: () => void) { on[event]?.push(fn); return this; },
    once(event: string, fn: () => void) { on[event]?.push(fn); return this; },
    write(frame: string) { frames.push(frame); return true; },
    end() { for (const fn of on.finish!) fn(); },
    destroy() { destroyed = true; for (const fn of on.close!) fn(); },
    get writableNeedDrain() { return behind(); },
  };
  return {
    res: res as unknown as import('node:http').ServerResponse, frames, destroyed: () => destroyed,
    close: () => { for (const fn of on.close!) fn(); }, drain: () => { for (const fn of on.drain!) fn(); },
  };
}

test('an SSE stream holds events while its client catches up, cuts one that stops reading, and replays only later ones', async () => {
  const { SseStream } = await import('../../src/http/sse.js');
  const { BOUNDS } = await import('../../src/bounds.js');
  let behind = false;
  const detached: string[] = [];
  const stream = new SseStream('7', (s) => detached.push(s.id));
  const slow = fakeResponse(() => behind);
  stream.attach(slow.res, {});
  const big = `"${'x'.repeat(BOUNDS.http.connectionUnreadBytes + 10)}"`;
  stream.send(big);
  assert.equal(slow.frames.length, 1, 'one event larger than the bound is written to a client that has taken everything');
  behind = true; // the client has not taken it yet
  stream.send('{"n":2}');
  assert.equal(slow.frames.length, 1, 'held while the client is behind');
  behind = false;
  slow.drain();
  assert.equal(slow.frames.length, 2, 'written once the client took the earlier bytes');
  assert.equal(slow.destroyed(), false);
  behind = true; // the client stopped reading
  stream.send('{"n":3}');
  stream.send(big);
  assert.equal(slow.destroyed(), true, 'cut once more than the bound is held for it');
  assert.deepEqual(detached, ['7']);
  stream.send('{"n":5}'); // kept while detached
  const again = fakeResponse(() => false);
  stream.attach(again.res, {}, 4);
  assert.deepEqual(again.frames.map((f) => /id: (\S+)/.exec(f)?.[1]), ['7-5'], 'only events after 7-4 are replayed');
});

test('a finished SSE stream that went out whole keeps nothing for resumption; one cut before its end keeps its events', async () => {
  const { SseStream } = await import('../../src/http/sse.js');
  const whole = new SseStream('8');
  const reader = fakeResponse(() => false);
  whole.attach(reader.res, {});
  whole.send('{"n":1}');
  whole.finish();
  const late = fakeResponse(() => false);
  whole.attach(late.res, {}, 0);
  assert.deepEqual(late.frames, [], 'delivered events are not kept');

  const cut = new SseStream('9');
  const dropped = fakeResponse(() => false);
  cut.attach(dropped.res, {});
  dropped.close(); // the client went away before the answer
  cut.send('{"n":1}');
  cut.finish();
  const back = fakeResponse(() => false);
  cut.attach(back.res, {}, 0);
  assert.deepEqual(back.frames.map((f) => /id: (\S+)/.exec(String(f))?.[1]), ['9-1'], 'the missed answer is replayed');
});
