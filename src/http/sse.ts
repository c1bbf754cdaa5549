// One server-sent-event stream: numbered events, a bounded replay buffer for Last-Event-ID
// resumption, and a cut-off for clients that stop reading. It never decides what to send.
import type { ServerResponse } from 'node:http';
import { HTTP_LIMITS } from './limits.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** Splits an event id "S-N" into stream S and sequence N. */
export function parseEventId(id: string): { stream: string; seq: number } | null {
  const m = /^([A-Za-z0-9]+)-(\d+)$/.exec(id.trim());
  return m ? { stream: m[1]!, seq: Number(m[2]) } : null;
}

export class SseStream {
  #seq = 0;
  readonly #replay: { seq: number; frame: string }[] = [];
  #replayBytes = 0;
  #res: ServerResponse | null = null;
  /** The last event was sent: a reattached client gets the replay and then the end. */
  finished = false;

  constructor(readonly id: string, private readonly onDetach: (s: SseStream) => void = () => {}) {}

  get attached(): boolean { return this.#res !== null; }

  /** Starts (or resumes) delivery on `res`, replaying every kept event after `afterSeq`. */
  attach(res: ServerResponse, headers: Record<string, string>, afterSeq = this.#seq): void {
    this.#res?.end();
    this.#res = res;
    if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.on('close', () => { if (this.#res === res) { this.#res = null; this.onDetach(this); } });
    for (const e of this.#replay) if (e.seq > afterSeq) this.#write(e.frame);
    if (this.finished) this.#close();
    else res.flushHeaders();
  }

  send(json: string): void {
    const seq = ++this.#seq;
    const frame = `id: ${this.id}-${seq}\nevent: message\ndata: ${json}\n\n`;
    this.#replay.push({ seq, frame });
    this.#replayBytes += frame.length;
    while (this.#replay.length > HTTP_LIMITS.replayEvents || (this.#replayBytes > HTTP_LIMITS.replayBytes && this.#replay.length > 1)) {
      this.#replayBytes -= this.#replay.shift()!.frame.length;
    }
    this.#write(frame);
  }

  /** The stream's last event was sent. */
  finish(): void {
    this.finished = true;
    this.#close();
  }

  #write(frame: string): void {
    const res = this.#res;
    if (!res) return;
    res.write(frame);
    // A client that stopped reading would make us buffer without bound: cut it; it may resume.
    if (res.writableLength > HTTP_LIMITS.streamBacklogBytes) { this.#res = null; res.destroy(); this.onDetach(this); }
  }

  #close(): void {
    const res = this.#res;
    this.#res = null;
    res?.end();
  }
}
