// Protocol tests of the foundation: handshake on every revision, bad lines, notifications,
// lifecycle rules, stdin EOF, signals, oversize lines and backpressure, over real pipes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, REPO } from './harness.js';

const VERSION = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;

for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
  test(`completes the handshake on ${rev} by echoing the revision`, async (t) => {
    const s = startServer(t);
    const res = await s.initialize(rev);
    assert.equal(res.result.protocolVersion, rev);
    assert.deepEqual(res.result.serverInfo, { name: 'roo-modes-server', version: VERSION });
    for (const cap of ['tools', 'resources', 'prompts', 'logging']) assert.equal(typeof res.result.capabilities[cap], 'object');
    assert.equal(typeof res.result.instructions, 'string');
    assert.equal(JSON.stringify((await s.call(2, 'ping')).result), '{}');
    assert.deepEqual(await s.end(), { code: 0, signal: null });
    s.assertStdoutPure();
  });
}

test('answers an unknown protocol revision with the latest one', async (t) => {
  const s = startServer(t);
  const res = await s.initialize('1999-01-01');
  assert.equal(res.result.protocolVersion, '2025-11-25');
});

test('answers every kind of bad line precisely and keeps serving', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-06-18');
  const cases: [string, (m: any) => boolean][] = [
    ['{"jsonrpc":"2.0","method":ping,"id":[', (m) => m.error?.code === -32700 && m.id === null],
    ['[]', (m) => m.error?.code === -32600 && m.id === null],
    ['{"jsonrpc":"2.0","id":7,"params":{}}', (m) => m.error?.code === -32600 && m.id === 7],
    ['{"jsonrpc":"1.0","id":8,"method":"ping"}', (m) => m.error?.code === -32600 && m.id === 8],
    ['{"jsonrpc":"2.0","id":9,"method":"no/such"}', (m) => m.error?.code === -32601 && m.id === 9],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', (m) => m.error?.code === -32600 && m.id === null],
    ['{"jsonrpc":"2.0","id":true,"method":"ping"}', (m) => m.error?.code === -32600 && m.id === null],
    ['{"jsonrpc":"2.0","id":10,"method":"ping","params":[1]}', (m) => m.error?.code === -32600 && m.id === 10],
    ['[{"jsonrpc":"2.0","id":11,"method":"ping"}]', (m) => m.error?.code === -32600 && m.id === null],
    ['"just a string"', (m) => m.error?.code === -32600 && m.id === null],
    ['{"jsonrpc":"2.0","id":"abc","method":"ping"}', (m) => m.id === 'abc' && JSON.stringify(m.result) === '{}'],
    ['{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}', (m) => m.error?.code === -32600 && m.id === 12],
  ];
  let barrier = 1000;
  for (const [line, ok] of cases) {
    const before = s.messages.length;
    s.write(`${line}\n`);
    s.request(++barrier, 'ping');
    await s.response(barrier);
    const got = s.messages.slice(before).filter((m) => m.id !== barrier);
    assert.equal(got.length, 1, `one answer for ${line}: ${JSON.stringify(got)}`);
    assert.ok(ok(got[0]), `answer for ${line}: ${JSON.stringify(got[0])}`);
  }
  s.assertStdoutPure();
});

test('never answers notifications, known or unknown', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.notify('notifications/initialized');
  s.notify('notifications/no_such_thing', { x: 1 });
  s.notify('notifications/cancelled', { requestId: 999 });
  s.write('{"jsonrpc":"2.0","method":"ping"}\n');
  await s.call(5, 'ping');
  assert.deepEqual(s.messages.map((m) => m.id), ['init', 5]);
});

test('answers a 2025-03-26 batch with one array and nothing for its notifications', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-03-26');
  const before = s.lines.length;
  s.write('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"nope"},{"foo":1}]\n');
  await s.response(2);
  const line = JSON.parse(s.lines[before]!);
  assert.ok(Array.isArray(line));
  assert.equal(line.length, 3);
  assert.deepEqual(line.map((m: any) => m.id).sort(), [1, 2, null].sort());
});

