// Protocol tests of the HTTP door's bounds over real sockets: answers a client does not take (per
// connection and server-wide), one request at a time per connection, large SSE answers to readers,
// idle/slow sockets, the connection cap (also under a low open-file limit), the body checks stdio lines have, and the SIGTERM drain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { MAIN, tempDir } from './harness.js';
import { META_2026, parseSse, READY, startHttp, type HttpServer } from './http-harness.js';

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

function configFile(t: Parameters<typeof tempDir>[0], config: unknown): string {
  const file = join(tempDir(t, 'rms-http-bounds-'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Resident memory of the server process in bytes. */
function rss(s: HttpServer): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** Waits until the server's stderr matches, or fails after `ms`. */
async function stderrMatch(s: HttpServer, re: RegExp, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!re.test(s.stderr)) {
    if (Date.now() > deadline) throw new Error(`no ${re} on stderr within ${ms} ms:\n${s.stderr.slice(-2000)}`);
    await new Promise<void>((resolve) => { const t = setTimeout(resolve, 100); s.child.stderr.once('data', () => { clearTimeout(t); resolve(); }); });
  }
}

/** One raw HTTP/1.1 POST as text (for pipelining and for clients that do not read). */
function rawPost(s: HttpServer, body: unknown, headers: Record<string, string> = {}): string {
  const url = new URL(s.url);
  const text = JSON.stringify(body);
  let head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return `${head}\r\n${text}`;
}

function open(s: HttpServer): Promise<Socket> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => { const c = connect(Number(url.port), url.hostname, () => resolve(c)); c.once('error', reject); });
}

/** Resolves with how long the socket stayed open, once the server closes it. */
function closedAfter(socket: Socket, from: number): Promise<number> {
  socket.on('error', () => { /* a reset is a close too */ });
  socket.resume();
  return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - from)));
}

/** A task whose get_task_info with messages is about 6.3 MB, and a legacy session. */
async function bigTask(s: HttpServer): Promise<{ task: string; sid: string }> {
  // Quotes are escaped twice in the answer (text and structured content): 1 MiB of them is ~6.3 MB.
  const created = await s.modern('c', 'tools/call', { name: 'create_task', arguments: { mode_slug: 'code', initial_message: '"'.repeat(1 << 20) } });
  const task = String(created.messages[0]?.result?.metadata?.session_id);
  assert.match(task, /^ses_/, created.body.slice(0, 300));
  return { task, sid: await s.session() };
}

const bigLegacy = (id: number | string, task: string): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: task, include_messages: true } } });
const bigModern = (id: number | string, task: string): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: task, include_messages: true }, _meta: META_2026 } });
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_task_info' };

test('answers nobody takes, JSON of both eras, count against a server-wide bound: the stalled connections are closed, the session is kept', async (t) => {
  // max_unread_bytes is raised to its floor, twice max_message_bytes (14 MiB); each answer is ~6.3 MB, of
  // which the kernel may hold up to 4 MB: 12 clients leave well over 14 MiB in the server's own buffers.
  const s = await startHttp(t, ['--config', configFile(t, { server: { max_message_bytes: 7 << 20 }, http: { max_unread_bytes: 1048576 } })]);
  const { task, sid } = await bigTask(s);
  const sockets: Socket[] = [];
  for (let i = 0; i < 12; i++) {
    const c = await open(s);
    c.pause(); // this client never reads
    c.write(i % 2 === 0 ? rawPost(s, bigLegacy(`slow${i}`, task), { 'mcp-session-id': sid }) : rawPost(s, bigModern(`slow${i}`, task), MODERN_HEADERS));
    sockets.push(c);
  }
  await stderrMatch(s, /closing a connection .* that does not take its answers: .*http\.max_unread_bytes/, 60_000);
  const ping = await s.post({ jsonrpc: '2.0', id: 'after', method: 'ping' }, { 'mcp-session-id': sid });
  assert.equal(ping.status, 200, 'the session outlives its slow connection');
  assert.deepEqual(ping.messages[0]?.result, {});
  for (const c of sockets) c.destroy();
});

