-- keys: 2
-- anvilJobPage: ids of one batch of a page of GET /v1/jobs, newest first (by submission time, ties: the
-- larger id first, as ZREVRANGE orders them), from the workspace's job list or its list of one status.
-- The cursor is a job of the workspace whatever its status, so its place is found by its submission time
-- (from the full list) and its id, whether or not it is in the list being read.
--
-- KEYS[1]  the workspace's job list (<p>:{ws:<workspace id>}:jobs:all), where the cursor is looked up
-- KEYS[2]  the list to read: KEYS[1], or one status's (<p>:{ws:<workspace id>}:jobs:status:<status>)
-- ARGV[1]  the cursor (a job id); '' for the start of the list
-- ARGV[2]  how many ids at most
-- ARGV[3]  the cursor's submission time when the caller knows it (a batch after the first); else ''
--
-- Returns false when the cursor is not in KEYS[1]; else {id, score, id, score, ...}.

local count = tonumber(ARGV[2])
if ARGV[1] == '' then
  return redis.call('ZREVRANGE', KEYS[2], 0, count - 1, 'WITHSCORES')
end
local score = ARGV[3]
if score == '' then
  score = redis.call('ZSCORE', KEYS[1], ARGV[1])
  if not score then
    return false
  end
end
-- byte order, as Redis orders members of one score (Lua's < follows the server's locale)
local function before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end
local out = {}
-- jobs submitted in the cursor's millisecond come after it when their id is smaller
local ties = redis.call('ZRANGEBYSCORE', KEYS[2], score, score)
for i = #ties, 1, -1 do
  if #out >= 2 * count then
    break
  end
  if before(ties[i], ARGV[1]) then
    out[#out + 1] = ties[i]
    out[#out + 1] = score
  end
end
if #out < 2 * count then
  local rest = redis.call('ZREVRANGEBYSCORE', KEYS[2], '(' .. score, '-inf', 'WITHSCORES', 'LIMIT', 0, count - #out / 2)
  for _, v in ipairs(rest) do
    out[#out + 1] = v
  end
end
return out
