// Owns the on-disk form of sessions: one JSON file per session replaced atomically and durably,
// a lock file per session shared by processes, reading back and cleaning leftovers. Never decides
// expiry, keeps sessions in memory, deletes a file it cannot parse, or touches a path built from an
// id that is not exactly `ses_` + 24 hex.
import { readdir, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder, syncDirectory, writeFileAtomic } from '../files/atomic-write.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import { asWriteError, FileWriteError } from '../files/write-errors.js';
import { acquirePidLock, breakIfStale, LockBusyError, processAlive } from '../files/pid-lock.js';
import type { Logger } from '../log.js';
import { RpcError, SessionStoreError, TaskNotFoundError } from '../rpc/errors.js';
import { depthMessage, tooDeep } from '../rpc/json-bounds.js';
import { iso, makeSession, parseTime, SESSION_ID_PATTERN, taskFromJson, taskToJson, type SessionRecord } from './task.js';

// How it works. A write goes to `.<id>.json.<pid>.<random>.tmp` in the same directory (through
// src/files/atomic-write.ts), gets its mtime set to the session's last access, is fsynced, renamed
// over `<id>.json`, and then the directory is fsynced (one directory fsync serves every rename that
// finished before it started). So after a crash a session file is either the old or the new
// snapshot, never torn. A read touches only the file's mtime (utimes, no rewrite): a session's
// last access is the later of the file's `last_accessed` and its mtime, which lets other processes
// see accesses cheaply. Mutations of an existing session hold `.<id>.lock` (a pid lock, see
// src/files/pid-lock.ts) so two processes never interleave read-modify-write; a lock is stale only
// when its holder is gone (dead pid on this host, or a heartbeat older than the lease from another
// host), never because it is old: a paused holder keeps it, and a waiter gives up after the lock
// timeout with a SessionStoreError, having changed nothing. Every OS failure of the store becomes a
// SessionStoreError naming the folder and the OS error, so callers can tell it from a bug.

const FORMAT = 1;
const FILE_PATTERN = /^(ses_[0-9a-f]{24})\.json$/;
// Temp files, each carrying its writer's pid: a session file's (`.json.` since the shared writer;
// older builds left it out), a lock's pid file, a stale lock moved aside. Then the lock files
// themselves: a session's lock and the guard its breakers take (see src/files/pid-lock.ts).
const LEFTOVER_PATTERN = /^\.ses_[0-9a-f]{24}\.(?:(?:json\.|lock\.(?:breaking\.)?(?:stale\.)?)?(\d+)\.[0-9a-f]+\.tmp|lock(?:\.breaking)?)$/;
// Temp files of this pid's previous life (same pid after a restart) are removed once this old.
const TEMP_STALE_MS = 10_000;
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const MAX_FILE_BYTES = 32 * 1024 * 1024;

export type ReadResult =
  | { kind: 'ok'; record: SessionRecord }
  | { kind: 'missing' }
  | { kind: 'corrupt'; reason: string };

const errno = (err: unknown): string | undefined => (err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined);
const ignoreMissing = (err: unknown): void => { if (errno(err) !== 'ENOENT') throw err; };

/** Refuses anything but `ses_` + 24 lowercase hex, before any path is built from it. */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw new TaskNotFoundError(String(id).slice(0, 100));
}

export function sessionToFile(rec: SessionRecord): string {
  return `${JSON.stringify({
    format: FORMAT,
    session_id: rec.id,
    created_at: iso(rec.task.createdAt),
    last_accessed: iso(rec.lastAccessed),
    ...(rec.parentSession === undefined ? {} : { parent_session_id: rec.parentSession }),
    ...(rec.childSessions === undefined ? {} : { child_session_ids: rec.childSessions }),
    task: taskToJson(rec.task),
  }, null, 1)}\n`;
}

/** A record from a file's text, or a description of what is wrong with it. */
export function sessionFromFile(text: string, id: string, mtimeMs: number): SessionRecord | string {
  let v: unknown;
  try { v = JSON.parse(text); } catch (err) { return `not JSON (${err instanceof Error ? err.message : String(err)})`; }
  // A session's metadata is kept and served as it is: nothing deeper than the shared bound gets in.
  if (tooDeep(v)) return depthMessage('the file');
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const o = v as Record<string, unknown>;
  if (o.format !== FORMAT) return `unknown format ${JSON.stringify(o.format)}`;
  if (o.session_id !== id) return 'session_id does not match the file name';
  const last = parseTime(o.last_accessed);
  if (!Number.isFinite(last)) return 'bad last_accessed';
  const parent = o.parent_session_id;
  if (parent !== undefined && (typeof parent !== 'string' || !SESSION_ID_PATTERN.test(parent))) return 'bad parent_session_id';
  const kids = o.child_session_ids;
  if (kids !== undefined && (!Array.isArray(kids) || !kids.every((k) => typeof k === 'string' && SESSION_ID_PATTERN.test(k)))) return 'bad child_session_ids';
  const task = taskFromJson(o.task);
  if (typeof task === 'string') return task;
  const touched = Number.isFinite(mtimeMs) ? Math.round(mtimeMs) : last;
  return makeSession({
    id, task, lastAccessed: Math.max(last, touched), parentSession: parent,
    childSessions: kids === undefined || kids.length === 0 ? undefined : (kids as string[]),
  });
}

