-- keys: numkeys (the caller passes their number first)
-- anvilDeleteScope: deletes an environment, a project (its environments with it) or a whole workspace,
-- with the keys in it, unless one of those keys is live (not revoked, not expired): then nothing changes
-- and the live keys are named. The check and the delete are one step: a key created or rotated before it
-- is seen by the check (the key set is compared with what the caller read), one created after it is not
-- deleted.
--
-- KEYS[1]  the workspace's key id set (<p>:{ws:<id>}:keys)
-- KEYS[2]  its key ids by creation time (:keys:bytime)      KEYS[3]  its rotation index (:keys:rotated-from)
-- KEYS[4]  its projects hash (name → record JSON)
-- KEYS[5]  what is deleted: the project's environments hash (environment, project) or the workspace's
--          record hash (workspace)
-- KEYS[6 .. 5+n]  the record hash of every key in the set, as the caller read it
-- KEYS[6+n ..]    deleted as well when the workspace is (its environments hashes, its usage hashes)
-- ARGV[1]  'environment' | 'project' | 'workspace'
-- ARGV[2]  the id of what is deleted
-- ARGV[3]  its name (the field of KEYS[5] for an environment, of KEYS[4] for a project)
-- ARGV[4]  now, as the JSON text of an ISO-8601 string (record fields hold JSON; ISO strings sort by time)
-- ARGV[5]  n, the number of key hashes
--
-- Returns {1, key id, key hash, ...} (deleted, with the keys deleted, for the caller's global indexes);
-- {2, key id, ...} (refused: these keys are live); {0} (nothing with that id and name); {-1} (keys were
-- added or deleted since the caller read the set: it reads it again and retries).

local kind, id, name, now, n = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])

local function idAt(hash)
  local value = redis.call('HGET', hash, name)
  return value and cjson.decode(value).id
end
if kind == 'environment' then
  if idAt(KEYS[5]) ~= id then return { 0 } end
elseif kind == 'project' then
  if idAt(KEYS[4]) ~= id then return { 0 } end
elseif redis.call('EXISTS', KEYS[5]) == 0 then
  return { 0 }
end

if redis.call('SCARD', KEYS[1]) ~= n then return { -1 } end
local field = (kind == 'environment' and 'environment_id') or (kind == 'project' and 'project_id') or 'id'
local quoted = cjson.encode(id)
local inScope, live = {}, { 2 }
for i = 6, 5 + n do
  local f = redis.call('HMGET', KEYS[i], 'id', field, 'revoked_at', 'expires_at')
  -- deleted since the caller read the set: the same count is then not the same keys
  if not f[1] then return { -1 } end
  if kind == 'workspace' or f[2] == quoted then
    if (not f[3] or f[3] == 'null') and (not f[4] or f[4] == 'null' or f[4] > now) then
      live[#live + 1] = cjson.decode(f[1])
    else
      inScope[#inScope + 1] = i
    end
  end
end
if #live > 1 then return live end

local out = { 1 }
for _, i in ipairs(inScope) do
  local f = redis.call('HMGET', KEYS[i], 'id', 'hash')
  local keyId = cjson.decode(f[1])
  redis.call('DEL', KEYS[i])
  redis.call('SREM', KEYS[1], keyId)
  redis.call('ZREM', KEYS[2], keyId)
  redis.call('HDEL', KEYS[3], keyId)
  out[#out + 1] = keyId
  out[#out + 1] = cjson.decode(f[2])
end
if kind == 'environment' then
  redis.call('HDEL', KEYS[5], name)
elseif kind == 'project' then
  redis.call('HDEL', KEYS[4], name)
  redis.call('DEL', KEYS[5])
else
  for i = 1, 5 do redis.call('DEL', KEYS[i]) end
  for i = 6 + n, #KEYS do redis.call('DEL', KEYS[i]) end
end
return out
