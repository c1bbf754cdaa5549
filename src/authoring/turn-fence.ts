// The last check before a mode-file change becomes visible: with the shared store, that this
// writer's lease is still current (another replica may have taken it after it ran out). It holds no
// lock itself; mode-file-lock.ts sets the check for the duration of one turn.
import { AsyncLocalStorage } from 'node:async_hooks';

const FENCE = new AsyncLocalStorage<() => Promise<void>>();

/** Runs `fn` with `check` as the fence of every commit point inside it. */
export function withFence<T>(check: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return FENCE.run(check, fn);
}

/** Throws (nothing written) when the turn was lost; a no-op under the host-local lock, which cannot be lost. */
export async function checkFence(): Promise<void> {
  await FENCE.getStore()?.();
}
