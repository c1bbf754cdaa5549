// The test seam of fenced writes: ROO_MODES_TEST_STALL, read once at start, pauses every fenced
// write at a named point so a test can stall a replica exactly there. It never changes what is written.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import type { StallPoint } from './mode-file-lease.js';

const POINTS: readonly StallPoint[] = ['commit', 'rename'];
const LONGEST_MS = 600_000;

/**
 * `<point>:<ms>[,<point>:<ms>…]` (points: commit, rename) as a stall function, or null when unset.
 * Each pause is announced on the log first, so a test can stop the process while it lasts. A value
 * of another form is refused with a warning and stalls nothing.
 */
export function stallFromEnv(value: string | undefined, log: Logger): ((at: StallPoint, name: string) => Promise<void>) | null {
  if (value === undefined || value === '') return null;
  const pauses = new Map<StallPoint, number>();
  for (const part of value.split(',')) {
    const m = /^(\w+):(\d{1,6})$/.exec(part.trim());
    const point = POINTS.find((p) => p === m?.[1]);
    if (!m || point === undefined || Number(m[2]) > LONGEST_MS) {
      log.warn(`ROO_MODES_TEST_STALL=${JSON.stringify(value)} ignored: expected <point>:<ms> pairs, points ${POINTS.join(', ')}, at most ${LONGEST_MS} ms`);
      return null;
    }
    pauses.set(point, Number(m[2]));
  }
  log.warn(`ROO_MODES_TEST_STALL is set: every mode-file write pauses (${value}); a test seam, never for production`);
  return async (at, name) => {
    const ms = pauses.get(at);
    if (ms === undefined) return;
    log.warn(`test stall: pausing ${ms} ms before the ${at} of ${name}`);
    await sleep(ms);
  };
}
