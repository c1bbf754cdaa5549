// Spawns the built server with `serve --http --port 0`, reads its ready line, and talks to it over
// real sockets: POSTs answered as JSON or SSE, GET streams, every received message recorded with
// the method of the request it answers so the transcript can be checked against the official schema.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { MAIN, type Msg } from './harness.js';
import { idKey, loadOfficial, validateTranscript, type Revision } from './official-check.js';

export const READY = /roo-modes-server: listening on (http:\/\/\S+)/;
export const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'http-test', version: '1' },
};

export interface Reply { status: number; headers: IncomingMessage['headers']; messages: Msg[]; body: string; eventIds: string[] }

/** Parses an SSE body into its JSON messages and event ids. */
export function parseSse(text: string): { messages: Msg[]; eventIds: string[] } {
  const messages: Msg[] = [];
  const eventIds: string[] = [];
  for (const block of text.split(/\n\n/)) {
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    const id = block.split('\n').find((l) => l.startsWith('id:'));
    if (id) eventIds.push(id.slice(3).trim());
    if (data) messages.push(JSON.parse(data) as Msg);
  }
  return { messages, eventIds };
}

/**
 * A client of one MCP URL (a server, or a proxy in front of several): sends requests of both eras,
 * opens streams and records every message received for the schema check.
 */
export class HttpEndpoint {
  url: string;
  /** Every message received, per era, for the schema check. */
  readonly transcript = new Map<Revision, string[]>([['2025-11-25', []], ['2026-07-28', []]]);
  readonly methodOf = new Map<string, string>();

  constructor(url = '') { this.url = url; }

  /** One HTTP exchange; SSE bodies are read to their end. */
  send(method: string, body: unknown, headers: Record<string, string> = {}, era: Revision = '2025-11-25', path = ''): Promise<Reply> {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    if (body && typeof body === 'object' && 'id' in body && 'method' in body) this.methodOf.set(idKey((body as Msg).id), (body as Msg).method!);
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.url + path, {
        method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { data += c; });
        res.on('end', () => {
          const sse = String(res.headers['content-type'] ?? '').includes('text/event-stream');
          const parsed = sse ? parseSse(data) : { messages: data && String(res.headers['content-type']).includes('json') ? [JSON.parse(data) as Msg] : [], eventIds: [] };
          if (res.statusCode !== 401 && res.statusCode !== 403) for (const m of parsed.messages) this.transcript.get(era)!.push(JSON.stringify(m));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, ...parsed });
        });
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  post(body: unknown, headers: Record<string, string> = {}, era: Revision = '2025-11-25'): Promise<Reply> { return this.send('POST', body, headers, era); }

  /** A 2026-07-28 request with its _meta and mirrored headers. */
  modern(id: number | string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Reply> {
    const name = params.name ?? params.uri;
    const h: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...headers };
    return this.post({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...META_2026, ...(params._meta as object | undefined) } } }, h, '2026-07-28');
  }

  /** initialize + notifications/initialized; returns the session id. */
  async session(version = '2025-11-25', capabilities: unknown = {}): Promise<string> {
    const init = await this.post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'http-test', version: '1' } } });
    assert.equal(init.status, 200, init.body);
    const sid = init.headers['mcp-session-id'];
    assert.ok(typeof sid === 'string' && /^[\x21-\x7e]{32,}$/.test(sid), `session id ${String(sid)}`);
    const note = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid });
    assert.equal(note.status, 202);
    return sid;
  }

  /** Opens a stream (GET, or a POST answered with SSE) and hands over events as they arrive. */
  stream(method: 'GET' | 'POST', headers: Record<string, string>, body?: unknown): Promise<LiveStream> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.url, { method, headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers } }, (res) => {
        resolve(new LiveStream(req, res, (m) => this.transcript.get(headers['mcp-protocol-version'] === '2026-07-28' ? '2026-07-28' : '2025-11-25')!.push(JSON.stringify(m))));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  /** Every message received so far validates against its era's official schema (vendored in test/fixtures). */
  assertSchemaValid(): void {
    for (const [rev, lines] of this.transcript) {
      if (lines.length === 0) continue;
      const verdict = validateTranscript(loadOfficial(rev), lines, this.methodOf);
      assert.deepEqual(verdict.failures, [], `${rev}: messages that fail the official schema`);
    }
  }
}

export class HttpServer extends HttpEndpoint {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  readonly ready: Promise<string>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[] = [], env: Record<string, string | undefined> = {}) {
    super();
    const home = mkdtempSync(join(tmpdir(), 'rms-http-home-'));
    this.child = spawn(process.execPath, [MAIN, 'serve', '--http', '--port', '0', ...args], {
      cwd: home, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.setEncoding('utf8');
    this.ready = new Promise((resolve, reject) => {
      this.child.stderr.on('data', (chunk: string) => {
        this.stderr += chunk;
        const m = READY.exec(this.stderr);
        if (m && !this.url) { this.url = m[1]!; resolve(this.url); }
      });
      this.child.on('exit', () => reject(new Error(`server exited before its ready line:\n${this.stderr}`)));
    });
    this.ready.catch(() => { /* awaited by the tests that need it */ });
    this.exit = new Promise((resolve) => this.child.on('exit', (code, signal) => { rmSync(home, { recursive: true, force: true }); resolve({ code, signal }); }));
  }

  kill(): void { if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL'); }
}

export class LiveStream {
  readonly messages: Msg[] = [];
  readonly eventIds: string[] = [];
  #buf = '';
  #waiters: (() => void)[] = [];
  ended = false;
  readonly closed: Promise<void>;
  constructor(readonly req: ReturnType<typeof httpRequest>, readonly res: IncomingMessage, record: (m: Msg) => void) {
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      this.#buf += c;
      let cut: number;
      while ((cut = this.#buf.indexOf('\n\n')) !== -1) {
        const parsed = parseSse(this.#buf.slice(0, cut + 2));
        this.#buf = this.#buf.slice(cut + 2);
        for (const m of parsed.messages) { this.messages.push(m); record(m); }
        this.eventIds.push(...parsed.eventIds);
        for (const w of this.#waiters.splice(0)) w();
      }
    });
    this.closed = new Promise((resolve) => res.on('close', () => { this.ended = true; for (const w of this.#waiters.splice(0)) w(); resolve(); }));
  }

  /** Waits for a message matching pred (already received or later). */
  async next(pred: (m: Msg) => boolean, what: string, timeoutMs = 8000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (this.ended) throw new Error(`stream ended before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => { const t = setTimeout(resolve, left); this.#waiters.push(() => { clearTimeout(t); resolve(); }); });
    }
  }

  close(): void { this.req.destroy(); }
}

/** Starts a server, waits for its ready line, and kills it after the test. */
export async function startHttp(t: { after(fn: () => void): void }, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<HttpServer> {
  const s = new HttpServer(args, env);
  t.after(() => s.kill());
  await s.ready;
  return s;
}