test('serves requests before initialize by default, and refuses them with --strict', async (t) => {
  const lenient = startServer(t);
  const r1 = await lenient.call(1, 'tools/list');
  assert.ok(Array.isArray(r1.result.tools));
  const strict = startServer(t, { args: ['--strict'] });
  const r2 = await strict.call(1, 'tools/list');
  assert.equal(r2.error.code, -32600);
  assert.deepEqual((await strict.call(2, 'ping')).result, {});
  assert.equal((await strict.initialize()).result.protocolVersion, '2025-11-25');
  assert.ok(Array.isArray((await strict.call(3, 'tools/list')).result.tools));
});

test('flushes every pending response and exits 0 when stdin ends', async (t) => {
  const s = startServer(t);
  let text = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n';
  for (let i = 1; i <= 300; i++) text += `{"jsonrpc":"2.0","id":${i},"method":"${i % 3 === 0 ? 'tools/list' : 'ping'}"}\n`;
  s.child.stdin.end(text);
  const started = Date.now();
  const { code } = await s.exit;
  assert.equal(code, 0);
  assert.ok(Date.now() - started < 2000 + 3000, 'exits promptly');
  const ids = new Set(s.messages.map((m) => m.id));
  for (let i = 0; i <= 300; i++) assert.ok(ids.has(i), `response ${i} flushed`);
  assert.equal(s.messages.length, 301);
});

test('exits 0 on SIGTERM with responses flushed', async (t) => {
  const s = startServer(t);
  await s.initialize();
  await s.call(1, 'ping');
  s.child.kill('SIGTERM');
  assert.deepEqual(await s.exit, { code: 0, signal: null });
});

test('exits quietly when stdout is closed', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.child.stdout.destroy();
  for (let i = 0; i < 50; i++) s.request(i, 'ping');
  s.child.stdin.end();
  const { code } = await s.exit;
  assert.equal(code, 0);
  assert.doesNotMatch(s.stderr, /EPIPE|Error:/);
});

test('answers an oversize line with -32600 carrying the id read from its first bytes, and resumes after its newline', async (t) => {
  const dir = tempDir(t);
  const cfg = join(dir, 'c.json');
  writeFileSync(cfg, JSON.stringify({ server: { max_message_bytes: 4096 } }));
  const s = startServer(t, { args: ['--config', cfg] });
  await s.initialize();
  const big = 'y'.repeat(10000);
  s.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${big}"}}\n`);
  s.write(`{"id":"import-7","jsonrpc":"2.0","method":"tools/call","params":{"name":"import_mode","arguments":{"x":"${big}"}}}\n`);
  s.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"},"id":3,"pad":"${big}"}\n`);
  // No id to read before the head ends, or a response (never answered by id): id null, as before.
  s.write(`{"jsonrpc":"2.0","params":{"x":"${big}"},"id":4,"method":"ping"}\n`);
  s.write(`{"jsonrpc":"2.0","id":"srv-9","result":{"x":"${big}"}}\n`);
  s.request(2, 'ping');
  for (const id of [1, 'import-7', 3]) {
    const err = await s.response(id);
    assert.equal(err.error?.code, -32600, `oversize request ${id}`);
    assert.equal(err.error.message, 'Invalid Request: message too large');
    assert.match(JSON.stringify(err.error.data), /exceeds the limit of 4096 bytes/);
  }
  assert.deepEqual((await s.response(2)).result, {});
  const nulls = s.messages.filter((m) => 'error' in m && m.id === null);
  assert.equal(nulls.length, 2, `the two lines without a readable request id: ${JSON.stringify(nulls)}`);
  assert.ok(!s.messages.some((m) => m.id === 4 || m.id === 'srv-9'));
});

