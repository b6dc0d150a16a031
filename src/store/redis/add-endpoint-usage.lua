-- keys: 2
-- anvilAddEndpointUsage: adds a flush's per-endpoint counts to a workspace-month's hash, unless the
-- workspace was deleted meanwhile, and keeps the hash as long as the month's usage (400 days past its end).
--
-- KEYS[1]  <p>:{ws:<id>}:endpoints:<YYYY-MM>  hash: "<endpoint>|<counter>" → count
-- KEYS[2]  <p>:{ws:<id>}:ws                   the workspace's record
-- ARGV[1]  expiry of the hash, ms from now
-- ARGV[2..] field, increment, field, increment, ...
--
-- Returns 1 when added, 0 when the workspace no longer exists.

if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
