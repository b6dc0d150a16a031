-- anvilJobFinish: records a job's outcome once. The first run to finish wins; a run that was presumed dead
-- and finishes later changes nothing. The input is dropped and the record now lives for the result TTL.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's in-flight set (job-create.lua), which the job leaves
-- ARGV[1]  status: 'completed' | 'failed'
-- ARGV[2]  finished_at, epoch ms
-- ARGV[3]  expires_at, epoch ms
-- ARGV[4]  time to live, ms
-- ARGV[5]  field for the outcome: 'result' (the data as JSON text) | 'error' (the error object as JSON)
-- ARGV[6]  its value
-- ARGV[7]  the job id
--
-- Returns 1 when this call recorded the outcome, 0 when the record is gone or already has one.

if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[7])
  return 0
end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  redis.call('ZREM', KEYS[2], ARGV[7])
  return 0
end
redis.call('ZREM', KEYS[2], ARGV[7])
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', ARGV[2], 'expires_at', ARGV[3], ARGV[5], ARGV[6])
redis.call('HDEL', KEYS[1], 'input')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
