// What the modules that keep data in Redis share: the key prefix check and the reading of replies as outside
// input (narrowed, bounded, a precise StoreDataError when malformed). It never sends a command.
import type { RespValue } from './resp.js';

/** Keys of every store module start with this unless configured otherwise. */
export const DEFAULT_KEY_PREFIX = 'rms:';

// Printable ASCII without spaces or braces: braces would change which hash slot a key lands in
// (Redis Cluster hash tags), and spaces or control bytes make keys unreadable in redis-cli.
const PREFIX_PATTERN = /^[!-z|~]{0,64}$/;

/** The prefix, checked; throws a TypeError that says what is allowed. */
export function keyPrefix(prefix: string | undefined): string {
  const p = prefix ?? DEFAULT_KEY_PREFIX;
  if (!PREFIX_PATTERN.test(p)) {
    throw new TypeError(`Redis key prefix ${JSON.stringify(p)}: expected at most 64 printable ASCII characters without spaces or braces`);
  }
  return p;
}

/** A positive integer option, checked; throws a TypeError naming it. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name}: expected a positive integer, got ${String(value)}`);
  return value;
}

/** What Redis returned is not what this store writes there (another program, or a changed format). */
export class StoreDataError extends Error {
  readonly key: string;
  constructor(key: string, problem: string) {
    super(`the Redis data at ${key} is not what this server writes: ${problem}`);
    this.name = new.target.name;
    this.key = key;
  }
}

/** Narrowing for replies: each throws StoreDataError naming the key and what was expected. */
export const reply = {
  array(key: string, v: RespValue, what: string): RespValue[] {
    if (!Array.isArray(v)) throw new StoreDataError(key, `${what}: expected an array, got ${describe(v)}`);
    return v;
  },
  string(key: string, v: RespValue, what: string): string {
    if (typeof v !== 'string') throw new StoreDataError(key, `${what}: expected a string, got ${describe(v)}`);
    return v;
  },
  integer(key: string, v: RespValue, what: string): number {
    const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new StoreDataError(key, `${what}: expected an integer, got ${describe(v)}`);
    return n;
  },
};

function describe(v: RespValue): string {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an error reply';
  return `${typeof v} ${String(v)}`;
}
