-- anvilJobRequeue: a running job went back to the queue (its worker died or is shutting down), so readers
-- see it queued again, unless it has meanwhile finished.
--
-- KEYS[1]  the job record hash (<p>:{ws:<workspace id>}:job:<job id>)
--
-- Returns 1 when the status went from active to queued, else 0.

if redis.call('HGET', KEYS[1], 'status') ~= 'active' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'queued')
return 1
