// Mode-file changes fanned out to every replica over Redis pub/sub: publish one replica's change,
// deliver the others' to a listener. It never throws from the message handler and never trusts a message.
import { randomBytes } from 'node:crypto';
import { BOUNDS } from '../bounds.js';
import type { Logger } from '../log.js';
import type { ModesChange } from './registry.js';
import { SLUG_PATTERN } from './validate-mode.js';
import type { RedisCommander } from '../redis/client.js';
import type { RedisClientOptions } from '../redis/options.js';
import { RedisSubscriber, type PubSubMessage } from '../redis/subscriber.js';
import { keyPrefix } from '../redis/input.js';

// How it works. One channel per prefix (`<prefix>modes:changed`). A message is JSON:
// {"v":1,"origin":"<replica id>","changedSlugs":[…],"listChanged":bool,"promptsChanged"?:true}.
// Every replica, the publisher included, is subscribed; a replica drops messages carrying its own
// origin, because it already told its own listeners. Pub/sub keeps nothing: a message published
// while a subscriber is disconnected is lost to it, so on every reconnect after a loss `onResync`
// runs and the caller re-reads the mode files instead. A message that is too large, not JSON, of
// another version or of the wrong shape is logged (warning) and dropped; a listener that throws is
// logged too. Nothing escapes the handler: the subscriber would re-throw it on the next tick.

const VERSION = 1;
// Replica ids are ours (random by default) or the operator's: short and plain, as they go in every message.
const REPLICA_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** A change refused before publishing: larger than BOUNDS.store.fanoutMessageBytes. */
export class FanoutTooLargeError extends Error {
  readonly bytes: number;
  constructor(bytes: number, limit: number) {
    super(`a mode change of ${bytes} bytes exceeds the fan-out bound of ${limit} bytes; not published`);
    this.name = new.target.name;
    this.bytes = bytes;
  }
}

export interface ChangeFanoutOptions {
  /** Commands (PUBLISH) go through this client. */
  client: RedisCommander;
  /** The subscriber's connection is opened from these (a connection of its own). */
  redis: RedisClientOptions;
  /** This replica's id (default: random). */
  replicaId?: string;
  prefix?: string;
  log: Logger;
  /** Another replica's change. */
  onChange: (change: ModesChange, origin: string) => void;
  /** The subscription came back after a loss: messages may have been missed; re-read the mode files. */
  onResync?: () => void;
  /** Bytes of one message (default BOUNDS.store.fanoutMessageBytes). */
  maxBytes?: number;
}

export class ChangeFanout {
  readonly replicaId: string;
  readonly channel: string;
  readonly #client: RedisCommander;
  readonly #subscriber: RedisSubscriber;
  readonly #log: Logger;
  readonly #maxBytes: number;
  readonly #onChange: ChangeFanoutOptions['onChange'];

  constructor(o: ChangeFanoutOptions) {
    const id = o.replicaId ?? randomBytes(9).toString('base64url');
    if (!REPLICA_ID.test(id)) throw new TypeError(`replica id ${JSON.stringify(id)}: expected 1 to 64 characters A-Z a-z 0-9 _ . -`);
    this.replicaId = id;
    this.channel = `${keyPrefix(o.prefix)}modes:changed`;
    this.#client = o.client;
    this.#log = o.log;
    this.#maxBytes = o.maxBytes ?? BOUNDS.store.fanoutMessageBytes;
    this.#onChange = o.onChange;
    this.#subscriber = new RedisSubscriber(o.redis, (m) => this.#receive(m));
    const onResync = o.onResync;
    if (onResync) this.#subscriber.onReconnect(() => this.#guard('a resync listener', onResync));
  }

  /** Subscribes (waiting for the connection first); resolves once Redis confirmed it. */
  async start(): Promise<void> {
    await this.#subscriber.connected();
    await this.#subscriber.subscribe(this.channel);
  }

  /** Publishes this replica's change; resolves to how many subscribers Redis handed it to (this one included). */
  async publish(change: ModesChange): Promise<number> {
    const text = JSON.stringify({
      v: VERSION, origin: this.replicaId, changedSlugs: change.changedSlugs, listChanged: change.listChanged,
      ...(change.promptsChanged ? { promptsChanged: true } : {}),
    });
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#maxBytes) throw new FanoutTooLargeError(bytes, this.#maxBytes);
    const n = await this.#client.command('PUBLISH', this.channel, text);
    return typeof n === 'number' ? n : 0;
  }

  close(): void { this.#subscriber.close(); }

  #receive(m: PubSubMessage): void {
    this.#guard('a fan-out message', () => {
      if (m.channel !== this.channel) return;
      const read = parseMessage(m.message, this.#maxBytes);
      if (typeof read === 'string') {
        this.#log.warn(`dropped a message on ${this.channel}: ${read}`);
        return;
      }
      if (read.origin === this.replicaId) return;
      this.#onChange(read.change, read.origin);
    });
  }

  /** Runs `fn`, logging anything it throws: a throw here would take the process down. */
  #guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      try { this.#log.error(`${what} failed`, err); } catch { /* the log itself failed: nothing left to tell */ }
    }
  }
}

/** The change in a message, or why it is not one (said briefly: it goes to the log). */
export function parseMessage(text: string, maxBytes: number): { origin: string; change: ModesChange } | string {
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) return `${bytes} bytes, over the bound of ${maxBytes}`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return `not JSON (starts ${JSON.stringify(text.slice(0, 40))})`;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.v !== VERSION) return `version ${JSON.stringify(o.v)}, expected ${VERSION}`;
  if (typeof o.origin !== 'string' || !REPLICA_ID.test(o.origin)) return '"origin" is not a replica id';
  if (!Array.isArray(o.changedSlugs) || !o.changedSlugs.every((s): s is string => typeof s === 'string' && SLUG_PATTERN.test(s))) {
    return '"changedSlugs" is not a list of mode slugs';
  }
  if (typeof o.listChanged !== 'boolean') return '"listChanged" is not a boolean';
  if (o.promptsChanged !== undefined && o.promptsChanged !== true) return '"promptsChanged" is neither absent nor true';
  const change: ModesChange = { changedSlugs: [...o.changedSlugs], listChanged: o.listChanged };
  if (o.promptsChanged === true) change.promptsChanged = true;
  return { origin: o.origin, change };
}
