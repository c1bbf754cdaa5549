// Bytes written to clients but not yet taken by them, per connection and over the whole server: the
// ledger that closes a connection too far behind, and the connections stalled longest when the
// total passes its bound. It never decides what is written; every response write passes through it.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { HeapRelief } from './heap-relief.js';

interface Entry {
  bytes: number;
  /** When this connection last went from nothing waiting to something waiting. */
  since: number;
}

export class UnreadLedger {
  readonly #entries = new Map<Socket, Entry>();
  readonly #total = { bytes: 0 };

  constructor(
    private readonly serverBytes: number,
    readonly connectionBytes: number,
    private readonly onCut: (socket: Socket, reason: string) => void,
    /** A connection left with `bytes` unread: they are garbage now, for the heap relief to collect. */
    private readonly onFreed: (bytes: number) => void = () => {},
  ) {}

  get total(): number { return this.#total.bytes; }

  /** A write onto `socket` must not happen: the client already left more than the per-connection bound unread. */
  behind(socket: Socket): boolean { return socket.writableLength > this.connectionBytes; }

  /** Brings the count of `socket` up to date (after a write, on drain); sheds the stalled when the total is over. */
  note(socket: Socket): void {
    let e = this.#entries.get(socket);
    if (!e) {
      if (socket.destroyed) return;
      e = { bytes: 0, since: Date.now() };
      this.#entries.set(socket, e);
      socket.on('drain', () => this.note(socket));
      socket.once('close', () => this.#forget(socket));
    }
    const now = socket.destroyed ? 0 : socket.writableLength;
    if (e.bytes === 0 && now > 0) e.since = Date.now();
    this.#total.bytes += now - e.bytes;
    e.bytes = now;
    if (this.#total.bytes > this.serverBytes) this.#shed();
  }

  /** Closes `socket` because its client is too slow; its bytes are freed. */
  cut(socket: Socket, reason: string): void {
    this.#forget(socket);
    if (socket.destroyed) return;
    this.onCut(socket, reason);
    socket.destroy();
  }

  #forget(socket: Socket): void {
    const e = this.#entries.get(socket);
    if (!e) return;
    this.#total.bytes -= e.bytes;
    this.#entries.delete(socket);
    if (e.bytes > 0) this.onFreed(e.bytes);
  }

  /** Over the server-wide bound: the connections whose unread bytes have waited longest go first. */
  #shed(): void {
    const stalled = [...this.#entries].filter(([, e]) => e.bytes > 0).sort((a, b) => a[1].since - b[1].since);
    for (const [socket, e] of stalled) {
      if (this.#total.bytes <= this.serverBytes) break;
      this.cut(socket, `${e.bytes} bytes unread for ${Date.now() - e.since} ms while all clients left ${this.#total.bytes} bytes unread (limit ${this.serverBytes}, http.max_unread_bytes)`);
    }
  }
}

type Method = (this: ServerResponse, ...args: unknown[]) => unknown;

/**
 * The response class of the HTTP server: every write is counted by `ledger`, and a write of data
 * onto a connection already over its per-connection bound closes it instead (the client stopped
 * reading); ending a response adds nothing to wait for, so it is always allowed.
 */
export function meteredResponse(ledger: UnreadLedger, relief: HeapRelief | null = null): typeof ServerResponse<IncomingMessage> {
  class Metered extends ServerResponse<IncomingMessage> {}
  const proto = Metered.prototype as unknown as Record<'write' | 'end', Method>;
  const base = ServerResponse.prototype as unknown as Record<'write' | 'end', Method>;
  for (const name of ['write', 'end'] as const) {
    proto[name] = function (this: ServerResponse, ...args: unknown[]): unknown {
      const socket = this.socket;
      const chunk = args[0];
      const carries = (typeof chunk === 'string' || chunk instanceof Uint8Array) && chunk.length > 0;
      if (socket && carries && ledger.behind(socket)) {
        ledger.cut(socket, `${socket.writableLength} bytes unread on one connection (limit ${ledger.connectionBytes})`);
        return name === 'write' ? false : this;
      }
      const out = base[name].apply(this, args);
      if (socket) ledger.note(socket);
      if (carries) relief?.wrote((chunk as string | Uint8Array).length);
      return out;
    };
  }
  return Metered;
}

/**
 * How many stateless (2026-07-28) requests run at once; the rest wait their turn, in order. Each is
 * a connection of its own, so nothing else bounds how many answers are being made at the same time:
 * 200 clients asking together would build 200 large answers before the ledger can count a byte of
 * any of them. A request leaves its place once its answer (or its stream's first event) is handed
 * to the ledger, or it ends; one whose client left while it waited never runs.
 */
export class AnswerGate {
  #running = 0;
  readonly #waiting: { start: () => void; gone: () => boolean }[] = [];

  constructor(readonly limit: number) {}

  get running(): number { return this.#running; }
  get waiting(): number { return this.#waiting.length; }

  /** Resolves with the release of a place (call it once); null if `gone()` became true while it waited. */
  enter(gone: () => boolean): Promise<(() => void) | null> {
    if (this.#running < this.limit) return Promise.resolve(this.#place());
    return new Promise((resolve) => {
      this.#waiting.push({ gone, start: () => resolve(gone() ? null : this.#place()) });
    });
  }

  #place(): () => void {
    this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#next();
    };
  }

  #next(): void {
    while (this.#running < this.limit && this.#waiting.length > 0) {
      // One whose client left resolves null and takes no place: the loop goes on to the next.
      this.#waiting.shift()!.start();
    }
  }
}
