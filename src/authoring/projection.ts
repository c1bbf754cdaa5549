// A fenced file as a copy of its record in the store: whether the file is in step with the record,
// a stale copy left by a late rename, or edited by hand; the repair of a stale copy; and the check
// after a write of whether it counted. It never takes a turn except to repair, and never writes a
// file that is not one of its lease's.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { makeFolder, removeFile, writeFileAtomic } from '../files/atomic-write.js';
import { silentLogger, type Logger } from '../log.js';
import { RedisError } from '../redis/errors.js';
import { StoreDataError } from '../redis/input.js';
import type { RecordState } from './file-records.js';
import type { Lease, SharedLeases } from './mode-file-lease.js';

/** A lease and the files it orders. */
export interface LeaseScope {
  /** The lease's name (leases.nameOf of the file it is named after). */
  name: string;
  /** The folder the lease's files are named inside (their fields in the store). */
  anchor: string;
  /** The one field the lease orders (a mode file's name), or null for any file inside the anchor (the mode sets). */
  only: string | null;
  /** What is being changed, for messages ("the mode file /p/.roomodes"). */
  subject: string;
}

/** One turn at a lease's files with the shared store: what its commits and repairs need. */
export interface Turn {
  leases: SharedLeases;
  lease: Lease;
  scope: LeaseScope;
  /** Per file: its content's hash when last looked at in this turn, and the record id that content is ('' when none). */
  bases: Map<string, { hash: string; basedOn: string }>;
  /** Writes whose landing could not be confirmed inside the turn: checked after it. */
  unsettled: Landing[];
  /** The files this turn has replaced so far (a turn of several writes may fail after some). */
  written: string[];
}

/** A write recorded in the store and renamed into place (or about to be). */
export interface Landing { field: string; path: string; id: string; hash: string }

export type Verdict = 'counted' | 'superseded' | 'unknown';

/** The largest file hashed by its content; a larger one is no write of ours (see BOUNDS.store.recordBytes). */
const HASHED_BYTES = 16 * 1024 * 1024;
/** Repairs tried in a row before a turn gives up on a file other writers keep changing. */
const REPAIR_TRIES = 3;

export const newWriteId = (): string => randomBytes(8).toString('hex');
export const logOf = (t: { leases: SharedLeases }): Logger => t.leases.log ?? silentLogger;

/** The hash a record keeps for a content; 'absent' for no file. */
export function hashOf(content: string | Uint8Array | null): string {
  return content === null ? 'absent' : createHash('sha256').update(content).digest('hex');
}

/** The hash of what is at `path` now (never blocking on a FIFO; anything but a regular file hashes as what it is). */
export async function hashFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return 'absent';
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > HASHED_BYTES) return hashOf(`not ours: ${info.isFile() ? `${info.size} bytes` : 'not a regular file'}`);
    return hashOf(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/** A file's field: its path inside the anchor, with forward slashes; throws for a file outside it (a bug). */
export function fieldOf(anchor: string, path: string): string {
  const rel = relative(anchor, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path} is not inside ${anchor}, the folder of its lease`);
  return rel.split(sep).join('/');
}

/** A field read from the store as a path of the lease's; null when it is not one this lease orders. */
export function pathOf(scope: LeaseScope, field: string): string | null {
  const parts = field.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || /[\u0000-\u001f\\]/.test(p))) return null;
  if (scope.only !== null && field !== scope.only) return null;
  return join(scope.anchor, ...parts);
}

/** In step with the record, a stale copy of a write still landing (or the file it replaced), or edited by hand. */
export function look(hash: string, state: RecordState): 'in_step' | 'stale' | 'edited' {
  if (state.record === null || hash === state.record.hash) return state.record === null ? 'edited' : 'in_step';
  return state.intents.some((i) => i.next === hash || i.base === hash) ? 'stale' : 'edited';
}

/**
 * Brings one file in step with its record before the turn reads it: a stale copy is replaced by the
 * recorded content (a warning says so); a hand edit is kept and becomes the base. Notes the result
 * in turn.bases. Throws when the turn's lease is gone before a repair (nothing of this turn written).
 */
export async function reconcile(turn: Turn, field: string, path: string, first?: RecordState): Promise<void> {
  const { records } = turn.leases.lock;
  const tag = turn.lease.ref.tag;
  let state = first ?? await records.read(tag, field);
  for (let tries = 0; ; tries++) {
    const hash = await hashFile(path);
    const record = state.record;
    const seen = look(hash, state);
    if (record === null || seen !== 'stale') {
      if (seen === 'edited' && record !== null && turn.bases.get(field)?.hash !== hash) {
        logOf(turn).debug(`${path} differs from the store's record of it (token ${record.token}) and from every write still landing: taken as edited by hand`);
      }
      turn.bases.set(field, { hash, basedOn: seen === 'in_step' ? record!.id : '' });
      return;
    }
    if (tries >= REPAIR_TRIES) throw new LeaseRaceError(path);
    if (!(await turn.lease.stillHolds())) throw new LeaseRaceError(path, true);
    const content = await records.content(tag, field);
    if (hashOf(content) !== record.hash) throw new StoreDataError(`${tag}/${field}`, 'the recorded content does not match its record\'s hash');
    const id = newWriteId();
    await records.intend(tag, field, { id, next: record.hash, base: hash });
    await project(path, content);
    logOf(turn).warn(`repaired ${path}: it held a stale copy left by a write that landed late (or the file such a write was replacing); put back the store's record of the last acknowledged write (token ${record.token})`);
    // Our rename has returned, so our copy can land no more: its intent goes, unless that copy
    // stands where a later record now is (then it is a stale copy itself, and the loop repairs it).
    const now = await hashFile(path);
    state = await records.read(tag, field);
    if (!(now === record.hash && state.record?.hash !== record.hash)) await records.landed(tag, field, id);
  }
}

