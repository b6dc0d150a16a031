import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'
import { IDEMPOTENCY_KEY, recordId, type StoredResponse, seal, unseal } from '../../lib/idempotency-seal.ts'
import type { Store } from '../../store/types.ts'
import { consumeLimited } from '../body/consume-limited.ts'
import { isReadable } from '../body/stream-digest.ts'
import { shapeAnswer } from '../lane/answer.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    // a create that honours Idempotency-Key (Stripe's semantics; docs/api.md)
    idempotent?: boolean
  }
  interface FastifyRequest {
    idempotency?: { scope: string; key: string; id: string; fingerprint: string; settled: boolean }
  }
}

export interface IdempotencyOptions {
  store: Store
  // how long a stored response is replayed (IDEMPOTENCY_TTL_SECONDS)
  ttlSeconds: number
  // how long a first request holds its key while it runs; a gateway that dies mid-request frees it then
  lockMs?: number
}

// the headers of the first response that a replay repeats (the envelope's type and where the thing is)
const KEPT_HEADERS = ['content-type', 'location'] as const
const DEFAULT_LOCK_MS = 120_000

// Who the key belongs to: a workspace for API keys, the signed-in person for the console (a replayed key
// create carries the plaintext key, which only its creator may see again), the operator for the admin API.
function scopeOf(request: FastifyRequest): string | undefined {
  switch (request.routeConfig?.security) {
    case 'apiKey':
      return request.auth ? `ws:${request.auth.workspace.id}` : undefined
    case 'sessionCookie':
      return request.consoleAuth ? `user:${request.consoleAuth.user.id}` : undefined
    case 'admin':
      return 'admin'
    default:
      return undefined
  }
}

// The body as the route received it: a validated object, or (POST /v1/jobs) the unread stream, which is
// read here chunk by chunk into the hash and handed on as bytes.
async function bodyDigest(request: FastifyRequest): Promise<string> {
  const hash = createHash('sha256')
  const body = request.body
  if (isReadable(body)) {
    const chunks: Buffer[] = []
    await consumeLimited(body, request.bodyLimit, (chunk) => {
      hash.update(chunk)
      chunks.push(chunk)
    })
    request.body = Buffer.concat(chunks)
  } else if (Buffer.isBuffer(body)) {
    hash.update(body)
  } else {
    hash.update(JSON.stringify(body ?? null))
  }
  return hash.digest('hex')
}

function invalidKey(): AppError {
  return new AppError('ERR_VALIDATION', 'The Idempotency-Key header is not valid.', {
    issues: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
  })
}

// idempotency: the lane's step before run, on routes that declare `config.idempotent` only; this enforces
// it. After validation (as Stripe: a request refused by its schema never started, so nothing is kept),
// before the handler: the first request with a key takes it
// (SET NX), runs, and its response is kept for IDEMPOTENCY_TTL_SECONDS; a repeat with the same method, path
// and body gets that response again with Idempotent-Replayed: true; a different request 422; a repeat while
// the first still runs 409. 5xx and 429 answers are not kept: the key is freed so a retry runs.
async function idempotencyPlugin(app: FastifyInstance, options: IdempotencyOptions): Promise<void> {
  const { store, ttlSeconds } = options
  const lockMs = options.lockMs ?? DEFAULT_LOCK_MS

  // Only a route that declares it gets these hooks (its own, added as it registers): no other route's
  // request pays for idempotency. The work, asynchronous, only for a request that sends the header.
  app.addHook('onRoute', function addIdempotencyHooks(route) {
    if (route.config?.idempotent !== true) return
    route.preHandler = [...hooksOf(route.preHandler), enforceIdempotencyKey]
    // kept as the route made it, then compressed or sliced as any answer (src/http/lane/answer.ts)
    route.onSend = [...hooksOf(route.onSend), keepIdempotentResponse, shapeAnswer]
    route.onResponse = [...hooksOf(route.onResponse), freeUnsettledKey]
  })

  function enforceIdempotencyKey(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) {
    const header = request.headers['idempotency-key']
    if (header === undefined) return done()
    // a replay has answered (reply.send): the chain stops there, as Fastify's hooks do without done()
    begin(request, reply, header).then((replayed) => {
      if (!replayed) done()
    }, done)
  }

  async function begin(
    request: FastifyRequest,
    reply: FastifyReply,
    header: string | string[],
  ): Promise<boolean> {
    const key = Array.isArray(header) ? undefined : header
    if (key === undefined || !IDEMPOTENCY_KEY.test(key)) throw invalidKey()
    const scope = scopeOf(request)
    if (scope === undefined) throw new AppError('ERR_INTERNAL')
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url}\0${await bodyDigest(request)}`)
      .digest('hex')
    const id = recordId(scope, key)
    const found = await store.idempotencyBegin(id, fingerprint, lockMs)
    if (found === undefined) {
      request.idempotency = { scope, key, id, fingerprint, settled: false }
      return false
    }
    if (found.fingerprint !== fingerprint) {
      throw new AppError('ERR_IDEMPOTENCY_MISMATCH', undefined, { idempotency_key: key })
    }
    const stored = found.state === 'done' && found.response ? unseal(scope, key, found.response) : undefined
    if (!stored) {
      throw new AppError('ERR_IDEMPOTENCY_IN_PROGRESS', undefined, undefined, { 'retry-after': '1' })
    }
    replay(reply, stored)
    return true
  }

  function keepIdempotentResponse(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (err: Error | null, payload?: unknown) => void,
  ) {
    const held = request.idempotency
    if (!held || held.settled) return done(null, payload)
    held.settled = true
    keep(request, reply, held, payload).then((kept) => done(null, kept), done)
  }

  async function keep(
    request: FastifyRequest,
    reply: FastifyReply,
    held: NonNullable<FastifyRequest['idempotency']>,
    payload: unknown,
  ): Promise<unknown> {
    const status = reply.statusCode
    if (status >= 500 || status === 429 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      await store.idempotencyRelease(held.id).catch(() => {})
      return payload
    }
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) headers[name] = String(value)
    }
    const response: StoredResponse = { status, headers, body: payload.toString() }
    const record = { fingerprint: held.fingerprint, state: 'done' as const }
    try {
      await store.idempotencyFinish(
        held.id,
        { ...record, response: seal(held.scope, held.key, response) },
        ttlSeconds,
      )
    } catch (err) {
      // the create happened: answer it; a retry finds the key running until the lock expires
      request.log.warn({ err }, 'storing an idempotent response failed')
    }
    return payload
  }

  // the first request ended without a response of its own (the client went away before the handler
  // finished, or a hook threw past onSend): free the key so a retry can run
  function freeUnsettledKey(request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    const held = request.idempotency
    if (!held || held.settled) return done()
    held.settled = true
    store.idempotencyRelease(held.id).then(
      () => done(),
      () => done(),
    )
  }
}

// a route option that may hold one hook or a list of them, as a list
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return []
  return Array.isArray(hooks) ? hooks : [hooks]
}

function replay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  reply.code(stored.status)
  for (const [name, value] of Object.entries(stored.headers)) reply.header(name, value)
  reply.header('idempotent-replayed', 'true')
  return reply.send(stored.body)
}

export const idempotency = fp(idempotencyPlugin, { name: 'anvil-idempotency' })
