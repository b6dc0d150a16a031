-- keys: 3
-- anvilKeepIdempotent: keeps the (sealed) answer of a create under its Idempotency-Key record, and bounds
-- what one scope (a workspace, a console person, the operator) keeps: past max bytes, its oldest answers
-- are dropped first (issue 27: one tenant kept 16 MB answers for 24 h, 21 MB per record, Redis went from
-- 1.7 to 49.7 MB in a few requests). Every key shares the scope's hash tag, so this runs on a cluster; the
-- records it drops are named in the index rather than in KEYS (same slot).
--
-- KEYS[1]  <p>:idem:{<scope>}:<id>   the record (string, expires on its own)
-- KEYS[2]  <p>:idem:{<scope>}:kept   sorted set: record key → when it was kept (ms)
-- KEYS[3]  <p>:idem:{<scope>}:bytes  hash: record key → its bytes; '#' → the scope's total
-- ARGV[1]  the record's value
-- ARGV[2]  its lifetime, ms
-- ARGV[3]  most bytes the scope may keep
-- ARGV[4]  now, ms (the caller's clock)
-- ARGV[5]  what the record weighs against max (keptBytes, src/store/types.ts: the same on both stores)
--
-- Returns the number of older answers dropped.

local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local size = tonumber(ARGV[5])

local function forget(record)
  local bytes = tonumber(redis.call('HGET', KEYS[3], record)) or 0
  redis.call('HDEL', KEYS[3], record)
  redis.call('ZREM', KEYS[2], record)
  return redis.call('HINCRBY', KEYS[3], '#', -bytes)
end

-- answers that expired on their own leave the count
for _, record in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl)) do forget(record) end
-- the same record kept again is counted once
if redis.call('HEXISTS', KEYS[3], KEYS[1]) == 1 then forget(KEYS[1]) end

redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
local total = redis.call('HINCRBY', KEYS[3], '#', size)
local dropped = 0
while total > max do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest or oldest == KEYS[1] then break end
  redis.call('DEL', oldest)
  total = forget(oldest)
  dropped = dropped + 1
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
return dropped
