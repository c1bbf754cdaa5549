// The Redis side of the task-session store: its key names and the Lua scripts that read and change
// them atomically. It never decides what a change is (the store computes records) and never parses a record.
import { BOUNDS } from '../bounds.js';
import { RedisScript } from '../redis/script.js';

// Keys (all under the prefix P, default `rms:`):
//   P sess:<id>  hash { version, last, data }: `data` is the record's JSON (src/tasks/session-files.ts's file
//                form), `last` the last access in epoch ms, `version` 1 at creation and +1 per change.
//                Its TTL is the session timeout, set again on every access.
//   P expiry     sorted set id -> last access: what a sweep walks, what size() counts and what the
//                cap (store.max_task_sessions) is checked against when a session is created.
//   P gone:<id>  the tombstone, "expired" or "evicted", written when the session is found gone: by a
//                sweep, or by an access that finds it past its time, or finds its hash dropped while
//                the index still lists it (the last access tells which: past the timeout, Redis's TTL
//                dropped it; before, something else did: maxmemory eviction or a hand). It lives for
//                the tombstone lifetime from then. Never written at creation: a live session has none.
//   P epoch      the dataset marker (src/redis/dataset-marker.ts), written by a create if missing; its
//                tag is in every id (ses_<tag><18 hex>), so an id of a dataset Redis lost reads as lost.
// An id with no hash, no tombstone and no index entry is "unknown": never here, forgotten, or lost
// with its dataset; the scripts then answer the marker so the store can tell the last apart.
// Every script declares the keys it touches (KEYS). The scripts span sessions (a child and its
// parent, the shared index), so the store needs a standalone Redis: a Redis Cluster would refuse them.

/** The keys of one session under a prefix, in the order the scripts take them: session, tombstone, index, marker. */
export function sessionKeys(prefix: string, id: string): [string, string, string, string] {
  return [`${prefix}sess:${id}`, `${prefix}gone:${id}`, `${prefix}expiry`, `${prefix}epoch`];
}

export const expiryKey = (prefix: string): string => `${prefix}expiry`;

// Shared Lua: ARGV[1] now (ms), ARGV[2] timeout (ms), ARGV[3] tombstone lifetime (ms), ARGV[4] id.
// `gone` answers for an absent session (and writes the tombstone its index entry calls for);
// `expire` ends a stale one, leaving its tombstone.
const PRELUDE = `
local now, ttl, tomb, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function stale(last) return last ~= nil and now - last >= ttl end
local function gone(g, z, e)
  local why = redis.call('GET', g)
  local last = tonumber(redis.call('ZSCORE', z, id))
  if not why and last == nil then return {'unknown', redis.call('GET', e) or ''} end
  if not why then
    why = (now - last >= ttl - ${BOUNDS.store.expirySlackMs}) and 'expired' or 'evicted'
    redis.call('SET', g, why, 'PX', tomb)
  end
  if last ~= nil then redis.call('ZREM', z, id) end
  if why == 'evicted' then return {'evicted'} end
  return {'expired'}
end
local function expire(s, g, z)
  redis.call('DEL', s)
  redis.call('ZREM', z, id)
  redis.call('SET', g, 'expired', 'PX', tomb)
  return {'expired'}
end
`;

/**
 * Reads a session; with ARGV[5] = '1' it counts as an access (last access, TTL, the index).
 * KEYS: session, tombstone, expiry, marker. Answers {'ok', version, last, data}, {'expired'},
 * {'evicted'} or {'unknown', marker}.
 */
export const LOAD = new RedisScript(`${PRELUDE}
local s, g, z, e = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local f = redis.call('HMGET', s, 'version', 'last', 'data')
if redis.call('EXISTS', s) == 0 then return gone(g, z, e) end
local last, seen = tonumber(f[2]), f[2]
if stale(last) then return expire(s, g, z) end
if ARGV[5] == '1' and last ~= nil then
  -- Never moved back: a replica whose clock is behind does not shorten the session.
  if now > last then
    seen = ARGV[1]
    redis.call('HSET', s, 'last', seen)
  end
  redis.call('ZADD', z, seen, id)
  redis.call('PEXPIRE', s, ttl)
end
return {'ok', f[1], seen, f[3]}
`);

