-- keys: 8
-- anvilJobCreate: writes a submitted job's record and counts it in its workspace's jobs in flight; with a
-- cap, refuses when the workspace already has ARGV[1] jobs queued or running, in the same step.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's in-flight set (<p>:{ws:<workspace id>}:jobs:inflight), a sorted set of job
--          ids scored by submission time; job-finish.lua and forget take the id out again
-- KEYS[3]  the workspace's job list (<p>:{ws:<workspace id>}:jobs:all), a sorted set of every job id by
--          submission time, for GET /v1/jobs; entries whose record expired are dropped when read
-- KEYS[4..8] the workspace's job list per status (<p>:{ws:<workspace id>}:jobs:status:<status>, for
--          queued, active, completed, failed, cancelled), sorted sets by submission time like KEYS[3]:
--          the job is in the one of its status (every script that changes a status moves it), so a page
--          of GET /v1/jobs?status= reads that status's jobs only
-- ARGV[1]  most jobs in flight; -1 for no cap
-- ARGV[2]  the record's time to live until the job finishes, ms
-- ARGV[3]  the job id
-- ARGV[4]  its submission time, epoch ms
-- ARGV[5..] the record's field/value pairs (the input among them)
--
-- Returns 1 when created, 0 when the workspace is full.

local max = tonumber(ARGV[1])
if max >= 0 and redis.call('ZCARD', KEYS[2]) >= max then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
-- entries older than any record can live (PENDING_TTL_MS, ARGV[2], then the result TTL: twice it is ample)
local stale = '(' .. (tonumber(ARGV[4]) - 2 * tonumber(ARGV[2]))
for i = 3, 8 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', stale)
end
return 1
