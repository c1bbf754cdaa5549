// Gives the heap back after bursts of large answers. Each large answer leaves several times its size
// of short-lived heap behind (the result, its JSON text, the bytes written); V8 collects that lazily,
// so 200 clients asking for 6 MB answers at once grew RSS by hundreds of MiB of garbage, and after
// they left it stayed up until V8's memory reducer happened to run. It never decides what is written.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A write of at least this many bytes counts as a large answer (ordinary answers are a few KiB). */
const LARGE_WRITE = 1024 * 1024;

/** A full collection of the heap. */
export type Collect = () => void;

/** The engine's full collection, or null where it cannot be had (then nothing is forced). */
export function collector(): Collect | null {
  try {
    // Exposes gc() to contexts made from now on; the main context is unchanged.
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return null;
    // Called without options: Node 20's engine takes an options object ({ type: 'major', … }) and
    // collects nothing, so that form left the burst's garbage in place until V8's memory reducer
    // ran, 10 s or more later. This frees the burst's strings and buffers at once (the young
    // generation shrinks only in a later one: see HeapRelief's settleMs).
    return gc as Collect;
  } catch {
    return null;
  }
}

export class HeapRelief {
  #since = 0;
  #quiet: NodeJS.Timeout | null = null;
  #settle: NodeJS.Timeout | null = null;

  /**
   * `budget`: bytes of large answers made between two collections (the unread-answer bound: the
   * garbage of a burst stays within a few times it). `quietMs`: after the last large answer, one
   * more collection, which frees the burst's garbage. `settleMs` after that, if nothing large
   * happened meanwhile, a last one: V8 shrinks its young generation (grown during the burst, some
   * 7 MB of RSS) only in a collection made while its allocation rate over the last 5 s is low, and
   * otherwise waits for its memory reducer, 10 s or more after the burst.
   */
  constructor(
    private readonly budget: number,
    private readonly quietMs = 1000,
    private readonly collect: Collect | null = collector(),
    private readonly settleMs = 5500,
  ) {}

  /** A response write of `bytes` was handed to a socket. */
  wrote(bytes: number): void {
    if (bytes < LARGE_WRITE || this.collect === null) return;
    this.#unsettle();
    this.#since += bytes;
    if (this.#since >= this.budget) { this.#run(); return; }
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
    this.#unsettle();
    if (this.#quiet) this.#quiet.refresh();
    else {
      this.#quiet = setTimeout(() => {
        this.#run();
        this.#settle = setTimeout(() => { this.#settle = null; this.collect?.(); }, this.settleMs).unref();
      }, this.quietMs).unref();
    }
  }

  #unsettle(): void {
    if (this.#settle) clearTimeout(this.#settle);
    this.#settle = null;
  }

  #run(): void {
    if (this.#quiet) { clearTimeout(this.#quiet); this.#quiet = null; }
    this.#since = 0;
    this.collect?.();
  }

  close(): void {
    if (this.#quiet) clearTimeout(this.#quiet);
    this.#quiet = null;
    this.#unsettle();
  }
}