test('stops reading stdin while the client is not reading stdout, and delivers everything after', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.child.stdout.pause();
  const N = 20000;
  const chunk: string[] = [];
  // prompts/list answers (~1.5 KB) fill the pipe fast yet keep this test process's own copy of
  // all N answers small (tools/list answers are ~50 KB: 20,000 of them exhaust the test's heap).
  for (let i = 1; i <= N; i++) chunk.push(`{"jsonrpc":"2.0","id":${i},"method":"prompts/list"}`);
  s.write(`${chunk.join('\n')}\n`);
  // Measure for a while: the client's own buffer keeps unsent data (the server stopped reading)
  // and the server's memory stays bounded.
  let maxRss = 0;
  const rss = (): number => {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 50)); // sampling interval, not synchronisation
    maxRss = Math.max(maxRss, rss());
  }
  assert.ok(s.child.stdin.writableLength > 0, 'the server stopped consuming input');
  assert.ok(maxRss < 200 * 1024 * 1024, `server RSS stayed bounded (${maxRss} bytes)`);
  s.child.stdout.resume();
  await s.response(N, 60000);
  const ids = new Set(s.messages.map((m) => m.id));
  assert.equal(ids.size, N + 1);
});

test('after SIGTERM a client that reads slowly still gets every answer the server made, even when that takes longer than the stall grace', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.child.stdout.pause();
  let text = '';
  for (let i = 1; i <= 10_000; i++) text += `{"jsonrpc":"2.0","id":${i},"method":"prompts/list"}\n`;
  s.write(text);
  // The server has stopped reading once our unsent input stays put (for half a second: on a machine
  // busy with other work a server starved of CPU also leaves it put for a while, having read less).
  let last = -1;
  for (let steady = 0; steady < 10;) {
    await new Promise((r) => setTimeout(r, 50)); // sampling interval, not synchronisation
    const pending = s.child.stdin.writableLength;
    steady = pending > 0 && pending === last ? steady + 1 : 0;
    last = pending;
  }
  s.child.kill('SIGTERM');
  // One chunk (at most 64 KB) every 100 ms: draining the backlog takes longer than the two seconds
  // after which a server used to discard whatever was still queued, though the client never stopped reading.
  const reader = setInterval(() => { s.child.stdout.once('data', () => s.child.stdout.pause()); s.child.stdout.resume(); }, 100);
  t.after(() => clearInterval(reader));
  const started = Date.now();
  const res = await s.exit;
  clearInterval(reader);
  s.child.stdout.resume();
  assert.deepEqual(res, { code: 0, signal: null });
  const answered = s.messages.filter((m) => typeof m.id === 'number').length;
  assert.ok(Date.now() - started > 2000, `the drain took ${Date.now() - started} ms, longer than the grace (else this test shows nothing)`);
  // A server stops reading only once its incoming (256) and outgoing (1024) queues are full, so it
  // had read at least 1280 requests: each is owed its answer, in order.
  const ids = s.messages.map((m) => m.id).filter((id): id is number => typeof id === 'number');
  assert.deepEqual(ids, Array.from({ length: answered }, (_, i) => i + 1), 'answers in order, none twice');
  assert.ok(answered >= 1280, `${answered} answers reached the client; the 1280 requests read before the signal are owed theirs`);
});

test('exits on SIGTERM even while the client has stopped reading stdout', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.child.stdout.pause();
  let text = '';
  for (let i = 1; i <= 5000; i++) text += `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"list_modes","arguments":{}}}\n`;
  s.write(text);
  // Let the server fill its stdout pipe and stall on it (its exit below is what is asserted).
  await new Promise((r) => setTimeout(r, 500));
  const started = Date.now();
  s.child.kill('SIGTERM');
  const res = await s.exit;
  assert.deepEqual(res, { code: 0, signal: null });
  assert.ok(Date.now() - started < 6000, `exited ${Date.now() - started} ms after SIGTERM`);
});
