// The store's record of each fenced file: the content of its last acknowledged write, the fencing
// token and id of that write, and the writes still landing. It never touches a file.
import { BOUNDS } from '../bounds.js';
import type { RedisCommander } from '../redis/client.js';
import { RedisScript } from '../redis/script.js';
import { reply, StoreDataError } from '../redis/input.js';
import type { RespValue } from '../redis/resp.js';

// How it works. A lease's hash tag {h} names three hashes, each with one field per file of that
// lease (the file's path inside the lease's folder): `rec:{h}` holds the record as JSON
// {t: token, id, h: content hash, c: ids of the writes it is built on, newest first, f: 1 while
// that list is whole since the last write that was not built on the record before it}; `body:{h}`
// holds the content (no field: the file is absent); `intent:{h}` holds the writes that may still
// land, [{id, n: the hash they put in place, b: the hash they replace, at: ms}]. COMMIT writes the
// record only while the writer's lease is current and no later token recorded the file, in one
// script with the lease check, and adds the writer's intent in the same step. Intents older than
// BOUNDS.store.intentMs, or beyond intentsPerFile, are dropped when another is added.

export interface FileRecord { token: number; id: string; hash: string; chain: string[]; full: boolean }
export interface Intent { id: string; next: string; base: string; at: number }
export interface RecordState { record: FileRecord | null; intents: Intent[] }

/** What a writer asks the store to record. `basedOn`: the record id its base was, '' for a file taken as it was. */
export interface CommitRequest { id: string; token: number; hash: string; content: string | null; base: string; basedOn: string }

/** The lease a commit is checked against: its key, its exact value, and the hash tag its keys share. */
export interface LeaseRef { key: string; value: string; tag: string }

const ADD_INTENT = `
local function addIntent(key, field, entry)
  local now = redis.call('TIME')
  local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local raw = redis.call('HGET', key, field)
  local kept = {}
  if raw then
    for _, i in ipairs(cjson.decode(raw)) do
      if ms - i.at < tonumber(ARGV[#ARGV]) then kept[#kept + 1] = i end
    end
  end
  while #kept >= tonumber(ARGV[#ARGV - 1]) do table.remove(kept, 1) end
  entry.at = ms
  kept[#kept + 1] = entry
  redis.call('HSET', key, field, cjson.encode(kept))
end
`;

// KEYS: lease, rec, body, intent. ARGV: lease value, field, token, id, hash, present (1/0), content,
// base, basedOn, chain cap, intents cap, intent ms. 1: recorded; 0: the lease is not this writer's;
// -1: a later token recorded the file.
const COMMIT = new RedisScript(`${ADD_INTENT}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local raw = redis.call('HGET', KEYS[2], ARGV[2])
local chain, full = {ARGV[4]}, 1
if raw then
  local rec = cjson.decode(raw)
  if tonumber(rec.t) > tonumber(ARGV[3]) then return -1 end
  if ARGV[9] ~= '' and rec.id == ARGV[9] then
    if rec.f == 0 then full = 0 end
    for _, id in ipairs(rec.c) do
      if #chain >= tonumber(ARGV[10]) then full = 0 break end
      chain[#chain + 1] = id
    end
  end
end
redis.call('HSET', KEYS[2], ARGV[2], cjson.encode({t = ARGV[3], id = ARGV[4], h = ARGV[5], c = chain, f = full}))
if ARGV[6] == '1' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[7]) else redis.call('HDEL', KEYS[3], ARGV[2]) end
addIntent(KEYS[4], ARGV[2], {id = ARGV[4], n = ARGV[5], b = ARGV[8]})
return 1`);

// KEYS: intent. ARGV: field, id, next, base, intents cap, intent ms.
const INTEND = new RedisScript(`${ADD_INTENT}
addIntent(KEYS[1], ARGV[1], {id = ARGV[2], n = ARGV[3], b = ARGV[4]})
return 1`);

// KEYS: intent, and rec when only a write that is still the record may be forgotten. ARGV: field, id.
const LANDED = new RedisScript(`
if KEYS[2] then
  local rec = redis.call('HGET', KEYS[2], ARGV[1])
  if not rec or cjson.decode(rec).id ~= ARGV[2] then return 0 end
end
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local kept = {}
for _, i in ipairs(cjson.decode(raw)) do if i.id ~= ARGV[2] then kept[#kept + 1] = i end end
if #kept == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(kept)) end
return 1`);

const ID = /^[0-9a-f]{16}$/;
const HASH = /^(?:[0-9a-f]{64}|absent)$/;
const FIELD = /^[^\0\n]{1,1024}$/;

export class FileRecords {
  constructor(private readonly client: RedisCommander, private readonly prefix: string) {}

  /** Records a write: 'recorded', or why not ('lease_lost', 'later_token'); nothing is changed unless recorded. */
  async commit(lease: LeaseRef, field: string, c: CommitRequest): Promise<'recorded' | 'lease_lost' | 'later_token'> {
    const k = this.#keys(lease.tag);
    const out = await COMMIT.run(this.client, [lease.key, k.rec, k.body, k.intent], [
      lease.value, field, c.token, c.id, c.hash, c.content === null ? 0 : 1, c.content ?? '', c.base, c.basedOn,
      BOUNDS.store.recordChain, BOUNDS.store.intentsPerFile, BOUNDS.store.intentMs,
    ]);
    const n = reply.integer(k.rec, out, 'the commit answer');
    return n === 1 ? 'recorded' : n === 0 ? 'lease_lost' : 'later_token';
  }

