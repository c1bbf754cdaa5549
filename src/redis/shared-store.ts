// The one Redis connection of `--store redis://…` in this process: its client, its replica id, the
// wait for its first connection, the dataset marker read on every connection, and subscriptions kept
// alive in the background. It knows no domain:
// task sessions, HTTP session records, the event log, leases and the change fan-out are built on it
// by the folders that own them.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BOUNDS } from '../bounds.js';
import type { Logger } from '../log.js';
import { RedisClient } from './client.js';
import { DatasetMarker } from './dataset-marker.js';
import { RedisSubscriber, type PubSubMessage } from './subscriber.js';
import { redactUrl } from './url.js';

export interface SharedStoreOptions {
  url: string;
  /** Every key and channel of the store starts with it. */
  prefix: string;
  /** A command without a reply by then fails, retryable (default BOUNDS.redis.commandTimeoutMs). */
  commandTimeoutMs?: number;
}

export class SharedStore {
  /** This process among the replicas: random per start, shown in lease holders and fan-out messages. */
  readonly replicaId = randomBytes(6).toString('hex');
  readonly client: RedisClient;
  readonly prefix: string;
  /** Which dataset Redis holds: read on every connection, so a restart that lost the data is told apart. */
  readonly marker: DatasetMarker;
  /** The URL without its credentials, for messages. */
  readonly shownUrl: string;
  readonly #url: string;
  readonly #commandTimeoutMs: number | undefined;
  readonly #log: Logger;
  readonly #closers: (() => void)[] = [];
  #first: Promise<boolean> | null = null;

  /** Starts connecting at once and reconnects by itself; nothing waits for the first connection. */
  constructor(o: SharedStoreOptions, log: Logger) {
    this.#url = o.url;
    this.#commandTimeoutMs = o.commandTimeoutMs;
    this.#log = log;
    this.shownUrl = redactUrl(o.url);
    this.prefix = o.prefix;
    this.client = new RedisClient(this.connectOptions);
    this.#closers.push(() => this.client.close());
    this.marker = new DatasetMarker(o.prefix, (from, to) => {
      log.warn(`the store ${this.shownUrl} lost its data: its dataset marker went from ${from} to ${to} (Redis restarted without persistence, or was emptied); sessions kept there before are gone, and their ids now answer so`);
    });
    this.marker.follow(this.client, (err) => log.debug('could not read the dataset marker yet', err));
    // Told once per change of state, not per failed attempt: an outage is two lines in the log.
    const seen = { down: false, ever: false };
    this.client.onState((e) => {
      if (e.state === 'connected') {
        log.info(`${seen.ever ? 'reconnected to' : 'connected to'} the store ${this.shownUrl} (replica ${this.replicaId})`);
        seen.down = false;
        seen.ever = true;
      } else if (e.state === 'disconnected' && !seen.down) {
        seen.down = true;
        log.warn(e.error.kind === 'auth'
          ? `the store ${this.shownUrl} refused the credentials: ${e.error.message}; tools that need it fail (not retryable) until the URL or Redis is fixed`
          : `${seen.ever ? 'lost' : 'cannot reach'} the store ${this.shownUrl}: ${e.error.message}; tools that need it answer "retry later" until it is ${seen.ever ? 'back' : 'reached'}`);
      }
    });
  }

  /** The options a connection of its own (a subscriber) is opened with. */
  get connectOptions(): { url: string; commandTimeoutMs?: number } {
    return this.#commandTimeoutMs === undefined ? { url: this.#url } : { url: this.#url, commandTimeoutMs: this.#commandTimeoutMs };
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

  /**
   * Messages on `channel` reach `onMessage`, on a connection of its own; `onResync` runs after the
   * subscription came back from a loss (messages may have been missed). Neither may throw (a throw
   * would come back on the next tick); both are guarded here. Subscribes in the background.
   */
  listen(channel: string, onMessage: (message: string) => void, onResync: () => void): void {
    const guard = (what: string, fn: () => void): void => {
      try { fn(); } catch (err) { this.#log.error(`${what} failed`, err); }
    };
    const subscriber = new RedisSubscriber(this.connectOptions, (m: PubSubMessage) => {
      if (m.channel === channel) guard(`a message on ${channel}`, () => onMessage(m.message));
    });
    subscriber.onReconnect(() => guard(`a resync of ${channel}`, onResync));
    this.keepStarted(`subscribe to ${channel}`, async () => {
      await subscriber.connected();
      await subscriber.subscribe(channel);
    }, () => subscriber.close());
  }

  /**
   * Runs `start` until it succeeds, in the background: a first subscribe waits for a connection,
   * and one that fails (Redis went away again) is tried again, as a subscriber only re-takes
   * subscriptions Redis once confirmed. `close` runs when the store closes.
   */
  keepStarted(what: string, start: () => Promise<void>, close: () => void): void {
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
