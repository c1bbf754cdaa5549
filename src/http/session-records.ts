// The records of legacy MCP sessions (Mcp-Session-Id) in Redis, so any replica can serve any request
// of a session: what initialize negotiated, the client's log level and subscriptions, the GET stream.
// It reads every record back as outside input; it never touches an HTTP request or a connection.
import { randomBytes } from 'node:crypto';
import { BOUNDS } from '../bounds.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../mcp/lifecycle.js';
import { isModeUri } from '../mcp/mode-uris.js';
import { tooDeep } from '../rpc/json-bounds.js';
import type { RedisCommander } from '../redis/client.js';
import { DatasetMarker, MARKER_TAG } from '../redis/dataset-marker.js';
import { keyPrefix, positiveInteger, reply, StoreDataError } from '../redis/input.js';
import { END, TOUCH, WHY, WRITE } from './session-scripts.js';

// How it works. One hash per session, `<prefix>mcp:{<sid>}`, with the fields below; a resource
// subscription is a field `s:<uri>` of its own, so two replicas subscribing at once never overwrite
// each other. The hash lives BOUNDS.http.sessionIdleMs after its last use (every request of the
// session refreshes it): the TTL, not any replica's memory, decides how long a session lives. An
// index of the records by expiry (session-scripts.ts) caps how many the replicas hold together and
// tells, when a record is missing, whether it expired or was evicted; the id carries the dataset
// marker's tag, so one lost with its dataset (a Redis restart without persistence) is told too. Every
// change is one script that changes the hash only if it still exists and, in the same step,
// publishes on `<prefix>mcp:sessions` that the session changed or ended, so the replicas holding a
// copy refresh or close it. Pub/sub keeps nothing: a replica that missed messages finds an ended
// session gone on its next request (the existence check) and re-reads its copies on reconnect.

/** What a replica needs to serve a session it did not start. */
export interface McpSessionRecord {
  protocolVersion: ProtocolVersion;
  capabilities: Record<string, unknown>;
  clientInfo: { name?: string; version?: string };
  /** notifications/initialized arrived. */
  initialized: boolean;
  /** The level of logging/setLevel, null before any. */
  logLevel: LogLevel | null;
  /** Subscribed resource URIs (mode://…). */
  subscriptions: string[];
  /** The GET stream's name in the event log (event-log.ts), null before the first GET. */
  getStream: string | null;
  /** The replica that last opened the GET stream: it alone delivers the session's notifications. */
  getHolder: string | null;
  /**
   * The mode catalogue (its digest) when the GET stream was last opened; null before. Each event of
   * the stream carries the digest of its own time (the event log's mark); a replica resuming the
   * stream compares the newest with its own catalogue to announce what nobody logged.
   */
  seen: string | null;
}

/** A change to a record: only the fields given are written. */
export interface McpSessionChange {
  initialized?: true;
  logLevel?: LogLevel;
  subscribe?: string;
  unsubscribe?: string;
  getStream?: string;
  getHolder?: string;
  seen?: string;
}

/** A message between replicas about one session. */
export interface McpSessionNews { origin: string; sid: string; what: 'changed' | 'ended' }

/** A record refused before writing: over the byte bound, or one subscription too many. */
export class McpSessionLimitError extends Error {
  constructor(readonly sid: string, problem: string) {
    super(`MCP session ${sid}: ${problem}`);
    this.name = new.target.name;
  }
}

/** A new record refused: the replicas hold `max` sessions already; the first of them expires in `retryAfterMs`. */
export class McpSessionsFullError extends Error {
  constructor(readonly max: number, readonly retryAfterMs: number) {
    super(`the shared store holds ${max} MCP sessions, the most allowed (store.max_mcp_sessions)`);
    this.name = new.target.name;
  }
}

/** Why a session has no record, as far as the store can tell. */
export type McpGone = 'expired' | 'evicted' | 'lost_in_restart' | 'unknown' | 'live';

const RECORD_VERSION = '1';
const NEWS_VERSION = 1;
/** Session ids are ours (base64url, src/http/session.ts); anything else never becomes a key. */
export const MCP_SESSION_ID = /^[A-Za-z0-9_-]{16,128}$/;
const REPLICA_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const STREAM_TOKEN = /^[0-9a-f]{32}$/;
const SUB = 's:';
/** A mode URI is `mode://<slug>/<kind>`; slugs are short, so this is generous. */
const MAX_URI = 512;
const MAX_CLIENT_TEXT = 256;
const FIELDS = new Set(['v', 'version', 'caps', 'client', 'init', 'level', 'get', 'holder', 'seen']);
const DIGEST = /^[0-9a-f]{16,64}$/;

