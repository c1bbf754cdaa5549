// The GET stream of a legacy session shared by replicas: every event is kept in the Redis event log
// first and written to the client only then, with the log's id, so a client that reconnects to any
// replica with Last-Event-ID gets what it missed. It never decides what to send, nor who sends it.
import type { ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { Replay, RedisEventLog } from './event-log.js';
import { SseStream } from './sse.js';

// Ordering: appends run one after another on one chain, so this replica's events get rising numbers
// and reach the socket in that order. Another replica may have appended to the same stream (it held
// it before and has not yet heard that it moved here): a number that skips ahead of the last one
// delivered is filled from the log first, so the client still sees every kept event once, in order.
// An event the log did not keep (Redis down) is never written: the response ends and the client
// resumes later from the last id it has.

/** The number of an event id `<token>-<n>`. */
const numberOf = (id: string): number => Number(id.slice(id.lastIndexOf('-') + 1));

export class LoggedStream {
  readonly #out: SseStream;
  #res: ServerResponse | null = null;
  /** The last event number the current response was given; null until one is known. */
  #last: number | null = null;
  #chain: Promise<void> = Promise.resolve();

  constructor(
    readonly token: string,
    private readonly owner: string,
    private readonly log: RedisEventLog,
    private readonly logger: Logger,
    /** What the events so far told (the catalogue's digest), kept with each event; null: nothing to keep. */
    private readonly mark: () => string | null = () => null,
  ) {
    this.#out = new SseStream(token, () => { this.#res = null; this.#last = null; });
  }

  get attached(): boolean { return this.#out.attached; }

  /**
   * Starts delivery on `res`: the events of `replay` (those after the client's Last-Event-ID), then
   * whatever the log got meanwhile, then live events. Without a replay, only events from now on.
   */
  attach(res: ServerResponse, headers: Record<string, string>, replay: Replay | null, after: number | null): void {
    this.#out.attach(res, headers);
    this.#res = res;
    this.#last = after;
    for (const e of replay?.events ?? []) {
      this.#out.deliver(e.data, e.id);
      this.#last = numberOf(e.id);
    }
    if (this.#last !== null) this.#queue(() => this.#catchUp(res));
  }

  /** Keeps one event in the log, then writes it (and any other replica's events before it) to the client. */
  send(text: string | Buffer): void {
    const data = typeof text === 'string' ? text : text.toString('utf8');
    // Taken now, as the event is made: the catalogue it speaks of, not one loaded while it waits.
    const mark = this.mark() ?? undefined;
    this.#queue(async () => {
      const id = await this.log.append(this.owner, this.token, data, mark);
      const res = this.#res;
      if (!res) return;
      const n = numberOf(id);
      if (this.#last !== null && n > this.#last + 1) { await this.#catchUp(res); return; }
      this.#out.deliver(data, id);
      this.#last = n;
    });
  }

  /** Ends the current response; the stream stays resumable from the log. */
  release(): void {
    this.#res = null;
    this.#last = null;
    this.#out.release();
  }

  #queue(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((err: unknown) => {
      // Not kept, or not readable: end this response rather than write around a gap.
      this.logger.warn(`GET stream ${this.token} of an MCP session ended: ${(err as Error).message}; the client may resume with Last-Event-ID`);
      this.release();
    });
  }

  /** Delivers every kept event after the last one the response has, in order. */
  async #catchUp(res: ServerResponse): Promise<void> {
    if (this.#last === null || this.#res !== res) return;
    const r = await this.log.replay(this.owner, `${this.token}-${this.#last}`, this.token);
    if (this.#res !== res) return;
    for (const e of r.events) {
      this.#out.deliver(e.data, e.id);
      this.#last = numberOf(e.id);
    }
  }
}
