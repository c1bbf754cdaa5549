// Hostile HTTP clients against the built server, in every era (issue 35 §8): slowloris headers and
// bodies from many sockets at once (closed by the configurable header and request timeouts, while a
// normal client is served beside them), bodies over the size bound and JSON nested past the depth
// bound in a 2025-11-25 session, in its initialize, and in 2026-07-28 requests: each refused with
// a precise error, and the server goes on serving. One server, small timeouts: it runs in seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { META_2026, startHttp, type HttpServer } from './http-harness.js';

const LIMIT = 64 * 1024;
const TIMEOUTS = { idle_timeout_ms: 400, headers_timeout_ms: 500, request_timeout_ms: 800 };
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_modes' };
const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } };

async function server(t: Parameters<typeof tempDir>[0]): Promise<HttpServer> {
  const dir = tempDir(t, 'rms-hostile-');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ server: { max_message_bytes: LIMIT }, http: TIMEOUTS }));
  return startHttp(t, ['--config', config, '--project-root', dir]);
}

function open(s: HttpServer): Promise<Socket> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => { const c = connect(Number(url.port), url.hostname, () => resolve(c)); c.once('error', reject); });
}

/** Resolves with how long after `from` the server closed the socket, and what it sent before. */
function closed(socket: Socket, from: number): Promise<{ ms: number; got: string }> {
  let got = '';
  socket.setEncoding('latin1');
  socket.on('data', (c: string) => { got += c; });
  socket.on('error', () => { /* a reset is a close too */ });
  return new Promise((resolve) => socket.once('close', () => resolve({ ms: Date.now() - from, got })));
}

/** A tools/call list_modes in 2026-07-28, which needs no session. */
const listModes = (s: HttpServer, id: number) => s.modern(id, 'tools/call', { name: 'list_modes', arguments: {} });

test('slowloris: many sockets dribbling headers or bodies are closed by the header and request timeouts while a normal client is served', async (t) => {
  const s = await server(t);
  const url = new URL(s.url);
  const sockets: Socket[] = [];
  t.after(() => { for (const c of sockets) c.destroy(); });
  const timers: NodeJS.Timeout[] = [];
  t.after(() => { for (const d of timers) clearInterval(d); });
  const start = Date.now();
  const outcomes: Promise<{ kind: string; ms: number; got: string }>[] = [];
  for (let i = 0; i < 10; i++) {
    // Headers that never end: a line every 50 ms, each resetting nothing.
    const head = await open(s);
    sockets.push(head);
    outcomes.push(closed(head, start).then((r) => ({ kind: 'headers', ...r })));
    head.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n`);
    timers.push(setInterval(() => { if (!head.destroyed) head.write(`X-Slow-${i}: a\r\n`); }, 50));
    // A complete head, then a body of one byte per 50 ms: legacy (a session id) and 2026-07-28 alike.
    const body = await open(s);
    sockets.push(body);
    outcomes.push(closed(body, start).then((r) => ({ kind: 'body', ...r })));
    const era = i % 2 === 0 ? 'Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\n' : 'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: list_modes\r\n';
    body.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n${era}\r\n{`);
    timers.push(setInterval(() => { if (!body.destroyed) body.write(' '); }, 50));
  }
  // Meanwhile a normal client is answered at once, in both eras.
  const served = Date.now();
  assert.equal((await listModes(s, 1)).status, 200);
  assert.equal((await s.post(INIT)).status, 200);
  assert.ok(Date.now() - served < TIMEOUTS.headers_timeout_ms, `the normal client waited ${Date.now() - served} ms beside the slow sockets`);
  const results = await Promise.all(outcomes);
  for (const r of results) {
    const bound = r.kind === 'headers' ? TIMEOUTS.headers_timeout_ms : TIMEOUTS.request_timeout_ms;
    // Node checks these timeouts every 250 ms (BOUNDS.http.timeoutCheckMs); a loaded machine adds some.
    assert.ok(r.ms >= bound - 100 && r.ms < bound + 2500, `slow ${r.kind} closed after ${r.ms} ms (timeout ${bound} ms)`);
    // Node answers 408 when it can; never a 200 with half a request.
    assert.ok(r.got === '' || /^HTTP\/1\.1 408 /.test(r.got), `slow ${r.kind} got ${JSON.stringify(r.got.slice(0, 120))}`);
  }
  // An idle socket that never sends a byte goes after the idle timeout.
  const silent = await open(s);
  sockets.push(silent);
  const idle = await closed(silent, Date.now());
  assert.ok(idle.ms >= TIMEOUTS.idle_timeout_ms - 100 && idle.ms < TIMEOUTS.idle_timeout_ms + 2500, `a silent socket closed after ${idle.ms} ms`);
  assert.equal((await listModes(s, 2)).status, 200, 'the server keeps serving');
});

