// Owns the on-disk form of sessions: one JSON file per session replaced atomically and durably,
// a lock file per session shared by processes, reading back and cleaning leftovers. Never decides
// expiry, keeps sessions in memory, deletes a file it cannot parse, or touches a path built from an
// id that is not exactly `ses_` + 24 hex.
import { mkdir, open, readdir, stat, unlink, utimes, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory, writeFileAtomic } from '../files/atomic-write.js';
import { acquirePidLock, breakIfStale, LockBusyError, processAlive } from '../files/pid-lock.js';
import type { Logger } from '../log.js';
import { TaskNotFoundError } from '../rpc/errors.js';
import { depthMessage, tooDeep } from '../rpc/json-bounds.js';
import { iso, makeSession, parseTime, SESSION_ID_PATTERN, taskFromJson, taskToJson, type SessionRecord } from './task.js';

// How it works. A write goes to `.<id>.json.<pid>.<random>.tmp` in the same directory (through
// src/files/atomic-write.ts), gets its mtime set to the session's last access, is fsynced, renamed
// over `<id>.json`, and then the directory is fsynced (one directory fsync serves every rename that
// finished before it started). So after a crash a session file is either the old or the new
// snapshot, never torn. A read touches only the file's mtime (utimes, no rewrite): a session's
// last access is the later of the file's `last_accessed` and its mtime, which lets other processes
// see accesses cheaply. Mutations of an existing session hold `.<id>.lock` (a pid lock, see
// src/files/pid-lock.ts) so two processes never interleave read-modify-write; a lock whose process
// is gone, or which is older than LOCK_STALE_MS, is taken over by one process only, however many
// find it stale at once.

const FORMAT = 1;
const FILE_PATTERN = /^(ses_[0-9a-f]{24})\.json$/;
// Temp files, each carrying its writer's pid: a session file's (`.json.` since the shared writer;
// older builds left it out), a lock's pid file, a stale lock moved aside. Then the lock files
// themselves: a session's lock and the guard its breakers take (see src/files/pid-lock.ts).
const LEFTOVER_PATTERN = /^\.ses_[0-9a-f]{24}\.(?:(?:json\.|lock\.(?:breaking\.)?(?:stale\.)?)?(\d+)\.[0-9a-f]+\.tmp|lock(?:\.breaking)?)$/;
const LOCK_STALE_MS = 10_000;
const LOCK_GIVE_UP_MS = 30_000;
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

  constructor(dir: string, log: Logger) {
    this.dir = dir;
    this.#log = log;
  }

  #path(id: string): string { assertSessionId(id); return join(this.dir, `${id}.json`); }

  /** Creates the directory (owner-only: session ids are capabilities) once. */
  ensureDir(): Promise<void> {
    this.#ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined, (err: unknown) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  /** Never throws for a bad file: an unreadable one (a directory, no permission) is `corrupt`. */
  async read(id: string): Promise<ReadResult> {
    const path = this.#path(id);
    let fh: FileHandle;
    try { fh = await open(path, 'r'); } catch (err) {
      return errno(err) === 'ENOENT' ? { kind: 'missing' } : { kind: 'corrupt', reason: String(err) };
    }
    try {
      const st = await fh.stat();
      if (st.size > MAX_FILE_BYTES) return { kind: 'corrupt', reason: `larger than ${MAX_FILE_BYTES} bytes` };
      const rec = sessionFromFile(await fh.readFile('utf8'), id, st.mtimeMs);
      return typeof rec === 'string' ? { kind: 'corrupt', reason: rec } : { kind: 'ok', record: rec };
    } catch (err) {
      return { kind: 'corrupt', reason: String(err) };
    } finally {
      await fh.close();
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
    await writeFileAtomic(path, text, { mode: 0o600, mtime, syncDir: false });
    await this.#syncDir();
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
    try { await utimes(this.#path(id), s, s); } catch (err) { ignoreMissing(err); }
  }

  async remove(id: string): Promise<void> {
    try { await unlink(this.#path(id)); } catch (err) { ignoreMissing(err); }
  }

  /** Takes the cross-process lock of one session; resolves to its release. */
  async lock(id: string): Promise<() => Promise<void>> {
    assertSessionId(id);
    await this.ensureDir();
    const path = join(this.dir, `.${id}.lock`);
    try {
      const held = await acquirePidLock(path, {
        timeoutMs: LOCK_GIVE_UP_MS, pollMs: 25, staleAfterMs: LOCK_STALE_MS, mode: 0o600,
        onBreak: () => this.#log.warn(`breaking a stale lock on session ${id}`),
      });
      return () => held.release();
    } catch (err) {
      if (err instanceof LockBusyError) throw new Error(`session ${id} stayed locked for ${LOCK_GIVE_UP_MS} ms`);
      throw err;
    }
  }

  /**
   * Lists the session ids on disk. With `clean`, also removes temp and lock files left by a
   * process that died (or by this pid's previous life, once they are old).
   */
  async list(clean = false): Promise<string[]> {
    await this.ensureDir();
    const ids: string[] = [];
    for (const name of await readdir(this.dir)) {
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
      if (pid === undefined) { // a lock file: its own staleness rule, taken over safely
        await breakIfStale(path, { staleAfterMs: LOCK_STALE_MS });
        return;
      }
      // ctime, not mtime: a temp file's mtime is set to the session's last access on purpose.
      const old = Date.now() - (await stat(path)).ctimeMs > LOCK_STALE_MS;
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
