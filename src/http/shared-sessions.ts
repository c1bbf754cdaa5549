// With --store, the legacy sessions of every replica in one Redis: the record a new session writes,
// the copy a replica makes of a session another started (and refreshes or closes on their news), the
// GET stream opened or resumed from the event log; what each failure or miss answers is in
// store-answers.ts. It never reads an HTTP request; the door (server.ts) hands it ids, headers and responses.
import type { ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import { catalogueDigest } from '../modes/catalogue-digest.js';
import type { ModeRegistry } from '../modes/registry.js';
import type { Logger } from '../log.js';
import { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, type ProtocolVersion } from '../mcp/lifecycle.js';
import type { SharedChange, SharedSession } from '../mcp/server-ports.js';
import { ERROR_CODES, InvalidParamsError, RpcError } from '../rpc/errors.js';
import type { RequestId } from '../rpc/jsonrpc.js';
import { RedisEventLog, ResumeRefusedError, type Replay } from './event-log.js';
import { McpSessionLimitError, McpSessionRecords, McpSessionsFullError, type McpGone, type McpSessionNews, type McpSessionRecord } from './session-records.js';
import { RedisError } from '../redis/errors.js';
import { GONE, NOT_FOUND, storeFailure } from './store-answers.js';
import type { SharedStore } from '../redis/shared-store.js';
import { BOUNDS } from '../bounds.js';
import { LegacySession, type SharedOptions } from './session.js';
import { parseEventId } from './sse.js';
import { sendRpcError } from './wire.js';

/** The door's sessions of this process, as this module may use them. */
export interface SessionTable {
  get(sid: string): LegacySession | undefined;
  all(): Iterable<LegacySession>;
  /** Keeps a session until its connection is done. */
  hold(session: LegacySession): void;
  /** Drops and closes a session (it ended elsewhere, or its record is gone). */
  forget(session: LegacySession): void;
  /** Makes room for one more session if it can; false when this replica is full. */
  room(): boolean;
  openStreams: { count: number };
  graceMs: number;
}

export class SharedSessions {
  readonly records: McpSessionRecords;
  readonly events: RedisEventLog;
  readonly #log: Logger;
  readonly #table: SessionTable;
  /** Copies being made of sessions started elsewhere: concurrent requests of one session share one. */
  readonly #copying = new Map<string, Promise<LegacySession | null>>();
  /** The catalogue whose changes this replica's sessions hear of (set once loaded). */
  #modes: ModeRegistry | null = null;
  /** An eviction was logged, the cap was met (each once per process). */
  #evictionTold = false;
  #capTold = false;
  /** New sessions are made local because the store is away: said once when it starts, once when it ends. */
  #degraded = false;

  constructor(readonly store: SharedStore, private readonly core: Core, log: Logger, table: SessionTable) {
    this.records = new McpSessionRecords(store.client, {
      replicaId: store.replicaId, prefix: store.prefix, marker: store.marker, maxSessions: core.config.store.max_mcp_sessions,
    });
    this.events = new RedisEventLog(store.client, { prefix: store.prefix });
    this.#log = log;
    this.#table = table;
    log.debug('legacy MCP sessions are shared through the store: the server sends no requests to clients (roots/list is not asked), the configured project root is used');
    const records = this.records;
    store.listen(records.channel, (message) => {
      const news = records.readNews(message);
      if (typeof news === 'string') { log.warn(`dropped a message on ${records.channel}: ${news}`); return; }
      if (news.origin !== store.replicaId) this.#news(news);
    }, () => { for (const s of table.all()) if (s.shared) void this.#refresh(s); });
    core.modes().then((m) => { this.#modes = m; }, () => { /* logged by the loader */ });
  }

  get replicaId(): string { return this.store.replicaId; }

  /** The digest of this replica's catalogue, null before it is loaded. */
  #digest(): string | null {
    return this.#modes ? catalogueDigest(this.#modes.current) : null;
  }

  /**
   * The session `sid` on this replica, its record checked and its TTL refreshed: the copy held here,
   * or one made now from the record. null when `sid` is not an id this server hands out; 'answered'
   * when `res` was answered instead: 404 with why the session is gone, or 503 (the store is down, or
   * this replica is full).
   */
  async find(sid: string, res: ServerResponse, id: RequestId | null): Promise<LegacySession | null | 'answered'> {
    const held = this.#table.get(sid);
    try {
      let found: LegacySession | null;
      if (held && !held.closed) {
        let live: boolean;
        try { live = await this.records.touch(sid); } catch (err) {
          // The store is away: a copy held here goes on serving (what needs the store still fails on
          // its own); an end decided elsewhere meanwhile reaches this copy when the store is back.
          if (err instanceof RedisError && err.retryable) return held;
          throw err;
        }
        if (!live) this.#table.forget(held);
        found = live ? held : null;
      } else {
        let making = this.#copying.get(sid);
        if (!making) {
          making = this.#copy(sid).finally(() => this.#copying.delete(sid));
          this.#copying.set(sid, making);
        }
        found = await making;
      }
      if (found !== null) return found;
      sendRpcError(res, 404, id, ERROR_CODES.INVALID_REQUEST, await this.#whyGone(sid));
      return 'answered';
    } catch (err) {
      if (err instanceof TypeError) return null; // not an id this server hands out
      if (err instanceof SessionsFull) {
        sendRpcError(res, 503, id, ERROR_CODES.INVALID_REQUEST, err.message, undefined, { 'retry-after': String(BOUNDS.http.retryAfterS) });
      } else this.refuse(res, id, 'finding the session', err);
      return 'answered';
    }
  }

  /** The 404 text for a session without a record: why it went, as far as the store can tell. */
  async #whyGone(sid: string): Promise<string> {
    let why: McpGone;
    try { why = await this.records.why(sid); } catch (err) {
      this.#log.debug(`could not ask the store why MCP session ${sid.slice(0, 8)}… is gone`, err);
      return NOT_FOUND;
    }
    // Told once per process: the operator's setting to fix, not one line per lost session.
    if (why === 'evicted' && !this.#evictionTold) {
      this.#evictionTold = true;
      this.#log.warn('an MCP session record vanished from the store before it expired: Redis evicts keys to free memory (maxmemory-policy); set maxmemory-policy noeviction (docs/deployment.md, "Redis settings")');
    }
    return GONE[why];
  }

  async #copy(sid: string): Promise<LegacySession | null> {
    const rec = await this.records.load(sid);
    if (rec === null || !(await this.records.touch(sid))) return null;
    const held = this.#table.get(sid);
    if (held && !held.closed) return held;
    if (!this.#table.room()) throw new SessionsFull();
    const session = this.#fromRecord(sid, rec);
    this.#table.hold(session);
    return session;
  }

  /**
   * GET: the stream lives in the event log under the session, named in its record, so any replica
   * resumes it. Refusals are answered before anything changes; then the record names this replica
   * as the one that delivers the session's notifications, and delivery starts.
   */
  async openGet(session: LegacySession, res: ServerResponse, last: string | undefined): Promise<void> {
    const sid = session.id;
    // Opened only once the mode files are watched here (as subscriptions/listen is acknowledged):
    // an edit made after the client sees the stream open is then always announced on it.
    this.#modes ??= await this.core.modes().catch(() => null);
    try {
      const rec = await this.records.load(sid);
      if (rec === null) { this.#table.forget(session); sendRpcError(res, 404, null, ERROR_CODES.INVALID_REQUEST, await this.#whyGone(sid)); return; }
      let replay: Replay | null = null;
      let after: number | null = null;
      let token = rec.getStream;
      if (last !== undefined) {
        // An id of no stream at all is malformed; one of a stream this session never had is unknown.
        const parsed = parseEventId(last);
        if (parsed === null || token === null) throw new ResumeRefusedError(parsed === null ? 'malformed' : 'unknown_stream', last);
        replay = await this.events.replay(sid, last, token);
        after = parsed.seq;
      }
      token ??= this.events.newStream();
      // A resumed stream whose events last told of another catalogue than this replica's (each event
      // is kept with the digest of the catalogue it spoke of; the record has the one at the first
      // GET) missed changes nobody logged: its holder died before telling them.
      const now = this.#digest();
      const missed = replay !== null && now !== null && (replay.mark ?? rec.seen) !== now;
      if (!(await this.records.change(sid, { getStream: token, getHolder: this.replicaId, ...(now === null ? {} : { seen: now }) }))) {
        this.#table.forget(session);
        sendRpcError(res, 404, null, ERROR_CODES.INVALID_REQUEST, await this.#whyGone(sid));
        return;
      }
      this.#apply(session, { ...rec, getStream: token, getHolder: this.replicaId });
      session.openLogged(res, token, replay, after);
      // Said as "everything may have changed": the client reads again what it cares about.
      if (missed) {
        // Subscribed modes that are gone now count too: their readers must learn they went.
        const gone = rec.subscriptions.map((uri) => /^mode:\/\/([^/]+)/.exec(uri)?.[1]).filter((slug): slug is string => slug !== undefined);
        session.conn.server.modesChanged([...new Set([...this.#modes!.current.slugs(), ...gone])], true, true);
      }
    } catch (err) {
      if (err instanceof ResumeRefusedError) {
        sendRpcError(res, err.status, null, ERROR_CODES.INVALID_REQUEST, err.status === 400 ? `Bad Request: ${err.message}` : err.message);
        return;
      }
      this.refuse(res, null, 'opening the GET stream', err);
    }
  }

  /** Another replica ended a session or changed its state: close or refresh the copy held here. */
  #news(news: McpSessionNews): void {
    const session = this.#table.get(news.sid);
    if (!session?.shared) return;
    if (news.what === 'ended') this.#table.forget(session);
    else void this.#refresh(session);
  }

  async #refresh(session: LegacySession): Promise<void> {
    try {
      const rec = await this.records.load(session.id);
      if (rec === null) this.#table.forget(session);
      else this.#apply(session, rec);
    } catch (err) {
      // The next request of the session checks the record again.
      this.#log.warn(`could not refresh MCP session ${session.id.slice(0, 8)}… from the store: ${(err as Error).message}`);
    }
  }

  /** Answers `res` with what the failure means (503 + Retry-After when a retry may succeed). */
  refuse(res: ServerResponse, id: RequestId | null, doing: string, err: unknown): void {
    const f = storeFailure(this.store, this.core.config.sessions.timeout, doing, err);
    // The cap is the deployment working as configured: said once, not once per refused client.
    const atCap = err instanceof McpSessionsFullError;
    if (atCap ? !this.#capTold : f.status >= 500) this.#log.warn(`${doing}: ${(err as Error).message}${atCap ? '; new sessions get 503 until some end or expire (said once)' : ''}`);
    if (atCap) this.#capTold = true;
    sendRpcError(res, f.status, id, f.error.code, f.error.message, f.error.data, f.headers);
  }

  /** A new session whose record is written before its initialize answer leaves. */
  create(): LegacySession {
    const options: SharedOptions = {
      id: this.records.newId(), events: this.events, log: this.#log, mark: () => this.#digest(),
      keepRecord: async (s) => {
        await this.records.create(s.id, recordOf(s));
        if (this.#degraded) {
          this.#degraded = false;
          this.#log.info('the store is back: new legacy MCP sessions are shared between the replicas again (those made meanwhile stay on this replica until they end)');
        }
      },
      local: (s, err) => this.#local(s, err),
      refuse: (res, id, err) => {
        this.refuse(res, id, 'keeping the new session', err);
        // A write lost with its connection may still have landed: take it back, best effort (its TTL
        // ends it otherwise). A refusal at the cap wrote nothing: no news to send every replica.
        if (!(err instanceof McpSessionsFullError)) this.records.end(session.id).catch(() => undefined);
      },
    };
    const session = new LegacySession(this.core, this.#table.openStreams, this.#table.graceMs, options);
    session.conn.server.share(this.#link(session.id));
    return session;
  }

  /**
   * Degrade, don't refuse: a new session whose record cannot be written because the store is away
   * (unreachable, loading, too slow to answer) goes on as a session of this process alone. What
   * needs no shared state (the mode lists and info, resources, prompts) works in it; the task tools
   * answer their retryable error until the store is back. A refusal at the cap, or by data that is
   * not ours, stays a refusal: the store answered.
   */
  #local(session: LegacySession, err: unknown): boolean {
    if (!(err instanceof RedisError) || !err.retryable) return false;
    // A timed-out write may still have landed: take it back, best effort (its TTL ends it otherwise).
    if (err.kind === 'timeout') this.records.end(session.id).catch(() => undefined);
    if (!this.#degraded) {
      this.#degraded = true;
      this.#log.warn(`the store ${this.store.shownUrl} is unreachable (${err.message}): new legacy MCP sessions are kept on this replica alone until it is back (mode lists and info, resources and prompts work in them; task tools answer "retry later"; a balancer must send their requests here); said once per outage`);
    }
    return true;
  }

  /** This replica's copy of a session another replica started, as its record says. */
  #fromRecord(sid: string, rec: McpSessionRecord): LegacySession {
    const session = new LegacySession(this.core, this.#table.openStreams, this.#table.graceMs, {
      id: sid, events: this.events, log: this.#log, mark: () => this.#digest(),
    });
    const lc = session.conn.lifecycle;
    lc.clientCapabilities = rec.capabilities;
    lc.clientInfo = rec.clientInfo;
    lc.initialized(rec.protocolVersion);
    session.conn.server.share(this.#link(sid));
    this.#apply(session, rec);
    return session;
  }

  /** Takes what another replica changed: the log level, the subscriptions, who holds the GET stream. */
  #apply(session: LegacySession, rec: McpSessionRecord): void {
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
          throw storeFailure(this.store, this.core.config.sessions.timeout, 'keeping the session state', err).error;
        }
        if (!kept) throw new RpcError(ERROR_CODES.INVALID_REQUEST, 'Session not found: it ended or expired; initialize a new one');
      },
    };
  }
}

/** This replica holds as many sessions as it may and none is idle: a copy of one more must wait. */
class SessionsFull extends Error {
  constructor() { super(`too many sessions held by this server (${BOUNDS.http.maxSessions}); try later`); this.name = new.target.name; }
}

/** A new session's record, from what initialize negotiated. */
function recordOf(s: LegacySession): McpSessionRecord {
  const lc = s.conn.lifecycle;
  const version = (PROTOCOL_VERSIONS as readonly string[]).includes(lc.protocolVersion) ? lc.protocolVersion as ProtocolVersion : LATEST_PROTOCOL_VERSION;
  return {
    protocolVersion: version, capabilities: lc.clientCapabilities, clientInfo: lc.clientInfo,
    initialized: lc.initializedNotified, logLevel: null, subscriptions: [], getStream: null, getHolder: null, seen: null,
  };
}