/**
 * Replaces a session's record if its version is still ARGV[5]; else answers {'conflict', version,
 * last, data} so the caller can try again at once, without another read (a read-then-write loser
 * would stay one step behind a replica that keeps writing). The last access and TTL are left as the
 * load before it set them. KEYS: session, tombstone, expiry, marker. ARGV[6]: data.
 */
export const WRITE = new RedisScript(`${PRELUDE}
local s, g, z, e = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local f = redis.call('HMGET', s, 'version', 'last', 'data')
if redis.call('EXISTS', s) == 0 then return gone(g, z, e) end
if stale(tonumber(f[2])) then return expire(s, g, z) end
if f[1] ~= ARGV[5] then return {'conflict', f[1], f[2], f[3]} end
local v = tostring(tonumber(f[1]) + 1)
redis.call('HSET', s, 'version', v, 'data', ARGV[6])
return {'ok', v}
`);

// Writes a fresh session (version 1, its TTL, its index entry) unless the index already holds `max`
// sessions: then {'full', the oldest last access}, so the caller can sweep or say when to retry. The
// count and the write are one step, so replicas creating at once never pass the cap together. The
// marker is written if missing and answered.
const CREATE_FRESH = `
local function create(s, z, e, data, max, tag)
  if redis.call('ZCARD', z) >= max then
    local oldest = redis.call('ZRANGE', z, 0, 0, 'WITHSCORES')
    return {'full', oldest[2] or ''}
  end
  if redis.call('EXISTS', s) == 1 then return {'exists'} end
  redis.call('HSET', s, 'version', '1', 'last', ARGV[1], 'data', data)
  redis.call('PEXPIRE', s, ttl)
  redis.call('ZADD', z, ARGV[1], id)
  redis.call('SET', e, tag, 'NX')
  return {'ok', '1', redis.call('GET', e)}
end
`;

/** A session without a parent. KEYS: session, tombstone, expiry, marker. ARGV[5] data, ARGV[6] the cap, ARGV[7] the marker tag. */
export const CREATE = new RedisScript(`${PRELUDE}${CREATE_FRESH}
return create(KEYS[1], KEYS[3], KEYS[4], ARGV[5], tonumber(ARGV[6]), ARGV[7])
`);

/**
 * A child session and its parent's new record in one step, if the parent's version is still ARGV[6]
 * (else the parent as WRITE's conflict answers it): never a child without its link, never a link to
 * nothing. KEYS: child session, child tombstone, expiry, marker, parent session, parent tombstone.
 * ARGV[4] is the PARENT's id (for its gone/expire answers), ARGV[5] the child's id, ARGV[7] the
 * child's data, ARGV[8] the parent's data, ARGV[9] the cap, ARGV[10] the marker tag. Answers
 * {'ok', parent version, marker}.
 */
export const CREATE_CHILD = new RedisScript(`${PRELUDE}${CREATE_FRESH}
local z, e, ps, pg = KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local f = redis.call('HMGET', ps, 'version', 'last', 'data')
if redis.call('EXISTS', ps) == 0 then return gone(pg, z, e) end
if stale(tonumber(f[2])) then return expire(ps, pg, z) end
if f[1] ~= ARGV[6] then return {'conflict', f[1], f[2], f[3]} end
id = ARGV[5]
local made = create(KEYS[1], z, e, ARGV[7], tonumber(ARGV[9]), ARGV[10])
if made[1] ~= 'ok' then return made end
local v = tostring(tonumber(f[1]) + 1)
redis.call('HSET', ps, 'version', v, 'data', ARGV[8])
return {'ok', v, made[3]}
`);

/**
 * The sweep's step for one id taken from the index: ends it if stale (or writes the tombstone of one
 * Redis already dropped), else puts its true last access back in the index. Answers 1 when this call
 * removed it (so two sweeping replicas count it once). KEYS: session, tombstone, expiry, marker.
 */
export const SWEEP_ONE = new RedisScript(`${PRELUDE}
local s, g, z = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', s) == 0 then
  if not redis.call('ZSCORE', z, id) then return 0 end
  gone(g, z, KEYS[4])
  return 1
end
local last = tonumber(redis.call('HGET', s, 'last'))
-- A record without a readable last access is left to its TTL, never deleted on a guess.
if last == nil then redis.call('ZREM', z, id) return 0 end
if not stale(last) then redis.call('ZADD', z, last, id) return 0 end
redis.call('DEL', s)
redis.call('SET', g, 'expired', 'PX', tomb)
return redis.call('ZREM', z, id)
`);
