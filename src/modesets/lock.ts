// Serialises mode-set operations: one at a time inside this process (a promise chain) and across
// server processes of the same project (a pid lock file, see src/files/pid-lock.ts). It never
// holds the lock past the operation.
import { acquirePidLock, LockBusyError } from '../files/pid-lock.js';
import { ValidationError } from '../rpc/errors.js';

export interface LockOptions {
  /** How long to wait for another process before giving up. */
  timeoutMs?: number;
  /** The longest pause between looks at the lock file while another process holds it. */
  pollMs?: number;
}

/** One lock per lock-file path; create one per mode-sets folder and share it. */
export class ModesetLock {
  #tail: Promise<void> = Promise.resolve();
  readonly #timeoutMs: number;
  readonly #pollMs: number;

  constructor(opts: LockOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#pollMs = opts.pollMs ?? 25;
  }

  /**
   * Runs `fn` while holding both the in-process turn and the lock file at `lockPath`. `prepare`
   * (e.g. creating the lock's folder) runs inside the turn: anything awaited before joining the
   * chain could finish out of order and let a later call overtake an earlier one.
   */
  run<T>(lockPath: string, fn: () => Promise<T>, signal?: AbortSignal, prepare?: () => Promise<void>): Promise<T> {
    const turn = this.#tail.then(async () => {
      await prepare?.();
      const held = await this.#acquire(lockPath, signal); // gives up at once when already aborted
      try {
        return await fn();
      } finally {
        await held.release();
      }
    });
    // The chain must continue whether this operation failed or not.
    this.#tail = turn.then(() => undefined, () => undefined);
    return turn;
  }

  async #acquire(lockPath: string, signal?: AbortSignal): ReturnType<typeof acquirePidLock> {
    // A lock whose owner died (kill -9 mid-operation) is stale and taken over; there is no age
    // limit, since a live owner may legitimately take long (a large backup).
    try {
      return await acquirePidLock(lockPath, { timeoutMs: this.#timeoutMs, pollMs: this.#pollMs, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) {
        throw new ValidationError('The mode-set operation was stopped before it started', {
          message: `Stopped while waiting for the mode-sets lock ${lockPath}: ${signal.reason instanceof Error ? signal.reason.message : 'cancelled'}`,
          error_type: 'cancelled', file: lockPath, recovery_suggestions: ['Nothing was changed; run it again'],
        });
      }
      if (!(err instanceof LockBusyError)) throw err;
      const who = err.owner === null ? 'another process' : `process ${err.owner}`;
      throw new ValidationError('Another process is changing the mode sets; try again', {
        message: `The mode-sets lock ${lockPath} is held by ${who}`,
        error_type: 'busy',
        file: lockPath,
        issue: `locked by ${who}`,
        recovery_suggestions: ['Retry in a moment', `Remove ${lockPath} if ${who} is not a roo-modes-server`],
      });
    }
  }
}
