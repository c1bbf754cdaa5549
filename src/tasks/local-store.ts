// Owns the live sessions: ids, expiry on every access and by a periodic sweep, tombstones that tell
// "expired" from "never existed", the parent/child links and the optional file persistence.
// Never validates mode slugs (the tool layer does) and never blocks the event loop for long.
import type { Logger } from '../log.js';
import { SessionExpiredError, TaskNotFoundError } from '../rpc/errors.js';
import { assertSessionId, SessionFiles } from './session-files.js';
import {
  addChildTask, finishTask, makeSession, newTask, randomId, switchTaskMode, toView, withTask,
  type FinalState, type SessionRecord, type SessionView,
} from './task.js';
import { KeyedChains } from './chains.js';
import { SessionTable } from './table.js';
import { Tombstones } from './tombstones.js';
import { restoreSessions, staleFiles, sweepEvery, walkStale, type Upkeep } from './upkeep.js';
import { existingViews, relativesOf, settleChildren, type FamilyAccess } from './family.js';

// Ordering: every operation on one session runs in that session's promise chain, so operations
// on it happen one at a time in call order; with persistence a mutation also holds the session's
// lock file and re-reads the file first, so several processes can share one directory. A call
// resolves only after its change is durable. An operation never waits on another session's chain
// while holding its own (no deadlocks): relatives are visited after the own step is done.

export interface SessionStoreOptions {
  timeoutSeconds: number;
  cleanupIntervalSeconds: number;
  persistenceDir: string | null;
  /** How long a change waits for another live process's lock on the session (persistence only). */
  lockTimeoutMs?: number;
  log: Logger;
  now?: () => number;
  /** How many expired ids are remembered to answer -32003 rather than -32002 (oldest evicted). */
  maxTombstones?: number;
}

export type { SessionView } from './task.js';

const DEFAULT_TOMBSTONES = 100_000;

type Change<T> = (rec: SessionRecord) => { next: SessionRecord | null; out: T } | Promise<{ next: SessionRecord | null; out: T }>;

export class LocalSessionStore {
  readonly #sessions = new SessionTable();
  readonly #tombstones: Tombstones;
  readonly #files: SessionFiles | null;
  readonly #chains = new KeyedChains();
  readonly #timeoutMs: number;
  readonly #timeoutSeconds: number;
  readonly #cleanupMs: number;
  readonly #log: Logger;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | null = null;

  constructor(options: SessionStoreOptions) {
    if (!(options.timeoutSeconds > 0)) throw new TypeError(`sessions timeout must be a positive number of seconds, got ${options.timeoutSeconds}`);
    this.#timeoutSeconds = options.timeoutSeconds;
    this.#timeoutMs = options.timeoutSeconds * 1000;
    this.#cleanupMs = options.cleanupIntervalSeconds > 0 ? options.cleanupIntervalSeconds * 1000 : 0;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#tombstones = new Tombstones(options.maxTombstones ?? DEFAULT_TOMBSTONES);
    this.#files = options.persistenceDir === null ? null : new SessionFiles(options.persistenceDir, options.log, options.lockTimeoutMs);
  }

