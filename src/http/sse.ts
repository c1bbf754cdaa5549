// One server-sent-event stream: numbered events, a bounded replay buffer for Last-Event-ID
// resumption, events held while the client catches up, and a cut-off for clients that stop
// reading. It never decides what to send.
import type { ServerResponse } from 'node:http';
import { BOUNDS } from '../bounds.js';
import { LARGE_BYTES, largeBytes } from '../pipeline/large-bytes.js';

const HTTP = BOUNDS.http;

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** One SSE event carrying `json` (bytes are joined once, never turned into a string). */
export function sseFrame(json: string | Buffer, id?: string): string | Buffer {
  const head = `${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: `;
  return typeof json === 'string' ? `${head}${json}\n\n` : json.length > LARGE_BYTES ? largeBytes([head, json, '\n\n']) : Buffer.concat([Buffer.from(head), json, Buffer.from('\n\n')]);
}

/** Splits an event id "S-N" into stream S and sequence N. */
export function parseEventId(id: string): { stream: string; seq: number } | null {
  const m = /^([A-Za-z0-9]+)-(\d+)$/.exec(id.trim());
  return m ? { stream: m[1]!, seq: Number(m[2]) } : null;
}

export class SseStream {
  #seq = 0;
  readonly #replay: { seq: number; frame: string | Buffer }[] = [];
  #replayBytes = 0;
  #res: ServerResponse | null = null;
  /** Events not yet handed to the socket because the client has not taken the earlier ones. */
  #held: (string | Buffer)[] = [];
  #heldBytes = 0;
  /** The last event was sent: a reattached client gets the replay and then the end. */
  finished = false;

  constructor(readonly id: string, private readonly onDetach: (s: SseStream) => void = () => {}) {}

  get attached(): boolean { return this.#res !== null; }

  /** Bytes of the events kept for resumption. */
  get replayBytes(): number { return this.#replayBytes; }

  /**
   * Whether a client that saw event `afterSeq` can be given everything after it: not when that
   * event was never sent, nor when events after it were already let go (a resume with a silent
   * gap would lose messages). Returns why not, or null.
   */
  resumeProblem(afterSeq: number): string | null {
    if (afterSeq > this.#seq) return `event ${this.id}-${afterSeq} was never sent (the stream is at ${this.#seq})`;
    const first = this.#replay[0]?.seq ?? this.#seq + 1;
    if (afterSeq + 1 < first) return `the events after ${this.id}-${afterSeq} are no longer kept (the oldest kept is ${this.id}-${first})`;
    return null;
  }

  /** Starts (or resumes) delivery on `res`, replaying every kept event after `afterSeq`. */
  attach(res: ServerResponse, headers: Record<string, string>, afterSeq = this.#seq): void {
    this.#res?.end();
    this.#res = res;
    this.#drop();
    if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.on('close', () => { if (this.#res === res) { this.#res = null; this.#drop(); this.onDetach(this); } });
    res.on('drain', () => { if (this.#res === res) this.#flush(res); });
    for (const e of this.#replay) if (e.seq > afterSeq) this.#write(e.frame);
    if (this.finished) this.#close();
    else res.flushHeaders();
  }

  send(json: string | Buffer): void {
    const seq = ++this.#seq;
    const frame = sseFrame(json, `${this.id}-${seq}`);
    this.#replay.push({ seq, frame });
    this.#replayBytes += frame.length;
    while (this.#replay.length > HTTP.replayEvents || (this.#replayBytes > HTTP.replayBytes && this.#replay.length > 1)) {
      this.#replayBytes -= this.#replay.shift()!.frame.length;
    }
    this.#write(frame);
  }

  /** Writes one event whose id another keeper assigned (the shared event log); nothing is kept here. */
  deliver(json: string | Buffer, id: string): void {
    this.#write(sseFrame(json, id));
  }

  /** The stream's last event was sent. */
  finish(): void {
    this.finished = true;
    this.#close();
  }

  /** Ends the current response without finishing the stream (it can be resumed). */
  release(): void {
    const res = this.#res;
    this.#res = null;
    this.#drop();
    res?.end();
  }

  /**
   * Hands a frame to the socket when the client has taken what was written before; otherwise
   * holds it. One frame of any size is delivered to a reading client; a client that lets more
   * than the per-connection bound pile up is cut (it may resume from the replay buffer).
   */
  #write(frame: string | Buffer): void {
    const res = this.#res;
    if (!res) return;
    if (this.#held.length === 0 && !res.writableNeedDrain) { res.write(frame); return; }
    this.#held.push(frame);
    this.#heldBytes += frame.length;
    if (this.#held.length > 1 && this.#heldBytes > HTTP.connectionUnreadBytes) {
      this.#res = null;
      this.#drop();
      res.destroy();
      this.onDetach(this);
    }
  }

  #flush(res: ServerResponse): void {
    while (this.#held.length > 0 && !res.writableNeedDrain) {
      const frame = this.#held.shift()!;
      this.#heldBytes -= frame.length;
      res.write(frame);
    }
    if (this.#held.length === 0 && this.finished) this.#close();
  }

  #drop(): void {
    this.#held = [];
    this.#heldBytes = 0;
  }

  #close(): void {
    // Held frames go first; the end follows them on the last drain.
    if (this.#held.length > 0) return;
    const res = this.#res;
    this.#res = null;
    if (!res) return;
    // A finished stream whose every byte went out has nothing left to resume: its events are let go.
    res.once('finish', () => { this.#replay.length = 0; this.#replayBytes = 0; });
    res.end();
  }
}
