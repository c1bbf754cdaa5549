// Resumable SSE streams on Redis: each stream's events in a bounded Redis Stream with a TTL, and the
// replay of every event after a Last-Event-ID, on any replica. It never writes to a client itself.
import { randomBytes } from 'node:crypto';
import { BOUNDS } from '../bounds.js';
import type { RedisCommander } from '../redis/client.js';
import { RedisScript } from '../redis/script.js';
import { keyPrefix, positiveInteger, reply, StoreDataError } from '../redis/input.js';

// How it works. A stream is named by a random token (32 hex digits) under its owner (the session
// id), and its events are numbered 1, 2, 3… The SSE id is `<token>-<n>`: the `S-N` form the HTTP
// door parses today (src/http/sse.ts parseEventId), opaque to clients (a random token and a count;
// no host, no time), and valid on every replica, because the Redis keys follow from owner + token.
// Events go into the Redis Stream with the explicit entry id `0-<n>` (Redis's own ids would leak the
// clock and differ from the count), the count and the kept bytes into a small hash beside it. An
// append trims from the oldest end in the same script until both bounds hold (the newest event is
// always kept, unless it alone is over the byte bound: then nothing is kept, and resuming from
// before it is refused instead of skipping it). Both keys expire `ttlMs` after the last append. A
// replay (one script, so no append interleaves) checks that nothing after the client's event was
// trimmed and returns the rest in order, each event once. An owner keeps at most maxStreams streams,
// as a session remembers them today: a new stream's first append removes the oldest finished (or
// expired) ones past the bound; unfinished ones stay (their number is bounded by requests in flight).

/** Why a Last-Event-ID cannot be resumed, with the HTTP status the door answers today (400 malformed, 404 otherwise). */
export const RESUME_REFUSALS = {
  malformed: { status: 400, says: 'is not an event id of this server' },
  unknown_stream: { status: 404, says: 'names no stream of this session (it ended too long ago, or never existed)' },
  foreign_stream: { status: 404, says: 'is an event of another stream than the one being resumed' },
  ahead: { status: 404, says: 'is later than any event the stream has sent' },
  too_old: { status: 404, says: 'is older than the events kept: events after it were dropped, so nothing can be resumed without a gap' },
} as const;
export type ResumeRefusal = keyof typeof RESUME_REFUSALS;

export class ResumeRefusedError extends Error {
  readonly reason: ResumeRefusal;
  readonly status: 400 | 404;
  readonly lastEventId: string;
  constructor(reason: ResumeRefusal, lastEventId: string) {
    const r = RESUME_REFUSALS[reason];
    super(`cannot resume: Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 200))} ${r.says}`);
    this.name = new.target.name;
    this.reason = reason;
    this.status = r.status;
    this.lastEventId = lastEventId;
  }
}

export interface StoredEvent { id: string; data: string }

export interface Replay {
  stream: string;
  /** Every kept event after the given one, oldest first. */
  events: StoredEvent[];
  /** The stream's last event was sent (finish()): after the replay the response ends. */
  finished: boolean;
  /** The mark given with the newest append that had one (see append), null when none did. */
  mark: string | null;
}

export interface EventLogOptions {
  prefix?: string;
  /** Events kept per stream (default BOUNDS.http.replayEvents). */
  maxEvents?: number;
  /** Bytes of event data kept per stream (default BOUNDS.http.replayBytes). */
  maxBytes?: number;
  /** How long a stream lives after its last append (default BOUNDS.store.eventTtlMs). */
  ttlMs?: number;
  /** Streams kept per owner: past it, the oldest finished ones go (default BOUNDS.http.streamsRemembered). */
  maxStreams?: number;
}

const TOKEN = /^[0-9a-f]{32}$/;
// A session id is base64url (src/http/session.ts); anything else is refused before it becomes a key.
const OWNER = /^[A-Za-z0-9_-]{1,128}$/;
// At most 15 digits: every such count is exact as a double (Lua's numbers and ours).
const EVENT_ID = /^([0-9a-f]{32})-(\d{1,15})$/;
const MARK = /^[A-Za-z0-9_-]{1,64}$/;

