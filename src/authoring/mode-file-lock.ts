// Turns at a mode file: queued inside this process, its pid lock (`<file>.lock`) across processes,
// an interrupted change finished before and our dead writers' leftovers cleared after. It turns
// every way the wait can end without a turn into a typed error that says nothing was written.
import { basename, dirname } from 'node:path';
import { makeFolder } from '../files/atomic-write.js';
import { LockQueue } from '../files/lock-queue.js';
import { asWriteError, errnoOf } from '../files/write-errors.js';
import { LockBusyError } from '../files/pid-lock.js';
import { UnsafeFileError } from '../files/safe-read.js';
import { ValidationError } from '../rpc/errors.js';
import { finishInterrupted, interrupted, sweepLeftovers, type JournalScope } from './write-journal.js';
import { withFence } from './turn-fence.js';
import { LeaseRaceError, reconcileAll, settleAfter, type LeaseScope, type Turn } from './projection.js';
import { outcomeUnknown, storeRefusal, superseded, turnLost } from './fence-errors.js';
import type { SharedLeases } from './mode-file-lease.js';
import { LeaseBusyError } from './mode-file-lease.js';
import { RedisError } from '../redis/errors.js';

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
export function lockRefusal(err: unknown, lockPath: string, subject: string, signal?: AbortSignal, target = lockPath, action = 'write'): unknown {
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
  // The lock file lives beside what it guards: a folder that refuses it refuses the write itself.
  return asWriteError(err, target, action);
}

export interface ModeFileTurn {
  /** Ends the wait at once (the request was cancelled, or the server is stopping). */
  signal?: AbortSignal | undefined;
  /** The scope's `.roo` folder, whose staged rules folders an interrupted change may hold. */
  rooDir: string;
  /** The shared store's leases, or null for the host's pid lock. */
  leases: SharedLeases | null;
}

/** What a turn does inside its lock: finish an interrupted change, make this one, clear leftovers. */
function inTurn<T>(scope: JournalScope, fn: () => Promise<T>): () => Promise<T> {
  return async () => {
    await finishInterrupted(scope);
    const out = await fn();
    // Best effort: a leftover that cannot be removed now is tried again after the next write.
    await sweepLeftovers(scope).catch(() => undefined);
    return out;
  };
}

/** Runs `fn` in the mode file's turn: finishes an interrupted change first, clears leftovers after. */
export async function withModeFileLock<T>(file: string, fn: () => Promise<T>, o: ModeFileTurn): Promise<T> {
  const scope: JournalScope = { modeFile: file, rooDir: o.rooDir };
  if (o.leases) return leased(o.leases, modeFileScope(o.leases, file), inTurn(scope, fn), { signal: o.signal });
  const lockPath = `${file}.lock`;
  return TURNS.run(lockPath, inTurn(scope, fn), {
    signal: o.signal,
    prepare: () => makeFolder(dirname(file)),
    refuse: (err) => lockRefusal(err, lockPath, `the mode file ${file}`, o.signal, file),
  });
}

/**
 * Runs `fn` under the shared store's lease named after the lock file `file` when a store is
 * configured (a pid lock file means nothing to another host), its files those of the lock's folder;
 * else returns null: the caller takes its own lock.
 */
