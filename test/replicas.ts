// Several built servers sharing one store and one project folder, and a round-robin HTTP proxy in
// the test process in front of them: what issue 25's replica tests run through. It owns the child
// processes and the proxy's sockets (all ended in t.after); it never decides what a test asserts.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's bin, as a deployment starts it. */
export const BIN = fileURLToPath(new URL('../dist/main.cjs', import.meta.url));
const READY = /roo-modes-server: listening on (http:\/\/\S+)/;
/** How long a start may take before the test fails naming the replica (two cores, several helpers). */
const START_DEADLINE_MS = 20_000;
/** A request body the proxy buffers before forwarding (it must be able to send it again to another replica). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded in either direction. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

interface Cleanup { after(fn: () => void | Promise<void>): void }

export interface ReplicaOptions {
  /** Arguments after `serve --http --port 0` (the store, project root, config…). */
  args: string[];
  env?: Record<string, string | undefined>;
}

/** One built server; it can be killed (SIGKILL) and started again, on a new port. */
export class Replica {
  /** Everything it wrote to stderr over all its starts, each start introduced by a marker line. */
  stderr = '';
  /** Its MCP URL while it runs; '' before the first start and after a kill. */
  url = '';
  #child: ChildProcessWithoutNullStreams | null = null;
  #starts = 0;
  readonly #home: string;

  constructor(readonly index: number, readonly options: ReplicaOptions) {
    // Its own HOME and global config folder: only the project folder is shared, as on separate hosts.
    this.#home = mkdtempSync(join(tmpdir(), `rms-replica${index}-`));
  }

