import { generateKey } from '../../src/keys/format.ts'
import { CATALOG } from '../../src/ops/catalog.ts'
import type { AnyOp } from '../../src/ops/define.ts'
import type { RedisServer } from '../helpers/redis-server.ts'
import type { Call, Gateway, Reply } from './gateway.ts'

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

// Successful calls over the families (plus a raw binary body): each must answer 200. Chosen by hand where a
// family's panels need a particular call; every other family of the catalog is added below with its first
// op's first worked example that succeeds, so a new family gets traffic without an edit here.
const CHOSEN: Call[] = [
  { path: '/v1/hash/sha256', json: { input: 'hello' } },
  { path: '/v1/hash/sha256', body: 'hello', type: 'application/octet-stream' },
  { path: '/v1/hash/algorithms' },
  { path: '/v1/hmac/sha256', json: { input: 'hello', key: 'secret' } },
  { path: '/v1/jwt/decode', json: { token: JWT } },
  { path: '/v1/base64/encode', json: { input: 'hello' } },
  { path: '/v1/base64/decode', json: { input: 'aGVsbG8=' } },
  { path: '/v1/text/encode', json: { input: 'a b', format: 'url' } },
  { path: '/v1/text/inspect', json: { input: 'héllo' } },
  { path: '/v1/url/parse', json: { url: 'https://example.com/a?b=c' } },
  { path: '/v1/json/format', json: { input: '{"a":1}' } },
  { path: '/v1/json/diff', json: { left: { a: 1 }, right: { a: 2 } } },
  { path: '/v1/json/patch', json: { document: { a: 1 }, patch: [{ op: 'replace', path: '/a', value: 2 }] } },
  { path: '/v1/time/timestamp', json: { value: 1_700_000_000 } },
  { path: '/v1/cron/parse', json: { expression: '*/5 * * * *' } },
  { path: '/v1/id/uuid', json: { version: 7 } },
  { path: '/v1/id/nanoid', json: {} },
  // a stored argon2id hash of "hello" at m=64 KiB, t=1: the password panels' verifications
  {
    path: '/v1/password/verify',
    json: {
      password: 'hello',
      hash: '$argon2id$v=19$m=64,t=1,p=1$rhWyh/K8gUWhs6LFG6kdcQ$RO4Ods9AZ1Lmrz2oT8eXBEewWh2xfhqhjS9vX8j8O7E',
    },
  },
]

// the catalog's family a path is a route of
export function familyOf(path: string): string | undefined {
  const route = (op: AnyOp) => new RegExp(`^${op.http.path.replace(/:\w+/g, '[^/]+')}$`)
  return CATALOG.ops.find((op) => route(op).test(path))?.family
}

function exampleCall(op: AnyOp): Call | undefined {
  const example = op.examples.find((e) => e.body !== undefined && !e.error && !e.query && !e.headers)
  return example && { path: example.path ?? op.http.path, json: example.body }
}

export const FAMILY_CALLS: Call[] = [...CHOSEN]
const covered = new Set(CHOSEN.map((c) => familyOf(c.path)))
for (const op of CATALOG.ops) {
  const call = covered.has(op.family) ? undefined : exampleCall(op)
  if (call) {
    FAMILY_CALLS.push(call)
    covered.add(op.family)
  }
}

// Past json.patch's pool threshold (32 KiB) and under the free plan's 256 KiB body limit.
export const BIG_PATCH = {
  document: { items: Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `item ${i}` })) },
  patch: [{ op: 'test', path: '/items/1/id', value: 1 }],
}

// Grapheme segmentation of this runs on a pool (text.inspect's threshold is 16 KiB) for tens of ms.
const SLOW_TEXT = (repeat: number) => ({ input: 'e\u0301🇫🇷 '.repeat(repeat) })

const UNLIMITED = {
  key_rate_per_second: 100_000,
  workspace_rate_per_second: 100_000,
  monthly_quota: 1_000_000_000,
}

export interface TrafficOptions {
  // kill and restart this redis-server mid-run: 503 ERR_UNAVAILABLE and Redis connection errors
  redis?: RedisServer
  // the gateway runs with a one-thread, one-slot free pool: a burst of free work overflows it (503)
  overload?: boolean
  // the gateway's paid threads have a tiny heap: a large copy dies out of memory (422)
  oom?: boolean
  // POST /v1/jobs exists: submit jobs that complete and jobs that fail
  jobs?: boolean
}

