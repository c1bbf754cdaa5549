// McpClient: the handshake (version negotiation, initialized), the typed MCP helpers with
// pagination, health checks and close(). It never writes stdout and never exits the process.

import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS } from '../mcp/lifecycle.js';
import { META, MODERN_VERSIONS } from '../mcp/eras.js';
import { RpcPeer, type Channel, type JsonObject, type NotificationHandler, type RequestOptions } from './peer.js';
import { McpAbortError, McpError, McpProtocolError, UnsupportedProtocolVersionError } from './errors.js';
import { ServerProcess, type CloseOptions, type CloseResult, type StdioServerParams } from './process.js';
import { HttpChannel, type HttpServerParams } from './http.js';
import { isRecord as isObject } from '../rpc/jsonrpc.js';

export interface Root {
  uri: string;
  name?: string;
}

/** What connecting needs besides where the server is. */
export interface HandshakeOptions {
  /**
   * Revision offered in initialize (default 2025-11-25); the answer may be any supported one. A
   * stateless revision (2026-07-28) skips initialize: server/discover must offer it, and every
   * request then carries it in its _meta.
   */
  protocolVersion?: string;
  clientInfo?: { name: string; version: string };
  /** When given, the client advertises `roots` and answers roots/list with this list. */
  roots?: readonly Root[];
  /** Limit for spawn + initialize together (default 30000 ms). */
  connectTimeoutMs?: number;
  /** Default limit for each later request (default 60000 ms). */
  requestTimeoutMs?: number;
  /** Aborting it during connect kills the server and rejects with McpAbortError. */
  signal?: AbortSignal;
  /** Receives the server's stderr text as it arrives (it is also kept as a tail for errors). */
  onStderr?: (text: string) => void;
  /** Hears about lines the client had to drop (not JSON, unknown ids, handler failures). */
  onProtocolError?: (message: string) => void;
}

export interface HealthCheckOptions {
  intervalMs?: number;
  timeoutMs?: number;
  onUnhealthy: (error: Error) => void;
}

/** A listed item: the fields every revision has, plus whatever else the server sent. */
export interface Tool extends JsonObject {
  name: string;
  inputSchema: JsonObject;
}
export interface Resource extends JsonObject {
  uri: string;
  name: string;
}
export interface ResourceTemplate extends JsonObject {
  uriTemplate: string;
  name: string;
}
export interface Prompt extends JsonObject {
  name: string;
}

/** A cursor loop longer than this is a server bug, not a long list. */
const MAX_PAGES = 10_000;

export interface ConnectOptions extends StdioServerParams, HandshakeOptions {}
export interface HttpConnectOptions extends HttpServerParams, Omit<HandshakeOptions, 'onStderr'> {}

/** Spawns the server, performs initialize → notifications/initialized, and returns the client. */
export async function connectStdio(options: ConnectOptions): Promise<McpClient> {
  if (options.signal?.aborted) throw new McpAbortError('connect', options.signal.reason);
  return handshake(await ServerProcess.start(options, options.onStderr), options);
}

/** Talks to a Streamable HTTP endpoint (either era, by protocolVersion); the same handshake as stdio. */
export async function connectHttp(options: HttpConnectOptions): Promise<McpClient> {
  if (options.signal?.aborted) throw new McpAbortError('connect', options.signal.reason);
  return handshake(new HttpChannel(options), options);
}

async function handshake(proc: Channel, options: HandshakeOptions): Promise<McpClient> {
  const { signal } = options;
  const conn = new RpcPeer(proc, {
    defaultTimeoutMs: options.requestTimeoutMs ?? 60_000,
    ...(options.onProtocolError === undefined ? {} : { onProtocolError: options.onProtocolError }),
  });
  conn.handle('ping', () => ({}));
  const roots = options.roots;
  conn.handle('roots/list', () => {
    if (roots === undefined) throw new McpError(-32601, 'Method not found: roots/list', undefined, 'roots/list');
    return { roots: roots.map((r) => ({ ...r })) };
  });
  const offered = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
  const clientInfo = options.clientInfo ?? { name: 'roo-modes-server-client', version: '0.1.0' };
  try {
    if ((MODERN_VERSIONS as readonly string[]).includes(offered)) {
      // No handshake: every request names the version; discover checks the server speaks it.
      conn.envelope = { [META.protocolVersion]: offered, [META.clientCapabilities]: {}, [META.clientInfo]: clientInfo };
      const found = await conn.request('server/discover', undefined, { timeoutMs: options.connectTimeoutMs ?? 30_000, ...(signal === undefined ? {} : { signal }) });
      const versions = Array.isArray(found.supportedVersions) ? found.supportedVersions : [];
      if (!versions.includes(offered)) throw new UnsupportedProtocolVersionError(offered, versions.join(', ') || 'none', MODERN_VERSIONS);
      const meta = isObject(found._meta) ? found._meta : {};
      return new McpClient(proc, conn, { ...found, serverInfo: meta[META.serverInfo] }, offered);
    }
    const result = await conn.request(
      'initialize',
      {
        protocolVersion: offered,
        capabilities: roots === undefined ? {} : { roots: { listChanged: false } },
        clientInfo,
      },
      { timeoutMs: options.connectTimeoutMs ?? 30_000, ...(signal === undefined ? {} : { signal }) },
    );
    const answered = result.protocolVersion;
    if (!(PROTOCOL_VERSIONS as readonly unknown[]).includes(answered)) {
      throw new UnsupportedProtocolVersionError(offered, answered, PROTOCOL_VERSIONS);
    }
    conn.notify('notifications/initialized');
    return new McpClient(proc, conn, result, answered as string);
  } catch (err) {
    conn.shutdown();
    await proc.close({ graceMs: 500, termMs: 1000 });
    throw err;
  }
}

