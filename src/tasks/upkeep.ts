// The session store's upkeep away from any one call: restoring the files at start and finding the
// expired sessions for a sweep. It decides nothing about a single session's access or change.
import type { Logger } from '../log.js';
import { SessionStoreError } from '../rpc/errors.js';
import { FileWriteError } from '../files/write-errors.js';
import type { SessionFiles } from './session-files.js';
import type { SessionTable } from './table.js';
import type { Tombstones } from './tombstones.js';

// A sweep yields after SWEEP_SLICE sessions or SWEEP_SLICE_MS, whichever comes first.
const SWEEP_SLICE = 2_000;
const SWEEP_SLICE_MS = 2;
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface Upkeep {
  sessions: SessionTable;
  tombstones: Tombstones;
  files: SessionFiles;
  /** Whether a session last used at `lastAccessed` has expired by `now` (the store's one rule). */
  stale(lastAccessed: number, now: number): boolean;
  log: Logger;
}

/**
 * Loads the session files into the table: expired ones are removed and remembered as expired,
 * unreadable ones skipped with a warning. A store that fails at start does not take the server
 * down: tools that need no sessions keep working, and each session call retries the store and
 * names its failure (SessionStoreError).
 */
export async function restoreSessions(u: Upkeep, now: number): Promise<{ restored: number; expired: number; corrupt: number }> {
  const counts = { restored: 0, expired: 0, corrupt: 0 };
  const total = await u.files.readAll(async (id, r) => {
    if (r.kind === 'corrupt') {
      counts.corrupt++;
      u.log.warn(`skipped an unreadable session file ${id}.json: ${r.reason}`);
    } else if (r.kind === 'ok' && u.stale(r.record.lastAccessed, now)) {
      await u.files.remove(id);
      u.tombstones.add(id);
      counts.expired++;
    } else if (r.kind === 'ok') {
      u.sessions.set(id, r.record);
      counts.restored++;
    }
  }).catch((err: unknown) => {
    if (!(err instanceof SessionStoreError || err instanceof FileWriteError)) throw err;
    u.log.warn(`${err.message}; sessions will fail until it is fixed`);
    return 0;
  });
  if (total > 0) u.log.info(`sessions from ${u.files.dir}: ${counts.restored} restored, ${counts.expired} expired, ${counts.corrupt} unreadable`);
  return counts;
}

/** Sweeps every `ms` (the timer does not keep the process alive); the count goes to the debug log. */
export function sweepEvery(ms: number, sweep: () => Promise<number>, log: Logger): NodeJS.Timeout {
  const timer = setInterval(() => {
    sweep().then(
      (n) => { if (n > 0) log.debug(`swept ${n} expired session(s)`); },
      (err: unknown) => log.warn('session sweep failed', err),
    );
  }, ms);
  timer.unref();
  return timer;
}

/** Walks the table in slices, letting other work run in between, and hands each stale id to `stale`. */
export async function walkStale(sessions: SessionTable, isStale: (lastAccessed: number) => boolean, stale: (id: string) => void): Promise<void> {
  let seen = 0;
  let sliceStart = performance.now();
  for (const id of sessions.walk(isStale)) {
    if (id !== null) stale(id);
    if (++seen % 256 === 0 && (seen % SWEEP_SLICE === 0 || performance.now() - sliceStart >= SWEEP_SLICE_MS)) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

/** Files of other (perhaps dead) processes that this one never loaded and that look expired. */
export async function staleFiles(u: Upkeep, now: number): Promise<string[]> {
  const out: string[] = [];
  for (const id of await u.files.list(true)) {
    if (u.sessions.has(id) || u.tombstones.has(id)) continue;
    const touched = await u.files.touchedAt(id);
    if (touched !== undefined && u.stale(touched, now)) out.push(id);
  }
  return out;
}
