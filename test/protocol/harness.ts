// Spawns the built server (dist/main.cjs, the package's bin) over real pipes for protocol tests: write raw lines,
// wait for responses by id, and check that every stdout line is a JSON-RPC message.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

// The bin itself, not dist/main.js (which only loads it): that path started Node's ES module loader
// in each of the suite's ~900 server processes for nothing (test/unit/bundle-serve.test.ts runs it).
export const MAIN = fileURLToPath(new URL('../../dist/main.cjs', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export type Msg = Record<string, unknown> & { id?: unknown; method?: string; result?: any; error?: any };

export interface ServerOptions { args?: string[]; env?: Record<string, string | undefined>; cwd?: string }

export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly messages: Msg[] = [];
  stderr = '';
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #buf: string[] = [];
  #waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];

  constructor(opts: ServerOptions = {}) {
    const home = mkdtempSync(join(tmpdir(), 'rms-home-'));
    this.child = spawn(process.execPath, [MAIN, ...(opts.args ?? [])], {
      cwd: opts.cwd ?? home,
      env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin.on('error', () => { /* the server may exit first */ });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => { this.stderr += chunk; });
    this.exit = new Promise((resolve) => this.child.on('exit', (code, signal) => {
      rmSync(home, { recursive: true, force: true });
      resolve({ code, signal });
    }));
  }

  #onData(chunk: string): void {
    // Only the new chunk is searched for line ends; a long line's earlier pieces wait in #buf and
    // are joined once (searching and re-slicing the whole held text on every chunk is quadratic).
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; start = nl + 1, nl = chunk.indexOf('\n', start)) {
      const line = this.#buf.length > 0 ? this.#buf.join('') + chunk.slice(start, nl) : chunk.slice(start, nl);
      this.#buf.length = 0;
      this.lines.push(line);
      let msg: Msg;
      try { msg = JSON.parse(line); } catch { continue; }
      const items = Array.isArray(msg) ? msg as Msg[] : [msg];
      for (const m of items) {
        this.messages.push(m);
        this.#waiters = this.#waiters.filter((w) => (w.pred(m) ? (w.resolve(m), false) : true));
      }
    }
    if (start < chunk.length) this.#buf.push(chunk.slice(start));
  }

  write(text: string | Buffer): void { this.child.stdin.write(text); }
  send(msg: unknown): void { this.write(`${JSON.stringify(msg)}\n`); }
  request(id: number | string, method: string, params?: unknown): void {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
  }
  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Resolves with the first message (already seen or future) matching pred; rejects after timeoutMs. */
  waitFor(pred: (m: Msg) => boolean, timeoutMs = 10000, what = 'a message'): Promise<Msg> {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`)), timeoutMs);
      this.#waiters.push({ pred, resolve: (m) => { clearTimeout(timer); resolve(m); } });
    });
  }

  response(id: unknown, timeoutMs = 10000): Promise<Msg> {
    const key = JSON.stringify(id);
    return this.waitFor((m) => ('result' in m || 'error' in m) && JSON.stringify(m.id) === key, timeoutMs, `the response to id ${key}`);
  }

  async call(id: number | string, method: string, params?: unknown): Promise<Msg> {
    this.request(id, method, params);
    return this.response(id);
  }

  async initialize(protocolVersion = '2025-11-25', capabilities: unknown = {}): Promise<Msg> {
    const res = await this.call('init', 'initialize', { protocolVersion, capabilities, clientInfo: { name: 'protocol-test', version: '1' } });
    this.notify('notifications/initialized');
    return res;
  }

  async tool(id: number | string, name: string, args: Record<string, unknown> = {}): Promise<Msg> {
    return this.call(id, 'tools/call', { name, arguments: args });
  }

  /** Every stdout line so far parsed as a JSON-RPC 2.0 object (or a batch of them). */
  assertStdoutPure(): void {
    for (const line of this.lines) {
      let v: unknown;
      assert.doesNotThrow(() => { v = JSON.parse(line); }, `stdout line is not JSON: ${line.slice(0, 200)}`);
      for (const m of Array.isArray(v) ? v : [v]) {
        assert.equal((m as Msg).jsonrpc, '2.0', `not a JSON-RPC message: ${line.slice(0, 200)}`);
      }
    }
  }

  /** Closes stdin and waits for exit. */
  async end(timeoutMs = 5000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const res = await this.exit;
    clearTimeout(timer);
    return res;
  }

  kill(): void { if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL'); }
}

/** Starts a server and registers its cleanup with the test. */
export function startServer(t: { after(fn: () => void | Promise<void>): void }, opts: ServerOptions = {}): ServerProcess {
  const s = new ServerProcess(opts);
  t.after(() => s.kill());
  return s;
}

/** A temporary folder removed after the test. */
export function tempDir(t: { after(fn: () => void): void }, prefix = 'rms-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // A server still writing into the folder can make removal fail; that must not skip the
  // cleanups registered after this one (which stop the server).
  t.after(() => { try { rmSync(dir, { recursive: true, force: true, maxRetries: 3 }); } catch { /* left for the OS */ } });
  return dir;
}
