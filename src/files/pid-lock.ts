// Cross-process lock files holding the owner's pid, with a takeover of stale ones that only one
// process wins. It never removes a lock it has not proved stale while serialised with other breakers.
import { constants, type Stats } from 'node:fs';
import { link, lstat, open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempSuffix } from './atomic-write.js';

// How it works. A lock file holds `<pid>\n<random>\n`, written to a temp file and hard-linked to
// the lock's name: link(2) fails if the name exists, and the file is never seen without its pid.
// A lock is stale when its pid is not a live process (or none is readable after a second), or,
// where the caller sets staleAfterMs, when it is older than that.
// Taking over a stale lock is where naive schemes break: if A and B both judge it stale, A deletes
// it and links its own, then B's delete removes A's new lock. Here a breaker (1) keeps the judged
// file open, so its inode number cannot be reused; (2) takes `<lock>.breaking`, a small lock of the
// same kind that serialises breakers; (3) checks the name still points at the judged inode, which
// nobody else can now change: other breakers wait, and a dead owner releases nothing; (4) renames
// it to a unique aside name and deletes that. Others go back to link(2).
// A lock older than staleAfterMs is taken even if its owner still runs (that is what an age limit
// means); that owner's release then removes the name only while it still holds its own content, so
// it never deletes its successor's lock. A `.breaking` guard left by a breaker that died (dead pid,
// or older than BREAKING_STALE_MS) is moved aside unserialised, checked, and put back if it was
// not the judged one; that rare path, taken only after a crash inside a breaker's few system
// calls, is the one place where a narrow check-then-rename race remains.

export interface PidLockOptions {
  /** Give up after waiting this long for a live holder (default 10 s). */
  timeoutMs?: number;
  /** Stops waiting when aborted (the caller was cancelled or the server is shutting down). */
  signal?: AbortSignal;
  /** Longest pause between looks at a held lock; pauses start at 1 ms and double (default 25). */
  pollMs?: number;
  /** A lock file older than this is stale even if its pid is alive (default: never by age). */
  staleAfterMs?: number;
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

const parseOwner = (text: string): number | null => {
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
};

/** Creates the lock file at `path`; resolves to its content, or null when the name is taken. */
async function create(path: string, mode: number): Promise<string | null> {
  const suffix = tempSuffix();
  const tmp = `${path}.${suffix}`;
  // The random line makes this holder's file unique: an inode number alone can be reused at once.
  const content = `${process.pid}\n${suffix}\n`;
  try {
    await writeFile(tmp, content, { flag: 'wx', mode });
    await link(tmp, path);
    return content;
  } catch (err) {
    if (errno(err) === 'EEXIST') return null;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function releaseIfOwn(path: string, content: string): Promise<void> {
  try {
    if ((await readFile(path, 'utf8')) === content) await unlink(path);
  } catch (err) {
    ignoreMissing(err);
  }
}

/** Takes the lock at `path`, waiting for a live holder and taking over a stale one. */
export async function acquirePidLock(path: string, opts: PidLockOptions = {}): Promise<PidLock> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pollMs = opts.pollMs ?? 25;
  const started = Date.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, pollMs)) {
    opts.signal?.throwIfAborted();
    // A fresh pid file per attempt: one kept through a long wait could be swept as a leftover.
    const content = await create(path, opts.mode ?? 0o644);
    if (content !== null) return { path, release: () => releaseIfOwn(path, content) };
    const state = await breakIfStale(path, opts);
    const waited = Date.now() - started;
    if (waited > timeoutMs) throw new LockBusyError(path, state.kind === 'gone' ? null : state.owner, waited);
    if (state.kind === 'held' || state.kind === 'breaking') await sleep(pause); // else free: link again
  }
}

interface Judged {
  fh: FileHandle;
  st: Stats;
  owner: number | null;
  stale: boolean;
}

/** Opens and judges the lock at `path`; null when there is none. The caller closes `fh`. */
async function judge(path: string, staleAfterMs: number | undefined): Promise<Judged | null> {
  let fh: FileHandle;
  try {
    // Not through a symlink: a lock is a plain file, and a dangling link must not read as "gone".
    fh = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    ignoreMissing(err);
    return null;
  }
  try {
    const [st, text] = await Promise.all([fh.stat(), fh.readFile('utf8')]);
    const owner = parseOwner(text);
    const age = Date.now() - st.mtimeMs;
    const tooOld = staleAfterMs !== undefined && age > staleAfterMs;
    const stale = owner === null ? age > UNREADABLE_GRACE_MS : tooOld || !processAlive(owner);
    return { fh, st, owner, stale };
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
  const g = await judge(guard, BREAKING_STALE_MS);
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
export async function breakIfStale(path: string, opts: Pick<PidLockOptions, 'staleAfterMs' | 'onBreak' | 'mode'> = {}): Promise<LockState> {
  const j = await judge(path, opts.staleAfterMs);
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
      await releaseIfOwn(guard, mine);
    }
  } finally {
    await j.fh.close();
  }
}
