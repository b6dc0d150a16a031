-- keys: numkeys (the caller passes their number first)
-- anvilEnsureEnvironment: get-or-create an environment by name in its project; with a cap, refuses a
-- create that would make the workspace hold more than ARGV[3] environments across all its projects.
--
-- KEYS[1]  the workspace's projects hash (<p>:{ws:<id>}:projects), to check KEYS[3..] is every project
-- KEYS[2]  the project's environments hash (<p>:{ws:<id>}:envs:<project id>)
-- KEYS[3..] the environments hash of each of the workspace's projects, as the caller read them
-- ARGV[1]  the name
-- ARGV[2]  value to store if absent (the new record, JSON)
-- ARGV[3]  most environments the workspace may hold; -1 for no cap
--
-- Returns the stored value (created or existing); '' when the workspace is full; nil when a project
-- was created or deleted since the caller listed them (the caller lists again and retries).

local existing = redis.call('HGET', KEYS[2], ARGV[1])
if existing then
  return existing
end
local max = tonumber(ARGV[3])
if max >= 0 then
  -- the same projects, not only as many (a project may have been deleted and another created): each
  -- environments hash handed in names a project of the hash
  if redis.call('HLEN', KEYS[1]) ~= #KEYS - 2 then
    return false
  end
  local projects = {}
  for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
    projects[cjson.decode(value).id] = true
  end
  local count = 0
  for i = 3, #KEYS do
    if not projects[string.match(KEYS[i], ':envs:([^:]+)$')] then
      return false
    end
    count = count + redis.call('HLEN', KEYS[i])
  end
  if count >= max then
    return ''
  end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return ARGV[2]