  /** Starts the sweep timer and, with persistence, loads the sessions on disk. */
  async init(): Promise<{ restored: number; expired: number; corrupt: number }> {
    if (this.#timer === undefined && this.#cleanupMs > 0) this.#timer = sweepEvery(this.#cleanupMs, () => this.sweep(), this.#log);
    if (this.#files === null) return { restored: 0, expired: 0, corrupt: 0 };
    return restoreSessions(this.#upkeep(this.#files), this.#now());
  }

  /** A new session; kept in memory only and without a parent it is made at once (no promise). */
  create(input: { modeSlug: string; initialMessage?: string; parentSessionId?: string }): SessionView | Promise<SessionView> {
    const now = this.#now();
    const id = randomId('ses_');
    const taskId = randomId('task_');
    const make = (parent: SessionRecord | undefined): SessionRecord => makeSession({
      id,
      task: newTask({ id: taskId, mode: input.modeSlug, at: now, initialMessage: input.initialMessage, parentId: parent?.task.id }),
      lastAccessed: now, parentSession: parent?.id, childSessions: undefined,
    });
    if (input.parentSessionId === undefined) {
      const rec = make(undefined);
      const files = this.#files;
      // Nothing can wait on an id nobody has seen yet, so without a file to write there is no turn to take.
      if (files === null) { this.#sessions.set(id, rec); return toView(rec); }
      return this.#exclusive(id, async () => {
        await files.write(rec);
        this.#sessions.set(id, rec);
        return toView(rec);
      });
    }
    return this.#createChild(id, taskId, input.parentSessionId, now, make);
  }

  /** A subtask's session: the child is written first, then the parent gains it, under the parent's turn. */
  async #createChild(id: string, taskId: string, parentSessionId: string, now: number, make: (parent: SessionRecord) => SessionRecord): Promise<SessionView> {
    const { out } = await this.#mutate(parentSessionId, now, true, async (parent) => {
      const nextParent = withTask(parent, addChildTask(parent.task, taskId)); // throws unless active
      const child = make(parent);
      // The child is written first: a crash before the parent's write leaves an unacknowledged
      // orphan, never a parent pointing at nothing.
      if (this.#files) await this.#files.write(child);
      this.#sessions.set(id, child);
      return { next: makeSession({ ...nextParent, childSessions: [...(parent.childSessions ?? []), id] }), out: child };
    }).catch(async (err: unknown) => {
      if (this.#sessions.delete(id)) await this.#files?.remove(id);
      throw err;
    });
    return toView(out);
  }

  /** The session as JSON; counts as an access. */
  async get(sessionId: string): Promise<SessionView> {
    assertSessionId(sessionId);
    const now = this.#now();
    return this.#exclusive(sessionId, async () => toView(await this.#access(sessionId, now)));
  }

  /**
   * The session's current mode slug; counts as an access like get(). For callers that need the
   * mode alone (validate_tool_use): no JSON copy of the task and no dates are formatted.
   */
  modeOf(sessionId: string): string | Promise<string> {
    assertSessionId(sessionId);
    const now = this.#now();
    // Kept in memory only and nothing queued for this session: the access can be made at once,
    // exactly as the chain would make it, with no record built and no promise.
    if (this.#files === null && this.#chains.isFree(sessionId)) return this.#modeNow(sessionId, now);
    return this.#exclusive(sessionId, async () => (await this.#access(sessionId, now)).task.mode);
  }

  /** #access for modeOf without persistence: the same checks and the same refresh, synchronously. */
  #modeNow(id: string, now: number): string {
    const seen = this.#sessions.lastAccessed(id);
    if (seen === undefined) throw this.#tombstones.has(id) ? this.#expiredError(id) : new TaskNotFoundError(id);
    if (this.#stale(seen, now)) {
      this.#forget(id);
      throw this.#expiredError(id);
    }
    this.#sessions.touch(id, now);
    return this.#sessions.modeOf(id)!;
  }

  async switchMode(sessionId: string, newModeSlug: string, reason?: string): Promise<{ session: SessionView; oldMode: string }> {
    const now = this.#now();
    const { rec, out } = await this.#mutate(sessionId, now, true, (r) => ({
      next: withTask(r, switchTaskMode(r.task, newModeSlug, reason, now)), out: r.task.mode,
    }));
    return { session: toView(rec), oldMode: out };
  }

  /**
   * Finishes the task once. Without cascade the active direct children are listed; with it every
   * active descendant is cancelled (their last access is left alone: nobody used them).
   */
  async complete(sessionId: string, status: FinalState, result?: string, cascade = false): Promise<{ session: SessionView; activeChildren: SessionView[]; cancelledChildren: SessionView[] }> {
    const now = this.#now();
    const { rec } = await this.#mutate(sessionId, now, true, (r) => ({ next: withTask(r, finishTask(r.task, status, result, now)), out: null }));
    return { session: toView(rec), ...await settleChildren(rec, cascade, now, this.#family(now)) };
  }

  /** Parent and children with their mode and state; relatives that expired are omitted. */
  async hierarchy(sessionId: string): Promise<{ parent?: SessionView; children: SessionView[] }> {
    const now = this.#now();
    const rec = await this.#exclusive(sessionId, () => this.#access(sessionId, now));
    return relativesOf(rec, this.#family(now));
  }

  /** Removes expired sessions (and their files) in slices, letting other work run in between. */
  sweep(): Promise<number> {
    if (this.#sweeping === null) {
      const run = this.#sweepNow().finally(() => { this.#sweeping = null; });
      this.#sweeping = run;
    }
    return this.#sweeping;
  }

  async #sweepNow(): Promise<number> {
    const now = this.#now();
    let removed = 0;
    const suspects: string[] = [];
    await walkStale(this.#sessions, (last) => this.#stale(last, now), (id) => {
      if (this.#files !== null) { suspects.push(id); return; } // another process may have used it since: confirm from the file
      this.#forget(id);
      removed++;
    });
    if (this.#files === null) return removed;
    suspects.push(...await staleFiles(this.#upkeep(this.#files), now));
    for (const id of suspects) {
      try {
        await this.#exclusive(id, () => this.#load(id, now));
      } catch (err) {
        if (err instanceof SessionExpiredError) removed++;
        else if (!(err instanceof TaskNotFoundError)) throw err;
      }
    }
    return removed;
  }

  #upkeep(files: SessionFiles): Upkeep {
    return { sessions: this.#sessions, tombstones: this.#tombstones, files, log: this.#log, stale: (last, now) => this.#stale(last, now) };
  }

  size(): number { return this.#sessions.size; }

  async flush(): Promise<void> {
    await this.#chains.idle();
    await this.#files?.flush();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => 0);
    await this.flush();
  }

  #stale(lastAccessed: number, now: number): boolean {
    return now - lastAccessed >= this.#timeoutMs;
  }

  #forget(id: string): void {
    this.#sessions.delete(id);
    this.#tombstones.add(id);
  }

  #expiredError(id: string): SessionExpiredError { return new SessionExpiredError(id, this.#timeoutSeconds); }

  /**
   * The current record, without counting an access. With persistence the file is the truth: it is
   * re-read every time, so changes made by other processes are seen. Throws -32002 / -32003.
   */
  async #load(id: string, now: number): Promise<SessionRecord> {
    assertSessionId(id);
    let rec = this.#sessions.get(id);
    const files = this.#files;
    if (files !== null && !(rec === undefined && this.#tombstones.has(id))) {
      const r = await files.read(id);
      if (r.kind === 'ok') {
        rec = r.record;
        this.#sessions.set(id, rec);
      } else if (r.kind === 'missing') {
        if (rec !== undefined) { this.#forget(id); throw this.#expiredError(id); } // swept elsewhere
      } else {
        this.#log.warn(`session file ${id}.json is unreadable (${r.reason}); using the copy in memory if any`);
      }
    }
    if (rec === undefined) throw this.#tombstones.has(id) ? this.#expiredError(id) : new TaskNotFoundError(id);
    if (this.#stale(rec.lastAccessed, now)) {
      this.#forget(id);
      await files?.remove(id);
      throw this.#expiredError(id);
    }
    return rec;
  }

  /** Loads and counts an access (refreshing last_accessed in memory and on disk). */
  async #access(id: string, now: number): Promise<SessionRecord> {
    const rec = await this.#load(id, now);
    rec.lastAccessed = now;
    this.#sessions.touch(id, now);
    await this.#files?.touch(id, now);
    return rec;
  }

  /** What the family walk (src/tasks/family.ts) needs: reads and changes that do not count as accesses. */
  #family(now: number): FamilyAccess {
    return {
      views: (ids) => existingViews(ids, (id) => this.#exclusive(id, () => this.#load(id, now))),
      change: (id, change) => this.#mutate(id, now, false, change),
    };
  }

  /** Read-modify-write of one session under its chain (and lock file); `next: null` writes nothing. */
  #mutate<T>(id: string, now: number, refresh: boolean, change: Change<T>): Promise<{ rec: SessionRecord; out: T }> {
    assertSessionId(id);
    return this.#exclusive(id, async () => {
      const release = this.#files === null ? null : await this.#files.lock(id);
      try {
        const rec = await this.#load(id, now);
        if (refresh) {
          rec.lastAccessed = now;
          this.#sessions.touch(id, now);
        }
        let step: { next: SessionRecord | null; out: T };
        try {
          step = await change(rec);
        } catch (err) {
          if (refresh) await this.#files?.touch(id, now);
          throw err;
        }
        if (step.next === null) return { rec, out: step.out };
        if (this.#files) await this.#files.write(step.next);
        this.#sessions.set(id, step.next);
        return { rec: step.next, out: step.out };
      } finally {
        if (release !== null) await release();
      }
    });
  }

  /** Runs `fn` after every earlier operation on the same session has settled. */
  #exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> { return this.#chains.run(id, fn); }
}
