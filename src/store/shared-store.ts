// The shared store of `--store redis://…`: one owner for the Redis connection and the modules that
// use it (task sessions, HTTP session records, the SSE event log, mode-file leases, change fan-out),
// created once per process by the core. It never decides what to store; its modules do.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerConfig } from '../config.js';
import { redactUrl } from '../redis/url.js';
import { BOUNDS } from '../bounds.js';
import type { Logger } from '../log.js';
import type { ModesChange } from '../modes/registry.js';
import { ChangeFanout, FanoutTooLargeError } from './change-fanout.js';
import { RedisEventLog } from '../http/event-log.js';
import { McpSessionRecords, type McpSessionNews } from '../http/session-records.js';
import { RedisLeaseLock } from './mode-file-lease.js';
import { RedisClient } from '../redis/client.js';
import { RedisSubscriber } from '../redis/subscriber.js';
import { RedisSessionStore } from '../tasks/redis-store.js';

export class SharedStore {
  /** This process among the replicas: random per start, shown in lease holders and fan-out messages. */
  readonly replicaId = randomBytes(6).toString('hex');
  readonly client: RedisClient;
  readonly prefix: string;
  readonly events: RedisEventLog;
  readonly leases: RedisLeaseLock;
  /** Legacy MCP sessions (Mcp-Session-Id) shared by the replicas. */
  readonly mcpSessions: McpSessionRecords;
  /** The URL without its credentials, for messages. */
  readonly shownUrl: string;
  readonly #url: string;
  readonly #log: Logger;
  readonly #closers: (() => void)[] = [];
  #first: Promise<boolean> | null = null;

  /** Starts connecting at once and reconnects by itself; nothing waits for the first connection. */
  constructor(readonly config: ServerConfig, log: Logger) {
    const url = config.store.url;
    if (url === null) throw new TypeError('SharedStore needs store.url');
    this.#url = url;
    this.#log = log;
    this.shownUrl = redactUrl(url);
    this.prefix = config.store.prefix;
    this.client = new RedisClient({ url });
    this.#closers.push(() => this.client.close());
    // Told once per change of state, not per failed attempt: an outage is two lines in the log.
    const seen = { down: false, ever: false };
    this.client.onState((e) => {
      if (e.state === 'connected') {
        log.info(`${seen.ever ? 'reconnected to' : 'connected to'} the store ${this.shownUrl} (replica ${this.replicaId})`);
        seen.down = false;
        seen.ever = true;
      } else if (e.state === 'disconnected' && !seen.down) {
        seen.down = true;
        log.warn(`${seen.ever ? 'lost' : 'cannot reach'} the store ${this.shownUrl}: ${e.error.message}; tools that need it answer "retry later" until it is ${seen.ever ? 'back' : 'reached'}`);
      }
    });
    this.events = new RedisEventLog(this.client, { prefix: this.prefix });
    this.leases = new RedisLeaseLock(this.client, { replica: this.replicaId, prefix: this.prefix });
    this.mcpSessions = new McpSessionRecords(this.client, { replicaId: this.replicaId, prefix: this.prefix });
  }

  /**
   * Resolves true once connected, false if the first connection takes longer than
   * BOUNDS.store.startWaitMs (the client goes on trying; callers then serve and say so).
   */
  firstConnection(): Promise<boolean> {
    // Waited once per process: the HTTP door and the services both ask, and a store that was away
    // at start must not hold up the first tool call a second time.
    return (this.#first ??= (() => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), BOUNDS.store.startWaitMs); });
      return Promise.race([this.client.connected().then(() => true, () => false), late]).finally(() => clearTimeout(timer));
    })());
  }

  /** Task sessions on Redis, with the configured timeout and sweep. */
  taskSessions(log: Logger): RedisSessionStore {
    const s = this.config.sessions;
    return new RedisSessionStore({
      redis: this.client, prefix: this.prefix, timeoutSeconds: s.timeout, cleanupIntervalSeconds: s.cleanup_interval, log,
    });
  }

  /**
   * Other replicas' mode changes reach `onChange`; `onResync` runs after the subscription came
   * back from a loss (messages may have been missed). Subscribes in the background: a Redis that
   * is down at start is waited for, and the subscriber reconnects by itself.
   */
  fanout(onChange: (change: ModesChange) => void, onResync: () => void): Announcer {
    const fanout = new ChangeFanout({
      client: this.client, redis: { url: this.#url }, replicaId: this.replicaId, prefix: this.prefix,
      log: this.#log, onChange: (c) => onChange(c), onResync,
    });
    this.#startInBackground('subscribe to mode changes', () => fanout.start(), () => fanout.close());
    return new Announcer(fanout, this.client, this.#log);
  }

  /**
   * Other replicas' news of legacy MCP sessions (one ended, one changed) reach `onNews`, on a
   * connection of its own; `onResync` runs after the subscription came back from a loss. Neither
   * may throw (a throw would come back on the next tick); both are guarded here.
   */
  mcpNews(onNews: (news: McpSessionNews) => void, onResync: () => void): void {
    const records = this.mcpSessions;
    const guard = (what: string, fn: () => void): void => {
      try { fn(); } catch (err) { this.#log.error(`${what} failed`, err); }
    };
    const subscriber = new RedisSubscriber({ url: this.#url }, (m) => guard('an MCP session message', () => {
      if (m.channel !== records.channel) return;
      const news = records.readNews(m.message);
      if (typeof news === 'string') { this.#log.warn(`dropped a message on ${records.channel}: ${news}`); return; }
      if (news.origin !== this.replicaId) onNews(news);
    }));
    subscriber.onReconnect(() => guard('an MCP session resync', onResync));
    this.#startInBackground('subscribe to MCP session news', async () => {
      await subscriber.connected();
      await subscriber.subscribe(records.channel);
    }, () => subscriber.close());
  }

  /**
   * Runs `start` until it succeeds: a first subscribe waits for a connection, and one that fails
   * (Redis went away again) is tried again, as a subscriber only re-takes subscriptions Redis once confirmed.
   */
  #startInBackground(what: string, start: () => Promise<void>, close: () => void): void {
    const stop = new AbortController();
    this.#closers.push(() => { stop.abort(); close(); });
    void (async () => {
      for (let pause = 100; !stop.signal.aborted; pause = Math.min(2 * pause, 5000)) {
        try { await start(); return; } catch (err) {
          if (stop.signal.aborted) return;
          this.#log.debug(`could not ${what} yet`, err);
          await sleep(pause, undefined, { signal: stop.signal }).catch(() => undefined);
        }
      }
    })();
  }

  close(): void {
    for (const close of this.#closers.splice(0).reverse()) close();
  }
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
