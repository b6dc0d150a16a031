-- keys: 5
-- anvilJobCancel: DELETE /v1/jobs/{id}, and the worker that stopped a run on request. A queued job (or, with
-- ARGV[5] = '1', a running one: its worker has stopped it) becomes cancelled at once: finished, its input
-- dropped, out of the in-flight set, kept for the result TTL. A running job is only marked: its worker
-- sees cancel_requested_at, aborts the run and calls this again with ARGV[5] = '1'.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's in-flight set (job-create.lua)
-- KEYS[3]  the workspace's queued jobs by submission time (<p>:{ws:<workspace id>}:jobs:status:queued)
-- KEYS[4]  its active jobs (…:jobs:status:active)
-- KEYS[5]  its cancelled jobs (…:jobs:status:cancelled): a cancelled job moves there
-- ARGV[1]  now, epoch ms
-- ARGV[2]  expires_at, epoch ms
-- ARGV[3]  time to live, ms
-- ARGV[4]  the job id
-- ARGV[5]  '1': cancel an active job too (its run was stopped)
--
-- Returns 'gone', 'finished' (it already had its outcome), 'cancelled' or 'requested'.

if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'gone'
end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  return 'finished'
end
if status == 'active' and ARGV[5] ~= '1' then
  if redis.call('HEXISTS', KEYS[1], 'cancel_requested_at') == 0 then
    redis.call('HSET', KEYS[1], 'cancel_requested_at', ARGV[1])
  end
  return 'requested'
end
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', ARGV[1], 'expires_at', ARGV[2])
redis.call('HDEL', KEYS[1], 'input')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[4])
redis.call('ZREM', KEYS[4], ARGV[4])
redis.call('ZADD', KEYS[5], redis.call('HGET', KEYS[1], 'created_at'), ARGV[4])
return 'cancelled'
