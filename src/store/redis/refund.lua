-- keys: 1
-- anvilRefund: gives back what one consume.lua call charged, for a request the gateway itself then
-- failed (a 5xx of its own: overload, store unavailable, internal error). The month's and the key's
-- request counts and the day's count each go down by one, never below zero; a usage hash that has
-- expired or never existed is left alone. Rate tokens are not given back (see docs/decisions.md).
--
-- KEYS[1]  <p>:{ws:<id>}:usage:<month>  usage hash of the month consume.lua charged (its receipt)
-- ARGV[1]  key id
-- ARGV[2]  day of month charged, two digits ('07')
--
-- Returns 1 when something was given back, 0 when there was nothing to give back.

if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local fields = { 'requests', 'k:' .. ARGV[1] .. ':requests', 'd:' .. ARGV[2] }
local values = redis.call('HMGET', KEYS[1], unpack(fields))
local changed = 0
for i, field in ipairs(fields) do
  local n = tonumber(values[i]) or 0
  if n > 0 then
    redis.call('HSET', KEYS[1], field, n - 1)
    changed = 1
  end
end
return changed
