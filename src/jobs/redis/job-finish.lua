-- keys: 5
-- anvilJobFinish: records a job's outcome once. The first run to finish wins; a run that was presumed dead
-- and finishes later changes nothing. The input is dropped and the record now lives for the result TTL.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's in-flight set (job-create.lua), which the job leaves
-- KEYS[3]  the workspace's queued jobs by submission time (<p>:{ws:<workspace id>}:jobs:status:queued)
-- KEYS[4]  its active jobs (…:jobs:status:active)
-- KEYS[5]  its jobs of the outcome's status (…:jobs:status:completed or …:failed): the job moves there
-- ARGV[1]  status: 'completed' | 'failed'
-- ARGV[2]  finished_at, epoch ms
-- ARGV[3]  expires_at, epoch ms
-- ARGV[4]  time to live, ms
-- ARGV[5]  field for the outcome: 'result' (the data as JSON text) | 'error' (the error object as JSON)
-- ARGV[6]  its value
-- ARGV[7]  the job id
--
-- Returns {recorded, bytes, expires_at}: recorded 1 when this call recorded the outcome, 0 when the record
-- is gone or already has one; bytes what the record now keeps of its outcome (its result or error; -1 when
-- the record is gone) and expires_at its expiry, which the job storage ledger then counts (job-bytes.lua).

local function kept(recorded)
  local bytes = redis.call('HSTRLEN', KEYS[1], 'result') + redis.call('HSTRLEN', KEYS[1], 'error')
  return {recorded, bytes, redis.call('HGET', KEYS[1], 'expires_at') or ''}
end

redis.call('ZREM', KEYS[2], ARGV[7])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[7])
  redis.call('ZREM', KEYS[4], ARGV[7])
  return {0, -1, ''}
end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  return kept(0)
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', ARGV[2], 'expires_at', ARGV[3], ARGV[5], ARGV[6])
redis.call('HDEL', KEYS[1], 'input')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[7])
redis.call('ZREM', KEYS[4], ARGV[7])
redis.call('ZADD', KEYS[5], redis.call('HGET', KEYS[1], 'created_at'), ARGV[7])
return kept(1)
