// The task-session store as the tools see it: what the memory/file store (src/tasks/local-store.ts) and
// the Redis store (redis-store.ts) both offer, so the server picks one at start. Types only.
import type { FinalState, SessionView } from './task.js';

export interface TaskSessionStore {
  /** Starts the periodic sweep; the file store also loads its folder (the Redis store has nothing to load). */
  init(): Promise<{ restored: number; expired: number; corrupt: number }>;
  /** A plain value when the store can answer at once (memory, no parent), else a promise. */
  create(input: { modeSlug: string; initialMessage?: string; parentSessionId?: string }): SessionView | Promise<SessionView>;
  get(sessionId: string): Promise<SessionView>;
  /** A plain value when the store can answer at once (memory, nothing queued), else a promise. */
  modeOf(sessionId: string): string | Promise<string>;
  switchMode(sessionId: string, newModeSlug: string, reason?: string): Promise<{ session: SessionView; oldMode: string }>;
  complete(sessionId: string, status: FinalState, result?: string, cascade?: boolean): Promise<{ session: SessionView; activeChildren: SessionView[]; cancelledChildren: SessionView[] }>;
  hierarchy(sessionId: string): Promise<{ parent?: SessionView; children: SessionView[] }>;
  sweep(): Promise<number>;
  /** Sessions held and not yet swept: counted in memory at once, or asked of Redis. */
  size(): number | Promise<number>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
