// The Redis side of the task-session store: its key names and the Lua scripts that read and change
// them atomically. It never decides what a change is (the store computes records) and never parses a record.
import { RedisScript } from '../redis/script.js';

// Keys (all under the prefix P, default `rms:`):
//   P sess:<id>  hash { version, last, data }: `data` is the record's JSON (src/tasks/session-files.ts's file
//                form), `last` the last access in epoch ms, `version` 1 at creation and +1 per change.
//                Its TTL is the session timeout, set again on every access.
//   P gone:<id>  the tombstone: written at creation with a TTL of timeout + tombstone lifetime and
//                refreshed with the session, so when Redis drops the session by its TTL the tombstone
//                still has its own lifetime to run; when a script finds a session expired it deletes
//                the session and gives the tombstone exactly that lifetime.
//   P expiry     sorted set id -> last access: what a sweep walks and what size() counts.
// "expired" = session absent, tombstone present; "unknown" = both absent.
// Every script declares the keys it touches (KEYS). The scripts span sessions (a child and its
// parent, the shared index), so the store needs a standalone Redis: a Redis Cluster would refuse them.

/** The keys of one session under a prefix, in the order the scripts take them: session, tombstone, index. */
export function sessionKeys(prefix: string, id: string): [string, string, string] {
  return [`${prefix}sess:${id}`, `${prefix}gone:${id}`, `${prefix}expiry`];
}

export const expiryKey = (prefix: string): string => `${prefix}expiry`;

// Shared Lua: ARGV[1] now (ms), ARGV[2] timeout (ms), ARGV[3] tombstone lifetime (ms), ARGV[4] id.
// `gone` answers for an absent session; `expire` ends a stale one, leaving its tombstone.
const PRELUDE = `
local now, ttl, tomb, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function gone(s, g, z)
  redis.call('ZREM', z, id)
  if redis.call('EXISTS', g) == 1 then return {'expired'} end
  return {'unknown'}
end
local function expire(s, g, z)
  redis.call('DEL', s)
  redis.call('ZREM', z, id)
  redis.call('SET', g, '1', 'PX', tomb)
  return {'expired'}
end
local function stale(last) return last ~= nil and now - last >= ttl end
`;

/**
 * Reads a session; with ARGV[5] = '1' it counts as an access (last access, both TTLs, the index).
 * KEYS: session, tombstone, expiry. Answers {'ok', version, last, data}, {'expired'} or {'unknown'}.
 */
export const LOAD = new RedisScript(`${PRELUDE}
local s, g, z = KEYS[1], KEYS[2], KEYS[3]
local f = redis.call('HMGET', s, 'version', 'last', 'data')
if redis.call('EXISTS', s) == 0 then return gone(s, g, z) end
local last, seen = tonumber(f[2]), f[2]
if stale(last) then return expire(s, g, z) end
if ARGV[5] == '1' and last ~= nil then
  -- Never moved back: a replica whose clock is behind does not shorten the session.
  if now > last then
    seen = ARGV[1]
    redis.call('HSET', s, 'last', seen)
    redis.call('ZADD', z, seen, id)
  end
  redis.call('PEXPIRE', s, ttl)
  redis.call('PEXPIRE', g, ttl + tomb)
end
return {'ok', f[1], seen, f[3]}
`);

/**
 * Replaces a session's record if its version is still ARGV[5]; else answers {'conflict', version,
 * last, data} so the caller can try again at once, without another read (a read-then-write loser
 * would stay one step behind a replica that keeps writing). The last access and TTLs are left as the
 * load before it set them. KEYS: session, tombstone, expiry. ARGV[6]: data.
 */
export const WRITE = new RedisScript(`${PRELUDE}
local s, g, z = KEYS[1], KEYS[2], KEYS[3]
local f = redis.call('HMGET', s, 'version', 'last', 'data')
if redis.call('EXISTS', s) == 0 then return gone(s, g, z) end
if stale(tonumber(f[2])) then return expire(s, g, z) end
if f[1] ~= ARGV[5] then return {'conflict', f[1], f[2], f[3]} end
local v = tostring(tonumber(f[1]) + 1)
redis.call('HSET', s, 'version', v, 'data', ARGV[6])
return {'ok', v}
`);

// Writes a fresh session (KEYS[1..3]) with version 1, its TTL, its tombstone and its index entry.
const CREATE_FRESH = `
local function create(s, g, z, data)
  if redis.call('EXISTS', s) == 1 then return {'exists'} end
  redis.call('HSET', s, 'version', '1', 'last', ARGV[1], 'data', data)
  redis.call('PEXPIRE', s, ttl)
  redis.call('SET', g, '1', 'PX', ttl + tomb)
  redis.call('ZADD', z, ARGV[1], id)
  return {'ok', '1'}
end
`;

/** A session without a parent. KEYS: session, tombstone, expiry. ARGV[5]: data. */
export const CREATE = new RedisScript(`${PRELUDE}${CREATE_FRESH}
return create(KEYS[1], KEYS[2], KEYS[3], ARGV[5])
`);

/**
 * A child session and its parent's new record in one step, if the parent's version is still ARGV[6]
 * (else the parent as WRITE's conflict answers it): never a child without its link, never a link to nothing. KEYS: child session, child tombstone,
 * expiry, parent session, parent tombstone. ARGV[4] is the PARENT's id (for its gone/expire answers),
 * ARGV[5] the child's id, ARGV[7] the child's data, ARGV[8] the parent's data.
 */
export const CREATE_CHILD = new RedisScript(`${PRELUDE}${CREATE_FRESH}
local ps, pg, z = KEYS[4], KEYS[5], KEYS[3]
local f = redis.call('HMGET', ps, 'version', 'last', 'data')
if redis.call('EXISTS', ps) == 0 then return gone(ps, pg, z) end
if stale(tonumber(f[2])) then return expire(ps, pg, z) end
if f[1] ~= ARGV[6] then return {'conflict', f[1], f[2], f[3]} end
id = ARGV[5]
local made = create(KEYS[1], KEYS[2], z, ARGV[7])
if made[1] ~= 'ok' then return made end
local v = tostring(tonumber(f[1]) + 1)
redis.call('HSET', ps, 'version', v, 'data', ARGV[8])
return {'ok', v}
`);

/**
 * The sweep's step for one id taken from the index: ends it if stale, else puts its true last access
 * back in the index. Answers 1 when this call removed it (so two sweeping replicas count it once).
 * KEYS: session, tombstone, expiry.
 */
export const SWEEP_ONE = new RedisScript(`${PRELUDE}
local s, g, z = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', s) == 0 then return redis.call('ZREM', z, id) end
local last = tonumber(redis.call('HGET', s, 'last'))
-- A record without a readable last access is left to its TTL, never deleted on a guess.
if last == nil then redis.call('ZREM', z, id) return 0 end
if not stale(last) then redis.call('ZADD', z, last, id) return 0 end
redis.call('DEL', s)
redis.call('SET', g, '1', 'PX', tomb)
return redis.call('ZREM', z, id)
`);
