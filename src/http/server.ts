// The Streamable HTTP door: one endpoint path, security checks on every request, then POST/GET/DELETE
// routed to a legacy session (2025-11-25) or the stateless runner (2026-07-28). Dispatch, lifecycle
// and error mapping stay in the shared core (src/core.ts); this file only frames and delivers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Core } from '../core.js';
import { BOUNDS, type HttpBounds } from '../bounds.js';
import { ERROR_CODES, InvalidRequestError } from '../rpc/errors.js';
import { depthMessage, MAX_JSON_DEPTH, tooDeep } from '../rpc/json-bounds.js';
import { isRecord, isValidId, type Params, type RequestId } from '../rpc/jsonrpc.js';
import { claimsStateless, MODERN_VERSIONS } from '../mcp/eras.js';
import { PROTOCOL_VERSIONS } from '../mcp/lifecycle.js';
import { answerHook, HOOK_PATH } from './hook-endpoint.js';
import { checkRequest, type Gate } from './security.js';
import { LegacySession } from './session.js';
import { ConnectionGate } from './sockets.js';
import { parseEventId } from './sse.js';
import { SharedSessions, type SessionTable } from './shared-sessions.js';
import { refuse, runStateless, statusOf } from './stateless.js';
import { HeapRelief } from './heap-relief.js';
import { AnswerGate, meteredResponse, UnreadLedger } from './unread.js';
import { accepts, BodyTooLarge, header, isJsonBody, readBody, sendJson, sendRpcError } from './wire.js';

export interface HttpOptions { path: string; gate: Gate; bounds: HttpBounds }

const HTTP = BOUNDS.http;

/** Request headers a browser client may send (answered on a CORS preflight). */
const CORS_HEADERS = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id';

const isModern = (v: string | undefined): boolean => v !== undefined && (MODERN_VERSIONS as readonly string[]).includes(v);

export class HttpDoor {
  readonly server: Server;
  readonly #sessions = new Map<string, LegacySession>();
  /** Open response streams and running stateless requests (capped by BOUNDS.http.maxStreams). */
  readonly #streams = { count: 0 };
  readonly #inFlight = new Set<Promise<void>>();
  /** Ends the input of each running stateless request (used at shutdown). */
  readonly #statelessOpen = new Set<() => void>();
  #draining = false;
  readonly #sweeper: NodeJS.Timeout;
  readonly #conns: ConnectionGate;
  readonly #unread: UnreadLedger;
  /** Stateless requests making their answers at once (the rest wait their turn). */
  readonly #making: AnswerGate;
  readonly #relief: HeapRelief;
  /** With --store: sessions kept in Redis and served by any replica (null: this process alone holds them). */
  readonly #shared: Promise<SharedSessions> | null;

