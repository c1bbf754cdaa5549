// The Redis task-session store's sweep: walks the expiry index for sessions past their time and hands
// each to its own script (which ends it and writes its tombstone). It never decides expiry itself.
import { BOUNDS } from '../bounds.js';
import type { Logger } from '../log.js';
import type { RedisArg, RespValue } from '../redis/resp.js';
import { sweepIds, type StoreContext } from './redis-replies.js';
import { expiryKey } from './redis-scripts.js';

/** The store's round trips, each failure already its error: a command, and SWEEP_ONE for one id. */
export interface SweepCalls {
  command(args: RedisArg[]): Promise<RespValue>;
  sweepOne(id: string, now: number): Promise<RespValue>;
}

/** Ends the sessions the index shows as stale at `now`; resolves to how many this call removed. */
export async function sweepStale(calls: SweepCalls, o: { ctx: StoreContext; now: number; timeoutMs: number; log: Logger }): Promise<number> {
  const batch = BOUNDS.redisSessions.sweepBatch;
  const index = expiryKey(o.ctx.prefix);
  let removed = 0;
  // Each round removes every id it read or scores it at its true (fresh) last access, outside the
  // range read: a full batch means there may be more, a short one that the range is done.
  for (;;) {
    const { ids, junk } = sweepIds(o.ctx, await calls.command(['ZRANGEBYSCORE', index, '-inf', o.now - o.timeoutMs, 'LIMIT', 0, batch]));
    if (junk.length > 0) {
      o.log.warn(`dropped ${junk.length} member(s) of ${index} that are not session ids`);
      await calls.command(['ZREM', index, ...junk]);
    }
    const counts = await Promise.all(ids.map((id) => calls.sweepOne(id, o.now)));
    for (const n of counts) if (n === 1) removed++;
    if (ids.length + junk.length < batch) return removed;
  }
}
