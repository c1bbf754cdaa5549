// Cross-process lock files holding the owner's pid, with a takeover of stale ones that only one
// process wins. It never removes a lock it has not proved stale while serialised with other breakers.
import type { Stats } from 'node:fs';
import { link, lstat, open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempSuffix } from './atomic-write.js';
import { openSafely, readFileSafely, UnsafeFileError } from './safe-read.js';

// How it works. A lock file holds `<pid>\n<random>\n<host>\n<start>\n`, written to a temp file and
// hard-linked to the lock's name: link(2) fails if the name exists, and the file is never seen
// without its pid. Staleness is decided by liveness, never by age alone:
// - on this host (or a file without a host line, written by an older build) a lock is stale only
//   when its pid is not a live process, or is a live process that started at another time than the
//   holder (the pid was reused; Linux only, from /proc/<pid>/stat). A paused holder (SIGSTOP, a
//   debugger) is alive, so its lock is held however old it is: waiters time out and change nothing.
// - from another host (a store on a shared file system) the pid cannot be asked, so the holder
//   renews the file's mtime every leaseMs/3 (a heartbeat through its own descriptor, so it can only
//   ever touch its own inode) and the lock is stale once the heartbeat is older than leaseMs.
// - a file with no readable pid is stale after UNREADABLE_GRACE_MS.
// Taking over a stale lock is where naive schemes break: if A and B both judge it stale, A deletes
// it and links its own, then B's delete removes A's new lock. Here a breaker (1) keeps the judged
// file open, so its inode number cannot be reused; (2) takes `<lock>.breaking`, a small lock of the
// same kind that serialises breakers; (3) checks the name still points at the judged inode, which
// nobody else can now change: other breakers wait, and a dead owner releases nothing; (4) renames
// it to a unique aside name and deletes that. Others go back to link(2).
// A holder's release removes the name only while it still holds its own content, so it never
// deletes a successor's lock (possible only after a foreign host's lease ran out). A `.breaking`
// guard left by a breaker that died (dead pid, or older than BREAKING_STALE_MS: a guard is held for
// a few system calls) is moved aside unserialised, checked, and put back if it was not the judged
// one; that rare path, taken only after a crash inside a breaker's few system calls, is the one
// place where a narrow check-then-rename race remains.

export interface PidLockOptions {
  /** Give up after waiting this long for a live holder (default 10 s). */
  timeoutMs?: number;
  /** Stops waiting when aborted (the caller was cancelled or the server is shutting down). */
  signal?: AbortSignal;
  /** Longest pause between looks at a held lock; pauses start at 1 ms and double (default 25). */
  pollMs?: number;
  /**
   * The heartbeat lease: a lock from another host is stale once its mtime is older than this; the
   * holder renews it every third of it (default 30 s). Locks of this host go by liveness alone.
   */
  leaseMs?: number;
  /** Permission bits of the lock file (default 0o644). */
  mode?: number;
  /** Told when a stale lock is taken over, with the pid it held (null when unreadable). */
  onBreak?: (owner: number | null) => void;
}

/** The lock stayed held by a live process for the whole timeout. */
export class LockBusyError extends Error {
  readonly path: string;
  /** The holder's pid; null when the file held none that could be read. */
  readonly owner: number | null;
  constructor(path: string, owner: number | null, waitedMs: number) {
    super(`the lock ${path} stayed held by ${owner === null ? 'another process' : `process ${owner}`} for ${waitedMs} ms`);
    this.name = 'LockBusyError';
    this.path = path;
    this.owner = owner;
  }
}

export interface PidLock {
  readonly path: string;
  /** Removes the lock if it is still this holder's; safe to call more than once. */
  release(): Promise<void>;
}

export type LockState =
  | { kind: 'held'; owner: number | null }
  | { kind: 'broken'; owner: number | null }
  /** Stale, but another process is taking it over right now: look again shortly. */
  | { kind: 'breaking'; owner: number | null }
  /** Nobody held it by the time it was looked at (released, or taken over by another process). */
  | { kind: 'gone' };