const APPEND = new RedisScript(`
local data, maxEvents, maxBytes, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local n = redis.call('HINCRBY', KEYS[2], 'seq', 1)
if n == 1 then
  redis.call('RPUSH', KEYS[3], ARGV[6])
  local names = redis.call('LRANGE', KEYS[3], 0, -1)
  local over = #names - tonumber(ARGV[5])
  for _, name in ipairs(names) do
    if over <= 0 then break end
    local base = ARGV[7] .. name
    local done = redis.call('HGET', base .. ':meta', 'done')
    if name ~= ARGV[6] and (done == '1' or redis.call('EXISTS', base .. ':meta') == 0) then
      redis.call('DEL', base .. ':events', base .. ':meta')
      redis.call('LREM', KEYS[3], 1, name)
      over = over - 1
    end
  end
end
redis.call('PEXPIRE', KEYS[3], ttl)
local len = redis.call('XLEN', KEYS[1])
local bytes = tonumber(redis.call('HGET', KEYS[2], 'bytes') or '0')
if #data > maxBytes then
  redis.call('DEL', KEYS[1])
  len, bytes = 0, 0
else
  redis.call('XADD', KEYS[1], '0-' .. n, 'd', data)
  len, bytes = len + 1, bytes + #data
  while len > 1 and (len > maxEvents or bytes > maxBytes) do
    local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', KEYS[1], oldest[1])
    len, bytes = len - 1, bytes - #oldest[2][2]
  end
  redis.call('PEXPIRE', KEYS[1], ttl)
end
redis.call('HSET', KEYS[2], 'bytes', bytes, 'first', n - len + 1)
if ARGV[8] ~= '' then redis.call('HSET', KEYS[2], 'mark', ARGV[8]) end
redis.call('PEXPIRE', KEYS[2], ttl)
return n`);

const REPLAY = new RedisScript(`
local meta = redis.call('HMGET', KEYS[2], 'seq', 'first', 'done', 'mark')
if not meta[1] then return {'unknown'} end
local after = tonumber(ARGV[1])
if after > tonumber(meta[1]) then return {'ahead'} end
if after + 1 < tonumber(meta[2]) then return {'too_old'} end
return {'ok', meta[3] or '0', redis.call('XRANGE', KEYS[1], '(0-' .. after, '+', 'COUNT', ARGV[2]), meta[4] or ''}`);

