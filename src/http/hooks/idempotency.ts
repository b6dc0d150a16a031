import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError, type ErrorCode } from '../../errors.ts'
import {
  IDEMPOTENCY_KEY,
  recordId,
  type StoredResponse,
  scopeId,
  seal,
  unseal,
} from '../../lib/idempotency-seal.ts'
import type { Store } from '../../store/types.ts'
import { shapeAnswer } from '../answer/answer.ts'
import { consumeLimited } from '../body/consume-limited.ts'
import { isReadable } from '../body/stream-transform.ts'

export interface IdempotencyOptions {
  store: Store
  // how long a stored response is replayed (IDEMPOTENCY_TTL_SECONDS)
  ttlSeconds: number
  // a kept answer's body over this is kept as its status, size and digest only (IDEMPOTENCY_MAX_ANSWER_BYTES)
  maxAnswerBytes: number
  // what one scope's kept answers may weigh, oldest dropped first (IDEMPOTENCY_MAX_SCOPE_BYTES)
  maxScopeBytes: number
  // how long a first request holds its key while it runs; a gateway that dies mid-request frees it then
  lockMs?: number
}

// The errors a create answers once it has started executing, which are kept like its success: it found
// what it needed missing (404) or the thing existing or a cap reached (409). Every other refusal came
// before the create ran (validation, in the schema or the handler; access; limits; body size and type) or
// is the gateway's own failure (5xx), and is not kept: the key stays free and a retry runs again. Stripe's
// rule: a result is saved only once the endpoint has started executing.
export const KEPT_ERRORS: readonly ErrorCode[] = ['ERR_NOT_FOUND', 'ERR_CONFLICT']

// the headers of the first response that a replay repeats (the envelope's type and where the thing is)
const KEPT_HEADERS = ['content-type', 'location'] as const
const DEFAULT_LOCK_MS = 120_000
// an error envelope is small: one larger than this is not one of ours, and not kept
const MAX_ERROR_BYTES = 64 * 1024

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

// Whether the create had started executing when it answered this (see KEPT_ERRORS).
function startedWhenAnswered(status: number, payload: string | Buffer): boolean {
  if (status < 300) return true
  if ((status !== 404 && status !== 409) || payload.length > MAX_ERROR_BYTES) return false
  try {
    const code = (JSON.parse(payload.toString()) as { error?: { code?: unknown } }).error?.code
    return KEPT_ERRORS.includes(code as ErrorCode)
  } catch {
    return false
  }
}

// idempotency: the lane's step before run, on routes that declare `config.idempotent` only (their own hooks,
// added as they register). After validation (as Stripe: a request refused by its schema never started, so
// nothing is kept), before the handler: the first request with a key takes it (SET NX), runs, and its answer
// is kept for IDEMPOTENCY_TTL_SECONDS if the create had started executing (2xx, and the 404/409 of
// KEPT_ERRORS); a repeat with the same method, path and body gets that answer again with
// Idempotent-Replayed: true; a different request 422; a repeat while the first still runs 409. Anything
// else frees the key so a retry runs. What is kept is bounded: an answer's body by maxAnswerBytes (a larger
// one is kept as its digest, and its replay is 409 ERR_IDEMPOTENCY_NOT_REPLAYABLE), a scope's answers by
// maxScopeBytes, its oldest dropped first (issue 27).
// Every answer of a create goes through onSend, where it is kept or its key freed. A client that goes away
// mid-create frees nothing: Fastify runs the handler to its end whatever the socket does, and its answer
// is kept like any other (a retry meanwhile gets 409 ERR_IDEMPOTENCY_IN_PROGRESS, then the replay): the
// create started, so a retry must not run it a second time. A request that never answers at all (its
// gateway died) holds its key until its lock (lockMs) ends.
async function idempotencyPlugin(app: FastifyInstance, options: IdempotencyOptions): Promise<void> {
  const { store, ttlSeconds, maxAnswerBytes, maxScopeBytes } = options
  const lockMs = options.lockMs ?? DEFAULT_LOCK_MS

  // Only a route that declares it gets these hooks (its own, added as it registers): no other route's
  // request pays for idempotency. The work, asynchronous, only for a request that sends the header.
  app.addHook('onRoute', function addIdempotencyHooks(route) {
    if (route.config?.idempotent !== true) return
    route.preHandler = [...hooksOf(route.preHandler), enforceIdempotencyKey]
    // kept as the route made it, then compressed or sliced as any answer (src/http/answer/answer.ts)
    route.onSend = [...hooksOf(route.onSend), keepIdempotentResponse, shapeAnswer]
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
    const ref = { scope: scopeId(scope), id: recordId(scope, key) }
    const found = await store.idempotencyBegin(ref, fingerprint, lockMs)
    if (found === undefined) {
      request.idempotency = { scope, key, ref, fingerprint, settled: false }
      return false
    }
    if (found.fingerprint !== fingerprint) {
      throw new AppError('ERR_IDEMPOTENCY_MISMATCH', undefined, { idempotency_key: key })
    }
    const stored = found.state === 'done' && found.response ? unseal(scope, key, found.response) : undefined
    if (!stored) {
      throw new AppError('ERR_IDEMPOTENCY_IN_PROGRESS', undefined, undefined, { 'retry-after': '1' })
    }
    if (stored.omitted) {
      throw new AppError('ERR_IDEMPOTENCY_NOT_REPLAYABLE', undefined, {
        idempotency_key: key,
        status: stored.status,
        bytes: stored.omitted.bytes,
        sha256: stored.omitted.sha256,
      })
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
    if ((typeof payload !== 'string' && !Buffer.isBuffer(payload)) || !startedWhenAnswered(status, payload)) {
      await store.idempotencyRelease(held.ref).catch(() => {})
      return payload
    }
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) headers[name] = String(value)
    }
    const bytes = Buffer.byteLength(payload)
    const response: StoredResponse =
      bytes <= maxAnswerBytes
        ? { status, headers, body: payload.toString() }
        : {
            status,
            headers,
            body: '',
            omitted: { bytes, sha256: createHash('sha256').update(payload).digest('hex') },
          }
    const record = { fingerprint: held.fingerprint, state: 'done' as const }
    try {
      await store.idempotencyFinish(
        held.ref,
        { ...record, response: seal(held.scope, held.key, response) },
        ttlSeconds,
        maxScopeBytes,
      )
    } catch (err) {
      // the create happened: answer it; a retry finds the key running until the lock expires
      request.log.warn({ err }, 'storing an idempotent response failed')
    }
    return payload
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