/** Every recorded file of the turn's lease brought in step (see reconcile). */
export async function reconcileAll(turn: Turn): Promise<void> {
  const states = await turn.leases.lock.records.readAll(turn.lease.ref.tag);
  for (const [field, state] of states) {
    const path = pathOf(turn.scope, field);
    if (path === null) throw new StoreDataError(field, `the field is not a file ${turn.scope.subject} is made of`);
    await reconcile(turn, field, path, state);
  }
}

/** Writes a recorded content into place (null: removes the file). */
async function project(path: string, content: string | null): Promise<void> {
  if (content === null) { await removeFile(path); return; }
  await makeFolder(dirname(path));
  await writeFileAtomic(path, content);
}

/** Right after a write's rename, inside its turn: done when the file and the record show it; else checked after the turn. */
export async function settleInTurn(turn: Turn, w: Landing): Promise<void> {
  const { records } = turn.leases.lock;
  try {
    // The file first: a record read after it that is still this write means the file showed it as the record.
    if (await hashFile(w.path) === w.hash && await records.landedAsRecord(turn.lease.ref.tag, w.field, w.id)) {
      turn.bases.set(w.field, { hash: w.hash, basedOn: w.id });
      return;
    }
  } catch (err) {
    if (!(err instanceof RedisError)) throw err;
  }
  turn.unsettled.push(w);
}

/**
 * After the turn (its lease given back): each write that did not settle inside it is checked
 * again, a stale copy repaired in a turn of its own, and the verdict given: counted (the record is
 * built on it), superseded (a change not built on it replaced it), unknown (too many writes since).
 */
export async function settleAfter(leases: SharedLeases, scope: LeaseScope, landings: readonly Landing[]): Promise<Verdict[]> {
  const { records } = leases.lock;
  const tag = leases.lock.tagOf(scope.name);
  const log = leases.log ?? silentLogger;
  const out: Verdict[] = [];
  for (const w of landings) {
    let state: RecordState | null = null;
    try {
      state = await records.read(tag, w.field);
      // Our own copy where another record stands is stale whatever the store remembers of it.
      const stale = async (s: RecordState): Promise<boolean> => {
        const hash = await hashFile(w.path);
        return s.record !== null && hash !== s.record.hash && (hash === w.hash || look(hash, s) === 'stale');
      };
      for (let tries = 0; await stale(state) && tries < REPAIR_TRIES; tries++) {
        // So that the repair (and every other writer) takes it for the stale copy it is.
        await records.intend(tag, w.field, { id: w.id, next: w.hash, base: w.hash });
        await repairTurn(leases, scope);
        state = await records.read(tag, w.field);
      }
      if (state.record !== null && !(await stale(state))) await records.landed(tag, w.field, w.id);
      else if (state.record !== null) log.warn(`${w.path} still holds a stale copy; the next writer of it puts the store's record back`);
    } catch (err) {
      // What cannot be repaired now is repaired by the next turn at the file: the intent stays.
      log.warn(`could not check or repair ${w.path} after writing it (${err instanceof Error ? err.message : String(err)}); the next turn at it puts the file in step with the store's record`);
    }
    const record = state?.record;
    if (record === undefined) {
      out.push('counted'); // the store could not be read: the write is recorded there, and counts unless replaced by a hand edit
    } else if (record === null) {
      log.warn(`the store holds no record of ${w.path} after this server wrote it (Redis restarted without its data, or was flushed): the file is taken as it is`);
      out.push('counted');
    } else {
      out.push(record.id === w.id || record.chain.includes(w.id) ? 'counted' : record.full ? 'superseded' : 'unknown');
    }
  }
  return out;
}

/** A turn of its own that brings every file of a lease in step with its record. */
export async function repairTurn(leases: SharedLeases, scope: LeaseScope): Promise<void> {
  const lease = await leases.lock.acquire(scope.name);
  try {
    await reconcileAll({ leases, lease, scope, bases: new Map(), unsettled: [], written: [] });
  } finally {
    await lease.release().catch(() => undefined);
  }
}

/**
 * Looks (without a turn) whether any recorded file of the lease holds a stale copy, and if so
 * repairs it in a turn: what a server does when it notices a change of the files. Resolves to
 * whether a repair ran.
 */
export async function repairIfStale(leases: SharedLeases, scope: LeaseScope): Promise<boolean> {
  const states = await leases.lock.records.readAll(leases.lock.tagOf(scope.name));
  for (const [field, state] of states) {
    const path = pathOf(scope, field);
    if (path !== null && look(await hashFile(path), state) === 'stale') {
      await repairTurn(leases, scope);
      return true;
    }
  }
  return false;
}

/** A repair could not be made: the turn's lease was lost, or other writers kept changing the file. */
export class LeaseRaceError extends Error {
  constructor(readonly path: string, readonly leaseLost = false) {
    super(leaseLost ? `the turn at ${path} ran out before its stale copy could be repaired` : `${path} kept changing while it was being repaired`);
    this.name = 'LeaseRaceError';
  }
}
