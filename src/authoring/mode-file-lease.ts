// Turns at a mode file across replicas: a Redis lease with a fencing token, queued inside this
// process first. It never extends or deletes a lease that is not its own, and never hides its loss.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { BOUNDS } from '../bounds.js';
import { LockBusyError } from '../files/pid-lock.js';
import type { RedisCommander } from '../redis/client.js';
import { RedisScript } from '../redis/script.js';
import type { Logger } from '../log.js';
import { FileRecords } from './file-records.js';
import { keyPrefix, positiveInteger, reply, StoreDataError } from '../redis/input.js';

// How it works. A lock name (the same on every replica: the mode file's path relative to the shared
// project root, never a host path, as mounts differ) maps to two keys: the lease, holding
// `<token>\n<replica>\n<pid>\n<host>`, and the fence counter. Acquiring is one script: if no lease
// exists, INCR the counter for the token and SET NX PX the lease. Renew (PEXPIRE), release (DEL) and
// stillHolds compare the lease's value with the holder's first, in Lua, so none of them ever acts
// on a successor's lease. Waiters of this process queue first come, first served (one tail promise
// per name, as src/files/lock-queue.ts), so they never poll Redis against each other; the head
// polls Redis with pauses from 1 ms doubling to pollMs. One deadline covers both waits; an
// AbortSignal ends either at once with the signal's reason. The errors are the file lock's:
// LockBusyError (here LeaseBusyError, naming the holding replica) and the abort reason, so
// src/authoring/mode-file-lock.ts lockRefusal turns them into the same "busy"/"cancelled" answers.
//
// What the fencing token guarantees, and what it cannot. Tokens of one name strictly increase for
// as long as the counter key lives, and the lease's exact value tells atomically whether a holder
// is still current. A file system checks neither: a writer paused (GC, a stopped VM, a slow disk)
// between any check and its rename can still replace a file a later holder wrote. So the check
// that decides is not made before the rename but in the store, atomically with recording the
// write (file-records.ts), and the files are kept copies of those records (projection.ts,
// turn-fence.ts). Tokens restart if the counter is lost: a Redis without persistence (AOF)
// restarted, FLUSHDB, or a failover to a replica that had not received the last INCR.

export interface LeaseHolder { replica: string; pid: number; host: string }

/** The lease stayed held by another holder until the deadline. */
export class LeaseBusyError extends LockBusyError {
  /** Who held it at the last look; null when it was this process's own queue. */
  readonly holder: LeaseHolder | null;
  constructor(name: string, holder: LeaseHolder | null, waitedMs: number) {
    super(name, holder?.pid ?? null, waitedMs);
    this.name = 'LeaseBusyError';
    this.holder = holder;
    const who = holder === null ? 'an earlier writer of this replica' : `replica ${holder.replica} (process ${holder.pid} on ${holder.host})`;
    this.message = `the lease on ${name} stayed held by ${who} for ${waitedMs} ms`;
  }
}

/** A held lease. Renew it within leaseMs; writes under it are recorded through `ref` (file-records.ts). */
export interface Lease {
  readonly name: string;
  /** The fencing token: larger than every earlier holder's of this name. */
  readonly token: number;
  /** The lease's key, its exact value (what a script compares) and the hash tag its name's keys share. */
  readonly ref: { key: string; value: string; tag: string };
  /** Extends the lease by leaseMs; false when it was lost (expired, and maybe taken since). */
  renew(): Promise<boolean>;
  /** True while this lease is current with at least `minRemainingMs` left. */
  stillHolds(minRemainingMs?: number): Promise<boolean>;
  /** Ends the lease if it is still this one's and lets the next waiter of this process go; safe to call twice. */
  release(): Promise<void>;
}

export interface LeaseLockOptions {
  /** This replica's name, shown to waiters that time out. */
  replica: string;
  prefix?: string;
  leaseMs?: number;
  waitMs?: number;
  pollMs?: number;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the lock's waitMs for this call. */
  waitMs?: number;
  /** Told once when the wait starts because another replica holds the lease. */
  onWait?: (holder: LeaseHolder | null) => void;
}