export class McpClient {
  readonly #proc: Channel;
  readonly #conn: RpcPeer;
  readonly #stopChecks = new Set<() => void>();
  /** The negotiated protocol revision. */
  readonly protocolVersion: string;
  readonly serverInfo: JsonObject;
  readonly serverCapabilities: JsonObject;
  readonly instructions: string | undefined;

  /** Use connectStdio(); the constructor expects a finished handshake. */
  constructor(proc: Channel, conn: RpcPeer, init: JsonObject, protocolVersion: string) {
    this.#proc = proc;
    this.#conn = conn;
    this.protocolVersion = protocolVersion;
    this.serverInfo = isObject(init.serverInfo) ? init.serverInfo : {};
    this.serverCapabilities = isObject(init.capabilities) ? init.capabilities : {};
    this.instructions = typeof init.instructions === 'string' ? init.instructions : undefined;
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  /** The last few KiB of the server's stderr. */
  get stderrTail(): string {
    return this.#proc.stderrTail;
  }

  /** Sends any request; resolves with its result object or rejects with a typed error. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.#conn.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): void {
    this.#conn.notify(method, params);
  }

  /** Subscribes to one notification method or '*' for all; returns the unsubscribe function. */
  onNotification(method: string, handler: NotificationHandler): () => void {
    return this.#conn.onNotification(method, handler);
  }

  /** True on a stateless (2026-07-28) connection: no initialize, _meta on every request. */
  get stateless(): boolean {
    return this.#conn.envelope !== null;
  }

  /** A liveness check: ping, or server/discover in the stateless era (which has no ping). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.#conn.request(this.stateless ? 'server/discover' : 'ping', undefined, options);
  }

  listTools(options?: RequestOptions): Promise<Tool[]> {
    return this.#listAll('tools/list', 'tools', (t): t is Tool => typeof t.name === 'string' && isObject(t.inputSchema), options);
  }

  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.#listAll('resources/list', 'resources', (r): r is Resource => typeof r.uri === 'string', options);
  }

  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.#listAll('resources/templates/list', 'resourceTemplates', (r): r is ResourceTemplate => typeof r.uriTemplate === 'string', options);
  }

  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.#listAll('prompts/list', 'prompts', (p): p is Prompt => typeof p.name === 'string', options);
  }

  /** tools/call; an `isError: true` result is returned, not thrown (it is the tool's answer). */
  callTool(name: string, args: JsonObject = {}, options?: RequestOptions): Promise<JsonObject> {
    return this.#conn.request('tools/call', { name, arguments: args }, options);
  }

  readResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.#conn.request('resources/read', { uri }, options);
  }

  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<JsonObject> {
    return this.#conn.request('prompts/get', args === undefined ? { name } : { name, arguments: args }, options);
  }

  /**
   * Pings every `intervalMs` (default 30 s); a ping that fails or takes longer than `timeoutMs`
   * (default 5 s) calls onUnhealthy. Pings never overlap; the timer does not keep Node alive.
   * Returns the function that stops the checks (close() stops them too).
   */
  startHealthChecks(options: HealthCheckOptions): () => void {
    const intervalMs = options.intervalMs ?? 30_000;
    const timeoutMs = options.timeoutMs ?? 5_000;
    if (!(intervalMs > 0) || !(timeoutMs > 0)) throw new TypeError('intervalMs and timeoutMs must be positive');
    let inFlight = false;
    const timer = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      this.ping({ timeoutMs })
        .catch((err: unknown) => options.onUnhealthy(err instanceof Error ? err : new Error(String(err))))
        .finally(() => {
          inFlight = false;
        });
    }, intervalMs);
    timer.unref();
    const stop = (): void => {
      clearInterval(timer);
      this.#stopChecks.delete(stop);
    };
    this.#stopChecks.add(stop);
    return stop;
  }

  /**
   * Ends stdin, waits `graceMs` (2 s) for the server to leave, then SIGTERM, then SIGKILL after
   * `termMs` (2 s). Waiting requests are rejected with ClientClosedError. Resolves with how the
   * process ended and which step was needed.
   */
  async close(options?: CloseOptions): Promise<CloseResult> {
    for (const stop of [...this.#stopChecks]) stop();
    this.#conn.shutdown();
    return this.#proc.close(options);
  }

  async #listAll<T extends JsonObject>(
    method: string,
    key: string,
    valid: (item: JsonObject) => item is T,
    options?: RequestOptions,
  ): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#conn.request(method, cursor === undefined ? undefined : { cursor }, options);
      const list = result[key];
      if (!Array.isArray(list)) throw new McpProtocolError(`${method} result has no "${key}" array`);
      for (const item of list) {
        if (!isObject(item) || !valid(item)) throw new McpProtocolError(`${method} returned a malformed entry: ${JSON.stringify(item)}`);
        items.push(item);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) return items;
      if (typeof next !== 'string') throw new McpProtocolError(`${method} returned a non-string nextCursor`);
      if (seen.has(next)) throw new McpProtocolError(`${method} repeated the cursor ${JSON.stringify(next)}; stopping`);
      seen.add(next);
      cursor = next;
    }
    throw new McpProtocolError(`${method} returned more than ${MAX_PAGES} pages`);
  }
}
