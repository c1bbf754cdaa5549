// Serialises mode-set operations: first come, first served inside this process and across server
// processes of the same project (a pid lock file, see src/files/lock-queue.ts). It never holds the
// lock past the operation.
import { dirname } from 'node:path';
import { LockQueue } from '../files/lock-queue.js';
import { lockRefusal, underSharedLease } from '../authoring/mode-file-lock.js';
import type { SharedLeases } from '../authoring/mode-file-lease.js';

export interface LockOptions {
  /** With a shared store, its leases are the turns (servers on other hosts share the project). */
  leases?: SharedLeases | null;
  /** How long to wait for another process before giving up. */
  timeoutMs?: number;
  /** The longest pause between looks at the lock file while another process holds it. */
  pollMs?: number;
}

/** One lock per lock-file path; create one per mode-sets folder and share it. */
export class ModesetLock {
  readonly #turns: LockQueue;
  readonly #leases: SharedLeases | null;

  constructor(opts: LockOptions = {}) {
    this.#leases = opts.leases ?? null;
    this.#turns = new LockQueue({ timeoutMs: opts.timeoutMs ?? 10_000, pollMs: opts.pollMs ?? 25 });
  }

  /**
   * Runs `fn` while holding both the in-process turn and the lock file at `lockPath`. `prepare`
   * (e.g. creating the lock's folder) runs inside the turn: anything awaited before joining the
   * queue could finish out of order and let a later call overtake an earlier one. A lock whose
   * owner died (kill -9 mid-operation) is taken over; a live one is waited for up to the timeout.
   */
  run<T>(lockPath: string, fn: () => Promise<T>, signal?: AbortSignal, prepare?: () => Promise<void>): Promise<T> {
    // With a shared store, the turn is its lease (servers on other hosts share the project).
    const shared = underSharedLease(this.#leases, lockPath, 'the mode sets', async () => { await prepare?.(); return fn(); }, signal);
    if (shared) return shared;
    const refuse = (err: unknown): unknown => lockRefusal(err, lockPath, 'the mode sets', signal, dirname(lockPath), 'write in');
    return this.#turns.run(lockPath, fn, { signal, refuse, ...(prepare ? { prepare } : {}) });
  }
}
