-- keys: 1
-- anvilEnsureField: get-or-create one field of a hash (projects by name), so two gateways creating
-- "default" at the same moment end up with the same record; with a cap, a create that would make the
-- hash hold more than ARGV[3] fields is refused in the same step.
--
-- KEYS[1]  the hash (<p>:{ws:<id>}:projects)
-- ARGV[1]  field (the name)
-- ARGV[2]  value to store if the field is absent (the new record, JSON)
-- ARGV[3]  most fields the hash may hold; -1 for no cap
--
-- Returns the stored value: ARGV[2] if it was created, the existing value otherwise; '' when the field
-- is absent and the hash is full.

local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  return existing
end
local max = tonumber(ARGV[3])
if max >= 0 and redis.call('HLEN', KEYS[1]) >= max then
  return ''
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return ARGV[2]