const ACQUIRE = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current then return {0, current} end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. '\\n' .. ARGV[2], 'NX', 'PX', ARGV[1])
return {1, token}`);
const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);
const HOLDS = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local left = redis.call('PTTL', KEYS[1])
if left >= 0 and left < tonumber(ARGV[2]) then return 0 end
return 1`);
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`);

// A lease value is four short lines; anything longer is not one of ours.
const MAX_VALUE_CHARS = 512;
const HOST = hostname();

/** Reads a lease value back: the holder, or StoreDataError when it is not of our form. */
function parseHolder(key: string, value: string): { token: number; holder: LeaseHolder } {
  const lines = value.length <= MAX_VALUE_CHARS ? value.split('\n') : [];
  const [token, replica, pid, host] = lines;
  if (lines.length !== 4 || !/^\d{1,15}$/.test(token!) || !/^\d{1,10}$/.test(pid!) || !replica || !host) {
    throw new StoreDataError(key, 'the lease value is not "<token>\\n<replica>\\n<pid>\\n<host>"');
  }
  return { token: Number(token), holder: { replica, pid: Number(pid), host } };
}

/** One per process and Redis: every writer of a mode file here must share it, so they queue instead of polling. */
export class RedisLeaseLock {
  readonly #client: RedisCommander;
  readonly #prefix: string;
  readonly #me: string;
  readonly #leaseMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #tails = new Map<string, Promise<void>>();
  /** The records of the files written under these leases (src/authoring/file-records.ts), in the same Redis and prefix. */
  readonly records: FileRecords;

  constructor(client: RedisCommander, o: LeaseLockOptions) {
    if (!/^[^\n]{1,64}$/.test(o.replica)) throw new TypeError(`replica ${JSON.stringify(o.replica)}: expected 1 to 64 characters on one line`);
    this.#client = client;
    this.#prefix = keyPrefix(o.prefix);
    this.#me = `${o.replica}\n${process.pid}\n${HOST.replace(/\n/g, ' ') || 'unknown'}`;
    this.#leaseMs = positiveInteger('leaseMs', o.leaseMs ?? BOUNDS.store.lockLeaseMs);
    this.#waitMs = o.waitMs ?? BOUNDS.store.lockWaitMs;
    if (!Number.isSafeInteger(this.#waitMs) || this.#waitMs < 0) throw new TypeError(`waitMs: expected a non-negative integer, got ${String(this.#waitMs)}`);
    this.#pollMs = positiveInteger('pollMs', o.pollMs ?? BOUNDS.store.lockPollMs);
    this.records = new FileRecords(client, this.#prefix);
  }

  /** How long a lease lasts without renewal. */
  get leaseMs(): number { return this.#leaseMs; }

  /** Waits for the lease on `name`: LeaseBusyError after the deadline, the signal's reason on abort. */
  async acquire(name: string, o: AcquireOptions = {}): Promise<Lease> {
    const started = Date.now();
    const deadline = started + (o.waitMs ?? this.#waitMs);
    const before = this.#tails.get(name) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => { done = resolve; });
    const tail = before.then(() => mine);
    this.#tails.set(name, tail);
    const passOn = (): void => {
      done();
      void tail.then(() => { if (this.#tails.get(name) === tail) this.#tails.delete(name); });
    };
    try {
      await this.#turn(before, name, deadline, started, o.signal);
      const lease = await this.#take(name, deadline, started, o);
      return { ...lease, release: once(async () => { try { await lease.release(); } finally { passOn(); } }) };
    } catch (err) {
      passOn();
      throw err;
    }
  }

  /** Runs `fn` holding the lease (released after, however `fn` ends). */
  async run<T>(name: string, fn: (lease: Lease) => Promise<T>, o: AcquireOptions = {}): Promise<T> {
    const lease = await this.acquire(name, o);
    try {
      return await fn(lease);
    } finally {
      // A release that fails (Redis gone) must not turn a finished write into an error: the lease
      // runs out by itself within leaseMs, and the next waiter of this process goes on regardless.
      await lease.release().catch(() => undefined);
    }
  }

  /** True while `token` is the current lease on `name` with at least `minRemainingMs` left (one atomic check). */
  async stillHolds(name: string, token: number, minRemainingMs = 0): Promise<boolean> {
    const [lease] = this.#keys(name);
    const got = await this.#client.command('GET', lease);
    if (got === null) return false;
    const value = reply.string(lease, got, 'the lease');
    return parseHolder(lease, value).token === token && (await HOLDS.run(this.#client, [lease], [value, minRemainingMs])) === 1;
  }

  /** Waits for the earlier waiters of this process, the deadline, or the signal, whichever comes first. */
  async #turn(before: Promise<void>, name: string, deadline: number, started: number, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const ac = new AbortController();
    const stop = (): void => ac.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const late = sleep(Math.max(0, deadline - Date.now()), 'late' as const, { signal: ac.signal });
      const first = await Promise.race([before.then(() => 'turn' as const), late]);
      if (first === 'late') throw new LeaseBusyError(name, null, Date.now() - started);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
      ac.abort();
    }
  }

  async #take(name: string, deadline: number, started: number, o: AcquireOptions): Promise<Lease> {
    const [lease, fence] = this.#keys(name);
    let told = false;
    for (let pause = 1; ; pause = Math.min(pause * 2, this.#pollMs)) {
      o.signal?.throwIfAborted();
      const out = reply.array(lease, await ACQUIRE.run(this.#client, [lease, fence], [this.#leaseMs, this.#me]), 'the acquire answer');
      if (out[0] === 1) {
        const token = reply.integer(fence, out[1] ?? null, 'the fencing token');
        // Stopped while the last try was under way: the lease is given back unused.
        if (o.signal?.aborted) {
          await RELEASE.run(this.#client, [lease], [`${token}\n${this.#me}`]);
          throw o.signal.reason;
        }
        return this.#held(name, lease, token);
      }
      const { holder } = parseHolder(lease, reply.string(lease, out[1] ?? null, 'the lease'));
      if (!told) { told = true; o.onWait?.(holder); }
      const left = deadline - Date.now();
      if (left <= 0) throw new LeaseBusyError(name, holder, Date.now() - started);
      // The pause ends at once when the signal aborts: a cancelled request never waits on.
      await sleep(Math.min(pause, left), undefined, o.signal ? { signal: o.signal } : undefined)
        .catch((err: unknown) => { throw o.signal?.aborted ? o.signal.reason : err; });
    }
  }

  #held(name: string, key: string, token: number): Lease {
    const value = `${token}\n${this.#me}`;
    return {
      name,
      token,
      ref: { key, value, tag: this.tagOf(name) },
      renew: async () => (await RENEW.run(this.#client, [key], [value, this.#leaseMs])) === 1,
      stillHolds: async (minRemainingMs = 0) => (await HOLDS.run(this.#client, [key], [value, minRemainingMs])) === 1,
      release: async () => { await RELEASE.run(this.#client, [key], [value]); },
    };
  }

  /** The hash tag of a name's keys: the name hashed (any characters, bounded length), so they share one slot. */
  tagOf(name: string): string {
    return createHash('sha256').update(name).digest('hex').slice(0, 32);
  }

  /** The lease key and the fence counter. */
  #keys(name: string): [string, string] {
    const h = this.tagOf(name);
    return [`${this.#prefix}lease:{${h}}`, `${this.#prefix}fence:{${h}}`];
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let ran: Promise<void> | null = null;
  return () => (ran ??= fn());
}

/**
 * The shared store's leases, when a store is configured: mode-file turns are then taken in Redis
 * (every replica sees them) instead of the host-local lock file. `nameOf` gives the name every
 * replica uses for a file (never a host path where a shared one exists).
 */
export interface SharedLeases {
  lock: RedisLeaseLock;
  nameOf(file: string): string;
  /** Hears of repairs of stale copies and of files taken as edited by hand. */
  log?: Logger;
  /**
   * A test seam, never set in production: awaited at the named point of every fenced write (before
   * its commit, before its rename), so a test can stall a writer exactly there.
   */
  stall?: (at: StallPoint, name: string) => Promise<void>;
}

/** Where a fenced write can be stalled by a test: just before it commits, just before its rename. */
export type StallPoint = 'commit' | 'rename';
