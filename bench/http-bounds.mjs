// The HTTP door under careless and hostile clients: the server's RSS while 4 clients leave 200
// answers of ~6 MB unread (and after they go), and a normal client's time while 1,000 idle sockets
// are open against its time without them. Ours only: these are bounds, not a race with a peer.
import { connect } from 'node:net';
import { SERVER_MAIN, mb, median, now, round, row, rssOf } from './lib.mjs';
import { client, startServer } from './http.mjs';

const MiB = 1024 * 1024;
const RSS_TARGET = 256 * MiB;
const SETTLE_TARGET = 0.10;
const IDLE_TARGET = 2;
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_task_info' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** One raw HTTP/1.1 POST as text, for clients that pipeline or never read. */
export function post(url, body, headers, accept = 'application/json, text/event-stream') {
  const text = JSON.stringify(body);
  let head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: ${accept}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return `${head}\r\n${text}`;
}

export function openSocket(url) {
  return new Promise((resolve, reject) => { const s = connect(Number(url.port), url.hostname, () => resolve(s)); s.once('error', reject); });
}

/** RSS sampled every 50 ms for `ms`; the peak. */
export async function peakOver(pid, ms) {
  let peak = 0;
  for (const end = now() + ms; now() < end; await pause(50)) peak = Math.max(peak, rssOf(pid));
  return peak;
}

/** 4 clients (2 with legacy sessions, 2 stateless), 10 sockets each, 5 pipelined requests per socket, never read. */
async function unread() {
  const server = startServer(process.execPath, [SERVER_MAIN, 'serve', '--http', '--port', '0']);
  try {
    const url = new URL(await server.url);
    const setup = new (await import('./http.mjs')).RawClient(url.href);
    // 1 MiB of quotes: escaped twice in the answer (text and structured content), ~6.3 MB.
    const created = await setup.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: '"'.repeat(MiB) }, _meta: META } }, { ...MODERN, 'mcp-name': 'create_task' });
    const task = /"session_id":"(ses_[0-9a-f]+)"/.exec(created.text)?.[1];
    if (!task) throw new Error(`create_task failed: ${created.text.slice(0, 300)}`);
    const sessions = [];
    for (let i = 0; i < 2; i++) {
      const init = await setup.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, {});
      sessions.push(init.headers['mcp-session-id']);
    }
    const check = await setup.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: task, include_messages: true }, _meta: META } }, MODERN);
    const answerBytes = Buffer.byteLength(check.text);
    setup.destroy();
    await pause(1000);
    const idle = rssOf(server.child.pid);
    const sockets = [];
    let id = 10;
    for (let c = 0; c < 4; c++) {
      for (let k = 0; k < 10; k++) {
        const s = await openSocket(url);
        s.pause();
        s.on('error', () => {});
        let text = '';
        for (let r = 0; r < 5; r++) {
          const params = { name: 'get_task_info', arguments: { session_id: task, include_messages: true } };
          text += c < 2
            ? post(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params }, { 'mcp-session-id': sessions[c] })
            : post(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { ...params, _meta: META } }, MODERN);
        }
        s.write(text);
        sockets.push(s);
      }
    }
    const peak = await peakOver(server.child.pid, 10_000);
    for (const s of sockets) s.destroy();
    // A normal client afterwards (the server is idle otherwise, so this is what lets it collect).
    const normal = await client(url.href);
    for (let i = 0; i < 200; i++) await normal.call();
    normal.raw.destroy();
    // V8 gives memory back when its memory reducer runs, seconds after allocation calms down: wait up to 60 s for it.
    let after = rssOf(server.child.pid);
    for (const end = now() + 60_000; now() < end && after > idle * (1 + SETTLE_TARGET); await pause(500)) after = rssOf(server.child.pid);
    return { idle, peak, after, answerBytes };
  } finally { await server.stop(); }
}

/** A normal client's time for `calls` tools/call, with and without 1,000 idle sockets open. */
async function idleSockets(calls) {
  const server = startServer(process.execPath, [SERVER_MAIN, 'serve', '--http', '--port', '0']);
  try {
    const url = new URL(await server.url);
    const timed = async () => {
      const c = await client(url.href);
      for (let i = 0; i < 20; i++) await c.call();
      const t = now();
      for (let i = 0; i < calls; i++) await c.call();
      const elapsed = now() - t;
      c.raw.destroy();
      return elapsed;
    };
    const alone = [];
    const crowded = [];
    for (let r = 0; r < 3; r++) {
      alone.push(await timed());
      const idle = [];
      for (let i = 0; i < 1000; i++) { const s = await openSocket(url); s.on('error', () => {}); idle.push(s); }
      crowded.push(await timed());
      for (const s of idle) s.destroy();
      await pause(500);
    }
    return { alone: median(alone), crowded: median(crowded) };
  } finally { await server.stop(); }
}

export async function httpBounds({ calls }) {
  const u = await unread();
  const i = await idleSockets(calls);
  const rise = u.peak - u.idle;
  const settle = (u.after - u.idle) / u.idle;
  const ratio = i.crowded / i.alone;
  return {
    rows: [
      row('HTTP RSS peak, 200 unread ~6 MB answers', { ours: `+${mb(rise)}`, target: '≤ +256 MiB', pass: rise <= RSS_TARGET, keys: { http_unread_idle_mb: round(u.idle / MiB, 1), http_unread_peak_mb: round(u.peak / MiB, 1) } }),
      row('HTTP RSS after the slow clients left', { ours: `${settle >= 0 ? '+' : ''}${(settle * 100).toFixed(1)}% of idle`, target: '≤ +10%', pass: settle <= SETTLE_TARGET, keys: { http_unread_after_mb: round(u.after / MiB, 1) } }),
      row(`HTTP ${calls} calls with 1,000 idle sockets open`, { ours: `${i.crowded.toFixed(0)} ms`, floor: `${i.alone.toFixed(0)} ms`, ratio, target: `≤ ${IDLE_TARGET}×`, pass: ratio <= IDLE_TARGET, keys: { http_idle_alone_ms: round(i.alone, 1), http_idle_crowded_ms: round(i.crowded, 1) } }),
    ],
    notes: [`  HTTP bounds: idle ${mb(u.idle)}, peak ${mb(u.peak)}, after ${mb(u.after)} (answers of ${u.answerBytes} bytes); ${calls} calls ${i.alone.toFixed(0)} ms alone, ${i.crowded.toFixed(0)} ms beside 1,000 idle sockets (the "floor" column is the time alone)`],
  };
}
