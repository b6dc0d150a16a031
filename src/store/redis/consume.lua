-- keys: numkeys (the caller passes their number first)
-- anvilConsume: a batch of limit decisions (one or more requests), decided in arrival order and charged
-- atomically in one call. Each decision is exactly what it would be alone, one call after the other: the
-- key cap, the workspace cap, the workspace monthly quota and the optional key monthly quota are decided
-- together; if one refuses, nothing is charged (only a refused_rate / refused_quota counter moves). It
-- admits with the arithmetic of src/limits/gcra.ts and src/limits/decide.ts, on Lua doubles (the
-- embedded store's; the gateway takes each decision's figures from decide.ts itself). The gateway batches
-- the decisions that arrive in one turn of its event loop for one cluster slot (src/store/redis/
-- consume-batch.ts; docs/decisions.md "Limits in batches").
--
-- One hash per workspace-month holds everything a decision reads and writes: the usage counters and the
-- two GCRA theoretical arrival times (TATs, ms). The batch reads each hash it touches once (one HMGET of
-- every field an admission reads or moves), decides in memory, and writes each hash once (one HSET of the
-- fields that moved, plus PEXPIRE when the month's hash is new); a batch with refusals reads their
-- counters with a second HMGET just before that HSET (an admission's call then reads 5 fields, not 9). Numbers go to Redis as Lua numbers
-- (Redis writes them with 17 significant digits: exact), never through string.format. Cost per decision
-- is measured by bench/redis-decision.ts.
--
-- KEYS[1..k]   <p>:{ws:<id>}:usage:<YYYY-MM>: every usage hash a decision of the batch may touch (for
--              each subject, the month the caller believes it is and the neighbouring month nearer to
--              now), each once; on a cluster all in one slot
-- ARGV[1]      s, the number of subjects (below)
-- ARGV[2i], ARGV[2i+1] (i = 1..k): start and end of KEYS[i]'s month (ms since the epoch, UTC; end exclusive)
-- then 8 values per subject, the limits a decision is taken under (the decisions of one key with the same
-- limits share one subject, so what they have in common is sent, converted and looked up once):
--   +1 A: index in KEYS of the month the caller believes it is
--   +2 B: index in KEYS of the neighbouring month nearer to now (same workspace)
--   +3 key id
--   +4 key rate per second (burst = rate)   +5 workspace rate per second (burst = rate)
--   +6 workspace monthly quota              +7 key monthly quota, or -1 for none
--   +8 '1': charge (rate limits, month quotas, usage); '0': rate only (the per-second limits decide and
--      move; month quotas are neither checked nor charged, no usage counter moves)
-- then 2 values per decision, in arrival order:
--   +1 its subject (1..s)
--   +2 now in ms (tests inject a clock), or '' to use Redis TIME (production; read once per batch)
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
-- Returns 6 numbers per decision, in arrival order, as one string of little-endian IEEE-754 doubles
-- (struct.pack '<d…', 8 bytes each): what the decision was taken on, not the figures of its headers. The
-- gateway computes those (remaining, resets, Retry-After, the month charged and its day: the refund
-- receipt) from these with the embedded store's own function (src/limits/decide.ts), on the same
-- arithmetic, and checks that it reaches the same verdict; every header figure was 13 values a decision
-- here, and computing and packing them cost redis-server more than deciding.
--   [1] verdict: 0 admitted | 1 quota | 2 key_quota | 3 key_rate | 4 workspace_rate | -1 clock error
--       (an error: the other values are 0 and nothing was read or written for it)
--   [2] now, ms (the script's clock: Redis TIME, or the injected one)
--   [3] the key's TAT before the decision, ms, or -1 for none   [4] the workspace's, or -1
--       (with the previous month's in the first second of a month, as the decision used them)
--   [5] the workspace's month count before the decision   [6] the key's

local tonumber, floor, ceil = tonumber, math.floor, math.ceil
local KEYS, ARGV = KEYS, ARGV
local DAY = 86400000
local nk = #KEYS
local ns = tonumber(ARGV[1])
local firstSubject = 1 + 2 * nk
local firstDecision = firstSubject + 8 * ns
local n = (#ARGV - firstDecision) / 2

local starts, ends = {}, {}
for i = 1, nk do
  starts[i] = tonumber(ARGV[2 * i])
  ends[i] = tonumber(ARGV[2 * i + 1])
end

-- the subjects: limits, field names, GCRA intervals; and where the subject's last placed instant falls
-- (place() below). One table each: a lone decision's call allocates little.
local S = {}
for i = 1, ns do
  local base = firstSubject + 8 * (i - 1)
  local keyId = ARGV[base + 3]
  S[i] = {
    a = tonumber(ARGV[base + 1]),
    b = tonumber(ARGV[base + 2]),
    keyId = keyId,
    tk = 'tk:' .. keyId,
    kreq = 'k:' .. keyId .. ':requests',
    kint = 1000 / tonumber(ARGV[base + 4]),
    wint = 1000 / tonumber(ARGV[base + 5]),
    quota = tonumber(ARGV[base + 6]),
    kquota = tonumber(ARGV[base + 7]),
    charging = ARGV[base + 8] ~= '0',
    now = false, u = false, day = 0, dayField = false, prev = false, placed = false,
  }
end

-- the fields each hash is read with: the workspace's once per hash, each day's once, each subject's once
-- per hash (a subject is placed again only when an injected clock moves it; a field listed twice is
-- harmless, read and written with the same value). The refusal counters are not among them: only a batch
-- with refusals needs them, read just before the write (below).
local want, level, lastDay = {}, {}, {}
local function fieldsOf(h)
  local w = want[h]
  if w == nil then
    w = {}
    want[h], level[h] = w, 0
  end
  return w
end

-- a decision's month (its index in KEYS, or false when its clock is in neither), day of month, day field
-- and the other month's index when the previous month's TATs count (the first second of a month), per
-- subject and instant: with Redis TIME every decision of a batch has the same instant, so this runs once
-- per subject; registers the fields the subject reads there
local function place(s, now)
  local a, b = s.a, s.b
  local u, o
  if now >= starts[a] and now < ends[a] then
    u, o = a, b
  elseif now >= starts[b] and now < ends[b] then
    u, o = b, a
  end
  s.now = now
  s.u = u or false
  if u then
    local day = floor((now - starts[u]) / DAY) + 1
    local dayField = day < 10 and ('d:0' .. day) or ('d:' .. day)
    s.day, s.dayField = day, dayField
    local w = fieldsOf(u)
    local m = #w
    -- the workspace's fields: 1 = its TAT, 2 = and its request count
    local lv = level[u]
    if lv < 1 then
      m = m + 1
      w[m] = 'tw'
    end
    if lv < 2 then
      m = m + 1
      w[m] = 'requests'
      level[u] = 2
    end
    if lastDay[u] ~= dayField then
      lastDay[u] = dayField
      m = m + 1
      w[m] = dayField
    end
    if s.placed ~= u then
      s.placed = u
      w[m + 1], w[m + 2] = s.tk, s.kreq
    end
    -- the previous month's TATs count in the first second of a month
    if now < starts[u] + 1000 and starts[o] < starts[u] then
      s.prev = o
      local p = fieldsOf(o)
      local n = #p
      if level[o] < 1 then
        level[o] = 1
        n = n + 1
        p[n] = 'tw'
      end
      p[n + 1] = s.tk
    else
      s.prev = false
    end
  end
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

-- first pass: every decision placed, so that each hash is read once with every field the batch needs;
-- each decision's subject and instant kept for the second (an argument is converted once)
local subjectOf, nowOf = {}, {}
for j = 1, n do
  local base = firstDecision + 2 * (j - 1)
  local subject = S[tonumber(ARGV[base + 1])]
  local now = clock(ARGV[base + 2])
  if now ~= subject.now then place(subject, now) end
  subjectOf[j], nowOf[j] = subject, now
end

-- each hash read once; `read` keeps the values read, to write back only what moved
local vals, read = {}, {}
for h = 1, nk do
  local fields = want[h]
  if fields ~= nil then
    local got = redis.call('HMGET', KEYS[h], unpack(fields))
    local v, was = {}, {}
    for f = 1, #fields do
      local x = tonumber(got[f])
      v[fields[f]], was[f] = x, x
    end
    vals[h], read[h] = v, was
  end
end

-- second pass: the decisions, in arrival order, on the values in memory; the refusal counters they move,
-- per hash, as counts to add (field → count, and the fields in first-use order)
local refused, refusedOrder = {}, {}
local expire = {}
local out = {}
local o = 0
for j = 1, n do
  local subject, now = subjectOf[j], nowOf[j]
  -- placed again only when this subject's instants differ within the batch (an injected clock)
  if now ~= subject.now then place(subject, now) end
  local u = subject.u
  if not u then
    -- a clock in neither month: an error for this decision alone
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] = -1, 0, 0, 0, 0, 0
  else
    local v = vals[u]
    local tk = subject.tk
    local charging = subject.charging

    local wPrev, kPrev = v.tw, v[tk]
    local twAbsent = wPrev == nil
    local p = subject.prev
    if p then
      local pv = vals[p]
      local pw, pk = pv.tw, pv[tk]
      if pw and (wPrev == nil or pw > wPrev) then wPrev = pw end
      if pk and (kPrev == nil or pk > kPrev) then kPrev = pk end
    end
    -- GCRA with burst = rate, as src/limits/gcra.ts: the TAT moves one interval per admission
    local kNew = ((kPrev == nil or kPrev < now) and now or kPrev) + subject.kint
    local wNew = ((wPrev == nil or wPrev < now) and now or wPrev) + subject.wint
    local wsCount = v.requests or 0
    local kreq = subject.kreq
    local keyCount = v[kreq] or 0
    local reason = 0
    if charging and wsCount >= subject.quota then reason = 1
    elseif charging and subject.kquota >= 0 and keyCount >= subject.kquota then reason = 2
    elseif kNew - 1000 > now + 1e-9 then reason = 3
    elseif wNew - 1000 > now + 1e-9 then reason = 4 end

    if reason == 0 then
      v.tw = wNew
      v[tk] = kNew
      if charging then
        v.requests = wsCount + 1
        v[kreq] = keyCount + 1
        local dayField = subject.dayField
        v[dayField] = (v[dayField] or 0) + 1
      end
    elseif charging then
      local r = refused[u]
      if r == nil then
        r = {}
        refused[u], refusedOrder[u] = r, {}
      end
      local kind = reason <= 2 and 'refused_quota' or 'refused_rate'
      local keyCounter = 'k:' .. subject.keyId .. ':' .. kind
      local c, kc = r[kind], r[keyCounter]
      if c == nil or kc == nil then
        local order = refusedOrder[u]
        if c == nil then order[#order + 1] = kind end
        if kc == nil then order[#order + 1] = keyCounter end
      end
      r[kind], r[keyCounter] = (c or 0) + 1, (kc or 0) + 1
    end
    -- usage is kept about 13 months: the expiry is set when the month's hash is created (tw is written by
    -- every admission, so it is absent only until the month's first one; setting it again changes nothing)
    if twAbsent and (reason == 0 or charging) then
      expire[u] = ceil(ends[u] - now) + 400 * DAY
    end

    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6] =
      reason, now, kPrev or -1, wPrev or -1, wsCount, keyCount
  end
  o = o + 6
end

-- each hash written once: the fields that moved (counters only grow, a TAT only moves on), and the
-- refusal counters, read now (only a batch with refusals reads them) and written with their new totals
for h = 1, nk do
  local fields = want[h]
  local args, m = {}, 0
  if fields ~= nil then
    local v, was = vals[h], read[h]
    for f = 1, #fields do
      local field = fields[f]
      local x = v[field]
      if x ~= was[f] then
        args[m + 1], args[m + 2] = field, x
        m = m + 2
      end
    end
  end
  local order = refusedOrder[h]
  if order ~= nil then
    local r = refused[h]
    local got = redis.call('HMGET', KEYS[h], unpack(order))
    for f = 1, #order do
      args[m + 1], args[m + 2] = order[f], (tonumber(got[f]) or 0) + r[order[f]]
      m = m + 2
    end
  end
  if m > 0 then redis.call('HSET', KEYS[h], unpack(args)) end
  if expire[h] ~= nil then redis.call('PEXPIRE', KEYS[h], expire[h]) end
end

-- one binary string rather than an array: Redis converts a Lua array to a reply element by element, which
-- cost more than deciding; struct.pack writes them as one bulk string, in C
return struct.pack('<' .. string.rep('d', o), unpack(out))
