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
-- counters with a second HMGET just before that HSET (an admission's call then reads 5 fields, not 9).
-- A batch of one run (a turn's requests on one key) outside a month's first second takes a shorter path
-- to the same reads, decisions and writes (below). Numbers go to Redis as Lua numbers (Redis writes them
-- with 17 significant digits: exact), never through string.format. Cost per decision is measured by
-- bench/redis-decision.ts.
--
-- KEYS[1..k]   <p>:{ws:<id>}:usage:<YYYY-MM>: every usage hash a decision of the batch may touch (for
--              each subject, the month the caller believes it is and the neighbouring month nearer to
--              now), each once; on a cluster all in one slot
-- ARGV[1]      the batch's numbers, one string of little-endian IEEE-754 doubles (8 bytes each), unpacked
--              in C by one struct.unpack: a number sent as an argument of its own cost redis-server more
--              (an argument object, a Lua string, then tonumber's strtod) than the decisions themselves
--              (docs/decisions.md "Limits in batches (Redis)"). In order, N[1..]:
--   N[2i-1], N[2i] (i = 1..k): start and end of KEYS[i]'s month (ms since the epoch, UTC; end exclusive)
--   then 7 per subject, the limits a decision is taken under (the decisions of one key with the same
--   limits share one subject, so what they have in common is sent, converted and looked up once):
--     +0 A: index in KEYS of the month the caller believes it is
--     +1 B: index in KEYS of the neighbouring month nearer to now (same workspace)
--     +2 key rate per second (burst = rate)   +3 workspace rate per second (burst = rate)
--     +4 workspace monthly quota              +5 key monthly quota, or -1 for none
--     +6 1: charge (rate limits, month quotas, usage); 0: rate only (the per-second limits decide and
--        move; month quotas are neither checked nor charged, no usage counter moves)
--   then 3 per run of decisions, in arrival order (a run: consecutive decisions of one subject at one
--   instant; a turn's requests on one key are one run, whatever their number):
--     +0 its subject (1..s)
--     +1 how many decisions it holds
--     +2 now in ms (tests inject a clock), or -1 to use Redis TIME (production; read once per batch)
-- ARGV[1 + i] (i = 1..s): subject i's key id (s, the number of subjects, is #ARGV - 1)
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
-- Returns 7 numbers per run, in arrival order, as one string of little-endian IEEE-754 doubles
-- (struct.pack '<d…', 8 bytes each): what the run's decisions were taken on, not the figures of their
-- headers. A refusal moves nothing, so every decision after a run's first refusal is taken on the same
-- values and refused for the same reason: a run is the values it started from, how many it admitted (its
-- first ones) and the reason of the rest. The gateway takes each decision again from these with the
-- embedded store's own function (src/limits/decide.ts), one after the other on the state the one before
-- left, on the same arithmetic, and checks that it reaches the same verdict each time; it computes every
-- header figure there (remaining, resets, Retry-After, the month charged and its day: the refund receipt).
-- Six numbers a decision were the reply before, and writing and packing them cost redis-server more than
-- deciding (docs/decisions.md "Limits in batches (Redis)", "A run's reply").
--   [1] now, ms (the script's clock: Redis TIME, or the injected one)
--   [2] the key's TAT before the run, ms, or -1 for none   [3] the workspace's, or -1
--       (with the previous month's in the first second of a month, as the decisions used them)
--   [4] the workspace's month count before the run   [5] the key's
--   [6] how many of the run's decisions were admitted (its first ones)
--   [7] the verdict of the others: 0 none | 1 quota | 2 key_quota | 3 key_rate | 4 workspace_rate |
--       -1 clock error (the run's decisions are errors: the other values are 0 and nothing was read or
--       written for them)

local tonumber, floor, ceil, unpack = tonumber, math.floor, math.ceil, unpack
local KEYS, ARGV = KEYS, ARGV
local DAY = 86400000
local nk = #KEYS
local ns = #ARGV - 1
local N = { struct.unpack('<' .. string.rep('d', #ARGV[1] / 8), ARGV[1]) }
local firstSubject = 1 + 2 * nk
local firstRun = firstSubject + 7 * ns
-- struct.unpack returns the position after the last value too: it is not counted
local runs = (#N - firstRun) / 3

-- Only what both paths use is defined before the one-run path: every function and table a call of the
-- script creates is created again on the next, and the one-run path needs none of the general path's
-- (docs/decisions.md "The one-run path, lean"). KEYS[i]'s month starts at N[2i - 1] and ends at N[2i].

-- the month of an instant among a subject's two (its index in KEYS, and the other's), or nil when it is
-- in neither
local function monthOf(a, b, now)
  if now >= N[2 * a - 1] and now < N[2 * a] then return a, b end
  if now >= N[2 * b - 1] and now < N[2 * b] then return b, a end
end

-- the field of the day of month an instant falls on, in month u
local function dayFieldOf(u, now)
  local day = floor((now - N[2 * u - 1]) / DAY) + 1
  return day < 10 and ('d:0' .. day) or ('d:' .. day)
end

-- whether an instant in month u is in its first second with the previous month declared as the other:
-- then the previous month's TATs still count (see the header)
local function firstSecond(u, other, now)
  return now < N[2 * u - 1] + 1000 and N[2 * other - 1] < N[2 * u - 1]
end

-- usage is kept about 13 months: the expiry of month u's hash, set when it is created (tw is written by
-- every admission, so it is absent only until the month's first one; setting it again changes nothing)
local function expiryOf(u, now)
  return ceil(N[2 * u] - now) + 400 * DAY
end

-- the decisions of one run, one after the other on the values they start from (each reads what the one
-- before it left). A refusal moves nothing, so every decision after the run's first refusal is taken on
-- the same values and refused for the same reason: the loop stops there. Returns the values after the
-- run, how many were admitted (its first ones) and the reason of the rest (the header's [7]).
local function decideRun(now, count, kint, wint, quota, kquota, charging, wPrev, kPrev, wsCount, keyCount)
  local admitted, reason = 0, 0
  local limit = now + 1e-9
  while admitted < count do
    -- GCRA with burst = rate, as src/limits/gcra.ts: the TAT moves one interval per admission
    local kNew = ((kPrev == nil or kPrev < now) and now or kPrev) + kint
    local wNew = ((wPrev == nil or wPrev < now) and now or wPrev) + wint
    if charging and wsCount >= quota then reason = 1
    elseif charging and kquota >= 0 and keyCount >= kquota then reason = 2
    elseif kNew - 1000 > limit then reason = 3
    elseif wNew - 1000 > limit then reason = 4 end
    if reason ~= 0 then break end
    wPrev, kPrev = wNew, kNew
    admitted = admitted + 1
    if charging then wsCount, keyCount = wsCount + 1, keyCount + 1 end
  end
  return wPrev, kPrev, wsCount, keyCount, admitted, reason
end

-- a run's instant: the injected one, or Redis TIME, read once per call (both paths see the same)
local redisNow
local function clock(at)
  if at >= 0 then return at end
  if redisNow == nil then
    local t = redis.call('TIME')
    redisNow = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  end
  return redisNow
end

-- One run of one subject outside the first second of a month: a turn's requests on one key, the common
-- batch. Its hash is read with the five fields the run needs and written with those that moved, in as
-- few steps as the decisions allow: no table but the reads', no function but the ones above (the general
-- path's bookkeeping, which fields each hash needs and the values kept per hash, and the tables and
-- functions it is built of, cost redis-server more than the decisions themselves: docs/decisions.md
-- "Limits in batches (Redis)", "The one-run path, lean").
if runs == 1 and ns == 1 then
  local now = clock(N[firstRun + 2])
  local u, other = monthOf(N[firstSubject], N[firstSubject + 1], now)
  if u and not firstSecond(u, other, now) then
    local keyId, key = ARGV[2], KEYS[u]
    local tk, kreq = 'tk:' .. keyId, 'k:' .. keyId .. ':requests'
    local dayField = dayFieldOf(u, now)
    local got = redis.call('HMGET', key, 'tw', tk, 'requests', kreq, dayField)
    local tw, kt = tonumber(got[1]), tonumber(got[2])
    local ws, kc = tonumber(got[3]) or 0, tonumber(got[4]) or 0
    local charging = N[firstSubject + 6] ~= 0
    local count = N[firstRun + 1]
    local wPrev, kPrev, wsCount, keyCount, admitted, reason = decideRun(
      now,
      count,
      1000 / N[firstSubject + 2],
      1000 / N[firstSubject + 3],
      N[firstSubject + 4],
      N[firstSubject + 5],
      charging,
      tw,
      kt,
      ws,
      kc
    )
    -- the rest of the run's refusals are counted where the month is charged (a rate-only decision moves
    -- no counter): one reason, so one pair of counters, read now and written with the admissions
    local rf, kf, rv, kv
    if charging and admitted < count then
      local rest = count - admitted
      rf = reason >= 3 and 'refused_rate' or 'refused_quota'
      kf = 'k:' .. keyId .. ':' .. rf
      local r = redis.call('HMGET', key, rf, kf)
      rv, kv = (tonumber(r[1]) or 0) + rest, (tonumber(r[2]) or 0) + rest
    end
    if admitted > 0 then
      if not charging then
        redis.call('HSET', key, 'tw', wPrev, tk, kPrev)
      elseif rf == nil then
        redis.call('HSET', key, 'tw', wPrev, tk, kPrev, 'requests', wsCount, kreq, keyCount,
          dayField, (tonumber(got[5]) or 0) + admitted)
      else
        redis.call('HSET', key, 'tw', wPrev, tk, kPrev, 'requests', wsCount, kreq, keyCount,
          dayField, (tonumber(got[5]) or 0) + admitted, rf, rv, kf, kv)
      end
    elseif rf ~= nil then
      redis.call('HSET', key, rf, rv, kf, kv)
    end
    if tw == nil and (admitted > 0 or charging) then redis.call('PEXPIRE', key, expiryOf(u, now)) end
    return struct.pack('<ddddddd', now, kt or -1, tw or -1, ws, kc, admitted, reason)
  end
end

-- The general path: several subjects or runs, a clock in neither month, or the first second of a month.

-- subject i's limits, field names and GCRA intervals, from its 7 numbers and its key id; and where its
-- last placed instant falls (place() below)
local function subjectAt(i)
  local base = firstSubject + 7 * (i - 1)
  local keyId = ARGV[1 + i]
  return {
    a = N[base],
    b = N[base + 1],
    keyId = keyId,
    tk = 'tk:' .. keyId,
    kreq = 'k:' .. keyId .. ':requests',
    kint = 1000 / N[base + 2],
    wint = 1000 / N[base + 3],
    quota = N[base + 4],
    kquota = N[base + 5],
    charging = N[base + 6] ~= 0,
    now = false, u = false, dayField = false, prev = false, placed = false,
  }
end

-- the reply: 7 numbers per run (the header's [1]..[7])
local out, o = {}, 0

-- what a run leaves besides the fields it moved, per hash: the refusal counters to add (field → count,
-- and the fields in first-use order) and the expiry of a month's new hash
local refused, refusedOrder, expire = {}, {}, {}
local function refuse(u, field, count)
  local r = refused[u]
  if r == nil then
    r = {}
    refused[u], refusedOrder[u] = r, {}
  end
  local c = r[field]
  if c == nil then
    local order = refusedOrder[u]
    order[#order + 1] = field
  end
  r[field] = (c or 0) + count
end
local function afterRun(u, keyId, charging, twAbsent, now, admitted, rest, reason)
  -- refusals are counted only where the month is charged (a rate-only decision moves no counter)
  if charging and rest > 0 then
    local field = reason >= 3 and 'refused_rate' or 'refused_quota'
    refuse(u, field, rest)
    refuse(u, 'k:' .. keyId .. ':' .. field, rest)
  end
  if twAbsent and (admitted > 0 or charging) then expire[u] = expiryOf(u, now) end
end

-- hash h written once: the field/value pairs in args (m values: the fields that moved; counters only
-- grow, a TAT only moves on) and the refusal counters, read now (only a batch with refusals reads them)
-- and written with their new totals; then its expiry when it is new
local function write(h, args, m)
  local order = refusedOrder[h]
  if order ~= nil then
    local r = refused[h]
    local got = redis.call('HMGET', KEYS[h], unpack(order))
    for f = 1, #order do
      args[m + 1], args[m + 2] = order[f], (tonumber(got[f]) or 0) + r[order[f]]
      m = m + 2
    end
  end
  if m > 0 then redis.call('HSET', KEYS[h], unpack(args, 1, m)) end
  if expire[h] ~= nil then redis.call('PEXPIRE', KEYS[h], expire[h]) end
end

local S = {}
for i = 1, ns do
  S[i] = subjectAt(i)
end

-- the fields each hash is read with: the workspace's once per hash, each day's once, each subject's once
-- per hash (a subject is placed again only when an injected clock moves it; a field listed twice is
-- harmless, read and written with the same value). The refusal counters are not among them: only a batch
-- with refusals needs them, read just before the write (write() above).
local want, level, lastDay = {}, {}, {}
local function fieldsOf(h)
  local w = want[h]
  if w == nil then
    w = {}
    want[h], level[h] = w, 0
  end
  return w
end

-- a run's month (its index in KEYS, or false when its clock is in neither), day field and the other
-- month's index when the previous month's TATs count (the first second of a month), per subject and
-- instant: with Redis TIME every run of a batch has the same instant, so this runs once per subject;
-- registers the fields the subject reads there
local function place(s, now)
  local u, other = monthOf(s.a, s.b, now)
  s.now = now
  s.u = u or false
  if u then
    local dayField = dayFieldOf(u, now)
    s.dayField = dayField
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
    if firstSecond(u, other, now) then
      s.prev = other
      local p = fieldsOf(other)
      local n = #p
      if level[other] < 1 then
        level[other] = 1
        n = n + 1
        p[n] = 'tw'
      end
      p[n + 1] = s.tk
    else
      s.prev = false
    end
  end
end

-- first pass: every run placed, so that each hash is read once with every field the batch needs; each
-- run's subject and instant kept for the second (an argument is converted once)
local subjectOf, nowOf, countOf = {}, {}, {}
for r = 1, runs do
  local base = firstRun + 3 * (r - 1)
  local subject = S[N[base]]
  local now = clock(N[base + 2])
  if now ~= subject.now then place(subject, now) end
  subjectOf[r], nowOf[r], countOf[r] = subject, now, N[base + 1]
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

-- second pass: the runs in arrival order, each on the values in memory, written back at the run's end
for r = 1, runs do
  local subject, now, count = subjectOf[r], nowOf[r], countOf[r]
  -- placed again only when this subject's instants differ within the batch (an injected clock)
  if now ~= subject.now then place(subject, now) end
  local u = subject.u
  if not u then
    -- a clock in neither month: an error for each of the run's decisions (none admitted, reason -1)
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6], out[o + 7] = 0, 0, 0, 0, 0, 0, -1
    o = o + 7
  else
    local v = vals[u]
    local tk, kreq = subject.tk, subject.kreq
    local wAt = v.tw
    -- the TATs the run starts from: with the previous month's in its first second (the larger)
    local wPrev, kPrev = wAt, v[tk]
    local p = subject.prev
    if p then
      local pv = vals[p]
      local pw, pk = pv.tw, pv[tk]
      if pw and (wPrev == nil or pw > wPrev) then wPrev = pw end
      if pk and (kPrev == nil or pk > kPrev) then kPrev = pk end
    end
    local charging = subject.charging
    local wsBefore, keyBefore = v.requests or 0, v[kreq] or 0
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = now, kPrev or -1, wPrev or -1, wsBefore, keyBefore
    local wsCount, keyCount, admitted, reason
    wPrev, kPrev, wsCount, keyCount, admitted, reason = decideRun(
      now,
      count,
      subject.kint,
      subject.wint,
      subject.quota,
      subject.kquota,
      charging,
      wPrev,
      kPrev,
      wsBefore,
      keyBefore
    )
    out[o + 6], out[o + 7] = admitted, reason
    o = o + 7
    if admitted > 0 then
      v.tw, v[tk] = wPrev, kPrev
      if charging then
        v.requests, v[kreq] = wsCount, keyCount
        local dayField = subject.dayField
        v[dayField] = (v[dayField] or 0) + admitted
      end
    end
    afterRun(u, subject.keyId, charging, wAt == nil, now, admitted, count - admitted, reason)
  end
end

-- each hash written once
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
  write(h, args, m)
end

-- one binary string rather than an array: Redis converts a Lua array to a reply element by element, which
-- cost more than deciding; struct.pack writes them as one bulk string, in C
return struct.pack('<' .. string.rep('d', o), unpack(out, 1, o))
