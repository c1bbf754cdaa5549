// What the bridge does with Roo's TaskEvents: two bounded poll queues, waiters for the next matching
// event, and the facts about event names. It never touches a socket and never decides when to send.
import { isRecord } from '../rpc/jsonrpc.js';

/** One event as the rest of the server sees it (reference B2); `taskId` is Roo's numeric evals id. */
export interface RooEvent { eventName: string; payload?: unknown[]; taskId?: number }

/** The only event carrying the assistant/user message stream; everything else goes to the other queue. */
export const MESSAGE_EVENT = 'message';
/** Events that announce a freshly started task; their payload is `[taskId]` with Roo's string id. */
export const TASK_START_EVENTS: readonly string[] = ['taskCreated', 'taskStarted'];

/** The Get* commands and the event answering each one (reference B3); matched by event name only. */
export const QUERIES = {
  modes: { command: 'GetModes', response: 'modesResponse' },
  commands: { command: 'GetCommands', response: 'commandsResponse' },
  models: { command: 'GetModels', response: 'modelsResponse' },
} as const;
export type QueryKind = keyof typeof QUERIES;


/** True when a `message` event carries a message still being streamed (Roo's own test: partial === true). */
export function isPartialMessage(event: RooEvent): boolean {
  if (event.eventName !== MESSAGE_EVENT || !Array.isArray(event.payload)) return false;
  const first: unknown = event.payload[0];
  return isRecord(first) && isRecord(first.message) && first.message.partial === true;
}

/** Roo's string task id from a lifecycle payload `[taskId, …]`, or null. */
export function taskIdOf(event: RooEvent): string | null {
  if (!Array.isArray(event.payload)) return null;
  const first: unknown = event.payload[0];
  return typeof first === 'string' && first.length > 0 ? first : null;
}

/**
 * A fixed-capacity FIFO over a circular array: push and take are O(1) per item. When full — by
 * count, or by total weight (bytes) when `maxWeight` is given — a push drops the oldest items and
 * counts them, so a consumer that stops polling costs at most `capacity` items and `maxWeight`
 * bytes of memory (plus the newest item when it alone is heavier).
 */
export class RingBuffer<T> {
  readonly #items: (T | undefined)[];
  readonly #weights: number[];
  #head = 0;
  #size = 0;
  #weight = 0;
  #dropped = 0;

  constructor(readonly capacity: number, readonly maxWeight: number = Number.POSITIVE_INFINITY) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new TypeError(`capacity must be a positive integer, got ${capacity}`);
    if (!(maxWeight > 0)) throw new TypeError(`maxWeight must be positive, got ${maxWeight}`);
    this.#items = new Array<T | undefined>(capacity);
    this.#weights = new Array<number>(capacity).fill(0);
  }

  get size(): number { return this.#size; }
  /** Total weight held. */
  get weight(): number { return this.#weight; }
  /** Items dropped before anyone took them, since the buffer was created. */
  get dropped(): number { return this.#dropped; }

  push(item: T, weight = 0): void {
    while (this.#size > 0 && (this.#size >= this.capacity || this.#weight + weight > this.maxWeight)) {
      this.#shift();
      this.#dropped += 1;
    }
    const tail = (this.#head + this.#size) % this.capacity;
    this.#items[tail] = item;
    this.#weights[tail] = weight;
    this.#size += 1;
    this.#weight += weight;
  }

  /**
   * Removes and returns up to `limit` of the oldest items, stopping before the item that would
   * take their total weight past `maxWeight` (the first item is always taken).
   */
  take(limit: number, maxWeight: number = Number.POSITIVE_INFINITY): T[] {
    const out: T[] = [];
    let taken = 0;
    while (this.#size > 0 && out.length < limit) {
      const w = this.#weights[this.#head]!;
      if (out.length > 0 && taken + w > maxWeight) break;
      taken += w;
      out.push(this.#shift());
    }
    return out;
  }

  #shift(): T {
    const item = this.#items[this.#head] as T;
    this.#items[this.#head] = undefined;
    this.#weight -= this.#weights[this.#head]!;
    this.#weights[this.#head] = 0;
    this.#head = (this.#head + 1) % this.capacity;
    this.#size -= 1;
    return item;
  }
}

export interface PollResult { events: RooEvent[]; dropped: number; remaining: number }

/** One bounded queue (in events and, optionally, bytes) plus the drop count not yet reported to a poller. */
export class PollQueue {
  readonly #ring: RingBuffer<RooEvent>;
  #reportedDrops = 0;
  constructor(limit: number, maxBytes?: number) { this.#ring = new RingBuffer(limit, maxBytes); }
  get size(): number { return this.#ring.size; }
  get dropped(): number { return this.#ring.dropped; }
  push(event: RooEvent, bytes = 0): void { this.#ring.push(event, bytes); }
  /**
   * Up to `limit` events, and no more than `maxBytes` of them (at least one), so a poll answer
   * stays within the output limit. `dropped` counts the events lost since the previous poll, so a
   * gap in the stream is visible.
   */
  poll(limit: number, maxBytes?: number): PollResult {
    const events = this.#ring.take(limit, maxBytes);
    const dropped = this.#ring.dropped - this.#reportedDrops;
    this.#reportedDrops = this.#ring.dropped;
    return { events, dropped, remaining: this.#ring.size };
  }
}

/** The two queues the poll tools read: the `message` stream, and every other event. */
export class EventQueues {
  readonly messages: PollQueue;
  readonly other: PollQueue;
  constructor(limit: number, maxBytes?: number) {
    this.messages = new PollQueue(limit, maxBytes);
    this.other = new PollQueue(limit, maxBytes);
  }
  push(event: RooEvent, bytes = 0): void {
    (event.eventName === MESSAGE_EVENT ? this.messages : this.other).push(event, bytes);
  }
}

interface Waiter { match: (e: RooEvent) => boolean; resolve: (e: RooEvent) => void; reject: (err: Error) => void }

/**
 * Promises for "the next event that matches". Each waiter settles exactly once: on its event, on
 * its timeout, on its signal, or when `failAll` reports that the connection went away.
 */
export class EventWaiters {
  readonly #waiters = new Set<Waiter>();

  get size(): number { return this.#waiters.size; }

  wait(match: (e: RooEvent) => boolean, opts: { signal?: AbortSignal; timeoutMs: number; onTimeout: () => Error; onAbort: () => Error }): Promise<RooEvent> {
    return new Promise<RooEvent>((resolve, reject) => {
      if (opts.signal?.aborted) { reject(opts.onAbort()); return; }
      const done = (): void => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', abort);
        this.#waiters.delete(waiter);
      };
      const waiter: Waiter = {
        match,
        resolve: (e) => { done(); resolve(e); },
        reject: (err) => { done(); reject(err); },
      };
      const abort = (): void => waiter.reject(opts.onAbort());
      const timer = setTimeout(() => waiter.reject(opts.onTimeout()), opts.timeoutMs);
      opts.signal?.addEventListener('abort', abort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Settles every waiter whose predicate accepts the event. */
  deliver(event: RooEvent): void {
    for (const w of [...this.#waiters]) if (w.match(event)) w.resolve(event);
  }

  failAll(error: () => Error): void {
    for (const w of [...this.#waiters]) w.reject(error());
  }
}
