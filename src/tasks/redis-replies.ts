// Reads the session scripts' replies as outside input (shape, version, last access, record) and turns
// Redis failures into the store's typed error. It never talks to Redis and never decides expiry.
import { SessionExpiredError, SessionStoreError, TaskNotFoundError, ValidationError } from '../rpc/errors.js';
import type { DatasetMarker } from '../redis/dataset-marker.js';
import { RedisError } from '../redis/errors.js';
import type { RespValue } from '../redis/resp.js';
import { sessionFromFile } from './session-files.js';
import { SESSION_ID_PATTERN, type SessionRecord } from './task.js';

/** A session as read: its record and the version a change must match. */
export interface Loaded { rec: SessionRecord; version: string }

/** What a script answered, once its first word is known. */
export type Status = 'ok' | 'expired' | 'evicted' | 'unknown' | 'conflict' | 'exists' | 'full';
const STATUSES: readonly string[] = ['ok', 'expired', 'evicted', 'unknown', 'conflict', 'exists', 'full'];

/** Why a session is not there, as far as the store can tell (the scripts' tombstone and index, the dataset marker). */
export type Gone = 'expired' | 'evicted' | 'unknown' | 'lost_in_restart';

// Versions and times as the scripts write them: decimal integers Lua still counts exactly (< 2^53).
const VERSION = /^[1-9][0-9]{0,14}$/;
const MILLIS = /^[0-9]{1,15}$/;

/** Where the store is and how long its sessions live: what every error names. */
export interface StoreContext { address: string; prefix: string; timeoutSeconds: number }

/** The store cannot serve the call: Redis down or slow (retryable), or it refused the command. */
export function redisFailure(ctx: StoreContext, doing: string, err: RedisError, sessionId?: string): SessionStoreError {
  // A command lost with its connection or timed out may still have run in Redis; one never sent did not.
  const mayHaveRun = err.kind === 'connection' || err.kind === 'timeout';
  const wait = err.kind === 'not_ready'
    ? 'Retry in a moment: Redis is up but not serving yet (still loading its data after a restart, or busy)'
    : 'Retry in a moment: the server reconnects to Redis by itself';
  return new SessionStoreError(`The session store (Redis at ${ctx.address}) cannot be used: ${doing} failed (${err.message})`, {
    message: `Session store Redis at ${ctx.address}: ${doing} failed (${err.kind}): ${err.message}`,
    store: 'redis',
    redis_address: ctx.address,
    operation: doing,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    redis_error: err.kind,
    retryable: err.retryable,
    may_have_run: mayHaveRun,
    recovery_suggestions: err.retryable
      ? [wait, ...(mayHaveRun ? ['The change may have been made: read the session before repeating it'] : ['Nothing was changed'])]
      : [err.kind === 'auth' ? 'Redis refused the credentials: fix the user and password in the store URL (ROO_MODES_STORE), or the Redis server\'s' : 'Check the Redis server and the store URL; retrying the same call gives the same answer'],
  });
}

/** Redis answered something the scripts never write (a hand edit, another program, another version). */
export function malformed(ctx: StoreContext, what: string, problem: string, sessionId?: string): SessionStoreError {
  return new SessionStoreError(`The session store (Redis at ${ctx.address}) holds a malformed ${what}: ${problem}; nothing was changed`, {
    message: `Session store Redis at ${ctx.address}: ${what} under the prefix ${JSON.stringify(ctx.prefix)} is malformed: ${problem}`,
    store: 'redis',
    redis_address: ctx.address,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    problem,
    retryable: false,
    may_have_run: false,
    recovery_suggestions: sessionId === undefined
      ? ['Check what else writes under this prefix']
      : [`Delete the key ${ctx.prefix}sess:${sessionId} to drop the session, or fix the key by hand`],
  });
}

/** Too many other replicas' changes landed first; nothing of this call was written. */
export function contention(ctx: StoreContext, sessionId: string, attempts: number): SessionStoreError {
  return new SessionStoreError(`Session ${sessionId} changed under this call ${attempts} times in a row; nothing was changed`, {
    message: `Session ${sessionId} was changed by other replicas during each of ${attempts} attempts`,
    store: 'redis', redis_address: ctx.address, session_id: sessionId, retryable: true, may_have_run: false,
    recovery_suggestions: ['Retry in a moment'],
  });
}

/** A script's reply as a status and its fields; anything else is malformed. */
export function statusOf(ctx: StoreContext, reply: RespValue, sessionId: string): { status: Status; fields: RespValue[] } {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string' || !STATUSES.includes(reply[0])) {
    throw malformed(ctx, 'script reply', `unexpected ${JSON.stringify(String(reply)).slice(0, 80)}`, sessionId);
  }
  return { status: reply[0] as Status, fields: reply.slice(1) };
}

