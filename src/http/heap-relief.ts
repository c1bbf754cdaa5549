// Gives the heap back after bursts of large answers. Each large answer leaves several times its size
// of short-lived heap behind (the result, its JSON text, the bytes written); V8 collects that lazily,
// so 200 clients asking for 6 MB answers at once grew RSS by hundreds of MiB of garbage, and after
// they left it stayed up until V8's memory reducer happened to run. It never decides what is written.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A write of at least this many bytes counts as a large answer (ordinary answers are a few KiB). */
const LARGE_WRITE = 1024 * 1024;

/** A full collection; `thorough` also gives memory back to the system (as V8's memory reducer does, idle seconds later). */
export type Collect = (thorough: boolean) => void;

/** The engine's full collection, or null where it cannot be had (then nothing is forced). */
export function collector(): Collect | null {
  try {
    // Exposes gc() to contexts made from now on; the main context is unchanged.
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return null;
    const run = gc as (options?: Record<string, string>) => void;
    // 'last-resort' collects repeatedly and releases the freed pages and buffers at once; an engine
    // that does not know the option runs an ordinary full collection.
    return (thorough) => { if (thorough) run({ type: 'major', execution: 'sync', flavor: 'last-resort' }); else run(); };
  } catch {
    return null;
  }
}

export class HeapRelief {
  #since = 0;
  #quiet: NodeJS.Timeout | null = null;

  /**
   * `budget`: bytes of large answers made between two collections (the unread-answer bound: the
   * garbage of a burst stays within a few times it). `quietMs`: after the last large answer, one
   * more collection, so RSS comes back once the burst is over.
   */
  constructor(private readonly budget: number, private readonly quietMs = 1000, private readonly collect: Collect | null = collector()) {}

  /** A response write of `bytes` was handed to a socket. */
  wrote(bytes: number): void {
    if (bytes < LARGE_WRITE || this.collect === null) return;
    this.#since += bytes;
    if (this.#since >= this.budget) { this.#run(false); return; }
    this.#later();
  }

  /**
   * A connection closed with `bytes` of answers still unread: those buffers are garbage from now
   * on, and nothing else may make V8 collect soon (the clients that held them left): one quiet
   * collection gives them back.
   */
  freed(bytes: number): void {
    if (bytes < LARGE_WRITE || this.collect === null) return;
    this.#later();
  }

  #later(): void {
    if (this.#quiet) this.#quiet.refresh();
    else this.#quiet = setTimeout(() => this.#run(true), this.quietMs).unref();
  }

  /** Within a burst an ordinary collection (tens of ms); once it is over, a thorough one. */
  #run(thorough: boolean): void {
    if (this.#quiet) { clearTimeout(this.#quiet); this.#quiet = null; }
    this.#since = 0;
    this.collect?.(thorough);
  }

  close(): void {
    if (this.#quiet) clearTimeout(this.#quiet);
    this.#quiet = null;
  }
}