// A lock without a readable pid gets this long before it counts as stale: an older build of this
// program created the file first and wrote the pid a moment later.
const UNREADABLE_GRACE_MS = 1000;
// A breaker holds `.breaking` for a few system calls; one older than this belongs to a process
// that died there, even if its pid has been reused since.
const BREAKING_STALE_MS = 5000;
const DEFAULT_LEASE_MS = 30_000;
// A lock file holds four short lines; anything longer is not one of ours.
const MAX_LOCK_BYTES = 512;

const errno = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
const ignoreMissing = (err: unknown): void => { if (errno(err) !== 'ENOENT') throw err; };
const sameFile = (a: Stats, b: Stats): boolean => a.ino === b.ino && a.dev === b.dev;

/** True while a process with this pid exists (EPERM: it exists but belongs to another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errno(err) === 'EPERM';
  }
}

interface LockContent { owner: number | null; host: string | null; start: string | null }

function parseLock(text: string): LockContent {
  const [pidLine = '', , host, start] = text.split('\n');
  const pid = Number.parseInt(pidLine, 10);
  return { owner: Number.isInteger(pid) && pid > 0 ? pid : null, host: host || null, start: start || null };
}

const HOST = hostname();

/** When a process started (clock ticks since boot, Linux); null where /proc cannot tell. */
async function startTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const ownStart = { value: undefined as Promise<string | null> | undefined };
const myStartTime = (): Promise<string | null> => (ownStart.value ??= startTime(process.pid));

/** True when the lock's holder is this host's live process that wrote it. */
async function holderAlive(c: LockContent & { owner: number }): Promise<boolean> {
  if (!processAlive(c.owner)) return false;
  if (c.start === null) return true;
  const now = await startTime(c.owner);
  return now === null || now === c.start;
}

interface Created { content: string; fh: FileHandle }

/** Creates the lock file at `path`; resolves to its content and an open handle, or null when taken. */
async function create(path: string, mode: number): Promise<Created | null> {
  const suffix = tempSuffix();
  const tmp = `${path}.${suffix}`;
  // The random line makes this holder's file unique: an inode number alone can be reused at once.
  const content = `${process.pid}\n${suffix}\n${HOST}\n${(await myStartTime()) ?? ''}\n`;
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'wx', mode);
    await fh.writeFile(content);
    await link(tmp, path);
    return { content, fh };
  } catch (err) {
    await fh?.close().catch(() => undefined);
    if (errno(err) === 'EEXIST') return null;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function releaseIfOwn(path: string, content: string): Promise<void> {
  try {
    // Not through a link, never blocking: a lock name is always a small regular file of ours.
    const now = await readFileSafely(path, { maxBytes: MAX_LOCK_BYTES, links: 'refuse' });
    if (now.text === content) await unlink(path);
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
  }
}

/** A held lock: its heartbeat renews the file's mtime until release. */
function holding(path: string, made: Created, leaseMs: number): PidLock {
  const beat = setInterval(() => {
    const s = Date.now() / 1000;
    made.fh.utimes(s, s).catch(() => undefined);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  beat.unref();
  let released: Promise<void> | null = null;
  return {
    path,
    release: () => (released ??= (async () => {
      clearInterval(beat);
      await made.fh.close().catch(() => undefined);
      await releaseIfOwn(path, made.content);
    })()),
  };
}

/** Takes the lock at `path`, waiting for a live holder and taking over a stale one. */
export async function acquirePidLock(path: string, opts: PidLockOptions = {}): Promise<PidLock> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pollMs = opts.pollMs ?? 25;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const started = Date.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, pollMs)) {
    opts.signal?.throwIfAborted();
    // A fresh pid file per attempt: one kept through a long wait could be swept as a leftover.
    const made = await create(path, opts.mode ?? 0o644);
    if (made !== null) return holding(path, made, leaseMs);
    const state = await breakIfStale(path, opts);
    // Free now (released, or a dead holder's lock taken over): link again, even past the timeout.
    if (state.kind === 'gone' || state.kind === 'broken') continue;
    const waited = Date.now() - started;
    if (waited > timeoutMs) throw new LockBusyError(path, state.owner, waited);
    // The pause ends at once when the signal aborts: a cancelled or stopping request never waits on.
    await sleep(pause, undefined, opts.signal ? { signal: opts.signal } : undefined);
  }
}

