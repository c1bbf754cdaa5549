// Unguessable random bytes for session, task and temp-file ids. node:crypto costs a couple of MB of
// memory when it loads, so it is loaded on the first id, not at startup; this never seeds anything itself.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function randomBytes(size: number): Buffer {
  return (load('node:crypto') as typeof import('node:crypto')).randomBytes(size);
}
