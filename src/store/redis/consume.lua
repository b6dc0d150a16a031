-- anvilConsume: a batch of limit decisions (one or more requests), decided in arrival order and charged
-- atomically in one call. Each decision is exactly what it would be alone, one call after the other: the
-- key cap, the workspace cap, the workspace monthly quota and the optional key monthly quota are decided
-- together; if one refuses, nothing is charged (only a refused_rate / refused_quota counter moves). Same
-- arithmetic as src/limits/gcra.ts and src/store/memory/limiter.ts, on Lua doubles. The gateway batches
-- the decisions that arrive in one turn of its event loop for one cluster slot (src/store/redis/
-- consume-batch.ts; docs/decisions.md "Limits in batches").
--
-- One hash per workspace-month holds everything a decision reads and writes: the usage counters and the
-- two GCRA theoretical arrival times (TATs, ms). The batch reads each hash it touches once (one HMGET of
-- every field its decisions may read), decides in memory, and writes each hash once (one HSET of the
-- fields that moved, plus PEXPIRE when the month's hash is new). Numbers go to Redis as Lua numbers
-- (Redis writes them with 17 significant digits: exact), never through string.format. Cost per decision
-- is measured by bench/redis-decision.ts.
--
-- KEYS[1..k]   <p>:{ws:<id>}:usage:<YYYY-MM>: every usage hash a decision of the batch may touch (for
--              each decision, the month the caller believes it is and the neighbouring month nearer to
--              now), each once; on a cluster all in one slot
-- ARGV[2i-1], ARGV[2i] (i = 1..k): start and end of KEYS[i]'s month (ms since the epoch, UTC; end exclusive)
-- then 9 values per decision, in arrival order:
--   +1 A: index in KEYS of the month the caller believes it is
--   +2 B: index in KEYS of the neighbouring month nearer to now (same workspace)
--   +3 key id
--   +4 key rate per second (burst = rate)   +5 workspace rate per second (burst = rate)
--   +6 workspace monthly quota              +7 key monthly quota, or -1 for none
--   +8 now in ms (tests inject a clock), or '' to use Redis TIME (production; read once per batch)
--   +9 '1': charge (rate limits, month quotas, usage); '0': rate only (the per-second limits decide and
--      move; month quotas are neither checked nor charged, no usage counter moves)
-- The script's clock decides which month it is; the caller passes both candidates (keys and bounds)
-- because a cluster script may only touch declared keys, and calendar arithmetic is simpler in JS.
-- A clock in neither month means the two clocks disagree by weeks: that decision is refused as an error
-- (reason -1 below, nothing read or written for it), never a wrong count.
--
-- Hash fields: requests / refused_rate / refused_quota (workspace), k:<key id>:<counter> (per key),
-- d:<DD> (admitted per day), tw / tk:<key id> (TATs of the workspace and of the key, ms).
-- A TAT is at most 1 s ahead of the request that wrote it, so in the first second of a month the TATs of
-- the previous month's hash (when it is the other declared key) still count: the rate state crosses the
-- month boundary exactly, as the embedded limiter's does.
--
-- Returns 13 integers per decision, in arrival order:
--   [1] allowed 1|0   [2] reason 0 none|1 quota|2 key_quota|3 key_rate|4 workspace_rate|-1 clock error
--   [3] retry-after s (0 when allowed)
--   [4] key remaining        [5] key reset s
--   [6] workspace remaining  [7] workspace reset s
--   [8] month remaining      [9] month reset s (to the next UTC month)   [10] month length s
--   [11] key-month remaining, or -1 when the key has no monthly quota
--   [12] the month charged: 1 = A, 2 = B (0 when refused or rate-only)
--   [13] the day of month charged (0 when refused or rate-only)
--        (the refund receipt: refund.lua must give back exactly what this decision took)

local DAY = 86400000
local STRIDE = 9
local nk = #KEYS
local first = 2 * nk
local n = (#ARGV - first) / STRIDE

local starts, ends = {}, {}
for i = 1, nk do
  starts[i] = tonumber(ARGV[2 * i - 1])
  ends[i] = tonumber(ARGV[2 * i])
end

local redisNow
local function clock(arg)
  if arg ~= '' then return tonumber(arg) end
  if redisNow == nil then
    local t = redis.call('TIME')
    redisNow = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  end
  return redisNow
end

-- the fields each hash must be read with, each once, in first-use order
local want, seen = {}, {}
local function need(h, field)
  local s = seen[h]
  if s == nil then
    s = {}
    seen[h] = s
    want[h] = {}
  end
  if not s[field] then
    s[field] = true
    local w = want[h]
    w[#w + 1] = field
  end
end

-- field names per key id and per day, built once per batch
local keyFields = {}
local function fieldsOf(keyId)
  local f = keyFields[keyId]
  if f == nil then
    local k = 'k:' .. keyId .. ':'
    f = { 'tk:' .. keyId, k .. 'requests', k .. 'refused_rate', k .. 'refused_quota' }
    keyFields[keyId] = f
  end
  return f
end
local dayFields = {}
local function dayFieldOf(day)
  local f = dayFields[day]
  if f == nil then
    f = day < 10 and ('d:0' .. day) or ('d:' .. day)
    dayFields[day] = f
  end
  return f
end

-- first pass: each decision's clock, month and fields (parallel arrays, indexed by decision)
local NOW, U, O, IDX, DAYN, DAYF, KF, PREV = {}, {}, {}, {}, {}, {}, {}, {}
for j = 1, n do
  local base = first + (j - 1) * STRIDE
  local a, b = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local now = clock(ARGV[base + 8])
  local u, o, idx
  if now >= starts[a] and now < ends[a] then
    u, o, idx = a, b, 1
  elseif now >= starts[b] and now < ends[b] then
    u, o, idx = b, a, 2
  end
  NOW[j] = now
  if u ~= nil then
    U[j], O[j], IDX[j] = u, o, idx
    local kf = fieldsOf(ARGV[base + 3])
    KF[j] = kf
    local day = math.floor((now - starts[u]) / DAY) + 1
    DAYN[j] = day
    DAYF[j] = dayFieldOf(day)
    need(u, 'tw')
    need(u, kf[1])
    need(u, 'requests')
    need(u, kf[2])
    need(u, DAYF[j])
    if ARGV[base + 9] ~= '0' then
      need(u, 'refused_rate')
      need(u, 'refused_quota')
      need(u, kf[3])
      need(u, kf[4])
    end
    -- the previous month's TATs count in the first second of a month
    PREV[j] = now < starts[u] + 1000 and starts[o] < starts[u]
    if PREV[j] then
      need(o, 'tw')
      need(o, kf[1])
    end
  end
end

-- each hash read once
local vals = {}
for h = 1, nk do
  local fields = want[h]
  if fields ~= nil then
    local got = redis.call('HMGET', KEYS[h], unpack(fields))
    local v = {}
    for i = 1, #fields do v[fields[i]] = tonumber(got[i]) end
    vals[h] = v
  end
end

-- what moved, per hash, in first-write order; and the expiry a new month's hash gets
local dirty, moved, expire = {}, {}, {}
local function set(h, v, field, value)
  v[field] = value
  local m = moved[h]
  if m == nil then
    m = {}
    moved[h] = m
    dirty[h] = {}
  end
  if not m[field] then
    m[field] = true
    local d = dirty[h]
    d[#d + 1] = field
  end
end

-- GCRA with burst = rate: allowed, tat, remaining, reset, retryAfter (see src/limits/gcra.ts)
local function gcra(prev, rate, now)
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

-- second pass: the decisions, in arrival order, on the values in memory
local out = {}
for j = 1, n do
  local base = first + (j - 1) * STRIDE
  local u = U[j]
  if u == nil then
    out[#out + 1] = 0
    out[#out + 1] = -1
    for _ = 3, 13 do out[#out + 1] = 0 end
  else
    local now = NOW[j]
    local kf = KF[j]
    local v = vals[u]
    local monthStart, monthEnd = starts[u], ends[u]
    local keyRate = tonumber(ARGV[base + 4])
    local wsRate = tonumber(ARGV[base + 5])
    local quota = tonumber(ARGV[base + 6])
    local keyQuota = tonumber(ARGV[base + 7])
    local charging = ARGV[base + 9] ~= '0'

    local wTatPrev, kTatPrev = v.tw, v[kf[1]]
    local twAbsent = wTatPrev == nil
    if PREV[j] then
      local p = vals[O[j]]
      local pw, pk = p.tw, p[kf[1]]
      if pw and (wTatPrev == nil or pw > wTatPrev) then wTatPrev = pw end
      if pk and (kTatPrev == nil or pk > kTatPrev) then kTatPrev = pk end
    end
    local kOk, kTat, kRem, kReset, kRetry = gcra(kTatPrev, keyRate, now)
    local wOk, wTat, wRem, wReset, wRetry = gcra(wTatPrev, wsRate, now)
    local wsCount = v.requests or 0
    local keyCount = v[kf[2]] or 0

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
      set(u, v, 'tw', wTat)
      set(u, v, kf[1], kTat)
      if charging then
        charged = 1
        set(u, v, 'requests', wsCount + 1)
        set(u, v, kf[2], keyCount + 1)
        local dayField = DAYF[j]
        set(u, v, dayField, (v[dayField] or 0) + 1)
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
        if reason <= 2 then
          set(u, v, 'refused_quota', (v.refused_quota or 0) + 1)
          set(u, v, kf[4], (v[kf[4]] or 0) + 1)
        else
          set(u, v, 'refused_rate', (v.refused_rate or 0) + 1)
          set(u, v, kf[3], (v[kf[3]] or 0) + 1)
        end
      end
    end
    -- usage is kept about 13 months: the expiry is set when the month's hash is created (tw is written by
    -- every admission, so it is absent only until the month's first one; setting it again changes nothing)
    if twAbsent and (allowed or charging) then
      expire[u] = math.ceil(monthEnd - now) + 400 * DAY
    end

    local keyMonthRemaining = -1
    if keyQuota >= 0 then keyMonthRemaining = math.max(0, keyQuota - keyCount - charged) end
    out[#out + 1] = allowed and 1 or 0
    out[#out + 1] = reason
    out[#out + 1] = retryAfter
    out[#out + 1] = kRem
    out[#out + 1] = kReset
    out[#out + 1] = wRem
    out[#out + 1] = wReset
    out[#out + 1] = math.max(0, quota - wsCount - charged)
    out[#out + 1] = monthReset
    out[#out + 1] = (monthEnd - monthStart) / 1000
    out[#out + 1] = keyMonthRemaining
    out[#out + 1] = charged * IDX[j]
    out[#out + 1] = charged * DAYN[j]
  end
end

-- each hash written once
for h = 1, nk do
  local d = dirty[h]
  if d ~= nil then
    local v = vals[h]
    local args = {}
    for i = 1, #d do
      args[2 * i - 1] = d[i]
      args[2 * i] = v[d[i]]
    end
    redis.call('HSET', KEYS[h], unpack(args))
  end
  if expire[h] ~= nil then redis.call('PEXPIRE', KEYS[h], expire[h]) end
end
return out
