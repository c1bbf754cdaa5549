// Task sessions kept in Redis, with the same API and answers as src/tasks/local-store.ts, so any number
// of replicas share them. It never keeps a session in memory between calls and never retries a Redis failure.
import { BOUNDS } from '../bounds.js';
import type { Logger } from '../log.js';
import { KeyedChains } from './chains.js';
import { assertSessionId, sessionToFile } from './session-files.js';
import {
  addChildTask, finishTask, makeSession, newTask, randomId, switchTaskMode, toView, withTask,
  type FinalState, type SessionRecord, type SessionView,
} from './task.js';
import { sweepEvery } from './upkeep.js';
import type { RedisCommander } from '../redis/client.js';
import { RedisError } from '../redis/errors.js';
import type { RedisArg, RespValue } from '../redis/resp.js';
import type { RedisScript } from '../redis/script.js';
import type { TaskSessionStore } from './session-store.js';
import { keyPrefix } from '../redis/input.js';
import { DatasetMarker } from '../redis/dataset-marker.js';
import { existingViews, relativesOf, settleChildren, type FamilyAccess } from './family.js';
import { randomHex } from './random.js';
import {
  AtCap, contention, loadedOf, malformed, redisFailure, sessionsFull, settled, statusOf, versionOf,
  type Loaded, type Status, type StoreContext,
} from './redis-replies.js';
import { CREATE, CREATE_CHILD, expiryKey, LOAD, sessionKeys, SWEEP_ONE, WRITE } from './redis-scripts.js';
import { sweepStale } from './redis-sweep.js';

// How it works (keys and scripts in redis-scripts.ts). A session is a Redis hash whose TTL is the
// timeout, refreshed by each access, and an entry in the expiry index, which the create script counts
// against the cap. Expiry is judged in the scripts from the caller's clock (`now - last >= timeout`),
// which agrees with the TTL on a real clock and keeps an injected clock and a sweep meaningful; a
// session found gone is told apart there (tombstone: expired; index entry younger than its timeout:
// evicted) and here (the id's dataset tag against the marker: lost in a restart). A change is read
// (LOAD), computed with the pure transitions of task.ts, then written by WRITE only if the version
// read is still current; a lost race reads again, so replicas' changes are serialised and each
// acknowledged one is in the record once. A call resolves only after Redis answered the write; within
// one replica, calls on one session take turns (KeyedChains). A child is written with its parent's
// link in one script. Every Redis failure becomes a SessionStoreError saying `retryable` and whether
// the command may have run; every reply is checked before it is believed.
// It assumes the replicas' clocks agree well within a timeout (a replica behind never moves a last
// access back), a standalone Redis, and that "acknowledged" means Redis applied it: durable across a
// restart only with AOF (appendfsync always for every write, everysec for all but the last second).

export interface RedisSessionStoreOptions {
  /** A connected (or connecting) client; its owner closes it. `address` names it in errors. */
  redis: RedisCommander & { readonly address?: string };
  /** Put before every key; default `rms:` (checked by keyPrefix, the rule every store module shares). */
  prefix?: string;
  timeoutSeconds: number;
  cleanupIntervalSeconds: number;
  /** How long an expired id still answers -32003 (default BOUNDS.redisSessions.tombstoneSeconds). */
  tombstoneSeconds?: number;
  /** Sessions held at once by every store on this prefix (store.max_task_sessions); default: no cap. */
  maxSessions?: number;
  /** The dataset marker (the shared store's, read on every connection); default: one of its own. */
  marker?: DatasetMarker;
  log: Logger;
  now?: () => number;
}

type Change<T> = (rec: SessionRecord) => { next: SessionRecord | null; out: T };

const LUA_EXACT_MS = 1e14;
/** What an attempt returns when another replica's change beat its version check: the record as it now is. */
class Conflict { constructor(readonly current: Loaded) {} }

export class RedisSessionStore implements TaskSessionStore {
  readonly #redis: RedisCommander;
  readonly #ctx: StoreContext;
  readonly #chains = new KeyedChains();
  readonly #timeoutMs: number;
  readonly #tombstoneMs: number;
  readonly #cleanupMs: number;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #max: number;
  readonly #marker: DatasetMarker;
  /** What #warnOnce has said. */
  readonly #told = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | null = null;

