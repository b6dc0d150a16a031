-- anvilConsume: one request's limit decision, decided and charged atomically in one round trip.
-- The key cap, the workspace cap, the workspace monthly quota and the optional key monthly quota are
-- decided together: if one refuses, nothing is charged (only a refused_rate / refused_quota counter
-- moves). Same arithmetic as src/limits/gcra.ts and src/store/memory/limiter.ts, on Lua doubles.
--
-- KEYS[1]  <p>:{ws:<id>}:tat:key:<key id>  GCRA theoretical arrival time of the key, ms (string)
-- KEYS[2]  <p>:{ws:<id>}:tat:ws            GCRA theoretical arrival time of the workspace, ms
-- KEYS[3]  <p>:{ws:<id>}:usage:<month A>  usage hash of the month the caller believes it is (A)
-- KEYS[4]  <p>:{ws:<id>}:usage:<month B>  usage hash of the neighbouring month nearer to now (B)
-- ARGV[1]  key id
-- ARGV[2]  key rate per second (burst = rate)
-- ARGV[3]  workspace rate per second (burst = rate)
-- ARGV[4]  workspace monthly quota
-- ARGV[5]  key monthly quota, or -1 for none
-- ARGV[6]  now in ms (tests inject a clock), or '' to use Redis TIME (production)
-- ARGV[7], ARGV[8]   start and end of month A (ms since the epoch, UTC; end exclusive)
-- ARGV[9], ARGV[10]  start and end of month B
-- The script's clock decides which month it is; the caller passes both candidates (keys and bounds)
-- because a cluster script may only touch declared keys, and calendar arithmetic is simpler in JS.
-- A clock in neither month means the two clocks disagree by weeks: an error, never a wrong count.
--
-- Returns an array of integers:
--   [1] allowed 1|0   [2] reason 0 none|1 quota|2 key_quota|3 key_rate|4 workspace_rate
--   [3] retry-after s (0 when allowed)
--   [4] key remaining        [5] key reset s
--   [6] workspace remaining  [7] workspace reset s
--   [8] month remaining      [9] month reset s (to the next UTC month)   [10] month length s
--   [11] key-month remaining, or -1 when the key has no monthly quota
--   [12] the month charged: 1 = A, 2 = B (0 when refused)   [13] the day of month charged (0 when refused)
--        (the refund receipt: refund.lua must give back exactly what this call took)

local now
if ARGV[6] ~= '' then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end

local DAY = 86400000
local usage, monthStart, monthEnd, monthIndex
if now >= tonumber(ARGV[7]) and now < tonumber(ARGV[8]) then
  usage, monthStart, monthEnd, monthIndex = KEYS[3], tonumber(ARGV[7]), tonumber(ARGV[8]), 1
elseif now >= tonumber(ARGV[9]) and now < tonumber(ARGV[10]) then
  usage, monthStart, monthEnd, monthIndex = KEYS[4], tonumber(ARGV[9]), tonumber(ARGV[10]), 2
else
  return redis.error_reply('ERR anvil: the script clock is outside both months the caller expected')
end

local keyId = ARGV[1]
local keyRate = tonumber(ARGV[2])
local wsRate = tonumber(ARGV[3])
local quota = tonumber(ARGV[4])
local keyQuota = tonumber(ARGV[5])

-- GCRA with burst = rate: allowed, tat, remaining, reset, retryAfter (see src/limits/gcra.ts)
local function gcra(prev, rate)
  local interval = 1000 / rate
  local tat = math.max(prev or now, now)
  local newTat = tat + interval
  local allowAt = newTat - 1000
  if allowAt > now + 1e-9 then
    return false, tat, 0, math.max(1, math.ceil((tat - now) / 1000)), math.max(1, math.ceil((allowAt - now) / 1000))
  end
  return true, newTat, math.max(0, math.floor((1000 - (newTat - now)) / interval + 1e-9)),
    math.max(1, math.ceil((newTat - now) / 1000)), 0
end

local tats = redis.call('MGET', KEYS[1], KEYS[2])
local kOk, kTat, kRem, kReset, kRetry = gcra(tonumber(tats[1]), keyRate)
local wOk, wTat, wRem, wReset, wRetry = gcra(tonumber(tats[2]), wsRate)
-- every counter this request may move, read at once and written back at once
local kf = 'k:' .. keyId .. ':'
local dayOfMonth = math.floor((now - monthStart) / DAY) + 1
local dayField = string.format('d:%02d', dayOfMonth)
local c = redis.call('HMGET', usage, 'requests', kf .. 'requests', dayField, 'refused_rate', 'refused_quota',
  kf .. 'refused_rate', kf .. 'refused_quota')
local wsCount = tonumber(c[1]) or 0
local keyCount = tonumber(c[2]) or 0
local fresh = not (c[1] or c[4] or c[5])

local quotaOk = wsCount < quota
local keyQuotaOk = keyQuota < 0 or keyCount < keyQuota
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
  charged = 1
  -- a TAT older than now means a full bucket, so the key may vanish a little after its TAT
  redis.call('SET', KEYS[1], string.format('%.17g', kTat), 'PX', math.ceil(kTat - now) + 2000)
  redis.call('SET', KEYS[2], string.format('%.17g', wTat), 'PX', math.ceil(wTat - now) + 2000)
  redis.call('HSET', usage, 'requests', wsCount + 1, kf .. 'requests', keyCount + 1,
    dayField, (tonumber(c[3]) or 0) + 1)
else
  -- what the refused request would have left: a policy that would have admitted keeps its token
  if kOk then kRem = kRem + 1 end
  if wOk then wRem = wRem + 1 end
  if reason <= 2 then
    redis.call('HSET', usage, 'refused_quota', (tonumber(c[5]) or 0) + 1, kf .. 'refused_quota', (tonumber(c[7]) or 0) + 1)
    retryAfter = monthReset
  else
    redis.call('HSET', usage, 'refused_rate', (tonumber(c[4]) or 0) + 1, kf .. 'refused_rate', (tonumber(c[6]) or 0) + 1)
    retryAfter = math.max(kRetry, wRetry, 1)
  end
end
-- usage is kept about 13 months: the expiry is set once, when the month's hash is created
if fresh then redis.call('PEXPIRE', usage, math.ceil(monthEnd - now) + 400 * DAY) end

local keyMonthRemaining = -1
if keyQuota >= 0 then keyMonthRemaining = math.max(0, keyQuota - keyCount - charged) end
return {
  allowed and 1 or 0, reason, retryAfter,
  kRem, kReset, wRem, wReset,
  math.max(0, quota - wsCount - charged), monthReset, (monthEnd - monthStart) / 1000,
  keyMonthRemaining,
  charged * monthIndex, charged * dayOfMonth,
}
