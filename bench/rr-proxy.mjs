// A round-robin HTTP/1.1 proxy for the store bench, run as its own process: each request on a
// client's keep-alive socket goes to the next replica in turn, so two calls in a row of one client
// never land on the same replica (no stickiness: the hardest case for shared state). Bench only: it never rewrites a byte, and it is not a general proxy (see below).
// Usage: node bench/rr-proxy.mjs http://127.0.0.1:P1/mcp http://127.0.0.1:P2/mcp …
// Prints `listening on http://127.0.0.1:PORT/<path of the first replica>` on stderr when ready.
//
// How it works. Each client socket gets its own keep-alive socket to each replica, opened on first
// use. A client request (head + Content-Length body) is read whole, written unchanged to the next
// replica, and its answer (Content-Length or chunked) is read whole and written back; then the next
// request of that client is taken. One request per client socket is in flight, which is what the
// bench's clients do (each waits for its answer). A replica socket that ends mid-answer ends the
// client socket too, so a client sees the failure instead of waiting.
import { connect, createServer } from 'node:net';

const backends = process.argv.slice(2).map((u) => new URL(u));
if (backends.length === 0) throw new Error('usage: node bench/rr-proxy.mjs <replica url> …');
// Where each new client socket starts its turns, so the first requests of many clients spread too.
let firstTurn = 0;

const HEAD_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n');

/** Bytes of one whole message at the start of `buf` (a request or an answer), or -1 if it is not all there. */
function messageLength(buf, isAnswer) {
  const end = buf.indexOf(HEAD_END);
  if (end === -1) return -1;
  const head = buf.subarray(0, end).toString('latin1').toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) return buf.length >= end + 4 + Number(length[1]) ? end + 4 + Number(length[1]) : -1;
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) {
    if (buf.indexOf('0\r\n\r\n', end + 4) === end + 4) return end + 9;
    const last = buf.indexOf(CHUNKED_END, end);
    return last === -1 ? -1 : last + CHUNKED_END.length;
  }
  // A request without a body, or an answer without one (204, 304 and the like).
  return isAnswer && !/^http\/1\.1 (1\d\d|204|304)/.test(head) ? -1 : end + 4;
}

function serve(client) {
  client.setNoDelay(true);
  const upstreams = new Map();
  let pending = Buffer.alloc(0);
  let busy = false;
  let turn = firstTurn++;
  const upstream = (i) => {
    let u = upstreams.get(i);
    if (u !== undefined) return u;
    const sock = connect(Number(backends[i].port), backends[i].hostname);
    sock.setNoDelay(true);
    u = { sock, buf: Buffer.alloc(0), waiting: false };
    sock.on('data', (chunk) => {
      u.buf = u.buf.length ? Buffer.concat([u.buf, chunk]) : chunk;
      const n = messageLength(u.buf, true);
      if (n === -1 || !u.waiting) return;
      client.write(u.buf.subarray(0, n));
      u.buf = u.buf.subarray(n);
      u.waiting = false;
      busy = false;
      pump();
    });
    const gone = () => { upstreams.delete(i); if (u.waiting) client.destroy(); };
    sock.on('error', gone);
    sock.on('close', gone);
    upstreams.set(i, u);
    return u;
  };
  const pump = () => {
    if (busy) return;
    const n = messageLength(pending, false);
    if (n === -1) return;
    const u = upstream(turn++ % backends.length);
    u.waiting = true;
    busy = true;
    u.sock.write(pending.subarray(0, n));
    pending = pending.subarray(n);
  };
  client.on('data', (chunk) => { pending = pending.length ? Buffer.concat([pending, chunk]) : chunk; pump(); });
  const close = () => { for (const u of upstreams.values()) u.sock.destroy(); };
  client.on('error', close);
  client.on('close', close);
}

const server = createServer(serve);
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`rr-proxy: listening on http://127.0.0.1:${server.address().port}${backends[0].pathname}\n`);
});