  /** Notes a write that may land (a repair): while it is unsettled, its content and the one it replaces count as stale. */
  async intend(tag: string, field: string, i: Omit<Intent, 'at'>): Promise<void> {
    await INTEND.run(this.client, [this.#keys(tag).intent], [field, i.id, i.next, i.base, BOUNDS.store.intentsPerFile, BOUNDS.store.intentMs]);
  }

  /** Forgets a write that has landed (its rename returned and was checked). */
  async landed(tag: string, field: string, id: string): Promise<void> {
    await LANDED.run(this.client, [this.#keys(tag).intent], [field, id]);
  }

  /** Forgets a write that has landed if it is still the file's record, in one step; false when it is not. */
  async landedAsRecord(tag: string, field: string, id: string): Promise<boolean> {
    const k = this.#keys(tag);
    return (await LANDED.run(this.client, [k.intent, k.rec], [field, id])) === 1;
  }

  /** The record and the unsettled writes of one file. */
  async read(tag: string, field: string): Promise<RecordState> {
    const k = this.#keys(tag);
    const [rec, intents] = await Promise.all([this.client.command('HGET', k.rec, field), this.client.command('HGET', k.intent, field)]);
    return { record: rec === null ? null : parseRecord(k.rec, rec), intents: intents === null ? [] : parseIntents(k.intent, intents) };
  }

  /** Every recorded file of a lease, with its unsettled writes. */
  async readAll(tag: string): Promise<Map<string, RecordState>> {
    const k = this.#keys(tag);
    const [recs, intents] = await Promise.all([this.client.command('HGETALL', k.rec), this.client.command('HGETALL', k.intent)]);
    const out = new Map<string, RecordState>();
    const pairs = (key: string, v: RespValue): [string, RespValue][] => {
      const flat = reply.array(key, v, 'the hash');
      return Array.from({ length: flat.length / 2 }, (_, i) => [reply.string(key, flat[2 * i] ?? null, 'a field'), flat[2 * i + 1] ?? null]);
    };
    for (const [field, v] of pairs(k.rec, recs)) {
      if (!FIELD.test(field)) throw new StoreDataError(k.rec, `the field ${JSON.stringify(field.slice(0, 40))} is not a file's path`);
      out.set(field, { record: parseRecord(k.rec, v), intents: [] });
    }
    for (const [field, v] of pairs(k.intent, intents)) {
      const state = out.get(field);
      if (state) state.intents = parseIntents(k.intent, v);
    }
    return out;
  }

  /** The recorded content (null: the file is recorded as absent). */
  async content(tag: string, field: string): Promise<string | null> {
    const k = this.#keys(tag);
    const v = await this.client.command('HGET', k.body, field);
    return v === null ? null : reply.string(k.body, v, 'the recorded content');
  }

  #keys(tag: string): { rec: string; body: string; intent: string } {
    return { rec: `${this.prefix}rec:{${tag}}`, body: `${this.prefix}body:{${tag}}`, intent: `${this.prefix}intent:{${tag}}` };
  }
}

function json(key: string, v: RespValue, what: string): unknown {
  const text = reply.string(key, v, what);
  try { return JSON.parse(text); } catch { throw new StoreDataError(key, `${what} is not JSON`); }
}

function parseRecord(key: string, v: RespValue): FileRecord {
  const o = json(key, v, 'a record') as Record<string, unknown> | null;
  const chain = o?.c;
  if (o === null || typeof o !== 'object' || typeof o.t !== 'string' || !/^\d{1,15}$/.test(o.t) || typeof o.id !== 'string' || !ID.test(o.id)
    || typeof o.h !== 'string' || !HASH.test(o.h) || !Array.isArray(chain) || !chain.every((c) => typeof c === 'string' && ID.test(c)) || (o.f !== 0 && o.f !== 1)) {
    throw new StoreDataError(key, 'a record is not {t, id, h, c, f} as this server writes it');
  }
  return { token: Number(o.t), id: o.id, hash: o.h, chain: chain as string[], full: o.f === 1 };
}

function parseIntents(key: string, v: RespValue): Intent[] {
  const list = json(key, v, 'the unsettled writes');
  // Lua's cjson writes an empty table as {}: an empty list.
  if (list !== null && typeof list === 'object' && !Array.isArray(list) && Object.keys(list).length === 0) return [];
  if (!Array.isArray(list)) throw new StoreDataError(key, 'the unsettled writes are not a list');
  return list.map((i: unknown) => {
    const o = i as Record<string, unknown> | null;
    if (o === null || typeof o !== 'object' || typeof o.id !== 'string' || typeof o.n !== 'string' || !HASH.test(o.n)
      || typeof o.b !== 'string' || !HASH.test(o.b) || typeof o.at !== 'number') {
      throw new StoreDataError(key, 'an unsettled write is not {id, n, b, at} as this server writes it');
    }
    return { id: o.id, next: o.n, base: o.b, at: o.at };
  });
}
