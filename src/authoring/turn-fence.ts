// The commit points of a turn at a mode file or the mode sets. With the shared store, a replacement
// is recorded in the store under the turn's lease (the fence) before it is renamed into place, and
// checked after; without a store, it is a plain atomic replacement. It takes no turn itself:
// mode-file-lock.ts sets the turn for the duration of one.
import { AsyncLocalStorage } from 'node:async_hooks';
import { BOUNDS } from '../bounds.js';
import { removeFile, writeFileAtomic } from '../files/atomic-write.js';
import { RedisError } from '../redis/errors.js';
import { storeRefusal, tooLargeToRecord, turnLost } from './fence-errors.js';
import { fieldOf, hashFile, hashOf, look, newWriteId, reconcile, settleInTurn, type Landing, type Turn } from './projection.js';

// Why the record and not a check before the rename: a writer can stall (a pause, a slow disk, a
// stopped process) for any time between any check and its rename, so no check can keep a late
// rename out. The store instead refuses a write whose lease is gone at the one step that decides
// (the record), and the file becomes a copy of the record: a late rename can still land, but
// every writer compares the file with the record before reading it (projection.ts), and puts the
// record back over a copy a late write left. docs/deployment.md gives the whole argument.

const FENCE = new AsyncLocalStorage<Turn>();

/** Runs `fn` with `turn` as the turn of every commit point inside it. */
export function withFence<T>(turn: Turn, fn: () => Promise<T>): Promise<T> {
  return FENCE.run(turn, fn);
}

/** A write prepared inside a turn: the id its record will carry (null without a store), then its commit and its check. */
export interface PendingWrite {
  readonly id: string | null;
  /** Records the write in the store (throws, nothing recorded, when the turn ran out). */
  commit(): Promise<void>;
  /** After the rename: checks that it landed (or leaves that to after the turn). */
  landed(): Promise<void>;
}

/** Prepares replacing `path` with `content` (null: removing it) in the current turn. */
export function pendingWrite(path: string, content: string | null): PendingWrite {
  const turn = FENCE.getStore();
  if (!turn) return { id: null, commit: async () => undefined, landed: async () => undefined };
  const bytes = content === null ? 0 : Buffer.byteLength(content);
  if (bytes > BOUNDS.store.recordBytes) throw tooLargeToRecord(turn.scope.subject, bytes, BOUNDS.store.recordBytes);
  const w: Landing = { field: fieldOf(turn.scope.anchor, path), path, id: newWriteId(), hash: hashOf(content) };
  if (turn.scope.only !== null && w.field !== turn.scope.only) throw new Error(`${path} is not the file ${turn.scope.subject} orders`);
  return { id: w.id, commit: () => commit(turn, w, content), landed: () => { turn.written.push(path); return settleInTurn(turn, w); } };
}

async function commit(turn: Turn, w: Landing, content: string | null): Promise<void> {
  const { lease, leases } = turn;
  await leases.stall?.('commit', lease.name);
  // What the rename will replace: still what the turn found in step with the record, or not.
  const base = await hashFile(w.path);
  const seen = turn.bases.get(w.field);
  if (seen !== undefined && seen.hash !== base) {
    // A late write that landed during this turn may be what the change was read from: put the
    // record back and refuse, rather than record a change that could leave acknowledged ones out.
    const state = await leases.lock.records.read(lease.ref.tag, w.field);
    if (look(base, state) === 'stale') {
      await reconcile(turn, w.field, w.path, state);
      throw turnLost(turn.scope.subject, lease.name, `A write that landed late replaced ${w.path} while this change was being made (it has been put back)`);
    }
  }
  let out;
  try {
    out = await leases.lock.records.commit(lease.ref, w.field, { id: w.id, token: lease.token, hash: w.hash, content, base, basedOn: seen?.hash === base ? seen.basedOn : '' });
  } catch (err) {
    throw err instanceof RedisError ? storeRefusal(err, lease.name, turn.scope.subject, true) : err;
  }
  const held = `The lease "${lease.name}" (token ${lease.token})`;
  if (out === 'lease_lost') throw turnLost(turn.scope.subject, lease.name, `${held} was no longer this server's when the write was to be recorded`);
  if (out === 'later_token') throw turnLost(turn.scope.subject, lease.name, `${held} is older than the token that last recorded ${w.path} (the store's fencing counter went back)`);
  await leases.stall?.('rename', lease.name);
}

/** Replaces `path` with `content` (null: removes it), fenced when a turn with the store is under way. */
export async function replaceFile(path: string, content: string | null): Promise<void> {
  const w = pendingWrite(path, content);
  if (content === null) {
    await w.commit();
    await removeFile(path);
  } else {
    // The new file is complete and flushed before the commit: after it, only the rename is left.
    await writeFileAtomic(path, content, { beforeReplace: () => w.commit() });
  }
  await w.landed();
}

/**
 * Whether this turn's last write of `path` is still the store's record of it (true without a store):
 * a step after a write that nothing could undo (removing a folder) is taken only then, so a writer
 * that stalled past its lease does not remove what a later writer made.
 */
export async function stillRecorded(path: string): Promise<boolean> {
  const turn = FENCE.getStore();
  if (!turn) return true;
  const field = fieldOf(turn.scope.anchor, path);
  const mine = turn.bases.get(field)?.basedOn;
  return mine !== undefined && mine !== '' && (await turn.leases.lock.records.read(turn.lease.ref.tag, field)).record?.id === mine;
}

/**
 * Whether the write `id` of `path` is in the store's record, for a change cut short after its
 * journal: 'committed', 'not_committed', 'forgotten' (the store has no record of the file), or
 * 'no_store' (no turn with the store is under way).
 */
export async function commitState(path: string, id: string): Promise<'committed' | 'not_committed' | 'forgotten' | 'no_store'> {
  const turn = FENCE.getStore();
  if (!turn) return 'no_store';
  const { record } = await turn.leases.lock.records.read(turn.lease.ref.tag, fieldOf(turn.scope.anchor, path));
  if (record === null) return 'forgotten';
  return record.id === id || record.chain.includes(id) ? 'committed' : 'not_committed';
}