  constructor(options: RedisSessionStoreOptions) {
    if (!(options.timeoutSeconds > 0)) throw new TypeError(`sessions timeout must be a positive number of seconds, got ${options.timeoutSeconds}`);
    const tombstoneSeconds = options.tombstoneSeconds ?? BOUNDS.redisSessions.tombstoneSeconds;
    if (!(tombstoneSeconds > 0)) throw new TypeError(`the tombstone lifetime must be a positive number of seconds, got ${tombstoneSeconds}`);
    const prefix = keyPrefix(options.prefix);
    this.#redis = options.redis;
    this.#ctx = { address: options.redis.address ?? 'the configured address', prefix, timeoutSeconds: options.timeoutSeconds };
    // PEXPIRE takes whole milliseconds.
    this.#timeoutMs = Math.ceil(options.timeoutSeconds * 1000);
    this.#tombstoneMs = Math.ceil(tombstoneSeconds * 1000);
    // Redis's Lua hands numbers to commands with 14 significant digits: past that a TTL would be garbled.
    if (this.#timeoutMs + this.#tombstoneMs >= LUA_EXACT_MS) {
      throw new TypeError(`the session timeout plus the tombstone lifetime must stay under ${LUA_EXACT_MS / 1000} seconds for the Redis store, got ${options.timeoutSeconds} + ${tombstoneSeconds}`);
    }
    this.#cleanupMs = options.cleanupIntervalSeconds > 0 ? options.cleanupIntervalSeconds * 1000 : 0;
    this.#max = options.maxSessions ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(this.#max) || this.#max < 1) throw new TypeError(`the session cap must be a positive integer, got ${options.maxSessions}`);
    this.#marker = options.marker ?? new DatasetMarker(prefix);
    this.#log = options.log;
    // Whole milliseconds: the scripts store and compare integers.
    const now = options.now ?? Date.now;
    this.#now = () => Math.floor(now());
  }

