-- anvilEnsureField: get-or-create one field of a hash (projects and environments by name), so two
-- gateways creating "default" at the same moment end up with the same record.
--
-- KEYS[1]  the hash (<p>:{ws:<id>}:projects or <p>:{ws:<id>}:envs:<project id>)
-- ARGV[1]  field (the name)
-- ARGV[2]  value to store if the field is absent (the new record, JSON)
--
-- Returns the stored value: ARGV[2] if it was created, the existing value otherwise.

if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  return ARGV[2]
end
return redis.call('HGET', KEYS[1], ARGV[1])