interface Judged {
  fh: FileHandle;
  st: Stats;
  owner: number | null;
  stale: boolean;
}

/** Judging rules: the heartbeat lease for other hosts, and an age limit (only for `.breaking` guards). */
interface Rules { leaseMs: number; ageLimitMs?: number }

/** Opens and judges the lock at `path`; null when there is none. The caller closes `fh`. */
async function judge(path: string, rules: Rules): Promise<Judged | null> {
  let fh: FileHandle;
  try {
    // Not through a symlink (a lock is a plain file, and a dangling link must not read as "gone"),
    // and never blocking (a FIFO planted at the name must not hang the judge).
    fh = await openSafely(path, { maxBytes: MAX_LOCK_BYTES, links: 'refuse' });
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'missing') return null;
    throw err;
  }
  try {
    const st = await fh.stat();
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await fh.read(buffer, 0, MAX_LOCK_BYTES, 0);
    const c = parseLock(buffer.subarray(0, bytesRead).toString('utf8'));
    const age = Date.now() - st.mtimeMs;
    let stale: boolean;
    if (c.owner === null) stale = age > UNREADABLE_GRACE_MS;
    else if (rules.ageLimitMs !== undefined && age > rules.ageLimitMs) stale = true;
    else if (c.host === null || c.host === HOST) stale = !(await holderAlive({ ...c, owner: c.owner }));
    else stale = age > rules.leaseMs;
    return { fh, st, owner: c.owner, stale };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** Moves the file at `path` aside and deletes it if it is still `judged`; true when it was. */
async function removeIfSame(path: string, judged: Stats): Promise<boolean> {
  const now = await lstat(path).catch((err: unknown) => { ignoreMissing(err); return null; });
  if (now === null || !sameFile(now, judged)) return false;
  const aside = `${path}.stale.${tempSuffix()}`;
  try {
    await rename(path, aside);
  } catch (err) {
    ignoreMissing(err);
    return false;
  }
  try {
    if (sameFile(await lstat(aside), judged)) return true;
    // Not the judged file after all (only possible when a live owner let go of a lock taken by
    // age): hand it back without overwriting anything.
    await link(aside, path).catch((err: unknown) => { if (errno(err) !== 'EEXIST') throw err; });
    return false;
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/** Removes a `.breaking` guard whose breaker died (or took far too long); true when it did. */
async function removeDeadGuard(guard: string): Promise<boolean> {
  const g = await judge(guard, { leaseMs: BREAKING_STALE_MS, ageLimitMs: BREAKING_STALE_MS });
  if (g === null) return true;
  try {
    return g.stale && (await removeIfSame(guard, g.st));
  } finally {
    await g.fh.close();
  }
}

/**
 * Looks at the lock at `path` and removes it if it is stale, so that of several processes doing
 * this at once exactly one removes it. Does not take the lock for the caller.
 */
export async function breakIfStale(path: string, opts: Pick<PidLockOptions, 'leaseMs' | 'onBreak' | 'mode'> = {}): Promise<LockState> {
  const j = await judge(path, { leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS });
  if (j === null) return { kind: 'gone' };
  try {
    if (!j.stale) return { kind: 'held', owner: j.owner };
    const guard = `${path}.breaking`;
    let mine = await create(guard, opts.mode ?? 0o644);
    // Another breaker is at work, or died at work: in the latter case clear its guard and go on.
    if (mine === null && (await removeDeadGuard(guard))) mine = await create(guard, opts.mode ?? 0o644);
    if (mine === null) return { kind: 'breaking', owner: j.owner };
    try {
      if (!(await removeIfSame(path, j.st))) return { kind: 'gone' };
      opts.onBreak?.(j.owner);
      return { kind: 'broken', owner: j.owner };
    } finally {
      await mine.fh.close().catch(() => undefined);
      await releaseIfOwn(guard, mine.content);
    }
  } finally {
    await j.fh.close();
  }
}