  /** Starts the sweep timer. Nothing is loaded: Redis holds the sessions. */
  async init(): Promise<{ restored: number; expired: number; corrupt: number }> {
    if (this.#timer === undefined && this.#cleanupMs > 0) this.#timer = sweepEvery(this.#cleanupMs, () => this.sweep(), this.#log);
    return { restored: 0, expired: 0, corrupt: 0 };
  }

  async create(input: { modeSlug: string; initialMessage?: string; parentSessionId?: string }): Promise<SessionView> {
    for (let swept = false; ; swept = true) {
      try {
        return await this.#create(input);
      } catch (err) {
        if (!(err instanceof AtCap)) throw err;
        const wait = err.oldest + this.#timeoutMs - this.#now();
        // At the cap with sessions past their time still counted (Redis dropped them, no sweep yet): sweep once.
        if (wait > 0 || swept) {
          this.#warnOnce('cap', `the store holds store.max_task_sessions (${this.#max}) task sessions: create_task is refused until some expire`);
          throw sessionsFull(this.#ctx, this.#max, Math.max(1, Math.ceil(wait / 1000)));
        }
        await this.sweep();
      }
    }
  }

  async #create(input: { modeSlug: string; initialMessage?: string; parentSessionId?: string }): Promise<SessionView> {
    const now = this.#now();
    // The dataset marker's tag leads the id: if Redis loses this dataset, the id says so when asked for.
    const tag = this.#marker.proposal();
    const id = `ses_${tag}${randomHex(9)}`;
    const taskId = randomId('task_');
    const make = (parent: SessionRecord | undefined): SessionRecord => makeSession({
      id,
      task: newTask({ id: taskId, mode: input.modeSlug, at: now, initialMessage: input.initialMessage, parentId: parent?.task.id }),
      lastAccessed: now, parentSession: parent?.id, childSessions: undefined,
    });
    if (input.parentSessionId === undefined) {
      const rec = make(undefined);
      const { status, fields } = await this.#script(CREATE, 'creating a session', id, this.#keys(id), [now, this.#timeoutMs, this.#tombstoneMs, id, sessionToFile(rec), this.#max, tag]);
      return status === 'ok' ? this.#made(toView(rec), fields) : this.#settle(status, id, fields);
    }
    const parentId = input.parentSessionId;
    assertSessionId(parentId);
    // Under the parent's turn: the parent gains the child in the same script that writes the child.
    return this.#chains.run(parentId, () => this.#attempts(parentId, () => this.#load(parentId, now, true), async ({ rec: parent, version }) => {
      const nextParent = withTask(parent, addChildTask(parent.task, taskId)); // throws unless active
      const child = make(parent);
      const linked = makeSession({ ...nextParent, childSessions: [...(parent.childSessions ?? []), id] });
      const [ps, pg] = this.#keys(parentId);
      const { status, fields } = await this.#script(CREATE_CHILD, 'creating a subtask session', parentId,
        [...this.#keys(id), ps, pg],
        [now, this.#timeoutMs, this.#tombstoneMs, parentId, id, version, sessionToFile(child), sessionToFile(linked), this.#max, tag]);
      if (status === 'conflict') return new Conflict(loadedOf(this.#ctx, fields, parentId));
      return status === 'ok' ? this.#made(toView(child), fields) : this.#settle(status, parentId, fields);
    }));
  }

  /** A create's answer: the view, once the dataset marker it answered is taken. */
  #made(view: SessionView, fields: RespValue[]): SessionView {
    const marker = fields[1];
    this.#marker.observe(typeof marker === 'string' ? marker : null);
    return view;
  }

  /** The session as JSON; counts as an access. */
  async get(sessionId: string): Promise<SessionView> {
    assertSessionId(sessionId);
    const now = this.#now();
    return this.#chains.run(sessionId, async () => toView((await this.#load(sessionId, now, true)).rec));
  }

  /** The session's current mode slug; counts as an access like get(). */
  async modeOf(sessionId: string): Promise<string> {
    assertSessionId(sessionId);
    const now = this.#now();
    return this.#chains.run(sessionId, async () => (await this.#load(sessionId, now, true)).rec.task.mode);
  }

  async switchMode(sessionId: string, newModeSlug: string, reason?: string): Promise<{ session: SessionView; oldMode: string }> {
    const now = this.#now();
    const { rec, out } = await this.#mutate(sessionId, now, true, (r) => ({
      next: withTask(r, switchTaskMode(r.task, newModeSlug, reason, now)), out: r.task.mode,
    }));
    return { session: toView(rec), oldMode: out };
  }

  /** Finishes the task once; cascade cancels every active descendant (without counting an access). */
  async complete(sessionId: string, status: FinalState, result?: string, cascade = false): Promise<{ session: SessionView; activeChildren: SessionView[]; cancelledChildren: SessionView[] }> {
    const now = this.#now();
    const { rec } = await this.#mutate(sessionId, now, true, (r) => ({ next: withTask(r, finishTask(r.task, status, result, now)), out: null }));
    return { session: toView(rec), ...await settleChildren(rec, cascade, now, this.#family(now)) };
  }

  /** Parent and children with their mode and state; relatives that expired are omitted. */
  async hierarchy(sessionId: string): Promise<{ parent?: SessionView; children: SessionView[] }> {
    assertSessionId(sessionId);
    const now = this.#now();
    const { rec } = await this.#chains.run(sessionId, () => this.#load(sessionId, now, true));
    return relativesOf(rec, this.#family(now));
  }

  /** Ends the sessions the expiry index shows as stale (one sweep at a time); resolves to how many this call removed. */
  sweep(): Promise<number> {
    this.#sweeping ??= sweepStale({
      command: (args) => this.#command('sweeping expired sessions', args),
      sweepOne: (id, now) => this.#raw(SWEEP_ONE, 'sweeping expired sessions', id, this.#keys(id), [now, this.#timeoutMs, this.#tombstoneMs, id]),
    }, { ctx: this.#ctx, now: this.#now(), timeoutMs: this.#timeoutMs, log: this.#log }).finally(() => { this.#sweeping = null; });
    return this.#sweeping;
  }

  /** Sessions in Redis under this prefix that no access or sweep has yet found expired. */
  async size(): Promise<number> {
    const n = await this.#command('counting sessions', ['ZCARD', expiryKey(this.#ctx.prefix)]);
    if (typeof n !== 'number') throw malformed(this.#ctx, 'expiry index count', `${JSON.stringify(String(n))} is not a number`);
    return n;
  }

  /** Resolves once every call started so far has settled (each one's write was confirmed or failed). */
  async flush(): Promise<void> { await this.#chains.idle(); }

  /** Stops the sweep timer and waits for calls in flight; the client stays its owner's to close. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => 0);
    await this.flush();
  }

  #keys(id: string): [string, string, string, string] { return sessionKeys(this.#ctx.prefix, id); }

  /** Reads a session (counting an access with `refresh`); throws -32002 / -32003. */
  async #load(id: string, now: number, refresh: boolean): Promise<Loaded> {
    const { status, fields } = await this.#script(LOAD, 'reading a session', id, this.#keys(id), [now, this.#timeoutMs, this.#tombstoneMs, id, refresh ? '1' : '0']);
    return status === 'ok' ? loadedOf(this.#ctx, fields, id) : this.#settle(status, id, fields);
  }

  /** Read, change, write if still current (else again); `next: null` writes nothing. */
  #mutate<T>(id: string, now: number, refresh: boolean, change: Change<T>): Promise<{ rec: SessionRecord; out: T }> {
    assertSessionId(id);
    return this.#chains.run(id, () => this.#attempts(id, () => this.#load(id, now, refresh), async ({ rec, version }) => {
      const step = change(rec); // a refused change (-32004) leaves the access counted, as in memory
      if (step.next === null) return { rec, out: step.out };
      const { status, fields } = await this.#script(WRITE, 'changing a session', id, this.#keys(id),
        [now, this.#timeoutMs, this.#tombstoneMs, id, version, sessionToFile(step.next)]);
      if (status === 'conflict') return new Conflict(loadedOf(this.#ctx, fields, id));
      if (status !== 'ok') return this.#settle(status, id, fields);
      versionOf(this.#ctx, fields, id);
      return { rec: step.next, out: step.out };
    }));
  }

  /** Reads once, then runs `attempt` on the freshest record while another replica's change beats it, within the bound. */
  async #attempts<T>(id: string, read: () => Promise<Loaded>, attempt: (loaded: Loaded) => Promise<T | Conflict>): Promise<T> {
    const max = BOUNDS.redisSessions.maxAttempts;
    let loaded = await read();
    for (let i = 0; i < max; i++) {
      const out = await attempt(loaded);
      if (!(out instanceof Conflict)) return out;
      loaded = out.current;
    }
    throw contention(this.#ctx, id, max);
  }

  /** Relatives as settleChildren and relativesOf see them: looking at one or cancelling it is not an access. */
  #family(now: number): FamilyAccess {
    return {
      views: (ids) => existingViews(ids, async (id) => (await this.#chains.run(id, () => this.#load(id, now, false))).rec),
      change: (id, change) => this.#mutate(id, now, false, change),
    };
  }

  /** A warning about the deployment (its cap, Redis's eviction policy): once per process, not once per call. */
  #warnOnce(what: string, text: string): void {
    if (!this.#told.has(what)) this.#log.warn(`${text} (said once)`);
    this.#told.add(what);
  }

  /** What a failed status means (replies.ts, settled); an eviction is also logged, once. */
  #settle(status: Status, id: string, fields: RespValue[]): never {
    if (status === 'evicted') this.#warnOnce('eviction', `task session ${id} vanished from the store before its timeout: Redis evicts keys to free memory (maxmemory-policy); set maxmemory-policy noeviction (docs/deployment.md, "Redis settings")`);
    throw settled(this.#ctx, this.#marker, status, id, fields);
  }

  async #script(script: RedisScript, doing: string, id: string, keys: string[], args: RedisArg[]): Promise<{ status: Status; fields: RespValue[] }> {
    return statusOf(this.#ctx, await this.#raw(script, doing, id, keys, args), id);
  }

  async #raw(script: RedisScript, doing: string, id: string, keys: string[], args: RedisArg[]): Promise<RespValue> {
    try {
      return await script.run(this.#redis, keys, args);
    } catch (err) {
      throw this.#failure(err, doing, id);
    }
  }

  async #command(doing: string, args: RedisArg[]): Promise<RespValue> {
    try {
      return await this.#redis.command(...args);
    } catch (err) {
      throw this.#failure(err, doing);
    }
  }

  /** A Redis failure as the store's error; anything else (a bug) as it is. */
  #failure(err: unknown, doing: string, id?: string): unknown {
    return err instanceof RedisError ? redisFailure(this.#ctx, doing, err, id) : err;
  }
}
