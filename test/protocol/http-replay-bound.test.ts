// The events a legacy session keeps for Last-Event-ID resumption are bounded in bytes across its
// streams, not only in count. Regression: a finished stream kept its last event whatever its size,
// and a session remembered 32 streams, so on newer Node (26 here, where a response whose client left
// before taking it all never finishes) clients that asked for large answers over SSE and left
// without reading them kept 32 × 6 MB in the server for as long as the session lived. (On Node 20
// such a response still finishes and lets its events go, so there this holds before the fix too;
// CI runs the protocol tier on a newer Node as well.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startHttp } from './http-harness.js';

const MiB = 1024 * 1024;

/** POSTs `body` asking for an SSE answer and stops reading once the answer's event id arrived. */
function askAndStop(url: URL, sid: string, body: unknown): Promise<{ id: string; leave: () => Promise<void> }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let seen = '';
    const onData = (chunk: string): void => {
      seen += chunk.slice(0, 4096);
      const id = /\nid: (\S+)\n/.exec(seen)?.[1];
      if (id) {
        socket.pause();
        socket.off('data', onData);
        resolve({ id, leave: () => new Promise((done) => { socket.once('close', () => done()); socket.destroy(); }) });
      } else if (seen.length > 64 * 1024) { socket.destroy(); reject(new Error(`no event id in ${seen.slice(0, 300)}`)); }
    };
    socket.setEncoding('latin1');
    socket.on('data', onData);
    socket.on('error', reject);
    socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n` +
      `Mcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  });
}

test('a session keeps a bounded number of bytes of unread answers for resumption: the oldest streams go first', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  // 1 MiB of quotes: the answer escapes them twice, about 6 MB, more than the socket buffers take.
  const created = await s.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: '"'.repeat(MiB) } } }, h);
  const task = /"session_id":"(ses_[0-9a-f]+)"/.exec(created.body)?.[1];
  assert.ok(task, `create_task: ${created.body.slice(0, 300)}`);
  const url = new URL(s.url);
  const asked = [];
  for (let i = 0; i < 4; i++) {
    asked.push(await askAndStop(url, sid, { jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: task, include_messages: true } } }));
  }
  for (const a of asked) await a.leave();
  // The server has seen the four connections end before it answers a request sent after they did.
  assert.equal((await s.post({ jsonrpc: '2.0', id: 19, method: 'ping' }, h)).status, 200);
  const streams = asked.map((a) => a.id.split('-')[0]!);
  assert.equal(new Set(streams).size, 4, `four streams: ${asked.map((a) => a.id).join(', ')}`);

  for (const [i, stream] of streams.slice(0, 2).entries()) {
    const resumed = await s.send('GET', undefined, { ...h, accept: 'text/event-stream', 'last-event-id': `${stream}-0` });
    assert.equal(resumed.status, 404, `stream ${i + 1}'s unread answer was let go: the three after it are past the session's bound (${resumed.body.slice(0, 200)})`);
  }
  const live = await s.post({ jsonrpc: '2.0', id: 20, method: 'ping' }, h);
  assert.equal(live.status, 200, 'the session goes on');
});
