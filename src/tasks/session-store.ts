// The task-session store as the tools see it: what the memory/file store (src/tasks/local-store.ts) and
// the Redis store (redis-store.ts) both offer, and the choice between them, made once at start.
import type { Logger } from '../log.js';
import type { RedisCommander } from '../redis/client.js';
import type { DatasetMarker } from '../redis/dataset-marker.js';
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

export interface SessionStoreChoice {
  timeoutSeconds: number;
  cleanupIntervalSeconds: number;
  /** The session folder (`sessions.persistence`), or null to keep them in memory. */
  persistenceDir: string | null;
  lockTimeoutMs: number;
  /** With a shared store, sessions live there and the folder is not used. */
  shared: { client: RedisCommander; prefix: string; shownUrl: string; marker: DatasetMarker } | null;
  /** With a shared store: sessions all replicas together may hold (store.max_task_sessions). */
  maxSharedSessions: number;
  log: Logger;
}

/** The one place the store is chosen: Redis with a shared store, else memory or files. Each loads on demand. */
export async function openSessionStore(c: SessionStoreChoice): Promise<TaskSessionStore> {
  if (c.shared) {
    if (c.persistenceDir !== null) c.log.warn(`sessions are kept in the shared store ${c.shared.shownUrl}; the session folder ${c.persistenceDir} is not used`);
    const { RedisSessionStore } = await import('./redis-store.js');
    return new RedisSessionStore({
      redis: c.shared.client, prefix: c.shared.prefix, marker: c.shared.marker, maxSessions: c.maxSharedSessions,
      timeoutSeconds: c.timeoutSeconds, cleanupIntervalSeconds: c.cleanupIntervalSeconds, log: c.log,
    });
  }
  const { LocalSessionStore } = await import('./local-store.js');
  return new LocalSessionStore({
    timeoutSeconds: c.timeoutSeconds, cleanupIntervalSeconds: c.cleanupIntervalSeconds, persistenceDir: c.persistenceDir, lockTimeoutMs: c.lockTimeoutMs, log: c.log,
  });
}
