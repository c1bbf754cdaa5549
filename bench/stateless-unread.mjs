// Bounded answers for every era (issue 35 §5): the server's RSS while 200 clients ask for ~6 MB
// answers and never read them, and how soon it comes back after they leave, per era (2026-07-28
// stateless, legacy sessions, SSE answers). Ours only: a bound, not a race with a peer.
//   node bench/stateless-unread.mjs [--clients=200] [--pipelined=1] [--era=stateless|legacy|sse|all] [--running=N]
// (--running sets http.max_stateless_running, to compare against the default of 16; BENCH_TRACE=1
// prints RSS and open descriptors every 250 ms after the clients leave.)
// Prints one line per era: idle, peak and after RSS, the rise and the settle time, against the
// targets (peak ≤ +256 MiB above idle; back within 10% of idle within 10 s after the clients leave).
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_MAIN, mb, now, rssOf, tempDir } from './lib.mjs';
import { RawClient, startServer } from './http.mjs';
import { openSocket, peakOver, post } from './http-bounds.mjs';

const MiB = 1024 * 1024;
const RISE_TARGET = 256 * MiB;
const SETTLE_TARGET = 0.10;
const SETTLE_WITHIN_MS = 10_000;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_task_info' };
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};

/** One era's run on a fresh server: idle, peak while `clients` sockets never read, after they leave. */
export async function unreadRun({ era, clients, pipelined, running }) {
  const t = tempDir('unread');
  const args = [SERVER_MAIN, 'serve', '--http', '--port', '0'];
  if (running !== undefined) {
    writeFileSync(join(t.dir, 'config.json'), JSON.stringify({ http: { max_stateless_running: running } }));
    args.push('--config', join(t.dir, 'config.json'));
  }
  const server = startServer(process.execPath, args);
  try {
    const url = new URL(await server.url);
    const setup = new RawClient(url.href);
    // 1 MiB of quotes: escaped twice in the answer (text and structured content), ~6.3 MB.
    const created = await setup.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: '"'.repeat(MiB) }, _meta: META } }, { ...MODERN, 'mcp-name': 'create_task' });
    const task = /"session_id":"(ses_[0-9a-f]+)"/.exec(created.text)?.[1];
    if (!task) throw new Error(`create_task failed: ${created.text.slice(0, 300)}`);
    let sid = null;
    if (era !== 'stateless') {
      const init = await setup.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, {});
      sid = init.headers['mcp-session-id'];
    }
    const params = { name: 'get_task_info', arguments: { session_id: task, include_messages: true } };
    const check = await setup.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...params, _meta: META } }, MODERN);
    const answerBytes = Buffer.byteLength(check.text);
    setup.destroy();
    // Past the server's quiet collection after the setup's large answers (1 s): idle is the heap in use.
    await pause(2500);
    const idle = rssOf(server.child.pid);
    const sockets = [];
    let id = 10;
    for (let c = 0; c < clients; c++) {
      const s = await openSocket(url);
      s.pause();
      s.on('error', () => {});
      let text = '';
      for (let r = 0; r < pipelined; r++) {
        text += era === 'stateless'
          ? post(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { ...params, _meta: META } }, MODERN, 'application/json, text/event-stream')
          : post(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params }, { 'mcp-session-id': sid }, era === 'sse' ? 'text/event-stream' : 'application/json, text/event-stream');
      }
      s.write(text);
      sockets.push(s);
    }
    const peak = await peakOver(server.child.pid, 10_000);
    for (const s of sockets) s.destroy();
    const left = now();
    let after = rssOf(server.child.pid);
    // Sampled until it is back within the target or 30 s passed (the settle time is the figure).
    while (now() - left < 30_000 && after > idle * (1 + SETTLE_TARGET)) { await pause(250); after = rssOf(server.child.pid); if (process.env.BENCH_TRACE) console.error(`${((now() - left) / 1000).toFixed(1)} s: ${mb(after)}, ${readdirSync(`/proc/${server.child.pid}/fd`).length} descriptors`); }
    return { era, idle, peak, after, settleMs: now() - left, answerBytes };
  } finally { await server.stop(); t.cleanup(); }
}

async function main() {
  const clients = Number(arg('clients', '200'));
  const pipelined = Number(arg('pipelined', '1'));
  const which = arg('era', 'all');
  const runningArg = arg('running', undefined);
  const running = runningArg === undefined ? undefined : Number(runningArg);
  const eras = which === 'all' ? ['stateless', 'legacy', 'sse'] : [which];
  let failed = false;
  for (const era of eras) {
    const r = await unreadRun({ era, clients, pipelined, running });
    const rise = r.peak - r.idle;
    const settle = (r.after - r.idle) / r.idle;
    const pass = rise <= RISE_TARGET && settle <= SETTLE_TARGET && r.settleMs <= SETTLE_WITHIN_MS;
    failed ||= !pass;
    console.log(`${era.padEnd(9)} ${running === undefined ? '' : `(max_stateless_running ${running}) `}${clients} clients × ${pipelined} unread answers of ${r.answerBytes} B: idle ${mb(r.idle)}, peak ${mb(r.peak)} (+${mb(rise)}, target ≤ +256 MiB), after ${mb(r.after)} (${settle >= 0 ? '+' : ''}${(settle * 100).toFixed(1)}% of idle, ${(r.settleMs / 1000).toFixed(1)} s after they left; target ≤ +10% within 10 s) ${pass ? 'PASS' : 'FAIL'}`);
  }
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
