// What a finished task does to its relatives and how they are shown, for any session store: the
// active children listed, or every active descendant cancelled. It never reads or writes a store itself.
import { SessionExpiredError, TaskNotFoundError } from '../rpc/errors.js';
import { finishTask, toView, withTask, type SessionRecord, type SessionView } from './task.js';

/** What the walk needs of a store; none of it counts as an access. */
export interface FamilyAccess {
  /** Views of the sessions that still exist, in order (expired and unknown ones left out). */
  views(ids: readonly string[]): Promise<SessionView[]>;
  /** Applies `change` to one session as the store's one change of it (`next: null` writes nothing). */
  change<T>(id: string, change: (rec: SessionRecord) => { next: SessionRecord | null; out: T }): Promise<{ rec: SessionRecord; out: T }>;
}

export const isGone = (err: unknown): boolean => err instanceof TaskNotFoundError || err instanceof SessionExpiredError;

/**
 * After `rec` finished: without cascade its active direct children, listed; with it every active
 * descendant cancelled at `now`, breadth first, each once (a cycle, which only a hand edit makes, ends).
 */
export async function settleChildren(rec: SessionRecord, cascade: boolean, now: number, store: FamilyAccess): Promise<{ activeChildren: SessionView[]; cancelledChildren: SessionView[] }> {
  const activeChildren: SessionView[] = [];
  const cancelledChildren: SessionView[] = [];
  if (!cascade) {
    for (const child of await store.views(rec.childSessions ?? [])) if (child.task.state === 'active') activeChildren.push(child);
    return { activeChildren, cancelledChildren };
  }
  const seen = new Set<string>([rec.id]);
  const queue = [...(rec.childSessions ?? [])];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (seen.has(id)) continue;
    seen.add(id);
    try {
      const done = await store.change(id, (r) => (r.task.state === 'active'
        ? { next: withTask(r, finishTask(r.task, 'cancelled', undefined, now)), out: true }
        : { next: null, out: false }));
      if (done.out) cancelledChildren.push(toView(done.rec));
      queue.push(...(done.rec.childSessions ?? []));
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
  return { activeChildren, cancelledChildren };
}

/** Views of the sessions `read` still finds, in order: expired and unknown ones are left out. */
export async function existingViews(ids: readonly string[], read: (id: string) => Promise<SessionRecord>): Promise<SessionView[]> {
  const out: SessionView[] = [];
  for (const id of ids) {
    try {
      out.push(toView(await read(id)));
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }
  return out;
}

/** The parent and children of `rec` that still exist. */
export async function relativesOf(rec: SessionRecord, store: FamilyAccess): Promise<{ parent?: SessionView; children: SessionView[] }> {
  const [parent] = rec.parentSession === undefined ? [] : await store.views([rec.parentSession]);
  const children = await store.views(rec.childSessions ?? []);
  return parent === undefined ? { children } : { parent, children };
}
