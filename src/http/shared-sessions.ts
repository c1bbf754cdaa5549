// With --store, the legacy sessions of every replica in one Redis: the record a new session writes,
// the copy a replica makes of a session another started, the store's answer to each change, and
// the HTTP answer when Redis cannot be used. It never routes a request; the door (server.ts) does.
import type { ServerResponse } from 'node:http';
import type { Core } from '../connection.js';
import type { Logger } from '../log.js';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, type ProtocolVersion } from '../mcp/lifecycle.js';
import type { SharedChange, SharedSession } from '../mcp/server.js';
import { ERROR_CODES, InvalidParamsError, InvalidRequestError, RpcError, SessionStoreError } from '../rpc/errors.js';
import type { RequestId } from '../rpc/jsonrpc.js';
import { McpSessionLimitError, type McpSessionNews, type McpSessionRecord, type McpSessionRecords } from '../store/mcp-sessions.js';
import { RedisError } from '../store/redis/errors.js';
import type { SharedStore } from '../store/shared-store.js';
import { BOUNDS } from '../bounds.js';
import { LegacySession, type SharedOptions } from './session.js';
import { sendRpcError } from './wire.js';

/** What a failure of the store means for the client: the HTTP status and the JSON-RPC error. */
export function storeFailure(store: SharedStore, doing: string, err: unknown): { status: number; error: RpcError; headers: Record<string, string> } {
  if (err instanceof RpcError) return { status: 400, error: err, headers: {} };
  if (err instanceof McpSessionLimitError) return { status: 400, error: new InvalidRequestError(`Invalid Request: ${err.message}`), headers: {} };
  const redis = err instanceof RedisError ? err : null;
  const retryable = redis?.retryable ?? false;
  const message = (err as Error).message;
  const error = new SessionStoreError(`The session store (Redis at ${store.shownUrl}) cannot be used: ${doing} failed (${message})`, {
    message: `${doing}: ${message}`, store: 'redis', redis_address: store.shownUrl, operation: doing,
    ...(redis ? { redis_error: redis.kind } : {}), retryable,
    recovery_suggestions: retryable ? ['Retry in a moment: the server reconnects to Redis by itself'] : ['Check the Redis server and what else writes under the key prefix'],
  });
  return retryable
    ? { status: 503, error, headers: { 'retry-after': String(BOUNDS.http.retryAfterS) } }
    : { status: 500, error, headers: {} };
}

export class SharedSessions {
  readonly records: McpSessionRecords;
  readonly #log: Logger;

  constructor(readonly store: SharedStore, private readonly core: Core, log: Logger) {
    this.records = store.mcpSessions;
    this.#log = log;
    log.debug('legacy MCP sessions are shared through the store: the server sends no requests to clients (roots/list is not asked), the configured project root is used');
  }

  get replicaId(): string { return this.store.replicaId; }

  /** Other replicas' news reach `onNews`; after a lost subscription `onResync` re-reads every copy. */
  listen(onNews: (news: McpSessionNews) => void, onResync: () => void): void { this.store.mcpNews(onNews, onResync); }

  /** Answers `res` with what the failure means (503 + Retry-After when a retry may succeed). */
  refuse(res: ServerResponse, id: RequestId | null, doing: string, err: unknown): void {
    const f = storeFailure(this.store, doing, err);
    if (f.status >= 500) this.#log.warn(`${doing}: ${(err as Error).message}`);
    sendRpcError(res, f.status, id, f.error.code, f.error.message, f.error.data, f.headers);
  }

  /** A new session whose record is written before its initialize answer leaves. */
  create(openStreams: { count: number }, graceMs: number): LegacySession {
    const options: SharedOptions = {
      events: this.store.events, log: this.#log,
      keepRecord: (s) => this.records.create(s.id, recordOf(s)),
      refuse: (res, id, err) => {
        this.refuse(res, id, 'keeping the new session', err);
        // A write lost with its connection may still have landed: take it back, best effort (its TTL ends it otherwise).
        this.records.end(session.id).catch(() => undefined);
      },
    };
    const session = new LegacySession(this.core, openStreams, graceMs, options);
    session.conn.server.share(this.#link(session.id));
    return session;
  }

  /** This replica's copy of a session another replica started, as its record says. */
  copy(sid: string, rec: McpSessionRecord, openStreams: { count: number }, graceMs: number): LegacySession {
    const session = new LegacySession(this.core, openStreams, graceMs, { id: sid, events: this.store.events, log: this.#log });
    const lc = session.conn.lifecycle;
    lc.clientCapabilities = rec.capabilities;
    lc.clientInfo = rec.clientInfo;
    lc.initialized(rec.protocolVersion);
    session.conn.server.share(this.#link(sid));
    this.apply(session, rec);
    return session;
  }

  /** Takes what another replica changed: the log level, the subscriptions, who holds the GET stream. */
  apply(session: LegacySession, rec: McpSessionRecord): void {
    session.conn.server.restore({ logLevel: rec.logLevel, subscriptions: rec.subscriptions, initialized: rec.initialized });
    if (session.heldStream !== null && (rec.getHolder !== this.replicaId || rec.getStream !== session.heldStream)) session.dropLogged();
  }

  /** McpServer's store: each change is kept before it takes effect; a gone session or a down store fails the request. */
  #link(sid: string): SharedSession {
    return {
      save: async (change: SharedChange) => {
        let kept: boolean;
        try {
          kept = await this.records.change(sid, change);
        } catch (err) {
          if (err instanceof McpSessionLimitError) throw new InvalidParamsError(`Invalid params: ${err.message}`);
          throw storeFailure(this.store, 'keeping the session state', err).error;
        }
        if (!kept) throw new RpcError(ERROR_CODES.INVALID_REQUEST, 'Session not found: it ended or expired; initialize a new one');
      },
    };
  }
}

/** A new session's record, from what initialize negotiated. */
function recordOf(s: LegacySession): McpSessionRecord {
  const lc = s.conn.lifecycle;
  const version = (PROTOCOL_VERSIONS as readonly string[]).includes(lc.protocolVersion) ? lc.protocolVersion as ProtocolVersion : LATEST_PROTOCOL_VERSION;
  return {
    protocolVersion: version, capabilities: lc.clientCapabilities, clientInfo: lc.clientInfo,
    initialized: lc.initializedNotified, logLevel: null, subscriptions: [], getStream: null, getHolder: null,
  };
}
