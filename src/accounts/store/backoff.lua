-- keys: 1
-- consoleTakeAttempt: one attempt against a growing delay (exponential backoff), decided atomically so
-- parallel attempts cannot slip past together. Same arithmetic as src/accounts/store/backoff.ts.
--
-- KEYS[1]  <p>:console:backoff:<name>  hash: attempts (admitted so far), next_at (epoch ms)
-- ARGV[1]  now, epoch ms (the caller's clock, so tests can inject one)
-- ARGV[2]  free attempts before any delay
-- ARGV[3]  base delay ms (doubles with every attempt past the free ones)
-- ARGV[4]  max delay ms
-- ARGV[5]  forget ms: the record expires this long after its next_at
--
-- Returns { allowed 1|0, attempts, next_at }. A refused attempt changes nothing.

local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'attempts', 'next_at')
local attempts = tonumber(state[1]) or 0
local nextAt = tonumber(state[2]) or now
if now < nextAt then return { 0, attempts, nextAt } end
attempts = attempts + 1
if attempts < free then
  nextAt = now
else
  nextAt = now + math.min(tonumber(ARGV[3]) * 2 ^ (attempts - free), tonumber(ARGV[4]))
end
redis.call('HSET', KEYS[1], 'attempts', attempts, 'next_at', string.format('%d', nextAt))
redis.call('PEXPIRE', KEYS[1], math.ceil(nextAt - now + tonumber(ARGV[5])))
return { 1, attempts, nextAt }
