-- keys: 1
-- anvilPageIds: the ids of one page of a list kept as a sorted set by creation time, newest first (ties:
-- the larger id first, as ZREVRANGE orders them), in one round trip: the cursor's rank, then the range.
--
-- KEYS[1]  the sorted set (<p>:workspaces:bytime, <p>:{ws:<id>}:keys:bytime, ...)
-- ARGV[1]  the cursor: the id of the last item of the previous page; '' for the first page
-- ARGV[2]  the page's length
--
-- Returns false when the cursor is not in the set; else up to ARGV[2] + 1 ids (one more than the page
-- says whether more follow).

local start = 0
if ARGV[1] ~= '' then
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
  if not rank then
    return false
  end
  start = rank + 1
end
return redis.call('ZREVRANGE', KEYS[1], start, start + tonumber(ARGV[2]))