test('a connection\'s next request waits until its earlier answer is taken: pipelined answers are not piled up, and all come once the client reads', async (t) => {
  const s = await startHttp(t);
  const { task, sid } = await bigTask(s);
  const idle = rss(s);
  const c = await open(s);
  c.pause();
  const n = 60;
  c.write(Array.from({ length: n }, (_, i) => rawPost(s, bigLegacy(i, task), { 'mcp-session-id': sid })).join(''));
  // Today's build makes all 60 answers (~380 MB) at once; held to one at a time, memory stays near idle.
  // This watches for a rise over a fixed window: there is no event for "nothing more happened".
  let peak = idle;
  for (const end = Date.now() + 6000; Date.now() < end;) {
    peak = Math.max(peak, rss(s));
    assert.ok(peak - idle < 120 * 1024 * 1024, `RSS rose ${Math.round((peak - idle) / 2 ** 20)} MiB while one client left its answers unread`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // Chunks are kept as they come and joined once an answer is whole: joining on every chunk would
  // copy each 6 MB answer about a hundred times.
  let chunks: Buffer[] = [];
  let held = 0;
  let need = -1;
  const ids: number[] = [];
  await new Promise<void>((resolve, reject) => {
    c.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      held += chunk.length;
      for (;;) {
        if (held < need) return;
        let got = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, held);
        chunks = [got];
        const end = got.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(got.subarray(0, end).toString('latin1'))?.[1]);
        need = end + 4 + length;
        if (got.length < need) return;
        ids.push(JSON.parse(got.subarray(end + 4, need).toString('utf8')).id as number);
        got = got.subarray(need);
        chunks = [got];
        held = got.length;
        need = -1;
        if (ids.length === n) { resolve(); return; }
      }
    });
    c.on('error', reject);
    c.resume();
  });
  assert.deepEqual(ids, Array.from({ length: n }, (_, i) => i), 'every pipelined request answered, in order');
  c.destroy();
});

test('a 6 MB answer on an SSE stream reaches a client that reads it', async (t) => {
  const s = await startHttp(t);
  const { task, sid } = await bigTask(s);
  const res = await s.post(bigLegacy(7, task), { 'mcp-session-id': sid, accept: 'text/event-stream' });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /text\/event-stream/);
  assert.ok(res.body.length > 6_000_000, `body ${res.body.length} bytes`);
  assert.equal(res.messages[0]?.id, 7);
  assert.ok(res.messages[0]?.result, 'the answer, not a cut stream');
});

test('idle and slow sockets are closed on time: no first byte, slow headers, slow body', async (t) => {
  const s = await startHttp(t, ['--config', configFile(t, { http: { idle_timeout_ms: 500, headers_timeout_ms: 1000, request_timeout_ms: 1500 } })]);
  const url = new URL(s.url);
  const silent = await open(s);
  const silentMs = await closedAfter(silent, Date.now());
  assert.ok(silentMs >= 400 && silentMs < 4000, `a socket that sends nothing was closed after ${silentMs} ms (idle 500 ms)`);

  const slowHead = await open(s);
  const headStart = Date.now();
  const dribble = setInterval(() => { if (!slowHead.destroyed) slowHead.write('X-Slow: a\r\n'); }, 100);
  slowHead.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n`);
  const headMs = await closedAfter(slowHead, headStart);
  clearInterval(dribble);
  assert.ok(headMs >= 900 && headMs < 4000, `slow headers were cut after ${headMs} ms (headers 1000 ms)`);

  const slowBody = await open(s);
  const bodyStart = Date.now();
  slowBody.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
  const drip = setInterval(() => { if (!slowBody.destroyed) slowBody.write(' '); }, 100);
  const bodyMs = await closedAfter(slowBody, bodyStart);
  clearInterval(drip);
  assert.ok(bodyMs >= 1400 && bodyMs < 4500, `a slow body was cut after ${bodyMs} ms (request 1500 ms)`);
  assert.equal((await s.post(INIT)).status, 200, 'the server keeps serving');
});

/** Sends `text` on a new connection and resolves with the status and headers of the first answer. */
async function rawExchange(s: HttpServer, text: string): Promise<{ status: number; head: string }> {
  const c = await open(s);
  c.write(text);
  let got = '';
  c.setEncoding('latin1');
  return new Promise((resolve, reject) => {
    c.on('data', (chunk: string) => {
      got += chunk;
      const end = got.indexOf('\r\n\r\n');
      if (end !== -1) { c.destroy(); resolve({ status: Number(got.slice(9, 12)), head: got.slice(0, end) }); }
    });
    c.on('error', reject);
    c.on('close', () => reject(new Error(`closed without an answer: ${JSON.stringify(got)}`)));
  });
}

test('over the connection cap an idle connection makes room; with none idle the newcomer gets a fast 503 with Retry-After and a log line', async (t) => {
  const config = configFile(t, { http: { max_connections: 3, idle_timeout_ms: 60_000 } });
  const s = await startHttp(t, ['--config', config]);
  const idle: Socket[] = [];
  for (let i = 0; i < 3; i++) idle.push(await open(s)); // in order: the first is the oldest
  const evicted = closedAfter(idle[0]!, Date.now());
  assert.equal((await rawExchange(s, rawPost(s, INIT))).status, 200, 'a real client is served although idle sockets fill the cap');
  await evicted;

  const busy = await startHttp(t, ['--config', config]);
  const url = new URL(busy.url);
  const waiting: Socket[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await open(busy);
    // Complete headers, body still to come: a request in flight, so not idle.
    // 100 Continue says the server has started the request.
    const started = new Promise<void>((resolve) => c.once('data', () => resolve()));
    c.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`);
    await started;
    waiting.push(c);
  }
  const started = Date.now();
  const refused = await rawExchange(busy, rawPost(busy, INIT));
  assert.equal(refused.status, 503, refused.head);
  assert.match(refused.head, /\r\nRetry-After: 1\r\n/i);
  assert.ok(Date.now() - started < 5000, 'answered at once');
  await stderrMatch(busy, /connections open \(the cap.*refusing one .* with 503/, 5000);
  for (const c of [...idle, ...waiting]) c.destroy();
});

