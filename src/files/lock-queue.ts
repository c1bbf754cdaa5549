// Turns at a lock file: first come, first served and one at a time inside this process (a queue per
// path), then the cross-process pid lock. It never lets a cancelled caller keep others waiting.
import { acquirePidLock, type PidLockOptions } from './pid-lock.js';

// How it works. Each path has a tail promise; a caller chains its own turn after it, waits for the
// turn before it (raced with its AbortSignal), then takes the pid lock, waiting for other processes
// only, never for callers of this process. A caller cancelled while waiting leaves at once; its slot
// still passes on only when the turn before it ends, so order and exclusion hold for the rest.

export interface TurnOptions {
  /** Ends the wait (in the queue or for the pid lock) at once, rejecting with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Runs inside the turn, before the pid lock is taken (e.g. creating the lock's folder). */
  prepare?: () => Promise<void>;
  /** Turns an error of the wait (not of `fn`) into the one the caller throws. */
  refuse?: (err: unknown) => unknown;
}

/** Waits for `before` unless `signal` aborts first; rejects with the signal's reason then. */
function until(before: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return before;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void before.then(() => { signal.removeEventListener('abort', onAbort); resolve(); });
  });
}

/** One per set of lock files; every caller in the process that uses a path must share it. */
export class LockQueue {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #lock: Omit<PidLockOptions, 'signal'>;

  constructor(lock: Omit<PidLockOptions, 'signal'> = {}) {
    this.#lock = lock;
  }

  /** Runs `fn` in its turn, holding the pid lock at `lockPath`; errors of the wait reach the caller. */
  async run<T>(lockPath: string, fn: () => Promise<T>, o: TurnOptions = {}): Promise<T> {
    const before = this.#tails.get(lockPath) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => { done = resolve; });
    const tail = before.then(() => mine);
    this.#tails.set(lockPath, tail);
    try {
      let held;
      try {
        await until(before, o.signal);
        await o.prepare?.();
        held = await acquirePidLock(lockPath, { ...this.#lock, ...(o.signal ? { signal: o.signal } : {}) });
        // Cancelled while the last try was under way: the turn is given back unused.
        if (o.signal?.aborted) {
          await held.release();
          o.signal.throwIfAborted();
        }
      } catch (err) {
        throw o.refuse ? o.refuse(err) : err;
      }
      try {
        return await fn();
      } finally {
        await held.release();
      }
    } finally {
      done();
      void tail.then(() => { if (this.#tails.get(lockPath) === tail) this.#tails.delete(lockPath); });
    }
  }
}
