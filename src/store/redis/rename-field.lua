-- keys: 1
-- anvilRenameField: renames a record kept in a hash by its name (a workspace's projects, a project's
-- environments): found by id, refused when another record has the new name, changed in one step so two
-- renames cannot both take a name.
--
-- KEYS[1]  the hash (<p>:{ws:<id>}:projects or <p>:{ws:<id>}:envs:<project id>): name → record JSON
-- ARGV[1]  the record's id
-- ARGV[2]  the new name
--
-- Returns the record after the change (JSON); '' when another record has the name; nil when no record
-- of the hash has the id.

local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local record = cjson.decode(all[i + 1])
  if record.id == ARGV[1] then
    if all[i] == ARGV[2] then
      return all[i + 1]
    end
    if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
      return ''
    end
    record.name = ARGV[2]
    local value = cjson.encode(record)
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('HSET', KEYS[1], ARGV[2], value)
    return value
  end
end
return false
