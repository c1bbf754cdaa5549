// The Lua scripts behind legacy MCP session records (session-records.ts): each change, the cap on
// how many records the replicas hold together, and why a record is not there. They never parse a record.
import { BOUNDS } from '../bounds.js';
import { RedisScript } from '../redis/script.js';

// Keys, under the prefix P: the record `P mcp:{<sid>}` (a hash, TTL BOUNDS.http.sessionIdleMs from its
// last use), the index `P mcp:live` (sorted set sid -> when its record expires, in ms of Redis's own
// clock, moved with every TTL) and the dataset marker `P epoch` (src/redis/dataset-marker.ts). The
// index is what the cap (store.max_mcp_sessions) counts: a new record is written only while fewer are
// listed, in the same script, so replicas creating at once never pass it together. Records that Redis
// dropped by their TTL stay listed until a create finds the index full and trims every entry past its
// time (no key scan). An entry whose record is gone before its time tells of an eviction.
// Every script runs on Redis's clock (TIME), the one the TTLs run on.

const CLOCK = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * KEYS: record, index, marker. ARGV: mode ('new' | 'set'), sid, ttl ms, most fields, field to delete
 * ('' none), channel, message, most sessions, marker tag, then field/value pairs. Answers {'ok',
 * marker}, {'exists'} (new), {'gone'} (set), {'fields'} (one field too many) or {'full', ms until
 * the entry first in line expires}.
 */
export const WRITE = new RedisScript(`${CLOCK}
local exists = redis.call('EXISTS', KEYS[1])
if ARGV[1] == 'new' and exists == 1 then return {'exists'} end
if ARGV[1] == 'set' and exists == 0 then return {'gone'} end
local now, ttl, most = clock(), tonumber(ARGV[3]), tonumber(ARGV[8])
if ARGV[1] == 'new' and redis.call('ZCARD', KEYS[2]) >= most then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
  if redis.call('ZCARD', KEYS[2]) >= most then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {'full', tostring(tonumber(first[2]) - now)}
  end
end
local added = 0
for i = 10, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then added = added + 1 end
end
if added > 0 and redis.call('HLEN', KEYS[1]) + added > tonumber(ARGV[4]) then return {'fields'} end
if ARGV[5] ~= '' then redis.call('HDEL', KEYS[1], ARGV[5]) end
if #ARGV >= 10 then redis.call('HSET', KEYS[1], unpack(ARGV, 10)) end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[2])
if ARGV[1] == 'new' then redis.call('SET', KEYS[3], ARGV[9], 'NX') end
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
return {'ok', redis.call('GET', KEYS[3]) or ''}`);

/** KEYS: record, index. ARGV: sid, ttl ms. Answers 1 when the record lives on (its TTL and entry moved), 0 when it is gone. */
export const TOUCH = new RedisScript(`${CLOCK}
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], clock() + tonumber(ARGV[2]), ARGV[1])
return 1`);

/** KEYS: record, index. ARGV: sid, channel, message. Answers how many keys went (0: it was gone already). */
export const END = new RedisScript(`
local n = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return n`);

/**
 * Why a record is not there. KEYS: record, index, marker. ARGV: sid. Answers {'live'} if it is after
 * all, else {reason, marker}: 'expired' (listed, past its time), 'evicted' (listed, before its time:
 * the entry goes, it holds no place under the cap) or 'unknown' (not listed: ended, trimmed, never).
 */
export const WHY = new RedisScript(`${CLOCK}
if redis.call('EXISTS', KEYS[1]) == 1 then return {'live'} end
local marker = redis.call('GET', KEYS[3]) or ''
local expires = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]))
if expires == nil then return {'unknown', marker} end
if expires <= clock() + ${BOUNDS.store.expirySlackMs} then return {'expired', marker} end
redis.call('ZREM', KEYS[2], ARGV[1])
return {'evicted', marker}`);
