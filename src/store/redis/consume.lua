-- anvilConsume: one request's limit decision, decided and charged atomically in one round trip.
-- The key cap, the workspace cap, the workspace monthly quota and the optional key monthly quota are
-- decided together: if one refuses, nothing is charged (only a refused_rate / refused_quota counter
-- moves). Same arithmetic as src/limits/gcra.ts and src/store/memory/limiter.ts, on Lua doubles.
--
-- One hash per workspace-month holds everything a decision reads and writes: the usage counters and the
-- two GCRA theoretical arrival times (TATs, ms). An admitted request is one HMGET and one HSET (plus TIME
-- in production); a refusal moves its two refused_* counters instead. Numbers go to Redis as Lua numbers
-- (Redis writes them with 17 significant digits: exact), never through string.format. Cost per call is
-- measured by bench/redis-decision.ts (INFO commandstats).
--
-- KEYS[1]  <p>:{ws:<id>}:usage:<month A>  hash of the month the caller believes it is (A)
-- KEYS[2]  <p>:{ws:<id>}:usage:<month B>  hash of the neighbouring month nearer to now (B)
-- ARGV[1]  key id
-- ARGV[2]  key rate per second (burst = rate)
-- ARGV[3]  workspace rate per second (burst = rate)
-- ARGV[4]  workspace monthly quota
-- ARGV[5]  key monthly quota, or -1 for none
-- ARGV[6]  now in ms (tests inject a clock), or '' to use Redis TIME (production)
-- ARGV[7], ARGV[8]   start and end of month A (ms since the epoch, UTC; end exclusive)
-- ARGV[9], ARGV[10]  start and end of month B
-- ARGV[11] '1': charge (rate limits, month quotas, usage); '0': rate only (the per-second limits decide
--          and move; month quotas are neither checked nor charged, no usage counter moves)
-- The script's clock decides which month it is; the caller passes both candidates (keys and bounds)
-- because a cluster script may only touch declared keys, and calendar arithmetic is simpler in JS.
-- A clock in neither month means the two clocks disagree by weeks: an error, never a wrong count.
--
-- Hash fields: requests / refused_rate / refused_quota (workspace), k:<key id>:<counter> (per key),
-- d:<DD> (admitted per day), tw / tk:<key id> (TATs of the workspace and of the key, ms).
-- A TAT is at most 1 s ahead of the request that wrote it, so in the first second of a month the TATs of
-- the previous month's hash (when it is the other declared key) still count: the rate state crosses the
-- month boundary exactly, as the embedded limiter's does.
--
-- Returns an array of integers:
--   [1] allowed 1|0   [2] reason 0 none|1 quota|2 key_quota|3 key_rate|4 workspace_rate
--   [3] retry-after s (0 when allowed)
--   [4] key remaining        [5] key reset s
--   [6] workspace remaining  [7] workspace reset s
--   [8] month remaining      [9] month reset s (to the next UTC month)   [10] month length s
--   [11] key-month remaining, or -1 when the key has no monthly quota
--   [12] the month charged: 1 = A, 2 = B (0 when refused or rate-only)
--   [13] the day of month charged (0 when refused or rate-only)
--        (the refund receipt: refund.lua must give back exactly what this call took)

local now
if ARGV[6] ~= '' then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end

local DAY = 86400000
local usage, other, monthStart, monthEnd, monthIndex, otherStart
local aStart, bStart = tonumber(ARGV[7]), tonumber(ARGV[9])
if now >= aStart and now < tonumber(ARGV[8]) then
  usage, other, monthStart, monthEnd, monthIndex, otherStart = KEYS[1], KEYS[2], aStart, tonumber(ARGV[8]), 1, bStart
elseif now >= bStart and now < tonumber(ARGV[10]) then
  usage, other, monthStart, monthEnd, monthIndex, otherStart = KEYS[2], KEYS[1], bStart, tonumber(ARGV[10]), 2, aStart
else
  return redis.error_reply('ERR anvil: the script clock is outside both months the caller expected')
end

local keyId = ARGV[1]
local keyRate = tonumber(ARGV[2])
local wsRate = tonumber(ARGV[3])
local quota = tonumber(ARGV[4])
local keyQuota = tonumber(ARGV[5])
local charging = ARGV[11] ~= '0'