export class Tally {
  readonly statuses = new Map<number | string, number>()
  add(status: number | string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
  }
  has(status: number | string): boolean {
    return this.statuses.has(status)
  }
}

// Drives every family on every plan, pool and inline work, and the error paths: 400, 401 (missing,
// malformed, unknown, revoked), 403, 404, 405, 413, 415, 422 (budget kill, OOM), 429 (rate, quota),
// 503 (full pool, Redis down). Throws when a call meant to succeed does not.
export async function driveTraffic(gw: Gateway, options: TrafficOptions, tally: Tally): Promise<void> {
  const send = async (c: Call): Promise<Reply> => {
    const reply = await gw.call(c)
    tally.add(reply.status)
    return reply
  }
  const ok = async (c: Call): Promise<void> => {
    const reply = await send(c)
    if (reply.status !== 200) throw new Error(`${c.path} answered ${reply.status}: ${reply.text}`)
  }

  // threads start on first use here, and a cold start counts against the free plan's 1 s budget
  const free = await gw.workspace('free', { ...UNLIMITED, compute_budget_ms: 30_000 })
  const pro = await gw.workspace('pro', UNLIMITED)
  const business = await gw.workspace('business')
  for (const key of [free.key, pro.key, business.key]) {
    for (const c of FAMILY_CALLS) await ok({ ...c, key })
    await ok({ path: '/v1/json/patch', json: BIG_PATCH, key })
  }

  // password hashing, on the paid pool (its panels: verifications by outcome, the keys verifying the most)
  await ok({
    path: '/v1/password/hash',
    json: { password: 'hello', params: { memory_kib: 64, iterations: 1 } },
    key: pro.key,
  })
  const stored = '$2b$04$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e'
  await ok({ path: '/v1/password/verify', json: { password: 'hello', hash: stored }, key: pro.key })
  await send({ path: '/v1/password/verify', json: { password: 'hello', hash: '$2b$99$' }, key: pro.key })

  // client errors
  await send({ path: '/v1/hash/sha256', body: '{"input":', key: pro.key })
  await send({ path: '/v1/hash/sha256', json: { input: 5 }, key: pro.key })
  await send({ path: '/v1/cron/parse', json: { expression: 'not cron' }, key: pro.key })
  await send({ path: '/v1/hash/sha256', body: 'hello', type: 'text/plain', key: pro.key })
  await send({ path: '/v1/no-such-family', json: {}, key: pro.key })
  await send({ method: 'PUT', path: '/v1/hash/sha256', json: { input: 'x' }, key: pro.key })
  try {
    await send({ path: '/v1/json/format', json: { input: 'x'.repeat(300 * 1024) }, key: free.key })
  } catch {
    // refused before the body was read: the server may reset the connection under the upload
    tally.add('reset')
  }

  // authentication and scope
  await send({ path: '/v1/hash/sha256', json: { input: 'x' } })
  await send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: 'anvil_live_notakey' })
  await send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: generateKey('live') })
  const revoked = await gw.workspace('pro')
  await gw.admin('POST', `/admin/keys/${revoked.keyId}/revoke`)
  await send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: revoked.key })
  const scoped = await gw.workspace('business', {}, { families: ['hash'] })
  await send({ path: '/v1/jwt/decode', json: { token: JWT }, key: scoped.key })

  // limits: the free plan's 5/s key cap, and a monthly quota of 2
  const capped = await gw.workspace('free')
  await Promise.all(
    Array.from({ length: 15 }, () =>
      send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: capped.key }),
    ),
  )
  const quota = await gw.workspace('free', { monthly_quota: 2 })
  for (let i = 0; i < 4; i++) await send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: quota.key })

  // a compute budget kill on the paid pool
  const budget = await gw.workspace('pro', { ...UNLIMITED, compute_budget_ms: 20 })
  await send({ path: '/v1/text/inspect', json: SLOW_TEXT(100_000), key: budget.key })

  if (options.oom) {
    const items = Array.from({ length: 60_000 }, (_, i) => ({ id: i, v: 'x'.repeat(16) }))
    const patch = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/items', path: `/c${i}` }))
    await send({ path: '/v1/json/patch', json: { document: { items }, patch }, key: pro.key })
  }
  if (options.overload) {
    await Promise.all(
      Array.from({ length: 8 }, () =>
        send({ path: '/v1/text/inspect', json: SLOW_TEXT(20_000), key: free.key }),
      ),
    )
  }
  if (options.jobs) await submitJobs(gw, pro.key, free.key, send)
  if (options.redis) {
    await options.redis.kill()
    await send({ path: '/v1/hash/sha256', json: { input: 'x' }, key: pro.key })
    await options.redis.restart()
    const deadline = Date.now() + 10_000
    while ((await gw.call({ path: '/readyz' })).status !== 200) {
      if (Date.now() > deadline) throw new Error('the gateway did not get Redis back')
      await new Promise((r) => setTimeout(r, 50))
    }
    await ok({ path: '/v1/hash/sha256', json: { input: 'after the outage' }, key: pro.key })
  }
}

