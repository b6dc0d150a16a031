-- keys: 3
-- anvilJobRequeue: a running job went back to the queue (its worker died or is shutting down), so readers
-- see it queued again, unless it has meanwhile finished.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's active jobs by submission time (<p>:{ws:<workspace id>}:jobs:status:active)
-- KEYS[3]  its queued jobs (…:jobs:status:queued): the job moves from KEYS[2] to KEYS[3]
-- ARGV[1]  the job id
--
-- Returns 1 when the status went from active to queued, else 0.

if redis.call('HGET', KEYS[1], 'status') ~= 'active' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'queued')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'created_at'), ARGV[1])
return 1
