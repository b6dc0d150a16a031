-- keys: 1
-- consoleAddMembership: a person's membership of a workspace, added unless they already own the most
-- workspaces they may (CONSOLE_MAX_WORKSPACES), counted and added atomically so parallel creates cannot all
-- pass one check (issue 27: 15 parallel creates under a cap of 10 made 16 workspaces).
--
-- KEYS[1]  <p>:console:members:<user id>  hash: workspace id → membership JSON ({role, ...})
-- ARGV[1]  workspace id
-- ARGV[2]  the membership, JSON
-- ARGV[3]  most workspaces the person may own (-1: no cap; only an owner's membership counts or is capped)
--
-- Returns 2 added, 1 already a member (nothing changed), 0 refused (the cap is reached).

if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
local max = tonumber(ARGV[3])
if max >= 0 and cjson.decode(ARGV[2]).role == 'owner' then
  local owned = 0
  for _, m in ipairs(redis.call('HVALS', KEYS[1])) do
    if cjson.decode(m).role == 'owner' then owned = owned + 1 end
  end
  if owned >= max then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 2