export function underSharedLease<T>(leases: SharedLeases | null, file: string, subject: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> | null {
  return leases ? leased(leases, folderScope(leases, file, subject), fn, { signal }) : null;
}

/** The lease of a mode file, ordering that file alone. */
export function modeFileScope(leases: SharedLeases, file: string): LeaseScope {
  return { name: leases.nameOf(file), anchor: dirname(file), only: basename(file), subject: `the mode file ${file}` };
}

/** The lease named after a lock file, ordering every file in the lock's folder (the mode sets). */
export function folderScope(leases: SharedLeases, lockFile: string, subject: string): LeaseScope {
  return { name: leases.nameOf(lockFile), anchor: dirname(lockFile), only: null, subject };
}

interface TurnOptions { signal?: AbortSignal | undefined; waitMs?: number }

/**
 * Runs `fn` in a turn under the file's lease: every file of the lease brought in step with its
 * record first, every commit point inside recorded under the lease (turn-fence.ts), and the writes
 * that could not be checked inside the turn checked after it. Errors pass as they are.
 */
async function inLeasedTurn<T>(leases: SharedLeases, scope: LeaseScope, fn: () => Promise<T>, o: TurnOptions = {}): Promise<T> {
  await makeFolder(scope.anchor);
  const lease = await leases.lock.acquire(scope.name, { signal: o.signal, ...(o.waitMs === undefined ? {} : { waitMs: o.waitMs }) });
  const turn: Turn = { leases, lease, scope, bases: new Map(), unsettled: [], written: [] };
  const after = async (failed: boolean): Promise<void> => {
    // A failed release (Redis gone) is harmless: the lease runs out by itself.
    await lease.release().catch(() => undefined);
    if (turn.unsettled.length === 0) return;
    const verdicts = await settleAfter(leases, scope, turn.unsettled);
    // A turn that failed answers with its own error; one that did not, with the worst verdict.
    if (!failed && verdicts.includes('superseded')) throw superseded(scope.subject);
    if (!failed && verdicts.includes('unknown')) throw outcomeUnknown(scope.subject);
  };
  let out: T;
  try {
    out = await withFence(turn, async () => {
      await reconcileAll(turn);
      return fn();
    });
  } catch (err) {
    await after(true);
    throw partly(turnFailure(err, scope), turn.written);
  }
  await after(false);
  return out;
}

/** A failure inside a turn as its -32004 answer: the store failed, or the turn ran out during a repair. */
function turnFailure(err: unknown, scope: LeaseScope): unknown {
  if (err instanceof LeaseRaceError) return turnLost(scope.subject, scope.name, err.message);
  if (err instanceof RedisError) return storeRefusal(err, scope.name, scope.subject);
  return err;
}

/** A refusal saying nothing was written, corrected when the turn had already replaced some of its files. */
function partly(err: unknown, written: readonly string[]): unknown {
  if (written.length === 0 || !(err instanceof ValidationError) || (err.data as { written?: unknown } | undefined)?.written !== false) return err;
  return new ValidationError(`${err.message} (the change was cut short: ${written.join(', ')} had been written before)`, {
    ...(err.data as Record<string, unknown>), written: true, complete: false, files_written: [...written],
  });
}

/** A turn under a lease whose every way of ending without a turn is the -32004 answer the file lock gives. */
async function leased<T>(leases: SharedLeases, scope: LeaseScope, fn: () => Promise<T>, o: TurnOptions): Promise<T> {
  try {
    return await inLeasedTurn(leases, scope, fn, o);
  } catch (err) {
    throw leaseRefusal(err, scope.name, scope.subject, o.signal);
  }
}

/** A lease that could not be had or was lost, as the -32004 answer the file lock gives (busy, cancelled, store unavailable). */
function leaseRefusal(err: unknown, name: string, subject: string, signal: AbortSignal | undefined): unknown {
  if (err instanceof ValidationError) return err;
  if (err instanceof LeaseBusyError && !signal?.aborted) {
    const who = err.holder === null ? 'an earlier request to this server' : `server ${err.holder.replica} (process ${err.holder.pid} on ${err.holder.host})`;
    return new ValidationError(`Nothing was written to ${subject}: ${who} is changing it; retry in a moment`, {
      message: `${err.message}; nothing was written`,
      error_type: 'busy', retryable: true, written: false, lease: name, holder: err.holder,
      recovery_suggestions: ['Retry in a moment', 'A server that died while holding it releases it within its lease time'],
    });
  }
  if (err instanceof RedisError && !signal?.aborted) return storeRefusal(err, name, subject);
  return lockRefusal(err, `lease ${name}`, subject, signal);
}

/**
 * At start: finishes a change a crash cut short and clears dead writers' leftovers, unless another
 * process holds the lock (it does the same when it is done). Resolves to what it did, for the log.
 */
export async function tidyModeFile(scope: JournalScope, leases: SharedLeases | null): Promise<{ finished: { slugs: string[]; undone: boolean } | null; removed: string[] } | null> {
  // Most starts find nothing to do: they then take no lock (and create no lock file).
  if (!(await interrupted(scope)) && (await sweepLeftovers(scope, true)).length === 0) return null;
  const tidy = async (): Promise<{ finished: { slugs: string[]; undone: boolean } | null; removed: string[] }> => ({ finished: await finishInterrupted(scope), removed: await sweepLeftovers(scope) });
  try {
    if (leases) return await inLeasedTurn(leases, modeFileScope(leases, scope.modeFile), tidy, { waitMs: 0 });
    return await TRY_ONCE.run(`${scope.modeFile}.lock`, tidy);
  } catch (err) {
    // Held by a live process, or no folder for the mode file yet: nothing to do here now.
    if (err instanceof LockBusyError || errnoOf(err) === 'ENOENT') return null;
    throw err;
  }
}
