// Unguessable random bytes for session and task ids. node:crypto costs a couple of MB of memory when
// it loads, so it is loaded on the first id, not at startup; this never seeds anything itself.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

// One CSPRNG call per POOL bytes instead of one per id: a call per id was 5% of the CPU of a
// create_task-heavy run. Bytes are handed out once each and never reused.
const POOL = 4096;
let pool: Buffer | undefined;
let used = POOL;

/** `size` fresh random bytes as lowercase hex (size ≤ POOL). */
export function randomHex(size: number): string {
  if (used + size > POOL) {
    pool ??= Buffer.allocUnsafeSlow(POOL);
    (load('node:crypto') as typeof import('node:crypto')).randomFillSync(pool);
    used = 0;
  }
  const hex = pool!.toString('hex', used, used + size);
  used += size;
  return hex;
}
