// Endpoint families a key can be restricted to (API.md's endpoint groups, plus async jobs).
export const FAMILIES = [
  'hash',
  'hmac',
  'jwt',
  'base64',
  'text',
  'url',
  'json',
  'time',
  'cron',
  'id',
  'jobs',
] as const
export type Family = (typeof FAMILIES)[number]
