// Serialises mode-set operations: one at a time inside this process (a promise chain) and across
// server processes of the same project (an O_EXCL lock file holding the owner's pid). It never
// holds the lock past the operation, and it takes over a lock whose owner process is gone.
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { ValidationError } from '../rpc/errors.js';
import { tempPathFor } from './atomic.js';

export interface LockOptions {
  /** How long to wait for another process before giving up. */
  timeoutMs?: number;
  /** How often to look at the lock file again while another process holds it. */
  pollMs?: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM means the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One lock per lock-file path; create one per mode-sets folder and share it. */
export class ModesetLock {
  #tail: Promise<void> = Promise.resolve();
  readonly #timeoutMs: number;
  readonly #pollMs: number;

  constructor(opts: LockOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#pollMs = opts.pollMs ?? 25;
  }

  /** Runs `fn` while holding both the in-process turn and the lock file at `lockPath`. */
  run<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
    const turn = this.#tail.then(async () => {
      await this.#acquire(lockPath);
      try {
        return await fn();
      } finally {
        await unlink(lockPath).catch(() => undefined);
      }
    });
    // The chain must continue whether this operation failed or not.
    this.#tail = turn.then(() => undefined, () => undefined);
    return turn;
  }

  async #acquire(lockPath: string): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      // The pid is written to a temp file first and linked into place, so a lock file is never
      // seen without its owner (an empty one would look stale and be taken twice).
      const tmp = tempPathFor(lockPath);
      try {
        await writeFile(tmp, `${process.pid}\n`, { flag: 'wx' });
        await link(tmp, lockPath);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        await unlink(tmp).catch(() => undefined);
      }
      const content = await readFile(lockPath, 'utf8').catch(() => null);
      if (content === null) continue; // released meanwhile: try again at once
      const owner = Number.parseInt(content, 10);
      // A lock whose owner died (kill -9 mid-operation) is stale and taken over.
      if (!Number.isInteger(owner) || owner <= 0 || !processAlive(owner)) {
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) {
        throw new ValidationError('Another process is changing the mode sets; try again', {
          message: `The mode-sets lock ${lockPath} is held by process ${owner}`,
          error_type: 'busy',
          file: lockPath,
          issue: `locked by process ${owner}`,
          recovery_suggestions: ['Retry in a moment', `Remove ${lockPath} if process ${owner} is not a roo-modes-server`],
        });
      }
      await pause(this.#pollMs);
    }
  }
}