// A job that completes and one that fails (a JSON Patch `test` that does not hold); free plans are refused.
async function submitJobs(
  gw: Gateway,
  paidKey: string,
  freeKey: string,
  send: (c: Call) => Promise<Reply>,
): Promise<void> {
  const document = { a: 1 }
  const jobs = [
    { operation: 'json.patch', params: { document, patch: [{ op: 'add', path: '/b', value: 2 }] } },
    { operation: 'json.patch', params: { document, patch: [{ op: 'test', path: '/a', value: 2 }] } },
  ]
  const ids: string[] = []
  for (const job of jobs) {
    const reply = await send({ path: '/v1/jobs', json: job, key: paidKey })
    if (reply.status !== 202) throw new Error(`POST /v1/jobs answered ${reply.status}: ${reply.text}`)
    ids.push((JSON.parse(reply.text) as { data: { id: string } }).data.id)
  }
  await send({ path: '/v1/jobs', json: jobs[0], key: freeKey })
  const deadline = Date.now() + 15_000
  for (const id of ids) {
    for (;;) {
      const reply = await gw.call({ path: `/v1/jobs/${id}`, key: paidKey })
      const status = (JSON.parse(reply.text) as { data?: { status?: string } }).data?.status
      if (status === 'completed' || status === 'failed') break
      if (Date.now() > deadline) throw new Error(`job ${id} did not finish: ${reply.text}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

// A healthy day: every family on every plan, pool work on both tiers, and (with jobs) one job that
// completes. Nothing fails, so any series a dashboard reads must exist without a failure having happened.
export async function driveHealthyTraffic(
  gw: Gateway,
  options: { jobs?: boolean },
  tally: Tally,
): Promise<void> {
  const ok = async (c: Call): Promise<Reply> => {
    const reply = await gw.call(c)
    tally.add(reply.status)
    if (reply.status < 200 || reply.status > 299)
      throw new Error(`${c.path} answered ${reply.status}: ${reply.text}`)
    return reply
  }
  const free = await gw.workspace('free', { ...UNLIMITED, compute_budget_ms: 30_000 })
  const pro = await gw.workspace('pro', UNLIMITED)
  const business = await gw.workspace('business')
  for (const key of [free.key, pro.key, business.key]) {
    for (const c of FAMILY_CALLS) await ok({ ...c, key })
    await ok({ path: '/v1/json/patch', json: BIG_PATCH, key })
  }
  if (!options.jobs) return
  const job = {
    operation: 'json.patch',
    params: { document: { a: 1 }, patch: [{ op: 'add', path: '/b', value: 2 }] },
  }
  const id = (
    JSON.parse((await ok({ path: '/v1/jobs', json: job, key: pro.key })).text) as { data: { id: string } }
  ).data.id
  const deadline = Date.now() + 15_000
  for (;;) {
    const reply = await ok({ path: `/v1/jobs/${id}`, key: pro.key })
    const status = (JSON.parse(reply.text) as { data?: { status?: string } }).data?.status
    if (status === 'completed') return
    if (status === 'failed' || Date.now() > deadline)
      throw new Error(`job ${id} did not complete: ${reply.text}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
