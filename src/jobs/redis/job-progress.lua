-- keys: 1
-- anvilJobProgress: what the worker running a job sends four times a second (JOBS_PROGRESS_INTERVAL_MS), in
-- one round trip: the fraction of its work the operation has reported, kept on the record while the job is
-- active and only when it is more than the record holds (progress never moves backwards), and whether the
-- job was asked to stop (DELETE /v1/jobs/{id} sets cancel_requested_at).
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
-- ARGV[1]  the fraction, 0 <= f < 1; '' when the run has reported none
--
-- Returns 1 when the job was asked to stop, else 0.

if ARGV[1] ~= '' and redis.call('HGET', KEYS[1], 'status') == 'active' then
  local held = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
  if tonumber(ARGV[1]) > held then
    redis.call('HSET', KEYS[1], 'progress', ARGV[1])
  end
end
return redis.call('HEXISTS', KEYS[1], 'cancel_requested_at')