const FINISH = new RedisScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'done', '1')
return 1`);

export class RedisEventLog {
  readonly #client: RedisCommander;
  readonly #prefix: string;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #maxStreams: number;

  constructor(client: RedisCommander, o: EventLogOptions = {}) {
    this.#client = client;
    this.#prefix = keyPrefix(o.prefix);
    this.#maxEvents = positiveInteger('maxEvents', o.maxEvents ?? BOUNDS.http.replayEvents);
    this.#maxBytes = positiveInteger('maxBytes', o.maxBytes ?? BOUNDS.http.replayBytes);
    this.#ttlMs = positiveInteger('ttlMs', o.ttlMs ?? BOUNDS.store.eventTtlMs);
    this.#maxStreams = positiveInteger('maxStreams', o.maxStreams ?? BOUNDS.http.streamsRemembered);
  }

  /** A new stream's name: random, so a stream that expired and a new one never share event ids. */
  newStream(): string { return randomBytes(16).toString('hex'); }

  /**
   * Appends one event (its JSON text) and resolves to its SSE id once Redis has kept it. `mark`, when
   * given, is kept with it in the same step (the stream remembers the newest): a caller's note of
   * what the events so far told, which a replay returns.
   */
  async append(owner: string, stream: string, data: string, mark?: string): Promise<string> {
    if (mark !== undefined && !MARK.test(mark)) throw new TypeError(`event mark ${JSON.stringify(mark.slice(0, 80))}: expected 1 to 64 characters A-Z a-z 0-9 _ -`);
    const [key, meta, index] = this.#keys(owner, stream);
    const args = [data, this.#maxEvents, this.#maxBytes, this.#ttlMs, this.#maxStreams, stream, this.#ownerBase(owner), mark ?? ''];
    const n = reply.integer(meta, await APPEND.run(this.#client, [key, meta, index], args), 'the new event number');
    return `${stream}-${n}`;
  }

  /** Marks the stream's last event as sent; false when the stream is gone already. */
  async finish(owner: string, stream: string): Promise<boolean> {
    const [key, meta] = this.#keys(owner, stream);
    return (await FINISH.run(this.#client, [key, meta])) === 1;
  }

  /**
   * Every event of `owner`'s stream after `lastEventId`, in order, or ResumeRefusedError saying
   * why not. `expectStream`, when given, is the stream being resumed: an id of another is refused.
   */
  async replay(owner: string, lastEventId: string, expectStream?: string): Promise<Replay> {
    const m = EVENT_ID.exec(lastEventId.trim());
    if (!m || !OWNER.test(owner)) throw new ResumeRefusedError('malformed', lastEventId);
    const stream = m[1]!;
    const after = Number(m[2]);
    if (expectStream !== undefined && stream !== expectStream) throw new ResumeRefusedError('foreign_stream', lastEventId);
    const [key, meta] = this.#keys(owner, stream);
    const out = reply.array(key, await REPLAY.run(this.#client, [key, meta], [after, this.#maxEvents + 1]), 'the replay answer');
    const status = reply.string(key, out[0] ?? null, 'the replay status');
    if (status === 'unknown') throw new ResumeRefusedError('unknown_stream', lastEventId);
    if (status === 'ahead' || status === 'too_old') throw new ResumeRefusedError(status, lastEventId);
    if (status !== 'ok') throw new StoreDataError(key, `unexpected replay status ${JSON.stringify(status)}`);
    const entries = reply.array(key, out[2] ?? null, 'the stream entries');
    // COUNT caps the reply one past what this store ever keeps: more is another writer's doing.
    if (entries.length > this.#maxEvents) throw new StoreDataError(key, `the stream holds more than ${this.#maxEvents} events`);
    const events = entries.map((entry, i) => {
      // Every entry must be the next number in turn: a gap or a foreign entry is not ours to replay.
      const [id, fields] = reply.array(key, entry, 'a stream entry');
      const expected = `0-${after + 1 + i}`;
      if (reply.string(key, id ?? null, 'an entry id') !== expected) throw new StoreDataError(key, `entry ${JSON.stringify(id)} where ${expected} was expected`);
      const f = reply.array(key, fields ?? null, `the fields of entry ${expected}`);
      if (f.length !== 2 || f[0] !== 'd') throw new StoreDataError(key, `entry ${expected} does not hold exactly the field "d"`);
      return { id: `${stream}-${after + 1 + i}`, data: reply.string(key, f[1] ?? null, `the data of entry ${expected}`) };
    });
    const mark = reply.string(key, out[3] ?? null, 'the stream mark');
    if (mark !== '' && !MARK.test(mark)) throw new StoreDataError(key, 'the stream mark is not 1 to 64 characters A-Z a-z 0-9 _ -');
    return { stream, events, finished: out[1] === '1', mark: mark === '' ? null : mark };
  }

  /**
   * The stream's events and meta keys and its owner's list of streams. The hash tag keeps all of an
   * owner's keys in one Redis Cluster slot: the append script removes the owner's oldest finished
   * streams by name.
   */
  #keys(owner: string, stream: string): [string, string, string] {
    if (!TOKEN.test(stream)) throw new TypeError(`stream name ${JSON.stringify(stream.slice(0, 200))}: expected a name from newStream() (32 hex digits)`);
    const base = this.#ownerBase(owner);
    return [`${base}${stream}:events`, `${base}${stream}:meta`, `${base}streams`];
  }

  #ownerBase(owner: string): string {
    if (!OWNER.test(owner)) throw new TypeError(`stream owner ${JSON.stringify(owner.slice(0, 200))}: expected 1 to 128 characters A-Z a-z 0-9 _ -`);
    return `${this.#prefix}sse:{${owner}}:`;
  }
}