export interface McpSessionOptions {
  prefix?: string;
  /** This replica (the origin of its messages). */
  replicaId: string;
  /** How long a record lives after its last use (default BOUNDS.http.sessionIdleMs). */
  ttlMs?: number;
  /** Records all replicas together may hold (store.max_mcp_sessions); default: no cap. */
  maxSessions?: number;
  /** The dataset marker (the shared store's); default: one of its own. */
  marker?: DatasetMarker;
}

export class McpSessionRecords {
  readonly channel: string;
  readonly replicaId: string;
  readonly #client: RedisCommander;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #maxFields: number;
  readonly #maxSessions: number;
  readonly #index: string;
  readonly marker: DatasetMarker;

  constructor(client: RedisCommander, o: McpSessionOptions) {
    if (!REPLICA_ID.test(o.replicaId)) throw new TypeError(`replica id ${JSON.stringify(o.replicaId)}: expected 1 to 64 characters A-Z a-z 0-9 _ . -`);
    this.#client = client;
    this.#prefix = keyPrefix(o.prefix);
    this.channel = `${this.#prefix}mcp:sessions`;
    this.replicaId = o.replicaId;
    this.#ttlMs = positiveInteger('ttlMs', o.ttlMs ?? BOUNDS.http.sessionIdleMs);
    this.#maxFields = FIELDS.size + BOUNDS.store.mcpSubscriptions;
    this.#maxSessions = positiveInteger('maxSessions', o.maxSessions ?? Number.MAX_SAFE_INTEGER);
    this.#index = `${this.#prefix}mcp:live`;
    this.marker = o.marker ?? new DatasetMarker(this.#prefix);
  }

  /** A new session id: the dataset marker's tag, then 192 random bits (base64url). */
  newId(): string {
    return `${this.marker.proposal()}${randomBytes(24).toString('base64url')}`;
  }

  key(sid: string): string {
    if (!MCP_SESSION_ID.test(sid)) throw new TypeError(`MCP session id ${JSON.stringify(sid.slice(0, 200))}: expected 16 to 128 characters A-Z a-z 0-9 _ -`);
    return `${this.#prefix}mcp:{${sid}}`;
  }

  /** Writes a new session's record; resolves once Redis kept it. */
  async create(sid: string, rec: McpSessionRecord): Promise<void> {
    const pairs = [
      'v', RECORD_VERSION, 'version', rec.protocolVersion, 'caps', JSON.stringify(rec.capabilities),
      'client', JSON.stringify(rec.clientInfo), 'init', rec.initialized ? '1' : '0', 'level', rec.logLevel ?? '',
      'get', rec.getStream ?? '', 'holder', rec.getHolder ?? '', 'seen', rec.seen ?? '',
      ...rec.subscriptions.flatMap((uri) => [SUB + uri, '1']),
    ];
    const bytes = pairs.reduce((n, p) => n + Buffer.byteLength(p), 0);
    if (bytes > BOUNDS.store.mcpSessionBytes) throw new McpSessionLimitError(sid, `its record of ${bytes} bytes exceeds ${BOUNDS.store.mcpSessionBytes} bytes (the client capabilities are too large)`);
    const [status, extra] = await this.#write('new', sid, '', pairs, false);
    if (status === 'exists') throw new StoreDataError(this.key(sid), 'a record with this new session id exists already');
    if (status === 'full') throw new McpSessionsFullError(this.#maxSessions, Math.max(0, Number(extra)));
    this.marker.observe(extra ?? null);
  }

  /**
   * Changes a live record and tells the other replicas (unless `tell` is false: a change no copy
   * needs to refresh for); false when the session is gone.
   */
  async change(sid: string, c: McpSessionChange, tell = true): Promise<boolean> {
    const pairs: string[] = [];
    if (c.initialized) pairs.push('init', '1');
    if (c.logLevel !== undefined) pairs.push('level', c.logLevel);
    if (c.getStream !== undefined) { checkToken(c.getStream); pairs.push('get', c.getStream); }
    if (c.getHolder !== undefined) pairs.push('holder', c.getHolder);
    if (c.seen !== undefined) { if (!DIGEST.test(c.seen)) throw new TypeError(`catalogue digest ${JSON.stringify(c.seen.slice(0, 80))}: expected 16 to 64 hex digits`); pairs.push('seen', c.seen); }
    if (c.subscribe !== undefined) pairs.push(SUB + checkUri(c.subscribe), '1');
    const drop = c.unsubscribe === undefined ? '' : SUB + c.unsubscribe;
    const [status] = await this.#write('set', sid, drop, pairs, tell);
    if (status === 'fields') throw new McpSessionLimitError(sid, `at most ${BOUNDS.store.mcpSubscriptions} resource subscriptions; unsubscribe from one first`);
    return status === 'ok';
  }

  /** The session is still live: refreshes its TTL; false when it ended or expired. */
  async touch(sid: string): Promise<boolean> {
    return reply.integer(this.key(sid), await TOUCH.run(this.#client, [this.key(sid), this.#index], [sid, this.#ttlMs]), 'the touch status') === 1;
  }

  /** Why the session has no record (asked after a miss): expired, evicted, lost with its dataset, or unknown. */
  async why(sid: string): Promise<McpGone> {
    const key = this.key(sid);
    const [reason, marker] = reply.array(key, await WHY.run(this.#client, [key, this.#index, this.marker.key], [sid]), 'the reason');
    if (reason === 'live' || reason === 'expired' || reason === 'evicted') return reason;
    if (reason !== 'unknown') throw new StoreDataError(key, `unexpected reason ${JSON.stringify(reason)}`);
    const now = typeof marker === 'string' && marker !== '' ? marker : null;
    this.marker.observe(now);
    return this.marker.lost(sid.slice(0, 6), now) ? 'lost_in_restart' : 'unknown';
  }

  /** The record, checked; null when there is none. */
  async load(sid: string): Promise<McpSessionRecord | null> {
    const key = this.key(sid);
    return parseRecord(key, await this.#client.command('HGETALL', key));
  }

  /** Ends the session everywhere: the record goes and every replica is told. */
  async end(sid: string): Promise<boolean> {
    const n = await END.run(this.#client, [this.key(sid), this.#index], [sid, this.channel, this.#news(sid, 'ended')]);
    return reply.integer(this.key(sid), n, 'DEL') === 1;
  }

  /** A message on the channel, or why it is not one (briefly, for the log); one's own are dropped by the caller. */
  readNews(text: string): McpSessionNews | string {
    return parseNews(text);
  }

  /** Runs WRITE; its status and the value that comes with it (the marker, or the wait when full). */
  async #write(mode: 'new' | 'set', sid: string, drop: string, pairs: string[], tell: boolean): Promise<[string, string | undefined]> {
    const key = this.key(sid);
    // A new record writes the marker if Redis has none: the tag its id carries (newId), else this process's.
    const tag = MARKER_TAG.test(sid.slice(0, 6)) ? sid.slice(0, 6) : this.marker.proposal();
    const args = [mode, sid, this.#ttlMs, this.#maxFields, drop, tell ? this.channel : '', tell ? this.#news(sid, 'changed') : '', this.#maxSessions, tag, ...pairs];
    const [status, extra] = reply.array(key, await WRITE.run(this.#client, [key, this.#index, this.marker.key], args), 'the write status');
    if (typeof status !== 'string' || !['ok', 'exists', 'gone', 'fields', 'full'].includes(status)) throw new StoreDataError(key, `unexpected write status ${JSON.stringify(status)}`);
    return [status, typeof extra === 'string' ? extra : undefined];
  }

  #news(sid: string, what: McpSessionNews['what']): string {
    return JSON.stringify({ v: NEWS_VERSION, origin: this.replicaId, sid, what });
  }
}

function checkToken(token: string): void {
  if (!STREAM_TOKEN.test(token)) throw new TypeError(`GET stream name ${JSON.stringify(token.slice(0, 200))}: expected 32 hex digits`);
}

function checkUri(uri: string): string {
  if (uri.length > MAX_URI || !isModeUri(uri)) throw new TypeError(`subscription ${JSON.stringify(uri.slice(0, 200))}: expected a mode:// URI of at most ${MAX_URI} characters`);
  return uri;
}

/** Reads HGETALL's answer as outside input: every field known, bounded and of its form. */
export function parseRecord(key: string, raw: unknown): McpSessionRecord | null {
  const flat = reply.array(key, raw as never, 'the record');
  if (flat.length === 0) return null;
  const max = 2 * (FIELDS.size + BOUNDS.store.mcpSubscriptions);
  if (flat.length % 2 !== 0 || flat.length > max) throw new StoreDataError(key, `the record has ${flat.length} parts; expected an even number up to ${max}`);
  const f = new Map<string, string>();
  const subscriptions: string[] = [];
  let bytes = 0;
  for (let i = 0; i < flat.length; i += 2) {
    const name = reply.string(key, flat[i]!, 'a field name');
    const value = reply.string(key, flat[i + 1]!, `the field ${JSON.stringify(name.slice(0, 40))}`);
    bytes += name.length + value.length;
    if (bytes > BOUNDS.store.mcpSessionBytes) throw new StoreDataError(key, `the record exceeds ${BOUNDS.store.mcpSessionBytes} bytes`);
    if (name.startsWith(SUB)) {
      const uri = name.slice(SUB.length);
      if (uri.length > MAX_URI || !isModeUri(uri)) throw new StoreDataError(key, `the subscription ${JSON.stringify(uri.slice(0, 80))} is not a mode:// URI`);
      subscriptions.push(uri);
    } else if (FIELDS.has(name)) f.set(name, value);
    else throw new StoreDataError(key, `unknown field ${JSON.stringify(name.slice(0, 80))}`);
  }
  const field = (name: string): string => {
    const v = f.get(name);
    if (v === undefined) throw new StoreDataError(key, `the field "${name}" is missing`);
    return v;
  };
  if (field('v') !== RECORD_VERSION) throw new StoreDataError(key, `record version ${JSON.stringify(field('v'))}, expected ${RECORD_VERSION}`);
  const version = field('version');
  if (!(PROTOCOL_VERSIONS as readonly string[]).includes(version)) throw new StoreDataError(key, `protocol version ${JSON.stringify(version.slice(0, 40))} is not one this server negotiates`);
  const capabilities = jsonObject(key, 'caps', field('caps'));
  const client = jsonObject(key, 'client', field('client'));
  const clientInfo: McpSessionRecord['clientInfo'] = {};
  for (const k of Object.keys(client)) {
    const v = client[k];
    if ((k !== 'name' && k !== 'version') || typeof v !== 'string' || v.length > MAX_CLIENT_TEXT) {
      throw new StoreDataError(key, `the client info may hold only "name" and "version", strings of at most ${MAX_CLIENT_TEXT} characters`);
    }
    clientInfo[k] = v;
  }
  const init = field('init');
  if (init !== '0' && init !== '1') throw new StoreDataError(key, `"init" is ${JSON.stringify(init.slice(0, 40))}, expected 0 or 1`);
  const level = field('level');
  if (level !== '' && !(LOG_LEVELS as readonly string[]).includes(level)) throw new StoreDataError(key, `"level" ${JSON.stringify(level.slice(0, 40))} is not a log level`);
  const get = field('get');
  if (get !== '' && !STREAM_TOKEN.test(get)) throw new StoreDataError(key, '"get" is not a stream name (32 hex digits)');
  const holder = field('holder');
  if (holder !== '' && !REPLICA_ID.test(holder)) throw new StoreDataError(key, '"holder" is not a replica id');
  // Optional: records written before the field existed have none.
  const seen = f.get('seen') ?? '';
  if (seen !== '' && !DIGEST.test(seen)) throw new StoreDataError(key, '"seen" is not a catalogue digest (16 to 64 hex digits)');
  return {
    seen: seen === '' ? null : seen,
    protocolVersion: version as ProtocolVersion, capabilities, clientInfo, initialized: init === '1',
    logLevel: level === '' ? null : level as LogLevel, subscriptions: subscriptions.sort(),
    getStream: get === '' ? null : get, getHolder: holder === '' ? null : holder,
  };
}

function jsonObject(key: string, name: string, text: string): Record<string, unknown> {
  let v: unknown;
  try { v = JSON.parse(text); } catch { throw new StoreDataError(key, `"${name}" is not JSON`); }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new StoreDataError(key, `"${name}" is not a JSON object`);
  if (tooDeep(v, BOUNDS.store.mcpCapabilityDepth)) throw new StoreDataError(key, `"${name}" nests deeper than ${BOUNDS.store.mcpCapabilityDepth} levels`);
  return v as Record<string, unknown>;
}

/** One message of the channel, or why it is not one. */
export function parseNews(text: string): McpSessionNews | string {
  if (Buffer.byteLength(text) > BOUNDS.store.mcpMessageBytes) return `over ${BOUNDS.store.mcpMessageBytes} bytes`;
  let v: unknown;
  try { v = JSON.parse(text); } catch { return `not JSON (starts ${JSON.stringify(text.slice(0, 40))})`; }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.v !== NEWS_VERSION) return `version ${JSON.stringify(o.v)}, expected ${NEWS_VERSION}`;
  if (typeof o.origin !== 'string' || !REPLICA_ID.test(o.origin)) return '"origin" is not a replica id';
  if (typeof o.sid !== 'string' || !MCP_SESSION_ID.test(o.sid)) return '"sid" is not a session id';
  if (o.what !== 'changed' && o.what !== 'ended') return '"what" is neither "changed" nor "ended"';
  return { origin: o.origin, sid: o.sid, what: o.what };
}