  constructor(private readonly core: Core, private readonly o: HttpOptions) {
    const b = o.bounds;
    this.#conns = new ConnectionGate({ maxConnections: b.maxConnections, retryAfterS: HTTP.retryAfterS }, core.log);
    this.#relief = new HeapRelief(b.serverUnreadBytes);
    this.#unread = new UnreadLedger(b.serverUnreadBytes, HTTP.connectionUnreadBytes, (socket, reason) => {
      core.log.warn(`HTTP: closing a connection from ${socket.remoteAddress ?? '?'} that does not take its answers: ${reason}`);
    }, (bytes) => this.#relief.freed(bytes));
    this.#making = new AnswerGate(b.statelessRunning);
    this.server = createServer({
      ServerResponse: meteredResponse(this.#unread, this.#relief),
      headersTimeout: b.headersTimeoutMs, requestTimeout: b.requestTimeoutMs, keepAliveTimeout: b.idleTimeoutMs,
      connectionsCheckingInterval: HTTP.timeoutCheckMs,
    }, (req, res) => {
      if (this.#conns.refused(req.socket)) { req.resume(); return; } // its 503 is on the way; read on so the client gets it
      this.#conns.turn(req, res, () => this.#run(req, res));
    });
    // Until a connection's first request arrives nothing else closes it (keepAliveTimeout covers the time between requests).
    this.server.timeout = b.idleTimeoutMs;
    this.server.on('connection', (socket: Socket) => this.#conns.admit(socket));
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, HTTP.sessionIdleMs)).unref();
    const table: SessionTable = {
      get: (sid) => this.#sessions.get(sid),
      all: () => this.#sessions.values(),
      hold: (session) => this.#hold(session),
      forget: (session) => this.#forget(session),
      room: () => { this.#sweep(true); return this.#sessions.size < HTTP.maxSessions; },
      openStreams: this.#streams, graceMs: o.bounds.drainGraceMs,
    };
    this.#shared = core.store()?.then((store) => new SharedSessions(store, core, core.log.child('http'), table)) ?? null;
  }

  get sessions(): number { return this.#sessions.size; }

  /**
   * Runs one request whose turn came. A handler that answers without waiting returns nothing and
   * costs no promise; one that waits is kept in #inFlight (shutdown lets it finish) until it settles.
   */
  #run(req: IncomingMessage, res: ServerResponse): void {
    // A connection closed while its request waited (the client left, or was too slow) gets no work done for it.
    if (req.socket.destroyed) return;
    const failed = (err: unknown): void => {
      this.core.log.error('HTTP request failed', err);
      if (!res.headersSent) sendRpcError(res, 500, null, ERROR_CODES.INTERNAL_ERROR, 'Internal error');
      else res.end();
    };
    let task: Promise<void> | void;
    try { task = this.#handle(req, res); } catch (err) { failed(err); return; }
    if (task === undefined) return;
    const settled: Promise<void> = task.then(() => { this.#inFlight.delete(settled); }, (err: unknown) => { this.#inFlight.delete(settled); failed(err); });
    this.#inFlight.add(settled);
  }

  #handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    const refused = checkRequest(req.headers, this.o.gate, req.method === 'OPTIONS');
    if (refused) {
      // The hook endpoint answers every failure as {"error": …}, its refusals by the gate too.
      if (path === HOOK_PATH) return sendJson(res, refused.status, JSON.stringify({ error: refused.message }), refused.headers);
      return sendRpcError(res, refused.status, null, ERROR_CODES.INVALID_REQUEST, refused.message, undefined, refused.headers);
    }
    // The gate accepted this Origin: a browser page there may read our answers and the session id.
    const origin = req.headers.origin;
    if (typeof origin === 'string' && origin !== '') {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', 'mcp-session-id');
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'POST, GET, DELETE', 'access-control-allow-headers': CORS_HEADERS, 'access-control-max-age': '600' }).end();
      return;
    }
    if (path === HOOK_PATH) return answerHook(this.core, req, res, url, this.o.bounds.maxBodyBytes);
    if (path !== this.o.path) return sendRpcError(res, 404, null, ERROR_CODES.INVALID_REQUEST, `no MCP endpoint at ${path}; it is ${this.o.path}`);
    if (this.#draining) return sendRpcError(res, 503, null, ERROR_CODES.INVALID_REQUEST, 'the server is shutting down', undefined, { connection: 'close' });
    switch (req.method) {
      case 'POST': return this.#post(req, res);
      case 'GET': return this.#get(req, res);
      case 'DELETE': return this.#delete(req, res);
      default: return sendRpcError(res, 405, null, ERROR_CODES.INVALID_REQUEST, `${req.method ?? '?'} is not served; use POST (or GET/DELETE with Mcp-Session-Id)`, undefined, { allow: 'POST, GET, DELETE' });
    }
  }

  /**
   * The session named by Mcp-Session-Id; answers 400/404 (and 503 when the store is down) itself
   * and returns null when there is none. With --store the record decides: a session held here is
   * checked to be still live (its TTL refreshed), one held elsewhere is copied from its record.
   */
  async #session(req: IncomingMessage, res: ServerResponse, id: RequestId | null): Promise<LegacySession | null> {
    const sid = header(req, 'mcp-session-id');
    if (sid === undefined) { sendRpcError(res, 400, id, ERROR_CODES.INVALID_REQUEST, 'Bad Request: Mcp-Session-Id header is required (send initialize first)'); return null; }
    const notFound = (): null => { sendRpcError(res, 404, id, ERROR_CODES.INVALID_REQUEST, 'Session not found: it ended or never existed; initialize a new one'); return null; };
    let session = this.#sessions.get(sid);
    // A session made while the store was away has no record: this process alone answers for it.
    if (this.#shared && (session === undefined || session.shared)) {
      const found = await (await this.#shared).find(sid, res, id);
      if (found === 'answered') return null;
      session = found ?? undefined;
    }
    if (!session || session.closed) return notFound();
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
      sendRpcError(res, 400, id, ERROR_CODES.INVALID_REQUEST, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${PROTOCOL_VERSIONS.join(', ')})`);
      return null;
    }
    return session;
  }

  #hold(session: LegacySession): void {
    this.#sessions.set(session.id, session);
    void session.conn.done.then(() => { if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id); });
  }

  /** Closes this replica's copy (the session ended, or its record is gone). */
  #forget(session: LegacySession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    void session.close();
  }

  async #post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isJsonBody(req)) return sendRpcError(res, 415, null, ERROR_CODES.INVALID_REQUEST, `Unsupported Media Type: the body must be application/json (Content-Type was ${JSON.stringify(req.headers['content-type'] ?? null)})`);
    let text: string;
    const limit = this.o.bounds.maxBodyBytes;
    try { text = await readBody(req, limit); } catch (err) {
      // The connection stays open while the rest of the body is dropped: closing it now would reset a client still writing.
      if (err instanceof BodyTooLarge) { sendRpcError(res, 413, null, ERROR_CODES.INVALID_REQUEST, `Payload Too Large: ${err.message}`); return; }
      res.destroy();
      return;
    }
    let value: unknown;
    try { value = JSON.parse(text); } catch (err) {
      return sendRpcError(res, 400, null, ERROR_CODES.PARSE_ERROR, 'Parse error', (err as Error).message);
    }
    // The bound stdio lines have: nothing nested deeper reaches a handler. A shorter text cannot be deeper.
    if (text.length > MAX_JSON_DEPTH && tooDeep(value)) {
      const top = isRecord(value) ? value : {};
      const e = new InvalidRequestError('Invalid Request: message nested too deep', `${depthMessage('the message')}; nothing in it was read`);
      return sendRpcError(res, 400, isValidId(top.id) ? top.id : null, e.code, e.message, e.data);
    }
    if (!isRecord(value)) return sendRpcError(res, 400, null, ERROR_CODES.INVALID_REQUEST, 'Invalid Request', Array.isArray(value) ? 'send one JSON-RPC message per POST (batches are not accepted over HTTP)' : 'expected a JSON-RPC message object');
    const method = typeof value.method === 'string' ? value.method : undefined;
    const id = typeof value.id === 'string' || typeof value.id === 'number' ? value.id : null;
    const params = isRecord(value.params) ? value.params as Params : undefined;
    const want = accepts(req);
    if (!want.json && !want.sse) return sendRpcError(res, 406, id, ERROR_CODES.INVALID_REQUEST, 'Not Acceptable: accept application/json and text/event-stream');
    const sid = header(req, 'mcp-session-id');
    const modern = sid === undefined && method !== undefined && (isModern(header(req, 'mcp-protocol-version')) || (method !== 'initialize' && claimsStateless(method, params)));
    if (modern) return this.#stateless(req, res, value, method, id, params);
    if (sid === undefined && method === 'initialize' && id !== null) {
      if (this.#shared) this.#sweep(true);
      if (this.#sessions.size >= HTTP.maxSessions) return sendRpcError(res, 503, id, ERROR_CODES.INVALID_REQUEST, `too many sessions (${HTTP.maxSessions}); end one with DELETE or try later`);
      const session = this.#shared
        ? (await this.#shared).create()
        : new LegacySession(this.core, this.#streams, this.o.bounds.drainGraceMs);
      this.#hold(session);
      return session.request(id, value, res, want, undefined);
    }
    const session = await this.#session(req, res, id);
    if (!session) return;
    if (method !== undefined && id !== null) {
      if (session.hasPending(id)) return sendRpcError(res, 400, id, ERROR_CODES.INVALID_REQUEST, `Invalid Request: request id ${JSON.stringify(id)} is still in flight in this session`);
      const meta = params && isRecord(params._meta) ? params._meta : undefined;
      const token = meta?.progressToken;
      return session.request(id, value, res, want, typeof token === 'string' || typeof token === 'number' ? token : undefined);
    }
    await session.feed(value);
    res.writeHead(202, session.headers).end();
  }

  #stateless(req: IncomingMessage, res: ServerResponse, value: Record<string, unknown>, method: string, id: RequestId | null, params: Params | undefined): Promise<void> | void {
    if (id === null) { res.writeHead(202).end(); return; } // no client notification is defined in this era
    const refusal = refuse(req, method, params);
    if (refusal) { const status = statusOf(refusal.code); return sendRpcError(res, status === 200 ? 400 : status, id, refusal.code, refusal.message, refusal.data); }
    if (this.#streams.count >= HTTP.maxStreams) return sendRpcError(res, 503, id, ERROR_CODES.INVALID_REQUEST, `too many open streams (${HTTP.maxStreams}); try later`);
    this.#streams.count++;
    // Its place among the requests making answers; one whose client left while it waited never runs.
    return this.#making.enter(() => req.socket.destroyed)
      .then((made) => (made === null ? undefined : runStateless(this.core, req, res, id, value, this.#statelessOpen, made)))
      .finally(() => { this.#streams.count--; });
  }

  async #get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (isModern(header(req, 'mcp-protocol-version'))) { res.writeHead(405, { allow: 'POST' }).end(); return; }
    if (!accepts(req).sse) { sendRpcError(res, 406, null, ERROR_CODES.INVALID_REQUEST, 'Not Acceptable: GET opens a text/event-stream'); return; }
    const session = await this.#session(req, res, null);
    if (!session) return;
    if (this.#streams.count >= HTTP.maxStreams) { sendRpcError(res, 503, null, ERROR_CODES.INVALID_REQUEST, `too many open streams (${HTTP.maxStreams}); try later`); return; }
    const last = header(req, 'last-event-id');
    if (this.#shared && session.shared) return (await this.#shared).openGet(session, res, last);
    // Opened only once the mode files are watched: an edit after the stream is open is announced on it.
    await this.core.modes().catch(() => undefined);
    const resume = last === undefined ? null : parseEventId(last);
    if (last !== undefined && resume === null) { sendRpcError(res, 400, null, ERROR_CODES.INVALID_REQUEST, `Bad Request: Last-Event-ID ${JSON.stringify(last)} is not an event id of this server`); return; }
    const opened = session.openStream(res, resume);
    if (opened !== true) sendRpcError(res, 404, null, ERROR_CODES.INVALID_REQUEST, `cannot resume from Last-Event-ID ${JSON.stringify(last)}: ${opened}`);
  }

  async #delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (isModern(header(req, 'mcp-protocol-version')) && header(req, 'mcp-session-id') === undefined) { res.writeHead(405, { allow: 'POST' }).end(); return; }
    const session = await this.#session(req, res, null);
    if (!session) return;
    if (this.#shared && session.shared) {
      // Ended everywhere first: the record goes and every replica closes its copy.
      const shared = await this.#shared;
      try { await shared.records.end(session.id); } catch (err) { shared.refuse(res, null, 'ending the session', err); return; }
    }
    this.#sessions.delete(session.id);
    res.writeHead(200).end();
    await session.close();
  }

  /**
   * Closes local sessions idle past the bound. With --store the record's TTL decides a session's
   * life; `copies` also closes this replica's idle copies early when room is needed (a later
   * request makes a new copy from the record).
   */
  #sweep(copies = false): void {
    const idle = Date.now() - HTTP.sessionIdleMs;
    // Only a copy can go early (its record stays): a session held here alone would be lost.
    const early = copies && this.#sessions.size >= HTTP.maxSessions ? Date.now() - 1000 : idle;
    for (const s of this.#sessions.values()) {
      if (s.lastSeen < (s.shared ? early : idle) && !s.busy) { this.#sessions.delete(s.id); void s.close(); }
    }
  }

  /**
   * Shutdown, in this order: stop accepting connections and close idle ones; end listen and GET
   * streams; let requests already received finish arriving (bounded by the grace); only then end
   * the sessions, whose processors answer what they were given (again bounded by the grace).
   */
  async drain(): Promise<void> {
    this.#draining = true;
    clearInterval(this.#sweeper);
    this.#relief.close();
    const grace = this.o.bounds.drainGraceMs;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Said once the listening socket is closed, so a reader of the log knows new connections are refused.
    this.core.log.info('shutting down: no new connections; draining HTTP requests');
    this.#conns.closeIdle();
    for (const end of this.#statelessOpen) end();
    for (const s of this.#sessions.values()) s.closeGetStream();
    const hardStop = setTimeout(() => this.server.closeAllConnections(), 2 * grace + 1000);
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.#inFlight), new Promise<void>((resolve) => { wait = setTimeout(resolve, grace); })]);
    clearTimeout(wait);
    await Promise.all([...this.#sessions.values()].map((s) => s.close()));
    this.#sessions.clear();
    clearTimeout(hardStop);
    this.server.closeAllConnections();
    await closed;
  }
}
