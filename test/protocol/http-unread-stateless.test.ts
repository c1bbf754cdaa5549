// The unread-answer bound for 2026-07-28 (stateless) requests, through the built server with small
// limits (issue 35 §5; bench/stateless-unread.mjs measures it with 200 clients and ~6 MB answers):
// clients that ask for large answers and never read them are closed once all of them together
// leave more than the server-wide bound unread, the longest stalled first, and the server goes on
// answering a client that reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { startHttp, META_2026 } from './http-harness.js';

const MiB = 1024 * 1024;
const CLIENTS = 8;

function stalledRequest(url: URL, body: unknown): Promise<Socket> {
  const text = JSON.stringify(body);
  const head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`
    + `MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: get_task_info\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname, () => { s.pause(); s.write(head + text); resolve(s); });
    s.once('error', reject);
  });
}

/** What a stalled client then reads: all of its answer (it closes then), or what came before the server closed it. */
function readRest(sock: Socket): Promise<{ bytes: number; full: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const state = (): { bytes: number; full: boolean } => {
      const all = Buffer.concat(chunks);
      const head = all.indexOf('\r\n\r\n');
      const length = head === -1 ? NaN : Number(/content-length: (\d+)/i.exec(all.subarray(0, head).toString('latin1'))?.[1]);
      return { bytes: all.length, full: head !== -1 && all.length - head - 4 >= length };
    };
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size < 6 * MiB) return;
      const now = state();
      if (now.full) { sock.destroy(); resolve(now); }
    });
    sock.once('close', () => resolve(state()));
    sock.resume();
  });
}

test('stateless clients that never read their answers are closed past the server-wide unread bound, and the server keeps serving', async (t) => {
  const dir = tempDir(t, 'rms-unread-');
  const config = join(dir, 'config.json');
  // The smallest bounds that still fit the answer: 8 MiB messages, so the server-wide bound is 16 MiB
  // (twice the largest answer), two answers made at once.
  writeFileSync(config, JSON.stringify({ server: { max_message_bytes: 8 * MiB }, http: { max_unread_bytes: MiB, max_stateless_running: 2 } }));
  const s = await startHttp(t, ['--config', config, '--project-root', dir]);
  const created = await s.modern(1, 'tools/call', { name: 'create_task', arguments: { mode_slug: 'code', initial_message: '"'.repeat(MiB) } });
  const task = /"session_id":"(ses_[0-9a-z]+)"/.exec(created.body)?.[1];
  assert.ok(task, `create_task: ${created.body.slice(0, 300)}`);
  const params = { name: 'get_task_info', arguments: { session_id: task, include_messages: true }, _meta: META_2026 };
  const url = new URL(s.url);
  const sockets = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => stalledRequest(url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params })));
  t.after(() => { for (const sock of sockets) sock.destroy(); });
  // ~6 MB answers, some of each taken by the kernel's buffers: eight leave well over 16 MiB unread.
  const t0 = Date.now();
  const cutLines = (): number => s.stderr.split('\n').filter((l) => l.includes('does not take its answers')).length;
  for (const deadline = Date.now() + 10_000; cutLines() === 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20));
  const cut = cutLines();
  assert.ok(cut >= 1, `a stalled stateless connection was closed:\n${s.stderr.slice(-2000)}`);
  assert.match(s.stderr, /closing a connection from \S+ that does not take its answers: \d+ bytes unread for \d+ ms while all clients left \d+ bytes unread \(limit 16777216, http\.max_unread_bytes\)/);
  // Each client now reads what it was sent: a closed one got its answer cut short, an open one all of it.
  const received = await Promise.all(sockets.map(readRest));
  t.diagnostic(`first cut after ${Date.now() - t0} ms`);
  const short = received.filter((r) => !r.full).length;
  assert.ok(short >= cut, `at least the ${cut} closed connections got their answer cut short: ${JSON.stringify(received)}`);
  assert.ok(short < CLIENTS, `not every stalled client was closed, only enough to come under the bound: ${JSON.stringify(received)}`);
  // A client that reads is answered meanwhile, in full.
  const answer = await s.modern(2, 'tools/call', params);
  assert.equal(answer.status, 200);
  assert.ok(answer.body.length > 6 * 1000 * 1000, `the whole answer: ${answer.body.length} bytes`);
  const list = await s.modern(3, 'tools/call', { name: 'list_modes', arguments: {} });
  assert.equal(list.status, 200, list.body.slice(0, 300));
});
