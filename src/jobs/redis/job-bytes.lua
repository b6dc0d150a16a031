-- keys: 3
-- anvilJobBytes: the ledger of job storage (src/jobs/storage.ts). Every job is an entry from its submission
-- until its record is gone: its bytes (what it keeps plus the record's fixed cost) and when its record
-- expires. Totals are kept per workspace and for the store, and a change that grows a count is taken only
-- when both budgets have room for it, in the same step. An entry leaves when its record is deleted
-- ('release') or when its expiry passes: every call first drops up to TRIM entries whose expiry is at or
-- before now, oldest first, so the counts follow the records' own TTLs without a scan (each entry is
-- dropped once; a scrape of the metrics trims too). The ledger's keys share BullMQ's hash tag (one cluster
-- slot), so one script sees every workspace's count and the store's.
--
-- KEYS[1]  <bull>:bytes:expiry  sorted set: '<workspace id> <job id>' → its record's expires_at (ms)
-- KEYS[2]  <bull>:bytes:size    hash: '<workspace id> <job id>' → its bytes
-- KEYS[3]  <bull>:bytes:total   hash: '<workspace id>' → its jobs' bytes (absent at 0); '#' → the store's
-- ARGV[1]  'reserve' (grow only within both budgets) | 'set' (whatever the budgets: a count that shrinks,
--          or what a record already holds) | 'release' (the record is gone) | 'read'
-- ARGV[2]  now, epoch ms (the caller's clock, the one the records' expires_at come from)
-- ARGV[3]  the workspace id
-- ARGV[4]  the job id ('' to read)
-- ARGV[5]  its bytes
-- ARGV[6]  its record's expires_at, epoch ms
-- ARGV[7]  the workspace's budget, bytes
-- ARGV[8]  the store's budget, bytes; -1 for none
--
-- Returns {1, workspace bytes, store bytes} once done, or {0, 'workspace' | 'store', workspace bytes,
-- store bytes} when a reserve did not fit (nothing changed but the trim). The bytes are the totals after
-- the call.

local TRIM = 1000
local now = tonumber(ARGV[2])
local ws = ARGV[3]

-- (a zero is never sent: Lua writes -0 as '-0', which HINCRBY refuses)
local function add(workspace, delta)
  if delta == 0 then return end
  if redis.call('HINCRBY', KEYS[3], workspace, delta) <= 0 then redis.call('HDEL', KEYS[3], workspace) end
  redis.call('HINCRBY', KEYS[3], '#', delta)
end

local function drop(member)
  local bytes = tonumber(redis.call('HGET', KEYS[2], member)) or 0
  redis.call('HDEL', KEYS[2], member)
  redis.call('ZREM', KEYS[1], member)
  add(string.match(member, '^(%S+) '), -bytes)
end

for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, TRIM)) do drop(member) end

local function totals()
  return tonumber(redis.call('HGET', KEYS[3], ws)) or 0, tonumber(redis.call('HGET', KEYS[3], '#')) or 0
end

local op = ARGV[1]
if op ~= 'read' then
  local member = ws .. ' ' .. ARGV[4]
  if op == 'release' then
    if redis.call('HEXISTS', KEYS[2], member) == 1 then drop(member) end
  else
    local bytes = tonumber(ARGV[5])
    local delta = bytes - (tonumber(redis.call('HGET', KEYS[2], member)) or 0)
    if op == 'reserve' and delta > 0 then
      local held, all = totals()
      local storeMax = tonumber(ARGV[8])
      if held + delta > tonumber(ARGV[7]) then return {0, 'workspace', held, all} end
      if storeMax >= 0 and all + delta > storeMax then return {0, 'store', held, all} end
    end
    redis.call('HSET', KEYS[2], member, bytes)
    redis.call('ZADD', KEYS[1], ARGV[6], member)
    add(ws, delta)
  end
end
local held, all = totals()
return {1, held, all}