/** The error for a session that is not there, saying why as far as the store knows. */
export function goneError(ctx: StoreContext, why: Gone, sessionId: string): SessionExpiredError | TaskNotFoundError {
  const where = `the shared store (Redis at ${ctx.address})`;
  switch (why) {
    case 'expired': return new SessionExpiredError(sessionId, ctx.timeoutSeconds);
    case 'evicted': return new TaskNotFoundError(sessionId, `Its record vanished from ${where} before its timeout: Redis dropped it to free memory (a maxmemory eviction policy) or something deleted it, so its state is lost; create a new one with create_task`, 'evicted');
    case 'lost_in_restart': return new TaskNotFoundError(sessionId, `${where[0]!.toUpperCase()}${where.slice(1)} was restarted and lost its data (it kept none on disk), and this session with it; create a new one with create_task`, 'lost_in_restart');
    case 'unknown': return new TaskNotFoundError(sessionId, `Sessions are kept in ${where}; this id was never there, or it expired longer ago than the store remembers; create one with create_task`, 'unknown');
  }
}

/** Past store.max_task_sessions: refused before anything was written; `retryAfterS` is when the oldest idle one expires. */
export function sessionsFull(ctx: StoreContext, max: number, retryAfterS: number): ValidationError {
  return new ValidationError(`Too many task sessions: the shared store holds ${max}, the most allowed (store.max_task_sessions); nothing was created. Retry in ${retryAfterS} s, or complete sessions no longer needed`, {
    message: `The shared store (Redis at ${ctx.address}) holds ${max} task sessions, the cap store.max_task_sessions; idle ones expire after ${ctx.timeoutSeconds} s`,
    error_type: 'session_limit', retryable: true, written: false, max_sessions: max, setting: 'store.max_task_sessions', retry_after_s: retryAfterS,
    recovery_suggestions: [`Retry in ${retryAfterS} s, when the oldest idle session expires`, 'Ask the operator to raise store.max_task_sessions'],
  });
}

/** A create met the cap; `oldest` is the last access of the session idle longest (ms). */
export class AtCap extends Error { constructor(readonly oldest: number) { super('the session cap is reached'); } }

/**
 * What a status other than ok or conflict means: gone (why, the id's dataset tag judged against the
 * marker the script answered), AtCap, or a reply no script gives at that point (malformed).
 */
export function settled(ctx: StoreContext, marker: DatasetMarker, status: Status, sessionId: string, fields: RespValue[]): Error {
  if (status === 'expired' || status === 'evicted') return goneError(ctx, status, sessionId);
  if (status === 'unknown') {
    const now = typeof fields[0] === 'string' && fields[0] !== '' ? fields[0] : null;
    marker.observe(now);
    return goneError(ctx, marker.lost(sessionId.slice(4, 10), now) ? 'lost_in_restart' : 'unknown', sessionId);
  }
  if (status === 'full') {
    const oldest = Number(fields[0]);
    return new AtCap(Number.isFinite(oldest) && fields[0] !== '' ? oldest : 0);
  }
  // `exists` on create: a fresh random id of 72 bits met an existing key, which only a foreign writer explains.
  return malformed(ctx, `answer for session ${sessionId}`, `the script answered ${JSON.stringify(status)}`, sessionId);
}

/** A new version number as WRITE or CREATE_CHILD answered it. */
export function versionOf(ctx: StoreContext, fields: RespValue[], sessionId: string): string {
  const v = fields[0];
  if (typeof v !== 'string' || !VERSION.test(v)) throw malformed(ctx, `version of session ${sessionId}`, `${JSON.stringify(v)} is not a version`, sessionId);
  return v;
}

/** LOAD's fields (version, last access, record JSON) checked one by one into a record. */
export function loadedOf(ctx: StoreContext, fields: RespValue[], sessionId: string): Loaded {
  const [version, last, data] = fields;
  const what = `session ${sessionId}`;
  if (typeof version !== 'string' || !VERSION.test(version)) throw malformed(ctx, what, `its version ${JSON.stringify(version)} is not a positive integer`, sessionId);
  if (typeof last !== 'string' || !MILLIS.test(last)) throw malformed(ctx, what, `its last access ${JSON.stringify(last)} is not epoch milliseconds`, sessionId);
  if (typeof data !== 'string') throw malformed(ctx, what, 'it has no record', sessionId);
  const rec = sessionFromFile(data, sessionId, Number(last));
  if (typeof rec === 'string') throw malformed(ctx, what, `its record: ${rec}`, sessionId);
  return { rec, version };
}

/** The ids a sweep read from the index: session ids, and the members that are not (to drop). */
export function sweepIds(ctx: StoreContext, reply: RespValue): { ids: string[]; junk: string[] } {
  if (!Array.isArray(reply)) throw malformed(ctx, 'expiry index reply', `${JSON.stringify(String(reply)).slice(0, 80)} is not a list`);
  const ids: string[] = [];
  const junk: string[] = [];
  for (const m of reply) {
    if (typeof m === 'string' && SESSION_ID_PATTERN.test(m)) ids.push(m);
    else if (typeof m === 'string') junk.push(m);
  }
  return { ids, junk };
}
