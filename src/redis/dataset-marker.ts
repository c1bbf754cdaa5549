// The marker of the Redis dataset a store lives in: a short random tag written once per dataset, so a
// process can tell that Redis lost its data (restarted without persistence) since it last looked. It knows no domain.

// How it works. The key `<prefix>epoch` holds the tag. Whoever finds it missing writes one (SET NX):
// on every (re)connection the shared store reads it (writing a fresh tag if there is none), and the
// store modules' scripts write the tag this process proposes and answer the marker as it is. A
// process remembers the tags it has seen; the modules put the tag in the ids they make, so an id that
// is not found but carries a tag seen earlier, no longer the marker, was lost with its dataset. While
// connected the proposal is the known tag (a marker dropped by eviction comes back unchanged); after a
// lost connection it is a fresh one, so a Redis that came back empty gets a new tag, never the old.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisClient, RedisCommander } from './client.js';
import { reply } from './input.js';
import { RedisScript } from './script.js';

/** A tag: 6 hex digits, short enough to sit in an id, long enough that two datasets' tags differ. */
export const MARKER_TAG = /^[0-9a-f]{6}$/;
/** Tags a process remembers (datasets it saw come and go): far more restarts than one process outlives. */
const REMEMBERED = 16;

// KEYS[1] the marker. ARGV[1] the tag written if there is none. Answers the marker as it now is.
const ENSURE = new RedisScript(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`);

export class DatasetMarker {
  readonly key: string;
  readonly #seen: string[] = [];
  #known: string | null = null;
  #candidate = freshTag();
  readonly #onChange: (from: string, to: string) => void;

  /** `onChange` hears of a marker other than every one seen before (the dataset was replaced). */
  constructor(prefix: string, onChange: (from: string, to: string) => void = () => undefined) {
    this.key = `${prefix}epoch`;
    this.#onChange = onChange;
  }

  /** The tag to put in a new id and to write if the marker is missing. */
  proposal(): string { return this.#known ?? this.#candidate; }

  /** The connection was lost: Redis may come back as another dataset, so the next writer proposes a fresh tag. */
  forget(): void {
    this.#known = null;
    this.#candidate = freshTag();
  }

  /** Takes the marker a script answered ('' or null when there is none: nothing is learnt). */
  observe(marker: string | null): void {
    if (marker === null || !MARKER_TAG.test(marker)) return;
    const last = this.#seen.at(-1);
    if (!this.#seen.includes(marker)) {
      this.#seen.push(marker);
      if (this.#seen.length > REMEMBERED) this.#seen.shift();
      if (last !== undefined) this.#onChange(last, marker);
    }
    this.#known = marker;
  }

  /** An id carrying `tag` was not found, the marker being `now`: true when its dataset is one this process saw, and gone. */
  lost(tag: string, now: string | null): boolean {
    return tag !== now && this.#seen.includes(tag);
  }

  /** Reads the marker (writing the proposal if there is none) and takes it; throws the client's errors. */
  async refresh(client: RedisCommander): Promise<string> {
    const marker = reply.string(this.key, await ENSURE.run(client, [this.key], [this.proposal()]), 'the dataset marker');
    this.observe(marker);
    return marker;
  }

  /**
   * Keeps the marker in step with `client`'s connection: forgotten when it is lost, read again as soon
   * as it is back (again after each failure, e.g. Redis still LOADING, while the connection lasts).
   * `failed` hears of each failed read. Returns the function that stops following.
   */
  follow(client: RedisClient, failed: (err: unknown) => void): () => void {
    const read = async (): Promise<void> => {
      for (let pause = 100; client.state === 'connected'; pause = Math.min(2 * pause, 5000)) {
        try {
          await this.refresh(client);
          return;
        } catch (err) {
          failed(err);
          await sleep(pause, undefined, { ref: false });
        }
      }
    };
    if (client.state === 'connected') void read();
    return client.onState((e) => {
      if (e.state === 'connected') void read();
      else this.forget();
    });
  }
}

function freshTag(): string { return randomBytes(3).toString('hex'); }
