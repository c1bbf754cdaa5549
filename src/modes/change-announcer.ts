// This server's side of the change fan-out: it publishes what this server noticed, owes what could not
// be published while the store was away and sends it when the store is back. It never reads a message.
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/client.js';
import type { SharedStore } from '../redis/shared-store.js';
import { ChangeFanout, FanoutTooLargeError } from './change-fanout.js';
import type { ModesChange } from './registry.js';

/**
 * Joins this server to the fan-out on the shared store: other replicas' mode changes reach
 * `onChange`, `onResync` runs after the subscription came back from a loss. Subscribes in the
 * background (a Redis that is down at start is waited for); returns the announcer of our changes.
 */
export function joinFanout(store: SharedStore, log: Logger, onChange: (change: ModesChange) => void, onResync: () => void): Announcer {
  const fanout = new ChangeFanout({
    client: store.client, redis: store.connectOptions, replicaId: store.replicaId, prefix: store.prefix,
    log, onChange: (c) => onChange(c), onResync,
  });
  store.keepStarted('subscribe to mode changes', () => fanout.start(), () => fanout.close());
  return new Announcer(fanout, store.client, log);
}

/**
 * Publishes this server's mode changes. One that cannot be published (the store is down) is owed:
 * merged with later ones and published when the connection is back, so the others still hear of it.
 */
export class Announcer {
  #owed: ModesChange | null = null;

  constructor(private readonly fanout: ChangeFanout, client: RedisClient, private readonly log: Logger) {
    client.onState((e) => { if (e.state === 'connected' && this.#owed) this.#send(this.#take()); });
  }

  announce(change: ModesChange): void {
    this.#send(this.#owed ? merge(this.#take(), change) : change);
  }

  #take(): ModesChange {
    const owed = this.#owed!;
    this.#owed = null;
    return owed;
  }

  #send(change: ModesChange): void {
    this.fanout.publish(change).catch((err: unknown) => {
      // The others reload and find the slugs themselves: the list is only a courtesy, dropped when too long.
      if (err instanceof FanoutTooLargeError) { this.#send({ changedSlugs: [], listChanged: true, ...(change.promptsChanged ? { promptsChanged: true } : {}) }); return; }
      this.#owed = this.#owed ? merge(this.#owed, change) : change;
      this.log.warn(`could not announce a mode change to the other servers yet (${(err as Error).message}); it is sent when the store is back`);
    });
  }
}

function merge(a: ModesChange, b: ModesChange): ModesChange {
  const out: ModesChange = { changedSlugs: [...new Set([...a.changedSlugs, ...b.changedSlugs])], listChanged: a.listChanged || b.listChanged };
  if (a.promptsChanged || b.promptsChanged) out.promptsChanged = true;
  return out;
}
