import { overridesSchema, type PlanOverrides } from '../../limits/plans.ts'
import type { ApiKeyRecord, Workspace } from '../types.ts'

// Durable records are Redis hashes with one field per property and a JSON value in each (so null,
// numbers and arrays round-trip exactly), which lets a patch change fields atomically with HSET
// instead of rewriting a document. Overrides are fields of their own ("ov:<name>") for the same reason.
const KEY_FIELDS = [
  'id',
  'workspace_id',
  'project_id',
  'environment_id',
  'mode',
  'hash',
  'prefix',
  'name',
  'families',
  'allowed_cidrs',
  'expires_at',
  'monthly_quota',
  'revoked_at',
  'rotated_to',
  'created_at',
] as const satisfies readonly (keyof ApiKeyRecord)[]

const OVERRIDE_NAMES = Object.keys(overridesSchema.shape) as (keyof PlanOverrides)[]
const OVERRIDE_PREFIX = 'ov:'

export type Fields = Map<string, string>

// HGETALL answers an object; a script answers a flat [field, value, ...] array.
export function fieldsOf(reply: Record<string, string> | string[]): Fields {
  if (!Array.isArray(reply)) return new Map(Object.entries(reply))
  const map: Fields = new Map()
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(reply[i]!, reply[i + 1]!)
  return map
}

function read(fields: Fields, name: string): unknown {
  const raw = fields.get(name)
  return raw === undefined ? null : JSON.parse(raw)
}

// [field, JSON value, ...] for HSET, skipping undefined values (not set = unchanged).
export function encodeFields(record: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined) out.push(name, JSON.stringify(value))
  }
  return out
}

export function encodeWorkspace(ws: Workspace): string[] {
  return [
    ...encodeFields({ id: ws.id, name: ws.name, plan: ws.plan, created_at: ws.created_at }),
    ...encodeOverrides(ws.overrides),
  ]
}

export function encodeOverrides(overrides: PlanOverrides): string[] {
  const out: string[] = []
  for (const name of OVERRIDE_NAMES) {
    const value = overrides[name]
    if (value !== undefined) out.push(OVERRIDE_PREFIX + name, JSON.stringify(value))
  }
  return out
}

export function decodeWorkspace(fields: Fields): Workspace | undefined {
  if (!fields.has('id')) return undefined
  const overrides: PlanOverrides = {}
  for (const name of OVERRIDE_NAMES) {
    const raw = fields.get(OVERRIDE_PREFIX + name)
    if (raw !== undefined) overrides[name] = JSON.parse(raw) as number
  }
  return {
    id: read(fields, 'id') as string,
    name: read(fields, 'name') as string,
    plan: read(fields, 'plan') as Workspace['plan'],
    overrides,
    created_at: read(fields, 'created_at') as string,
  }
}

export function encodeKey(key: ApiKeyRecord): string[] {
  return encodeFields(Object.fromEntries(KEY_FIELDS.map((f) => [f, key[f]])))
}

export function decodeKey(fields: Fields): ApiKeyRecord | undefined {
  if (!fields.has('id')) return undefined
  const key = Object.fromEntries(KEY_FIELDS.map((f) => [f, read(fields, f)]))
  return key as unknown as ApiKeyRecord
}
