-- keys: numkeys (the caller passes their number first)
-- anvilCreateKey: writes a new key's record and adds it to the workspace's key set; with a cap, refuses
-- when the workspace already holds ARGV[1] live keys (not revoked, not expired), in the same step.
--
-- KEYS[1]  the workspace's key id set (<p>:{ws:<id>}:keys)
-- KEYS[2]  the new key's record hash (<p>:{ws:<id>}:key:<key id>)
-- KEYS[3..] the record hash of every key in the set, as the caller read it
-- ARGV[1]  most live keys; -1 for no cap
-- ARGV[2]  now, as the JSON text of an ISO-8601 string (record fields hold JSON; ISO strings sort by time)
-- ARGV[3]  the new key's id
-- ARGV[4..] the record's field/value pairs
--
-- Returns 1 when created, 0 when the workspace is full, -1 when keys were added or deleted since the
-- caller read the set (the caller reads it again and retries).

local max = tonumber(ARGV[1])
if max >= 0 then
  if redis.call('SCARD', KEYS[1]) ~= #KEYS - 2 then
    return -1
  end
  local live = 0
  for i = 3, #KEYS do
    local f = redis.call('HMGET', KEYS[i], 'id', 'revoked_at', 'expires_at')
    -- a key deleted since the caller read the set (with its environment, delete-scope.lua): the same
    -- count is then not the same keys
    if not f[1] then
      return -1
    end
    if (not f[2] or f[2] == 'null') and (not f[3] or f[3] == 'null' or f[3] > ARGV[2]) then
      live = live + 1
    end
  end
  if live >= max then
    return 0
  end
end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('SADD', KEYS[1], ARGV[3])
return 1