test('with 256 descriptors, 300 idle sockets do not keep a real client out', async (t) => {
  // The server runs under `ulimit -n 256`: its connection cap follows (256 less the reserve).
  const home = tempDir(t, 'rms-http-fd-');
  const child = spawn('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, MAIN, 'serve', '--http', '--port', '0'], { cwd: home, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') } });
  t.after(() => child.kill('SIGKILL'));
  let err = '';
  child.stderr.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: string) => { err += c; const m = READY.exec(err); if (m) resolve(m[1]!); });
    child.once('exit', () => reject(new Error(`exited: ${err}`)));
  });
  const s = { url } as HttpServer;
  const idle: Socket[] = [];
  for (let i = 0; i < 300; i++) { const c = await open(s); c.on('error', () => { /* evicted */ }); idle.push(c); }
  const served = await rawExchange(s, rawPost(s, INIT));
  assert.equal(served.status, 200, served.head);
  for (const c of idle) c.destroy();
});

test('an HTTP body nested deeper than the stdio bound is refused like a stdio line: -32600 with its id', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const deep = `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  const tooDeep = await s.post(deep, { 'mcp-session-id': sid });
  assert.equal(tooDeep.status, 400, tooDeep.body.slice(0, 300));
  assert.equal(tooDeep.messages[0]?.id, 5, 'the id is kept');
  assert.equal(tooDeep.messages[0]?.error?.code, -32600);
  assert.match(String(tooDeep.messages[0]?.error?.message), /nested too deep/);
  assert.equal((await s.post({ jsonrpc: '2.0', id: 6, method: 'ping' }, { 'mcp-session-id': sid })).status, 200);
});

test('a POST whose Content-Type is not application/json gets 415', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const text = await s.post(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }), { 'mcp-session-id': sid, 'content-type': 'text/plain' });
  assert.equal(text.status, 415, text.body);
  assert.match(String(text.messages[0]?.error?.message), /application\/json/);
  assert.equal((await s.post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { 'mcp-session-id': sid, 'content-type': 'Application/JSON; charset=utf-8' })).status, 200);
});

test('a body over the size limit gets its 413 although the client is still writing it (no reset)', async (t) => {
  const s = await startHttp(t, ['--config', configFile(t, { server: { max_message_bytes: 2048 } })]);
  // A 32 MB body against a 2 KiB limit, declared and chunked: the server decides long before the client is done.
  for (const framing of ['content-length', 'chunked', 'content-length']) {
    const status = await new Promise<number>((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/json' };
      if (framing === 'content-length') headers['content-length'] = 32 << 20;
      const req = httpRequest(s.url, { method: 'POST', headers }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
      req.on('error', reject);
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let left = 32;
      const pump = (): void => { while (left > 0) { left--; if (!req.write(chunk)) { req.once('drain', pump); return; } } req.end(); };
      pump();
    });
    assert.equal(status, 413, framing);
  }
  assert.equal((await s.post(INIT)).status, 200);
});

test('SIGTERM: a request whose body is still arriving is answered in its session; new connections are refused; GET streams end; exit 0', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const get = await s.stream('GET', { 'mcp-session-id': sid });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'late', method: 'tools/call', params: { name: 'list_modes', arguments: {} } });
  const half = Math.floor(body.length / 2);
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(s.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'content-length': Buffer.byteLength(body), expect: '100-continue' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.flushHeaders();
    // 100 Continue proves the server read the headers and started the request.
    req.once('continue', () => {
      req.write(body.slice(0, half));
      s.child.kill('SIGTERM');
      void stderrMatch(s, /shutting down: no new connections/, 10_000).then(async () => {
        await assert.rejects(open(s), /ECONNREFUSED/, 'no new connections while draining');
        req.end(body.slice(half));
      }, reject);
    });
  });
  const started = Date.now();
  const got = await answer;
  assert.equal(got.status, 200, got.text.slice(0, 300));
  const message = got.text.startsWith('{') ? JSON.parse(got.text) : parseSse(got.text).messages[0];
  assert.equal(message?.id, 'late');
  assert.ok(message?.result, got.text.slice(0, 300));
  await get.closed;
  const { code } = await s.exit;
  assert.equal(code, 0, s.stderr);
  assert.ok(Date.now() - started < 6000, `exit within twice the 2 s grace (took ${Date.now() - started} ms)`);
});
