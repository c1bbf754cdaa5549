// Turns at a mode file: queued inside this process, its pid lock (`<file>.lock`) across processes,
// an interrupted change finished before and our dead writers' leftovers cleared after. It turns
// every way the wait can end without a turn into a typed error that says nothing was written.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LockQueue } from '../files/lock-queue.js';
import { LockBusyError } from '../files/pid-lock.js';
import { UnsafeFileError } from '../files/safe-read.js';
import { ValidationError } from '../rpc/errors.js';
import { finishInterrupted, interrupted, sweepLeftovers, type JournalScope } from './write-journal.js';

/** How long a writer waits for another process's turn before answering "busy". */
const WAIT_FOR_OTHER_PROCESS_MS = 10_000;

// One queue for the whole process: every writer of a mode file here must wait in the same one, or
// two of them would poll against each other instead of taking turns.
const TURNS = new LockQueue({ timeoutMs: WAIT_FOR_OTHER_PROCESS_MS });
// At start the lock is tried once: a live holder finishes and tidies itself.
const TRY_ONCE = new LockQueue({ timeoutMs: 0 });

/**
 * Why the wait for the lock at `lockPath` ended without a turn, as the error the caller answers
 * (-32004 with `error_type` busy, cancelled or lock_file_unusable); other errors pass unchanged.
 * `subject` names what was to be changed ("the mode file /p/.roomodes").
 */
export function lockRefusal(err: unknown, lockPath: string, subject: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) {
    const why = signal.reason instanceof Error ? signal.reason.message : 'cancelled';
    return new ValidationError(`Nothing was written to ${subject}: the request was stopped while waiting for its lock`, {
      message: `Stopped while waiting for the lock ${lockPath} (${why}); nothing was written`,
      error_type: 'cancelled', retryable: true, written: false, file: lockPath, recovery_suggestions: ['Nothing was changed; run it again'],
    });
  }
  if (err instanceof LockBusyError) {
    const who = err.owner === null ? 'another process' : `process ${err.owner}`;
    return new ValidationError(`Nothing was written to ${subject}: ${who} is changing it; retry in a moment`, {
      message: `The lock ${lockPath} stayed held by ${who}; nothing was written`,
      error_type: 'busy', retryable: true, written: false, file: lockPath, holder_pid: err.owner,
      recovery_suggestions: ['Retry in a moment', `If ${who} is not a roo-modes-server that is still working, stop it or remove ${lockPath}`],
    });
  }
  if (err instanceof UnsafeFileError) {
    return new ValidationError(`Nothing was written to ${subject}: its lock file ${err.path} ${err.problem}`, {
      message: `The lock file ${err.path} ${err.problem}; nothing was written`,
      error_type: 'lock_file_unusable', retryable: false, written: false, file: err.path, problem: err.problem,
      recovery_suggestions: [`Remove ${err.path}; the server makes it as a small regular file when it writes`],
    });
  }
  return err;
}

export interface ModeFileTurn {
  /** Ends the wait at once (the request was cancelled, or the server is stopping). */
  signal?: AbortSignal | undefined;
  /** The scope's `.roo` folder, whose staged rules folders an interrupted change may hold. */
  rooDir: string;
}

/** Runs `fn` in the mode file's turn: finishes an interrupted change first, clears leftovers after. */
export async function withModeFileLock<T>(file: string, fn: () => Promise<T>, o: ModeFileTurn): Promise<T> {
  const lockPath = `${file}.lock`;
  const scope: JournalScope = { modeFile: file, rooDir: o.rooDir };
  return TURNS.run(lockPath, async () => {
    await finishInterrupted(scope);
    const out = await fn();
    // Best effort: a leftover that cannot be removed now is tried again after the next write.
    await sweepLeftovers(scope).catch(() => undefined);
    return out;
  }, {
    signal: o.signal,
    prepare: () => mkdir(dirname(file), { recursive: true }).then(() => undefined),
    refuse: (err) => lockRefusal(err, lockPath, `the mode file ${file}`, o.signal),
  });
}

/**
 * At start: finishes a change a crash cut short and clears dead writers' leftovers, unless another
 * process holds the lock (it does the same when it is done). Resolves to what it did, for the log.
 */
export async function tidyModeFile(scope: JournalScope): Promise<{ finished: string[] | null; removed: string[] } | null> {
  // Most starts find nothing to do: they then take no lock (and create no lock file).
  if (!(await interrupted(scope)) && (await sweepLeftovers(scope, true)).length === 0) return null;
  try {
    return await TRY_ONCE.run(`${scope.modeFile}.lock`, async () => ({ finished: await finishInterrupted(scope), removed: await sweepLeftovers(scope) }));
  } catch (err) {
    // Held by a live process, or no folder for the mode file yet: nothing to do here now.
    if (err instanceof LockBusyError || (err instanceof Error && 'code' in err && err.code === 'ENOENT')) return null;
    throw err;
  }
}
