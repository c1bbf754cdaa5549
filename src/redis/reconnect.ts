// Keeps one live connection: opens it, waits for it to end, and opens it again after an exponential,
// jittered, bounded backoff; it reports state changes. It never sends commands or retries them.
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisClosedError, RedisConnectionError, RedisError } from './errors.js';
import type { RedisConnection } from './socket.js';

export type RedisState = 'connecting' | 'connected' | 'disconnected' | 'closed';
export type StateEvent = { state: 'connected' } | { state: 'disconnected'; error: RedisError } | { state: 'closed' };

export interface Backoff {
  /** The first wait after a failure; it doubles per failed attempt. */
  minMs: number;
  /** The longest wait. */
  maxMs: number;
}

/** The wait before attempt `n` (0-based) after a failure: doubled each time, capped, then between half and all of it. */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const full = Math.min(backoff.maxMs, backoff.minMs * 2 ** Math.min(attempt, 30));
  return Math.round(full / 2 + (full / 2) * random());
}

export class Reconnector {
  readonly #open: (signal: AbortSignal) => Promise<RedisConnection>;
  readonly #backoff: Backoff;
  readonly #listeners = new Set<(event: StateEvent) => void>();
  readonly #stop = new AbortController();
  #state: RedisState = 'connecting';
  #conn: RedisConnection | null = null;
  #lastError: RedisError | null = null;

  constructor(open: (signal: AbortSignal) => Promise<RedisConnection>, backoff: Backoff) {
    this.#open = open;
    this.#backoff = backoff;
    void this.#run();
  }

  get state(): RedisState { return this.#state; }
  /** The live connection, or null while (re)connecting. */
  get connection(): RedisConnection | null { return this.#conn; }
  /** Why the last connection ended or the last attempt failed. */
  get lastError(): RedisError | null { return this.#lastError; }

  onState(listener: (event: StateEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  close(): void {
    if (this.#state === 'closed') return;
    this.#stop.abort();
    this.#conn?.close(new RedisClosedError());
    this.#conn = null;
    this.#emit({ state: 'closed' });
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let attempt = 0;
    while (!signal.aborted) {
      let conn: RedisConnection;
      try {
        conn = await this.#open(signal);
      } catch (err) {
        if (signal.aborted) return;
        this.#fail(err instanceof RedisError ? err : new RedisConnectionError(String(err), err));
        await this.#wait(attempt++);
        continue;
      }
      if (signal.aborted) { conn.close(new RedisClosedError()); return; }
      attempt = 0;
      this.#conn = conn;
      this.#emit({ state: 'connected' });
      const why = await conn.closed;
      this.#conn = null;
      if (signal.aborted) return;
      this.#fail(why);
      await this.#wait(attempt++);
    }
  }

  #fail(error: RedisError): void {
    this.#lastError = error;
    // One event per transition: a run of failed attempts while disconnected reports once.
    if (this.#state !== 'disconnected') this.#emit({ state: 'disconnected', error });
  }

  async #wait(attempt: number): Promise<void> {
    await sleep(backoffDelay(attempt, this.#backoff), undefined, { signal: this.#stop.signal }).catch(() => undefined);
  }

  #emit(event: StateEvent): void {
    this.#state = event.state;
    for (const listener of [...this.#listeners]) listener(event);
  }
}