  get pid(): number | undefined { return this.#child?.pid; }
  get alive(): boolean { return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null; }
  /** How many times it was started (a test asserts no replica was restarted behind its back). */
  get starts(): number { return this.#starts; }

  /** Starts the server and resolves with its URL once it printed its ready line. */
  start(): Promise<string> {
    if (this.alive) return Promise.reject(new Error(`replica ${this.index} is already running`));
    this.#starts++;
    this.stderr += `---- replica ${this.index}, start ${this.#starts}\n`;
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', ...this.options.args], {
      cwd: this.#home,
      env: { ...process.env, HOME: this.#home, ROO_CONFIG_DIR: join(this.#home, '.roo-code'), ...this.options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child = child;
    // A test process that ends early (a file timeout) takes its servers with it.
    const reap = (): void => { child.kill('SIGKILL'); };
    process.once('exit', reap);
    child.once('exit', () => { process.off('exit', reap); if (this.#child === child) this.url = ''; });
    child.stdout.resume();
    child.stderr.setEncoding('utf8');
    let own = '';
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replica ${this.index} printed no ready line within ${START_DEADLINE_MS} ms:\n${own}`)), START_DEADLINE_MS);
      child.stderr.on('data', (chunk: string) => {
        this.stderr += chunk;
        own += chunk;
        const m = READY.exec(own);
        if (m && this.url === '') { this.url = m[1]!; clearTimeout(timer); resolve(this.url); }
      });
      child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`replica ${this.index} exited (${signal ?? code}) before its ready line:\n${own}`)); });
    });
  }

  /** SIGKILL, as a crashed host: no shutdown code runs. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.url = '';
    child.kill('SIGKILL');
    await exited;
  }

  /** Kills it if running and removes its home folder. */
  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.#home, { recursive: true, force: true });
  }
}

/** Starts `count` replicas with the same options (in parallel) and disposes of them after the test. */
export async function startReplicas(t: Cleanup, count: number, options: ReplicaOptions): Promise<Replica[]> {
  const replicas = Array.from({ length: count }, (_, i) => new Replica(i, options));
  t.after(async () => { await Promise.all(replicas.map((r) => r.dispose())); });
  await Promise.all(replicas.map((r) => r.start()));
  return replicas;
}

/** What the proxy did with one request. */
export interface Served {
  seq: number;
  /** The replica that answered; null when none could be reached (the client got 502). */
  replica: number | null;
  method: string;
  /** The JSON-RPC method and tool name of a POST body, when it had them. */
  rpc?: string;
  tool?: string;
  status?: number;
}

/**
 * A round-robin load balancer with no stickiness: each HTTP request (not each TCP connection; the
 * clients keep theirs alive) goes to the next running replica. A replica that refuses the connection
 * is skipped and the request sent to the next one, as a balancer's health check would; once bytes
 * came back, a failure is passed on (the client's stream ends). Responses stream through unbuffered
 * (SSE included); the header `x-served-by` and `served` tell which replica answered what.
 */
export class RoundRobinProxy {
  readonly served: Served[] = [];
  url = '';
  #next = 0;
  readonly #server: Server;
  // Its own pool: connections to a replica are reused, and destroyed all at once at the end.
  readonly #agent = new Agent({ keepAlive: true });

  constructor(readonly replicas: readonly Replica[]) {
    this.#server = createServer((req, res) => { void this.#handle(req, res); });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (this.#server.address() as AddressInfo).port;
    // The replicas' path (all share it); the host is the proxy's.
    const path = this.replicas[0] ? new URL(this.replicas[0].url).pathname : '/mcp';
    this.url = `http://127.0.0.1:${port}${path}`;
    return this.url;
  }

  /** Which replicas answered the requests recorded from `from` on (null for a 502). */
  servedBy(from = 0): (number | null)[] { return this.served.slice(from).map((s) => s.replica); }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#agent.destroy();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record: Served = { seq: this.served.length, replica: null, method: req.method ?? 'GET' };
    this.served.push(record);
    let body: Buffer;
    try { body = await readBody(req); } catch (err) {
      res.writeHead(413, { 'content-type': 'text/plain' }).end((err as Error).message);
      record.status = 413;
      return;
    }
    describeBody(body, record);
    // Each running replica gets at most one try, starting at the next in turn.
    for (let tries = 0; tries < this.replicas.length; tries++) {
      const replica = this.replicas[this.#next++ % this.replicas.length]!;
      if (!replica.alive || replica.url === '') continue;
      const outcome = await this.#forward(replica, req, res, body, record);
      if (outcome === 'forwarded') return;
    }
    record.status = 502;
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('no replica could be reached');
    else res.destroy();
  }

  /** 'unreachable' when the replica refused the connection (the request can go to another); otherwise it was handled here. */
  #forward(replica: Replica, req: IncomingMessage, res: ServerResponse, body: Buffer, record: Served): Promise<'forwarded' | 'unreachable'> {
    const target = new URL(replica.url);
    return new Promise((resolve) => {
      let answered = false;
      const upstream = httpRequest({
        host: target.hostname, port: target.port, path: req.url, method: req.method, agent: this.#agent,
        headers: { ...forwardable(req.headers), 'content-length': String(body.length) },
      }, (ures) => {
        answered = true;
        record.replica = replica.index;
        record.status = ures.statusCode;
        res.writeHead(ures.statusCode ?? 502, { ...forwardable(ures.headers), 'x-served-by': String(replica.index) });
        // SSE events must reach the client as they come: no buffering on this hop.
        res.flushHeaders();
        ures.on('data', (chunk: Buffer) => { res.write(chunk); });
        ures.on('end', () => { res.end(); resolve('forwarded'); });
        // The replica died mid-answer: the client sees its stream cut, as behind a real balancer.
        ures.on('error', () => { res.destroy(); resolve('forwarded'); });
        ures.on('close', () => { if (!ures.complete) { res.destroy(); resolve('forwarded'); } });
      });
      // The client went away (closed its stream: its cancellation): the replica must see it too.
      res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        // Only a refused connection proves the replica never saw the request; anything later could
        // have run it, and sending it again would apply it twice.
        if (!answered && err.code === 'ECONNREFUSED') { resolve('unreachable'); return; }
        if (!answered) {
          record.replica = replica.index;
          record.status = 502;
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`replica ${replica.index} failed before answering: ${err.message}`);
          else res.destroy();
          resolve('forwarded');
          return;
        }
        res.destroy();
        resolve('forwarded');
      });
      upstream.end(body);
    });
  }
}

/** Starts a proxy in front of `replicas` (already started) and closes it after the test. */
export async function startProxy(t: Cleanup, replicas: readonly Replica[]): Promise<RoundRobinProxy> {
  const proxy = new RoundRobinProxy(replicas);
  t.after(() => proxy.close());
  await proxy.listen();
  return proxy;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-length') continue;
    out[name] = value;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) { reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`)); req.destroy(); return; }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Notes the JSON-RPC method and tool of a body, for assertions; anything else is left unnamed. */
function describeBody(body: Buffer, record: Served): void {
  if (body.length === 0) return;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const { method, params } = value as { method?: unknown; params?: unknown };
    if (typeof method === 'string') record.rpc = method;
    const name = typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined;
    if (method === 'tools/call' && typeof name === 'string') record.tool = name;
  } catch { /* not JSON: the replica answers it */ }
}

/** Polls `probe` (every `everyMs`) until it returns a value other than undefined, or fails naming `what` at the deadline. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, deadlineMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) { last = err; }
    if (Date.now() > deadline) throw new Error(`no ${what} within ${deadlineMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs)); // the pace of polling, not a wait for an event
  }
}
