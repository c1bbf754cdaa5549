// Streamable HTTP: requests/s and p99 of tools/call get_mode_info over keep-alive sockets with one
// and with 32 concurrent clients (each its own 2025-11-25 session), for our `serve --http` and the
// official SDK's Streamable HTTP server (../shared/bench-peer) in the same run, rounds alternating.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { REPO, SERVER_MAIN, median, now, percentile, round, row } from './lib.mjs';

const PEER_SCRIPT = join(REPO, '..', 'shared', 'bench-peer', 'run.sh');
const READY = /listening on (http:\/\/\S+)/;
const TARGET = 2;

/** Starts a server command and resolves with its URL once it prints its ready line. */
export function startServer(command, args) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ROO_')) delete env[key];
  const child = spawn(command, args, { cwd: tmpdir(), env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c) => { err += c; const m = READY.exec(err); if (m) resolve(m[1]); });
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited (${code}) before listening: ${err.slice(-500)}`)));
  });
  return { child, url, stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); setTimeout(() => child.kill('SIGKILL'), 3000).unref(); }) };
}

/**
 * A lean keep-alive HTTP/1.1 client on one raw socket (what wrk or autocannon do): the load
 * generator shares the machine with the server, so it must cost little. It reads Content-Length
 * bodies and chunked ones (the SDK answers a POST with a chunked SSE stream).
 */
export class RawClient {
  constructor(url) {
    this.url = new URL(url);
    this.buf = Buffer.alloc(0);
    this.waiting = null;
    this.socket = connect(Number(this.url.port), this.url.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk) => { this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk; this.#parse(); });
    this.socket.on('error', (err) => { this.waiting?.reject(err); });
  }

  post(body, headers) {
    const text = JSON.stringify(body);
    let head = `POST ${this.url.pathname}${this.url.search} HTTP/1.1\r\nHost: ${this.url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    return new Promise((resolve, reject) => { this.waiting = { resolve, reject }; this.socket.write(`${head}\r\n${text}`); });
  }

  #parse() {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end === -1 || !this.waiting) return;
    const head = this.buf.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const headers = {};
    for (const line of head.split('\r\n').slice(1)) { const i = line.indexOf(':'); headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim(); }
    let body;
    let used;
    if (headers['content-length'] !== undefined) {
      used = end + 4 + Number(headers['content-length']);
      if (this.buf.length < used) return;
      body = this.buf.subarray(end + 4, used).toString('utf8');
    } else if (headers['transfer-encoding'] === 'chunked') {
      const last = this.buf.indexOf('\r\n0\r\n\r\n', end);
      const empty = this.buf.indexOf('0\r\n\r\n', end + 4) === end + 4;
      if (last === -1 && !empty) return;
      used = empty ? end + 9 : last + 7;
      body = this.buf.subarray(end + 4, used).toString('utf8');
    } else {
      used = end + 4;
      body = '';
    }
    this.buf = this.buf.subarray(used);
    const w = this.waiting;
    this.waiting = null;
    w.resolve({ status, headers, text: body });
  }

  destroy() { this.socket.destroy(); }
}

/** A client: its own session on its own keep-alive socket. */
export async function client(url) {
  const raw = new RawClient(url);
  const init = await raw.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, {});
  const sid = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sid !== 'string') throw new Error(`initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
  const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await raw.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  let id = 1;
  return {
    raw,
    async call() {
      const t = now();
      const res = await raw.post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'get_mode_info', arguments: { mode_slug: 'code' } } }, headers);
      if (res.status !== 200 || !res.text.includes('"result"')) throw new Error(`tools/call failed: ${res.status} ${res.text.slice(0, 200)}`);
      return now() - t;
    },
  };
}

/** `clients` sessions calling in a loop until `requests` calls are done in all; req/s and p99. */
async function load(url, clients, requests) {
  const all = await Promise.all(Array.from({ length: clients }, () => client(url)));
  for (const c of all) for (let i = 0; i < 20; i++) await c.call(); // warm-up
  const latencies = [];
  let left = requests;
  const t = now();
  await Promise.all(all.map(async (c) => { while (left-- > 0) latencies.push(await c.call()); }));
  const elapsed = now() - t;
  for (const c of all) c.raw.destroy();
  return { rps: (latencies.length / elapsed) * 1000, p99: percentile(latencies, 99) };
}

export async function http({ rounds, requests }) {
  if (!existsSync(PEER_SCRIPT)) {
    return { rows: [row('HTTP tools/call req/s vs SDK', { ours: 'skipped', target: `≥ ${TARGET}×`, pass: null, keys: { http_skipped: 1 } })], notes: [`  HTTP: skipped, ${PEER_SCRIPT} is missing (the SDK peer lives in ../shared/bench-peer)`] };
  }
  const [peerNode, peerMain] = execFileSync(PEER_SCRIPT, { encoding: 'utf8' }).trim().split(/\s+/);
  const commands = { ours: [process.execPath, [SERVER_MAIN, 'serve', '--http', '--port', '0']], sdk: [peerNode, [peerMain, '--http', '--port', '0']] };
  const rows = [];
  const notes = [];
  for (const clients of [1, 32]) {
    const out = { ours: [], sdk: [] };
    for (let r = 0; r < rounds; r++) {
      for (const kind of r % 2 === 0 ? ['sdk', 'ours'] : ['ours', 'sdk']) {
        const server = startServer(...commands[kind]);
        try { out[kind].push(await load(await server.url, clients, requests)); } finally { await server.stop(); }
      }
    }
    const rps = (k) => median(out[k].map((o) => o.rps));
    const p99 = (k) => median(out[k].map((o) => o.p99));
    const ratio = rps('ours') / rps('sdk');
    rows.push(row(`HTTP tools/call req/s, ${clients} client${clients > 1 ? 's' : ''} (vs SDK)`, {
      ours: `${Math.round(rps('ours'))}/s`, floor: `${Math.round(rps('sdk'))}/s`, ratio, target: `≥ ${TARGET}×`, pass: ratio >= TARGET,
      keys: { [`http_rps_${clients}`]: Math.round(rps('ours')), [`http_sdk_rps_${clients}`]: Math.round(rps('sdk')), [`http_ratio_${clients}`]: round(ratio, 2) },
    }));
    rows.push(row(`HTTP p99, ${clients} client${clients > 1 ? 's' : ''} (vs SDK)`, {
      ours: `${p99('ours').toFixed(2)} ms`, floor: `${p99('sdk').toFixed(2)} ms`, ratio: p99('ours') / p99('sdk'), target: 'info', pass: null,
      keys: { [`http_p99_ms_${clients}`]: round(p99('ours'), 2), [`http_sdk_p99_ms_${clients}`]: round(p99('sdk'), 2) },
    }));
    notes.push(`  HTTP ${clients} client(s): ours ${out.ours.map((o) => Math.round(o.rps)).join(', ')} req/s; SDK ${out.sdk.map((o) => Math.round(o.rps)).join(', ')} req/s (rounds alternate which server goes first; the "floor" column is the SDK)`);
  }
  return { rows, notes };
}
