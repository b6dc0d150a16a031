import { z } from 'zod'
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../accounts/password.ts'
import { FAMILIES } from '../../../limits/families.ts'
import { PLAN_NAMES, planLimitsSchema } from '../../../limits/plans.ts'
import { createKeyBody, familySchema } from '../../admin/schemas.ts'

const id = z.string().min(1).max(64)
export const workspaceParams = z.object({ workspace_id: id })
export const projectParams = workspaceParams.extend({ project_id: id })
export const keyParams = workspaceParams.extend({ key_id: id })
export const environmentParams = projectParams.extend({ environment_id: id })

export const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email('must be an email address'))
  .describe('Email address; compared case-insensitively')
const password = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
  .describe(`${PASSWORD_MIN}–${PASSWORD_MAX} characters; never returned or logged`)
const name = z.string().trim().min(1).max(100)

export const signUpBody = z.strictObject({
  email,
  password,
  workspace_name: name
    .default('My workspace')
    .describe('Name of the first workspace, owned by the new account'),
})
// sign-in takes any non-empty password up to the maximum: a policy change must not lock anyone out
export const signInBody = z.strictObject({ email, password: z.string().min(1).max(PASSWORD_MAX) })

const userSchema = z.object({ id: z.string(), email: z.string(), created_at: z.string() })
export const sessionSchema = z.object({
  user: userSchema,
  csrf_token: z.string().describe('Send it back as the X-CSRF-Token header on every POST'),
  expires_at: z.string(),
})

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  plan: z.enum(PLAN_NAMES),
  role: z.enum(['owner']),
  limits: planLimitsSchema,
  created_at: z.string(),
})
export const createWorkspaceBody = z.strictObject({ name })
export const renameBody = z.strictObject({ name: name.describe('The new name (1–100 characters)') })
export const deletedSchema = z.object({
  id: z.string().describe('The id of what was deleted'),
  deleted: z.literal(true),
})

// the current password, checked (and limited) like a sign-in before an account is changed or deleted
const currentPassword = z.string().min(1).max(PASSWORD_MAX)
export const changePasswordBody = z.strictObject({
  current_password: currentPassword.describe('The password in use now'),
  new_password: password,
})
export const deleteAccountBody = z.strictObject({
  password: currentPassword.describe("The account's password, to confirm"),
})

export const environmentSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  mode: z.enum(['live', 'test']),
  created_at: z.string(),
})
export const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  environments: z.array(environmentSchema),
})
export const createProjectBody = z.strictObject({ name })
export const createEnvironmentBody = z.strictObject({
  name,
  mode: z.enum(['live', 'test']).describe('live keys start anvil_live_, test keys anvil_test_'),
})

const keyLink = z.object({ id: z.string(), prefix: z.string() })
export const keySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  mode: z.enum(['live', 'test']),
  status: z.enum(['active', 'rotated', 'expired', 'revoked']),
  project: z.object({ id: z.string(), name: z.string() }),
  environment: z.object({ id: z.string(), name: z.string() }),
  families: z.array(familySchema).nullable().describe('Endpoint families the key may call; null = all'),
  allowed_cidrs: z.array(z.string()).nullable(),
  expires_at: z.string().nullable(),
  monthly_quota: z
    .number()
    .int()
    .nullable()
    .describe("The key's own monthly quota (on top of the workspace's); null: only the workspace's"),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  rotated_to: z.string().nullable(),
  replaced_by: keyLink.nullable().describe('The key a rotation issued in place of this one'),
  rotated_from: keyLink.nullable().describe('The key this one was issued to replace, by a rotation'),
})

// The admin API's validation for the per-key options, with the environment named by id.
export const createKeyConsoleBody = createKeyBody
  .pick({ name: true, expires_at: true, allowed_cidrs: true })
  .extend({
    environment_id: id,
    families: z
      .array(familySchema)
      .max(FAMILIES.length)
      .optional()
      .describe('Endpoint families the key may call; omitted or empty = all'),
  })

export const keyCreatedSchema = z.object({
  id: z.string(),
  key: z.string().describe('The full key. Shown once; only its hash is stored.'),
  prefix: z.string(),
  curl: z.string().describe('A ready-to-paste request with this key'),
  details: keySchema,
})

const counts = {
  requests: z.number().int(),
  refused_rate: z.number().int(),
  refused_quota: z.number().int(),
}
const answers = {
  ok: z.number().int().describe('Answers below 400'),
  client_errors: z
    .number()
    .int()
    .describe('4xx answers, refusals by the rate limits and the quota (429) included'),
  server_errors: z.number().int().describe('5xx answers'),
}
const latencyMs = z
  .object({
    p50: z.number().nullable(),
    p95: z.number().nullable(),
    p99: z.number().nullable(),
  })
  .nullable()
  .describe(
    'Upper bound (ms) of the latency bucket each percentile falls in (at most that long); null inside: past ' +
      'the last bound; null: no answers',
  )
export const usageSchema = z.object({
  month: z.string(),
  plan: z.enum(PLAN_NAMES),
  limits: planLimitsSchema,
  workspace: z
    .object({ ...counts, monthly_quota: z.number().int() })
    .describe('Live traffic: what the monthly quota is charged with'),
  test: z
    .object({ ...counts, monthly_quota: z.number().int() })
    .describe("Test-mode keys' traffic, counted apart against a quota of its own"),
  answers: z
    .object({ ...answers, latency_ms: latencyMs })
    .describe("The month's answers to the workspace's keys by outcome, over every endpoint"),
  latency_bounds_ms: z
    .array(z.number().int())
    .describe(
      'Upper bounds of the latency buckets of `endpoints[].latency_histogram`; a last bucket is unbounded',
    ),
  endpoints: z
    .array(
      z.object({
        method: z.string(),
        path: z.string().describe('The endpoint, as the OpenAPI document names it'),
        ...answers,
        latency_ms: latencyMs,
        latency_histogram: z.array(z.number().int()).describe('Answers per latency bucket'),
      }),
    )
    .describe('Per endpoint, the most answered first'),
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string().nullable(),
      prefix: z.string(),
      status: keySchema.shape.status,
      environment: z.string(),
      ...counts,
    }),
  ),
  deleted_keys: z
    .object(counts)
    .nullable()
    .describe("The month's counts of keys deleted since, together (null: none)"),
  daily: z.array(z.object({ date: z.string(), requests: z.number().int() })),
  job_storage_bytes: z
    .number()
    .int()
    .nullable()
    .describe(
      "Bytes the workspace's jobs keep now (inputs, results, errors, records), counted against " +
        'limits.max_job_storage_bytes; null while the job store cannot be read',
    ),
})
export const usageQuery = z.strictObject({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM')
    .optional(),
})
