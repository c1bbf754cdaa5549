// One 2025-11-25 Streamable HTTP session: its connection to the core, the POSTs waiting for
// answers, its SSE streams, and the router that delivers each outgoing message to the right one.
// It never parses HTTP requests; server.ts hands it values and responses.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Core, Connection } from '../connection.js';
import type { RequestId } from '../rpc/jsonrpc.js';
import { BOUNDS } from '../bounds.js';
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

export class LegacySession {
  readonly id = randomBytes(24).toString('base64url');
  readonly conn: Connection;
  lastSeen = Date.now();
  readonly #pending = new Map<string, Pending>();
  readonly #streams = new Map<string, SseStream>();
  #standalone: SseStream | null = null;
  #nextStream = 1;
  #closed = false;
  readonly routed: Promise<void>;

  constructor(core: Core, private readonly openStreams: { count: number }, shutdownGraceMs: number) {
    this.conn = core.open({
      incomingCapacity: BOUNDS.http.sessionIncoming, outgoingCapacity: BOUNDS.http.sessionOutgoing,
      maxInFlight: BOUNDS.http.sessionInFlight, shutdownGraceMs,
    });
    this.routed = this.#route();
  }

  get closed(): boolean { return this.#closed; }
  /** A request is waiting or a stream is attached: not idle, whatever lastSeen says. */
  get busy(): boolean { return this.#pending.size > 0 || [...this.#streams.values()].some((s) => s.attached); }
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

  /** Ends the GET stream's response (shutdown); its events stay kept for resumption. */
  closeGetStream(): void { this.#standalone?.release(); }

  /** Ends the session: in-flight requests finish (or are stopped after the grace), streams end. */
  async close(): Promise<void> {
    if (this.#closed) return this.routed;
    this.#closed = true;
    this.conn.incoming.close();
    await this.conn.done;
    this.conn.outgoing.close();
    await this.routed;
    for (const s of this.#streams.values()) s.finish();
    for (const p of this.#pending.values()) p.res?.end();
    this.#pending.clear();
  }

  #counted(res: ServerResponse): void {
    this.openStreams.count++;
    res.on('close', () => { this.openStreams.count--; });
  }

  #newStream(): SseStream {
    const s = new SseStream(String(this.#nextStream++));
    this.#streams.set(s.id, s);
    // Remember a bounded number of streams for resumption (oldest finished ones go first).
    if (this.#streams.size > BOUNDS.http.streamsRemembered) {
      for (const [key, old] of this.#streams) {
        if (old.finished) { this.#streams.delete(key); break; }
      }
    }
    return s;
  }

  #streamFor(p: Pending): SseStream {
    if (p.stream) return p.stream;
    p.stream = this.#newStream();
    if (p.res) { this.#counted(p.res); p.stream.attach(p.res, this.headers); }
    return p.stream;
  }

  async #route(): Promise<void> {
    for await (const message of this.conn.outgoing) {
      let d: Described;
      try { d = describe(message); } catch { continue; }
      if (d.answerTo !== undefined && d.method === undefined) this.#answer(d);
      else this.#other(d);
    }
  }

  #answer(d: Described): void {
    const key = JSON.stringify(d.answerTo);
    const p = this.#pending.get(key);
    if (!p) return;
    this.#pending.delete(key);
    if (p.stream) { p.stream.send(d.text); p.stream.finish(); return; }
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
    if (this.#standalone) { this.#standalone.send(d.text); return; }
    let newest: Pending | null = null;
    for (const p of this.#pending.values()) if (p.res && p.canStream) newest = p;
    if (newest) this.#streamFor(newest).send(d.text);
  }
}
