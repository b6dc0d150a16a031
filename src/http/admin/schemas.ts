import { z } from 'zod'
import { KEY_STATUSES } from '../../keys/status.ts'
import { parseCidr } from '../../lib/cidr.ts'
import { echoName } from '../../lib/zod-issues.ts'
import { FAMILIES } from '../../limits/families.ts'
import { overridesSchema, PLAN_NAMES, planLimitsSchema } from '../../limits/plans.ts'

export const idParams = z.object({ id: z.string().min(1).max(64) })

// an endpoint family a key may be limited to (its `families`), named for clients
export const familySchema = z
  .enum(FAMILIES)
  .meta({ id: 'Family', description: 'An endpoint family: the /v1 path segment it names (jobs: /v1/jobs)' })

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.enum(PLAN_NAMES),
  overrides: overridesSchema,
  limits: planLimitsSchema,
  created_at: z.string(),
})

export const createWorkspaceBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  plan: z.enum(PLAN_NAMES).default('free'),
})

export const patchWorkspaceBody = z
  .object({ plan: z.enum(PLAN_NAMES).optional(), overrides: overridesSchema.strict().optional() })
  .strict()

const countsSchema = z.object({
  requests: z.number().int(),
  refused_rate: z.number().int(),
  refused_quota: z.number().int(),
})

export const usageSchema = z.object({
  month: z.string(),
  workspace: countsSchema
    .extend({ monthly_quota: z.number().int() })
    .describe('Live traffic: what the monthly quota is charged with'),
  test: countsSchema
    .extend({ monthly_quota: z.number().int() })
    .describe("Test-mode keys' traffic, counted apart against a quota of its own (docs/api.md, Test mode)"),
  keys: z.array(countsSchema.extend({ id: z.string(), prefix: z.string(), name: z.string().nullable() })),
  daily: z.record(z.string(), z.number().int()),
})

// the value named: a list of several bad blocks says which is which
const cidr = z.string().refine((c) => parseCidr(c) !== undefined, {
  error: (issue) =>
    `${JSON.stringify(echoName(String(issue.input)))} is not an IPv4/IPv6 address or CIDR block (e.g. 10.0.0.0/8)`,
})

export const createKeyBody = z.strictObject({
  workspace_id: z.string().min(1),
  project: z.string().trim().min(1).max(100).default('default'),
  environment: z.string().trim().min(1).max(100).default('production'),
  mode: z.enum(['live', 'test']).optional(),
  name: z.string().trim().min(1).max(100).optional(),
  families: z
    .array(familySchema)
    .max(FAMILIES.length)
    .optional()
    .describe('Endpoint families the key may call; omitted or empty = all'),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  allowed_cidrs: z.array(cidr).max(100).optional(),
  monthly_quota: z.number().int().min(0).optional(),
})

export const keyCreatedSchema = z.object({
  id: z.string(),
  key: z.string().describe('The full key. Shown once; only its hash is stored.'),
  prefix: z.string(),
})

export const keySchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  project_id: z.string(),
  environment_id: z.string(),
  mode: z.enum(['live', 'test']),
  prefix: z.string(),
  status: z
    .enum(KEY_STATUSES)
    .describe(
      'revoked, past its expiry, replaced by a rotation (working until its grace period ends), or active',
    ),
  name: z.string().nullable(),
  families: z.array(familySchema).nullable().describe('Endpoint families the key may call; null = all'),
  allowed_cidrs: z.array(z.string()).nullable(),
  expires_at: z.string().nullable(),
  monthly_quota: z.number().nullable(),
  revoked_at: z.string().nullable(),
  rotated_to: z.string().nullable(),
  created_at: z.string(),
})

export const rotateBody = z.strictObject({
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(86400),
})

const name = z.string().trim().min(1).max(100).describe('Unique within its parent')

export const environmentSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  mode: z.enum(['live', 'test']).describe('live keys start anvil_live_, test keys anvil_test_'),
  created_at: z.string(),
})
export const projectSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  environments: z.array(environmentSchema),
})
export const workspaceIdParams = z.object({ workspace_id: z.string().min(1).max(64) })
export const projectParams = workspaceIdParams.extend({ project_id: z.string().min(1).max(64) })
export const createProjectBody = z.strictObject({ name })
export const createEnvironmentBody = z.strictObject({
  name,
  mode: z.enum(['live', 'test']).describe('live keys start anvil_live_, test keys anvil_test_'),
})
