// One 2025-11-25 Streamable HTTP session: its connection to the core, the POSTs waiting for
// answers, its SSE streams, and the router that delivers each outgoing message to the right one.
// It never parses HTTP requests; server.ts hands it values and responses.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Core, WiredConnection } from '../core.js';
import type { RequestId } from '../rpc/jsonrpc.js';
import { BOUNDS } from '../bounds.js';
import type { RedisEventLog, Replay } from './event-log.js';
import type { Logger } from '../log.js';
import { LoggedStream } from './logged-stream.js';
import { SseStream } from './sse.js';
import { describe, sendJson, type Described } from './wire.js';

/** A client request whose answer has not been delivered yet. */
interface Pending {
  res: ServerResponse | null;
  /** Set once the answer became a stream (a notification came first, or the client wants SSE only). */
  stream: SseStream | null;
  sseOnly: boolean;
  canStream: boolean;
  progressToken: string | number | undefined;
}

/**
 * How a session shared between replicas reaches the store (given only with --store). Only the GET
 * stream is kept in the shared event log; the streams that answer a POST stay in this process, as
 * without a store: their request runs here, so a client resuming one must come back here.
 */
export interface SharedOptions {
  /** Its id: a new session's, made by the records (it carries the dataset marker), or a copy's, from another replica. */
  id?: string;
  events: RedisEventLog;
  log: Logger;
  /** A new session: resolves once its record is kept; the initialize answer waits for it. */
  keepRecord?: (session: LegacySession) => Promise<void>;
  /** Kept with each event of the GET stream: what the events so far told (the catalogue's digest). */
  mark?: () => string | null;
  /** The record could not be kept: answers the initialize request instead of its result. */
  refuse?: (res: ServerResponse, id: RequestId, err: unknown) => void;
  /**
   * The record could not be kept: true when the session should go on in this process alone (the
   * store is unreachable, so what needs no shared state keeps working), false to refuse it.
   */
  local?: (session: LegacySession, err: unknown) => boolean;
}

export class LegacySession {
  readonly id: string;
  readonly conn: WiredConnection;
  lastSeen = Date.now();
  readonly #pending = new Map<string, Pending>();
  readonly #streams = new Map<string, SseStream>();
  #standalone: SseStream | null = null;
  #nextStream = 1;
  #closed = false;
  readonly routed: Promise<void>;
  /** Set while the session is kept in the store; null for a session of this process alone (no store, or made while it was away). */
  #shared: SharedOptions | null;
  /** Shared: the GET stream kept in the event log, while this replica holds it. */
  #logged: LoggedStream | null = null;
  /** Shared: the first answer (initialize's) has gone out. */
  #answered = false;

  constructor(core: Core, private readonly openStreams: { count: number }, shutdownGraceMs: number, shared: SharedOptions | null = null) {
    this.id = shared?.id ?? randomBytes(24).toString('base64url');
    this.#shared = shared;
    this.conn = core.open({
      incomingCapacity: BOUNDS.http.sessionIncoming, outgoingCapacity: BOUNDS.http.sessionOutgoing,
      maxInFlight: BOUNDS.http.sessionInFlight, shutdownGraceMs,
    });
    this.routed = this.#route();
  }

