import http from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { ERRORS } from '../../src/errors.ts'
import { type DocExample, VOLATILE } from '../../src/http/openapi/examples.ts'
import { createApiKey } from '../../src/keys/service.ts'
import { effectiveLimits } from '../../src/limits/plans.ts'
import type { TestApp } from './harness.ts'
import { h1Request, type RawResponse } from './tls-client.ts'

// Runs the curl commands of docs/examples/*.md against a real gateway: the public listener over TLS,
// the admin listener over plain HTTP, with the $VARIABLES the examples use filled in from a world of
// our own (a console account and its workspace, a project, an environment, keys, a finished job, a job
// cancelled while it was queued).
export interface ExampleWorld {
  t: TestApp
  adminUrl: string
  vars: Record<string, string>
  // a fresh key to rotate and revoke, per examples file
  freshKey(): Promise<void>
}

const DOC_ORIGIN = 'https://localhost:8443'

function cookieOf(res: RawResponse): string {
  const set = res.headers['set-cookie']
  const first = (Array.isArray(set) ? set[0] : set) ?? ''
  return /anvil_session=([^;]+)/.exec(first)?.[1] ?? ''
}

export async function prepareWorld(t: TestApp): Promise<ExampleWorld> {
  await t.admin.listen({ port: 0, host: '127.0.0.1' })
  const adminUrl = `http://127.0.0.1:${(t.admin.server.address() as { port: number }).port}`
  const ca = t.tls!.cert
  const json = { 'content-type': 'application/json', origin: t.url }
  const signup = await h1Request(t.url, {
    method: 'POST',
    path: '/console/api/signup',
    headers: json,
    body: JSON.stringify({
      email: 'examples@example.com',
      password: 'a long enough password',
      workspace_name: 'Docs',
    }),
    ca,
  })
  const session = signup.json<{ data: { csrf_token: string; workspace: { id: string } } }>().data
  const cookie = cookieOf(signup)
  const auth = { ...json, cookie: `anvil_session=${cookie}`, 'x-csrf-token': session.csrf_token }
  const workspaceId = session.workspace.id
  const project = await h1Request(t.url, {
    method: 'POST',
    path: `/console/api/workspaces/${workspaceId}/projects`,
    headers: auth,
    body: JSON.stringify({ name: 'Examples' }),
    ca,
  })
  const projectId = project.json<{ data: { id: string } }>().data.id
  const env = await h1Request(t.url, {
    method: 'POST',
    path: `/console/api/workspaces/${workspaceId}/projects/${projectId}/environments`,
    headers: auth,
    body: JSON.stringify({ name: 'examples', mode: 'live' }),
    ca,
  })
  const environmentId = env.json<{ data: { id: string } }>().data.id
  // what the rename and delete examples change: a workspace, and a project with an environment, none
  // holding a key; and two more accounts, one to change its password, one to delete
  const post = async (path: string, body: unknown) =>
    (await h1Request(t.url, { method: 'POST', path, headers: auth, body: JSON.stringify(body), ca })).json<{
      data: { id: string }
    }>().data.id
  const spareWorkspaceId = await post('/console/api/workspaces', { name: 'Side project' })
  const spareProjectId = await post(`/console/api/workspaces/${workspaceId}/projects`, { name: 'Spare' })
  const spareEnvironmentId = await post(
    `/console/api/workspaces/${workspaceId}/projects/${spareProjectId}/environments`,
    { name: 'preview', mode: 'test' },
  )
  const account = async (email: string) => {
    const res = await h1Request(t.url, {
      method: 'POST',
      path: '/console/api/signup',
      headers: json,
      body: JSON.stringify({ email, password: 'a long enough password', workspace_name: 'Elsewhere' }),
      ca,
    })
    return { session: cookieOf(res), csrf: res.json<{ data: { csrf_token: string } }>().data.csrf_token }
  }
  const renewing = await account('renewing@example.com')
  const leaving = await account('leaving@example.com')
  const jobId = await finishedJob(t)
  const queuedJobId = await cancelledWhileQueued(t)
  const vars: Record<string, string> = {
    ANVIL_KEY: t.key,
    ADMIN_TOKEN: t.adminToken,
    SESSION: cookie,
    CSRF: session.csrf_token,
    WORKSPACE_ID: workspaceId,
    PROJECT_ID: projectId,
    ENVIRONMENT_ID: environmentId,
    JOB_ID: jobId,
    QUEUED_JOB_ID: queuedJobId,
    SPARE_WORKSPACE_ID: spareWorkspaceId,
    SPARE_PROJECT_ID: spareProjectId,
    SPARE_ENVIRONMENT_ID: spareEnvironmentId,
    RENEWING_SESSION: renewing.session,
    RENEWING_CSRF: renewing.csrf,
    LEAVING_SESSION: leaving.session,
    LEAVING_CSRF: leaving.csrf,
  }
  const world: ExampleWorld = {
    t,
    adminUrl,
    vars,
    async freshKey() {
      const created = await createApiKey(t.runtime.store, { workspace_id: workspaceId })
      if (!created.ok) throw new Error(created.reason)
      vars.KEY_ID = created.record.id
    },
  }
  await world.freshKey()
  return world
}

async function finishedJob(t: TestApp): Promise<string> {
  const headers = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }
  const ca = t.tls!.cert
  const submitted = await h1Request(t.url, {
    method: 'POST',
    path: '/v1/jobs',
    headers,
    body: JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'hello' } }),
    ca,
  })
  const id = submitted.json<{ data: { id: string } }>().data.id
  for (let i = 0; i < 200; i++) {
    const got = await h1Request(t.url, { path: `/v1/jobs/${id}`, headers, ca })
    const status = got.json<{ data: { status: string } }>().data.status
    if (status === 'completed' || status === 'failed') return id
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`job ${id} did not finish`)
}