-- GCRA with burst = rate: allowed, tat, remaining, reset, retryAfter (see src/limits/gcra.ts)
local function gcra(prev, rate)
  local interval = 1000 / rate
  local tat = prev
  if tat == nil or tat < now then tat = now end
  local newTat = tat + interval
  local allowAt = newTat - 1000
  if allowAt > now + 1e-9 then
    return false, tat, 0, math.max(1, math.ceil((tat - now) / 1000)), math.max(1, math.ceil((allowAt - now) / 1000))
  end
  return true, newTat, math.max(0, math.floor((1000 - (newTat - now)) / interval + 1e-9)),
    math.max(1, math.ceil((newTat - now) / 1000)), 0
end

local dayOfMonth = math.floor((now - monthStart) / DAY) + 1
local dayField = dayOfMonth < 10 and ('d:0' .. dayOfMonth) or ('d:' .. dayOfMonth)
local tkField = 'tk:' .. keyId
local krField = 'k:' .. keyId .. ':requests'
-- everything an admission moves, read at once and written back at once
local c = redis.call('HMGET', usage, 'tw', tkField, 'requests', krField, dayField)
local wTatPrev, kTatPrev = tonumber(c[1]), tonumber(c[2])
if now < monthStart + 1000 and otherStart < monthStart then
  local p = redis.call('HMGET', other, 'tw', tkField)
  local pw, pk = tonumber(p[1]), tonumber(p[2])
  if pw and (wTatPrev == nil or pw > wTatPrev) then wTatPrev = pw end
  if pk and (kTatPrev == nil or pk > kTatPrev) then kTatPrev = pk end
end
local kOk, kTat, kRem, kReset, kRetry = gcra(kTatPrev, keyRate)
local wOk, wTat, wRem, wReset, wRetry = gcra(wTatPrev, wsRate)
local wsCount = tonumber(c[3]) or 0
local keyCount = tonumber(c[4]) or 0

local quotaOk = not charging or wsCount < quota
local keyQuotaOk = not charging or keyQuota < 0 or keyCount < keyQuota
local allowed = kOk and wOk and quotaOk and keyQuotaOk
local reason = 0
if not quotaOk then reason = 1
elseif not keyQuotaOk then reason = 2
elseif not kOk then reason = 3
elseif not wOk then reason = 4 end

local monthReset = math.max(1, math.ceil((monthEnd - now) / 1000))
local charged = 0
local retryAfter = 0
if allowed then
  if charging then
    charged = 1
    redis.call('HSET', usage, 'tw', wTat, tkField, kTat, 'requests', wsCount + 1, krField, keyCount + 1,
      dayField, (tonumber(c[5]) or 0) + 1)
  else
    redis.call('HSET', usage, 'tw', wTat, tkField, kTat)
  end
else
  -- what the refused request would have left: a policy that would have admitted keeps its token
  if kOk then kRem = kRem + 1 end
  if wOk then wRem = wRem + 1 end
  if reason <= 2 then
    retryAfter = monthReset
  else
    retryAfter = math.max(kRetry, wRetry, 1)
  end
  if charging then
    local counter = reason <= 2 and 'refused_quota' or 'refused_rate'
    redis.call('HINCRBY', usage, counter, 1)
    redis.call('HINCRBY', usage, 'k:' .. keyId .. ':' .. counter, 1)
  end
end
-- usage is kept about 13 months: the expiry is set when the month's hash is created (tw is written by
-- every admission, so it is absent only until the month's first one; setting it again changes nothing)
if c[1] == false and (allowed or charging) then
  redis.call('PEXPIRE', usage, math.ceil(monthEnd - now) + 400 * DAY)
end

local keyMonthRemaining = -1
if keyQuota >= 0 then keyMonthRemaining = math.max(0, keyQuota - keyCount - charged) end
return {
  allowed and 1 or 0, reason, retryAfter,
  kRem, kReset, wRem, wReset,
  math.max(0, quota - wsCount - charged), monthReset, (monthEnd - monthStart) / 1000,
  keyMonthRemaining,
  charged * monthIndex, charged * dayOfMonth,
}