export class SessionFiles {
  readonly dir: string;
  readonly #log: Logger;
  #ready: Promise<void> | null = null;
  readonly #writes = new Map<string, Promise<void>>();
  readonly #pending = new Set<Promise<void>>();
  #dirSyncRunning: Promise<void> | null = null;
  #dirSyncNext: Promise<void> | null = null;

  readonly #lockTimeoutMs: number;

  constructor(dir: string, log: Logger, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS) {
    this.dir = dir;
    this.#log = log;
    this.#lockTimeoutMs = lockTimeoutMs;
  }

  /** The store's failure as the caller sees it: the folder, what was being done, the OS error. */
  #failure(doing: string, err: unknown): SessionStoreError {
    const code = errno(err);
    const detail = err instanceof Error ? err.message : String(err);
    return new SessionStoreError(`The session store ${this.dir} cannot be used: ${doing} failed (${detail})`, {
      message: `Session store ${this.dir}: ${doing} failed with ${code ?? 'an error'}: ${detail}`,
      store_path: this.dir,
      operation: doing,
      os_error: code ?? null,
      recovery_suggestions: [`Make ${this.dir} a writable directory (or change sessions.persistence.storage_path)`, 'Nothing was changed; retry once the store is fixed'],
    });
  }

  /** Runs an OS operation on the store, turning its failure into a SessionStoreError. */
  async #os<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw this.#failure(doing, err);
    }
  }

  #path(id: string): string { assertSessionId(id); return join(this.dir, `${id}.json`); }

  /** Creates the directory (owner-only: session ids are capabilities) once. */
  ensureDir(): Promise<void> {
    this.#ready ??= makeFolder(this.dir, 0o700).catch((err: unknown) => {
      this.#ready = null;
      throw err instanceof FileWriteError ? err : this.#failure('creating the folder', err);
    });
    return this.#ready;
  }

  /**
   * Never throws for a bad file: one that cannot be read safely (a symlink, a FIFO, a directory,
   * over MAX_FILE_BYTES, no permission) is `corrupt`, and is never followed or blocked on.
   */
  async read(id: string): Promise<ReadResult> {
    const path = this.#path(id); // a bad id throws -32002 here, before anything is opened
    try {
      const r = await readFileSafely(path, { maxBytes: MAX_FILE_BYTES, links: 'refuse' });
      const rec = sessionFromFile(r.text, id, r.mtimeMs);
      return typeof rec === 'string' ? { kind: 'corrupt', reason: rec } : { kind: 'ok', record: rec };
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) return { kind: 'corrupt', reason: String(err) };
      // The folder itself failing (no longer a directory, no permission, I/O) is the store's
      // failure, not a bad file: the caller must hear about it rather than get a stale copy.
      if (err.osCode === 'ENOTDIR' || err.reason === 'io') throw this.#failure('reading a session file', err);
      return err.reason === 'missing' ? { kind: 'missing' } : { kind: 'corrupt', reason: err.problem };
    }
  }

  /** The file's mtime (a lower bound of the last access), or undefined when it is gone. */
  async touchedAt(id: string): Promise<number | undefined> {
    try { return Math.round((await stat(this.#path(id))).mtimeMs); } catch (err) { ignoreMissing(err); return undefined; }
  }

  /**
   * Writes a snapshot taken now; resolves once it is durable. Writes of one session are chained,
   * so a later call can never be overtaken by an earlier one.
   */
  write(rec: SessionRecord): Promise<void> {
    const path = this.#path(rec.id);
    const text = sessionToFile(rec);
    const mtime = rec.lastAccessed / 1000;
    const prev = this.#writes.get(rec.id);
    const run = prev === undefined ? this.#writeNow(path, text, mtime) : prev.then(() => this.#writeNow(path, text, mtime));
    const tail = run.then(() => {}, () => {});
    this.#writes.set(rec.id, tail);
    this.#pending.add(tail);
    void tail.then(() => {
      this.#pending.delete(tail);
      if (this.#writes.get(rec.id) === tail) this.#writes.delete(rec.id);
    });
    return run;
  }

  async #writeNow(path: string, text: string, mtime: number): Promise<void> {
    await this.ensureDir();
    // The directory fsync is left to the group commit below, shared by concurrent writes.
    await this.#os('writing a session file', () => writeFileAtomic(path, text, { mode: 0o600, mtime, syncDir: false }));
    await this.#os('syncing the folder', () => this.#syncDir());
  }

  // Group commit: a caller waits for a directory fsync that starts after its rename finished.
  #syncDir(): Promise<void> {
    if (this.#dirSyncNext) return this.#dirSyncNext;
    const running = this.#dirSyncRunning;
    if (running === null) return this.#startDirSync();
    const start = (): Promise<void> => { this.#dirSyncNext = null; return this.#startDirSync(); };
    this.#dirSyncNext = running.then(start, start);
    return this.#dirSyncNext;
  }

  #startDirSync(): Promise<void> {
    const p: Promise<void> = syncDirectory(this.dir).finally(() => { if (this.#dirSyncRunning === p) this.#dirSyncRunning = null; });
    this.#dirSyncRunning = p;
    return p;
  }

  /** Records an access without rewriting: losing one in a crash only shortens a session's life. */
  async touch(id: string, atMs: number): Promise<void> {
    const s = atMs / 1000;
    const path = this.#path(id);
    await this.#os('recording an access', async () => { try { await utimes(path, s, s); } catch (err) { if (errno(err) !== 'ENOENT') throw asWriteError(err, path); } });
  }

  async remove(id: string): Promise<void> {
    const path = this.#path(id);
    await this.#os('removing a session file', async () => { try { await unlink(path); } catch (err) { if (errno(err) !== 'ENOENT') throw asWriteError(err, path, 'remove'); } });
  }

  /** Takes the cross-process lock of one session; resolves to its release. */
  async lock(id: string): Promise<() => Promise<void>> {
    assertSessionId(id);
    await this.ensureDir();
    const path = join(this.dir, `.${id}.lock`);
    try {
      const held = await acquirePidLock(path, {
        timeoutMs: this.#lockTimeoutMs, pollMs: 25, mode: 0o600,
        onBreak: (owner) => this.#log.warn(`breaking a stale lock on session ${id}: its holder${owner === null ? '' : ` (process ${owner})`} is gone`),
      });
      return () => held.release();
    } catch (err) {
      if (err instanceof LockBusyError) {
        const who = err.owner === null ? 'another process' : `process ${err.owner}`;
        throw new SessionStoreError(`Session ${id} stayed locked by ${who} for ${this.#lockTimeoutMs} ms; nothing was changed`, {
          message: `The lock ${path} is held by ${who}, which is still running; nothing was changed`,
          store_path: this.dir, session_id: id, lock_file: path, owner: err.owner,
          recovery_suggestions: ['Retry in a moment', `If ${who} is stuck, stop it; its lock is released when it exits`],
        });
      }
      // Something that is not a lock file of ours sits at its name (a FIFO, a folder, a link).
      if (err instanceof UnsafeFileError) throw new SessionStoreError(`Session ${id} cannot be changed: its lock file ${err.path} ${err.problem}; nothing was changed`, {
        message: `The lock file ${err.path} ${err.problem}`, store_path: this.dir, session_id: id, lock_file: err.path, recovery_suggestions: [`Remove ${err.path}`],
      });
      const refused = asWriteError(err, this.dir, 'write in');
      throw refused instanceof FileWriteError ? refused : this.#failure('taking the session lock', err);
    }
  }

  /**
   * Lists the session ids on disk. With `clean`, also removes temp and lock files left by a
   * process that died (or by this pid's previous life, once they are old).
   */
  async list(clean = false): Promise<string[]> {
    await this.ensureDir();
    const ids: string[] = [];
    for (const name of await this.#os('listing the folder', () => readdir(this.dir))) {
      const m = FILE_PATTERN.exec(name);
      if (m?.[1] !== undefined) { ids.push(m[1]); continue; }
      const left = clean ? LEFTOVER_PATTERN.exec(name) : null;
      if (left !== null) await this.#removeIfStale(name, left[1] === undefined ? undefined : Number(left[1]));
    }
    return ids;
  }

  /** Reads every session file (16 at a time, leftovers cleaned first); resolves to the count. */
  async readAll(each: (id: string, result: ReadResult) => Promise<void>): Promise<number> {
    const ids = await this.list(true);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++]) await each(id, await this.read(id));
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return ids.length;
  }

  async #removeIfStale(name: string, pid: number | undefined): Promise<void> {
    const path = join(this.dir, name);
    try {
      if (pid === undefined) { // a lock file: stale only when its holder is gone, taken over safely
        await breakIfStale(path).catch((err: unknown) => {
          // Not a lock file of ours (a FIFO, say): left alone, and named when its session is changed.
          if (!(err instanceof UnsafeFileError)) throw err;
          this.#log.warn(`left ${err.path} alone: it ${err.problem}`);
        });
        return;
      }
      // ctime, not mtime: a temp file's mtime is set to the session's last access on purpose.
      const old = Date.now() - (await stat(path)).ctimeMs > TEMP_STALE_MS;
      if (old || (pid !== process.pid && !processAlive(pid))) {
        await unlink(path);
        this.#log.info(`removed a leftover temp file ${name}`);
      }
    } catch (err) {
      ignoreMissing(err);
    }
  }

  /** Resolves when every write started so far is on disk (or failed). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