/** POSTs `size` bytes of JSON-looking filler with `headers`; declared (content-length) or chunked. */
function oversized(s: HttpServer, size: number, headers: Record<string, string>, chunked: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
    if (!chunked) h['content-length'] = size;
    const req = httpRequest(s.url, { method: 'POST', headers: h }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const head = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_modes","arguments":{},"pad":"`;
    req.write(head);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let left = size - head.length;
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) { req.once('drain', pump); return; }
      }
      req.end();
    };
    pump();
  });
}

test('bodies over server.max_message_bytes get 413 with the bound named, in a session, in initialize and in 2026-07-28, declared or chunked; the session and server go on', async (t) => {
  const s = await server(t);
  const sid = await s.session();
  const cases: [string, Record<string, string>][] = [
    ['a legacy session', { 'mcp-session-id': sid }],
    ['initialize (no session)', {}],
    ['2026-07-28', MODERN],
  ];
  for (const [what, headers] of cases) {
    for (const chunked of [false, true]) {
      const r = await oversized(s, 4 * LIMIT, headers, chunked);
      assert.equal(r.status, 413, `${what}, ${chunked ? 'chunked' : 'declared'}: ${r.body.slice(0, 200)}`);
      const error = (JSON.parse(r.body) as { id: unknown; error: { code: number; message: string } });
      assert.equal(error.error.code, -32600);
      assert.equal(error.error.message, `Payload Too Large: request body exceeds ${LIMIT} bytes (server.max_message_bytes)`, what);
    }
  }
  // Just under the bound is read (the filler is an unknown params field: the tool answers).
  const under = await oversized(s, LIMIT - 2, MODERN, false);
  assert.notEqual(under.status, 413, `a body of ${LIMIT - 2} bytes is read: ${under.body.slice(0, 200)}`);
  const ping = await s.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, { 'mcp-session-id': sid });
  assert.equal(ping.status, 200, 'the session is still there');
  assert.equal((await listModes(s, 3)).status, 200, 'the server keeps serving');
});

test('JSON nested past the depth bound is refused with -32600 and its id in every era; at the bound it is read; far past it costs nothing', async (t) => {
  const s = await server(t);
  const sid = await s.session();
  const nested = (levels: number, open = '[', close = ']'): string => `${open.repeat(levels)}${close.repeat(levels)}`;
  const objects = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  // The message itself is 2 levels (the message, params): 998 more make 1000, the bound.
  const atBound = await s.post(`{"jsonrpc":"2.0","id":"ok","method":"ping","params":{"x":${nested(998)}}}`, { 'mcp-session-id': sid });
  assert.equal(atBound.status, 200, `1000 levels are read: ${atBound.body.slice(0, 200)}`);
  const cases: [string, string, Record<string, string>][] = [
    ['a legacy session, arrays', `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":${nested(999)}}}`, { 'mcp-session-id': sid }],
    ['a legacy session, objects far past it', `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":${objects(10_000)}}}`, { 'mcp-session-id': sid }],
    ['initialize', `{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${objects(1000)},"clientInfo":{"name":"x","version":"1"}}}`, {}],
    ['2026-07-28', `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"list_modes","arguments":{"x":${nested(30_000)}},"_meta":${JSON.stringify(META_2026)}}}`, MODERN],
  ];
  for (const [what, body, headers] of cases) {
    const r = await s.post(body, headers, headers === MODERN ? '2026-07-28' : '2025-11-25');
    assert.equal(r.status, 400, `${what}: ${r.body.slice(0, 200)}`);
    const m = r.messages[0]!;
    assert.equal(m.id, JSON.parse(body.slice(0, body.indexOf(',"method"')) + '}').id, `${what}: the id is kept`);
    assert.equal(m.error?.code, -32600, what);
    assert.equal(m.error?.message, 'Invalid Request: message nested too deep', what);
    assert.match(String(m.error?.data), /the message nests deeper than 1000 levels; nothing in it was read/, what);
  }
  // A body that is not JSON at all, or a batch, gets its own precise answer.
  const broken = await s.post('{"jsonrpc":"2.0","id":15,', { 'mcp-session-id': sid });
  assert.equal(broken.status, 400);
  assert.equal(broken.messages[0]?.error?.code, -32700);
  const batch = await s.post([{ jsonrpc: '2.0', id: 16, method: 'ping' }], { 'mcp-session-id': sid });
  assert.equal(batch.status, 400);
  assert.match(String(batch.messages[0]?.error?.data), /one JSON-RPC message per POST/);
  assert.equal((await s.post({ jsonrpc: '2.0', id: 17, method: 'ping' }, { 'mcp-session-id': sid })).status, 200, 'the session goes on');
  assert.equal((await listModes(s, 4)).status, 200, 'the server keeps serving');
});
