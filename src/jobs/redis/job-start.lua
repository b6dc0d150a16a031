-- keys: 3
-- anvilJobStart: a worker takes a job up. Marks the record active and hands over what the run needs, in
-- one step, so a run never starts on a job that another run has already finished.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- KEYS[2]  the workspace's queued jobs by submission time (<p>:{ws:<workspace id>}:jobs:status:queued)
-- KEYS[3]  its active jobs (…:jobs:status:active): the job moves from KEYS[2] to KEYS[3]
-- ARGV[1]  now, epoch ms
-- ARGV[2]  runs of this job lost so far to dying workers (BullMQ's stalled counter)
-- ARGV[3]  the job id
--
-- Returns {} when the record is gone (expired), {'finished'} when the job already has its outcome,
-- {'cancel'} when it was asked to stop (DELETE while a lost run had it), else
-- {'run', budget_ms, input, max_result_bytes, max_job_storage_bytes} after setting status = active,
-- started_at = now, attempts + 1.

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  return {'finished'}
end
-- asked to stop while a run that was then lost had it: it is not run again (the caller cancels it)
if redis.call('HEXISTS', KEYS[1], 'cancel_requested_at') == 1 then
  return {'cancel'}
end
redis.call('HSET', KEYS[1], 'status', 'active', 'started_at', ARGV[1], 'stalls', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'created_at'), ARGV[3])
local run = redis.call('HMGET', KEYS[1], 'budget_ms', 'input', 'max_result_bytes', 'max_job_storage_bytes')
-- a record written before results (or job storage) were capped has no such field: '' (no cap)
return {'run', run[1], run[2], run[3] or '', run[4] or ''}