  get closed(): boolean { return this.#closed; }
  /** Its record is in the store (any replica serves it); false for a session this process alone holds. */
  get shared(): boolean { return this.#shared !== null; }
  /** A request is waiting or a stream is attached: not idle, whatever lastSeen says. */
  get busy(): boolean { return this.#pending.size > 0 || this.#logged?.attached === true || [...this.#streams.values()].some((s) => s.attached); }
  /** Shared: the name of the GET stream this replica holds, if it does. */
  get heldStream(): string | null { return this.#logged?.token ?? null; }
  get headers(): Record<string, string> { return { 'mcp-session-id': this.id }; }

  hasPending(id: RequestId): boolean { return this.#pending.has(JSON.stringify(id)); }

  /** Registers where the answer to request `id` goes, then hands the request to the processor. */
  async request(id: RequestId, value: unknown, res: ServerResponse, want: { json: boolean; sse: boolean }, progressToken: string | number | undefined): Promise<void> {
    const key = JSON.stringify(id);
    const p: Pending = { res, stream: null, sseOnly: !want.json, canStream: want.sse, progressToken };
    this.#pending.set(key, p);
    if (p.sseOnly) this.#streamFor(p);
    // A closed POST is not a cancellation in this era: the answer is kept on its stream for resumption.
    res.on('close', () => { if (p.res === res) p.res = null; });
    await this.feed(value);
  }

  /** Notifications and the client's answers: no HTTP answer waits for them. */
  async feed(value: unknown): Promise<void> {
    this.lastSeen = Date.now();
    await this.conn.incoming.push({ kind: 'value', value }).catch(() => { /* session closing */ });
  }

  /** GET: the standalone stream, or a resumed one (Last-Event-ID); otherwise why it cannot be resumed. */
  openStream(res: ServerResponse, resume: { stream: string; seq: number } | null): true | string {
    this.lastSeen = Date.now();
    if (resume) {
      const s = this.#streams.get(resume.stream);
      if (!s) return 'no such stream in this session (it ended too long ago)';
      const problem = s.resumeProblem(resume.seq);
      if (problem !== null) return problem;
      this.#counted(res);
      s.attach(res, this.headers, resume.seq);
      return true;
    }
    this.#standalone ??= this.#newStream();
    this.#counted(res);
    this.#standalone.attach(res, this.headers);
    return true;
  }

  /**
   * Shared: the GET stream, kept in the event log, delivered here from now on (the record already
   * names this replica): the replayed events first, then live ones. `after` is the client's
   * Last-Event-ID number, null for a new GET.
   */
  openLogged(res: ServerResponse, token: string, replay: Replay | null, after: number | null): void {
    const shared = this.#shared;
    if (!shared) throw new TypeError('openLogged: this session is not shared');
    this.lastSeen = Date.now();
    if (this.#logged?.token !== token) {
      this.#logged?.release();
      this.#logged = new LoggedStream(token, this.id, shared.events, shared.log, shared.mark);
    }
    this.#counted(res);
    this.#logged.attach(res, this.headers, replay, after);
  }

  /** Shared: another replica took the GET stream; this one stops delivering the session's notifications. */
  dropLogged(): void {
    this.#logged?.release();
    this.#logged = null;
  }

  /** Ends the GET stream's response (shutdown); its events stay kept for resumption. */
  closeGetStream(): void { this.#standalone?.release(); this.#logged?.release(); }

  /** Ends the session: in-flight requests finish (or are stopped after the grace), streams end. */
  async close(): Promise<void> {
    if (this.#closed) return this.routed;
    this.#closed = true;
    this.conn.incoming.close();
    await this.conn.done;
    this.conn.outgoing.close();
    await this.routed;
    for (const s of this.#streams.values()) s.finish();
    this.#logged?.release();
    for (const p of this.#pending.values()) p.res?.end();
    this.#pending.clear();
  }

  #counted(res: ServerResponse): void {
    this.openStreams.count++;
    res.on('close', () => { this.openStreams.count--; });
  }

  #newStream(): SseStream {
    const s = new SseStream(String(this.#nextStream++), () => this.#forgetOld());
    this.#streams.set(s.id, s);
    this.#forgetOld();
    return s;
  }

  /**
   * Remembers a bounded number of finished streams for resumption, holding a bounded number of bytes
   * of events between them; the oldest go first, the newest always stays (as a stream keeps its last
   * event whatever its size). A count alone let 32 streams each keep an answer of up to
   * server.max_message_bytes that its client left unread, for as long as the session lived.
   */
  #forgetOld(): void {
    let count = this.#streams.size;
    let bytes = 0;
    let newest: SseStream | null = null;
    for (const s of this.#streams.values()) if (s.finished && !s.attached) { bytes += s.replayBytes; newest = s; }
    for (const [key, old] of this.#streams) {
      if (count <= BOUNDS.http.streamsRemembered && bytes <= BOUNDS.http.sessionReplayBytes) break;
      if (!old.finished || old.attached || old === newest) continue;
      this.#streams.delete(key);
      count--;
      bytes -= old.replayBytes;
    }
  }

  #streamFor(p: Pending): SseStream {
    if (p.stream) return p.stream;
    p.stream = this.#newStream();
    if (p.res) { this.#counted(p.res); p.stream.attach(p.res, this.headers); }
    return p.stream;
  }

  async #route(): Promise<void> {
    // One message per call: a suspended async function keeps its registers, so a loop here would
    // keep the last answer (up to server.max_message_bytes) reachable until the next one came.
    while (await this.#routeOne()) { /* the next */ }
  }

  /** Delivers the next outgoing message; false once the session's output is closed. */
  async #routeOne(): Promise<boolean> {
    const message = await this.conn.outgoing.shift();
    if (message === undefined) return false;
    let d: Described;
    try { d = describe(message); } catch { return true; }
    if (d.answerTo !== undefined && d.method === undefined) {
      if (!this.#answered && this.#shared?.keepRecord) await this.#first(d);
      else this.#answer(d);
    } else this.#other(d);
    return true;
  }

  /**
   * Shared: the initialize answer leaves only once the record is kept, so the client's next request
   * finds the session on any replica. When it cannot be kept, the client is told (retryable) and
   * the session ends here: nothing half-made stays. Routing waits meanwhile, so nothing overtakes it.
   */
  async #first(d: Described): Promise<void> {
    this.#answered = true;
    const shared = this.#shared!;
    if (d.errorCode !== undefined) { this.#answer(d); return; }
    try {
      await shared.keepRecord!(this);
    } catch (err) {
      if (shared.local?.(this, err) === true) {
        // Degraded, not refused: the session lives here alone, its state in this process as without a store.
        this.#shared = null;
        this.conn.server.share(null);
        this.#answer(d);
        return;
      }
      const key = JSON.stringify(d.answerTo);
      const p = this.#pending.get(key);
      this.#pending.delete(key);
      if (p?.res && !p.res.headersSent) shared.refuse?.(p.res, d.answerTo!, err);
      else p?.res?.end();
      void this.close();
      return;
    }
    this.#answer(d);
  }

  #answer(d: Described): void {
    const key = JSON.stringify(d.answerTo);
    const p = this.#pending.get(key);
    if (!p) return;
    this.#pending.delete(key);
    // A stream that finishes after its client left is weighed now (nothing else may come to do it).
    if (p.stream) { p.stream.send(d.text); p.stream.finish(); this.#forgetOld(); return; }
    if (p.res) sendJson(p.res, 200, d.text, this.headers);
  }

  /** Progress goes with its request; other notifications and server requests to the GET stream, else the newest open request. */
  #other(d: Described): void {
    if (d.progressToken !== undefined) {
      for (const p of this.#pending.values()) {
        if (p.progressToken === d.progressToken) { if (p.canStream) this.#streamFor(p).send(d.text); return; }
      }
      return;
    }
    // Shared: every replica's copy sees the same changes; only the holder of the GET stream tells the client.
    if (this.#shared) { this.#logged?.send(d.text); return; }
    if (this.#standalone) { this.#standalone.send(d.text); return; }
    let newest: Pending | null = null;
    for (const p of this.#pending.values()) if (p.res && p.canStream) newest = p;
    if (newest) this.#streamFor(newest).send(d.text);
  }
}
