-- keys: 1
-- anvilPatchRecord: change fields of an existing record hash and announce it, atomically, so no
-- record ever changes without every gateway hearing about it.
--
-- KEYS[1]  the record hash (<p>:{ws:<id>}:ws or <p>:{ws:<id>}:key:<key id>); fields hold JSON values
-- ARGV[1]  invalidation channel
-- ARGV[2]  event type ('key' | 'workspace')
-- ARGV[3]  the record field whose (JSON) value names the record in the event ('hash' | 'id')
-- ARGV[4]  origin: the publishing store instance, which has already told its own listeners
-- ARGV[5..] field, JSON value, field, JSON value, ...
--
-- Publishes {"type": ARGV[2], <ARGV[3]>: <value>, "origin": ARGV[4]} on ARGV[1].
-- Returns the whole record after the change as a flat [field, value, ...] array, or an empty array
-- (and changes nothing, announces nothing) when the record does not exist.

if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
if #ARGV > 4 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 5))
end
local name = redis.call('HGET', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[1],
  '{"type":"' .. ARGV[2] .. '","' .. ARGV[3] .. '":' .. name .. ',"origin":"' .. ARGV[4] .. '"}')
return redis.call('HGETALL', KEYS[1])