// A job cancelled while it waited in the queue, as DELETE /v1/jobs/{id} answers for one (cancelling it again
// answers the same): the test gateway runs one job at a time, so a job submitted while a larger one runs
// waits, and is cancelled there, in the same turn of the event loop as its submission returned. Tried
// again in the unlikely case the larger one had already finished and the job had started.
async function cancelledWhileQueued(t: TestApp): Promise<string> {
  const ws = await t.runtime.store.getWorkspace(t.workspaceId)
  if (!ws) throw new Error('no workspace')
  const ctx = {
    workspaceId: ws.id,
    plan: ws.plan,
    limits: effectiveLimits(t.runtime.config.plans, ws.plan, ws.overrides),
  }
  const job = (input: string) =>
    Buffer.from(JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input } }))
  const large = job('x'.repeat(2 * 1024 * 1024))
  for (let attempt = 0; attempt < 10; attempt++) {
    await t.runtime.jobs.submit(ctx, large)
    const waiting = await t.runtime.jobs.submit(ctx, job('never run'))
    const cancelled = await t.runtime.jobs.cancel(ctx.workspaceId, waiting.id)
    if (cancelled.state === 'cancelled') return waiting.id
  }
  throw new Error('no job could be cancelled while queued')
}

function fill(text: string, world: ExampleWorld, base: string): string {
  return text
    .replace(/\$([A-Z_]+)/g, (whole, name: string) => world.vars[name] ?? whole)
    .replaceAll(DOC_ORIGIN, base)
}

export interface ExampleAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: unknown
}

// Runs an example as written, with `extra` request headers the example does not set itself (a client's
// Accept-Encoding, a browser's Origin); a compressed answer is decompressed before it is read.
export async function runExample(
  world: ExampleWorld,
  example: DocExample,
  extra: Record<string, string> = {},
): Promise<ExampleAnswer> {
  const admin = example.path.startsWith('/admin/')
  const base = admin ? world.adminUrl : world.t.url
  const headers = {
    ...extra,
    ...Object.fromEntries(Object.entries(example.headers).map(([k, v]) => [k, fill(v, world, world.t.url)])),
  }
  const path = fill(example.path, world, base)
  const body = example.body === undefined ? undefined : fill(example.body, world, base)
  const res = admin
    ? await plainRequest(base, { method: example.method, path, headers, body })
    : await h1Request(base, {
        method: example.method,
        path,
        headers,
        ...(body === undefined ? {} : { body }),
        ca: world.t.tls!.cert,
      })
  const coding = res.headers['content-encoding']
  const bytes =
    coding === 'br' ? brotliDecompressSync(res.body) : coding === 'gzip' ? gunzipSync(res.body) : res.body
  const text = bytes.toString('utf8')
  // an answer shown as text is raw bytes, compared as they are (a JSON parse would round 2.50 to 2.5)
  if (typeof example.response === 'string') return { status: res.status, headers: res.headers, body: text }
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed }
}

function plainRequest(
  base: string,
  req: { method: string; path: string; headers: Record<string, string>; body: string | undefined },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      new URL(req.path, base),
      { method: req.method, headers: req.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          })
        })
      },
    )
    r.on('error', reject)
    r.end(req.body)
  })
}

// the status an example's answer implies: its error code's, or a success
export function expectedStatus(response: unknown): number | 'success' {
  const code = (response as { error?: { code?: string } } | null)?.error?.code
  return code && code in ERRORS ? ERRORS[code as keyof typeof ERRORS].status : 'success'
}

// where the answer differs from the example; "…" matches any value, "abc…" any string starting "abc", an
// array ending in "…" any array that starts with the items before it, and a "…" member members not shown
export function differences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (expected === VOLATILE) return []
  if (typeof expected === 'string' && expected.endsWith(VOLATILE)) {
    const prefix = expected.slice(0, -VOLATILE.length)
    return typeof actual === 'string' && actual.startsWith(prefix)
      ? []
      : [`${path}: ${JSON.stringify(actual)} does not start with ${JSON.stringify(prefix)}`]
  }
  if (Array.isArray(expected) && expected.at(-1) === VOLATILE) {
    const head = expected.slice(0, -1)
    if (!Array.isArray(actual) || actual.length < head.length)
      return [`${path}: ${JSON.stringify(actual)} is not an array of at least ${head.length}`]
    return head.flatMap((e, i) => differences(e, actual[i], `${path}[${i}]`))
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [`${path}: ${JSON.stringify(actual)} is not an array of ${expected.length}`]
    return expected.flatMap((e, i) => differences(e, actual[i], `${path}[${i}]`))
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: ${JSON.stringify(actual)} is not an object`]
    // a "…" member: members not shown
    const open = VOLATILE in expected
    const keys = new Set([
      ...Object.keys(expected).filter((k) => k !== VOLATILE),
      ...Object.keys(actual).filter((k) => !open || k in expected),
    ])
    return [...keys].flatMap((k) =>
      k in expected && k in actual
        ? differences(
            (expected as Record<string, unknown>)[k],
            (actual as Record<string, unknown>)[k],
            `${path}.${k}`,
          )
        : [`${path}.${k}: ${k in expected ? 'missing from the answer' : 'not in the example'}`],
    )
  }
  return Object.is(expected, actual)
    ? []
    : [`${path}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`]
}
