import calculateSlot from 'cluster-key-slot'
import type { ConsumeRequest, LimitDecision } from '../types.ts'
import type { RedisKeys } from './keys.ts'
import { decodeRun, type MonthArgs, RUN_STRIDE } from './limit-reply.ts'

// At most this many decisions go to Redis in one call: a full batch leaves at once, without waiting for
// the end of the event loop's turn. Bounds what one call holds redis-server for (~64 × 2-4 µs of Lua) and
// what one lost reply can leave charged but unanswered (docs/decisions.md "Limits in batches (Redis)").
export const BATCH_CAP = 64

// consume.lua's numbers, its arguments' and its reply's (RUN_STRIDE a run): little-endian doubles
const DOUBLE = 8
// the script's instant for a run on Redis TIME (an injected clock is never before the epoch)
const REDIS_TIME = -1

// consume.lua's arguments: numkeys, the usage hashes, the batch's numbers packed, then each subject's key
// id (ioredis flattens an argument that is an array)
export type BatchArgs = [number, string[], Buffer, string[]]

// Sends one batch and resolves with the script's reply as bytes, or rejects when the call failed (timeout,
// connection, reply error).
export type SendBatch = (args: BatchArgs) => Promise<Buffer>

interface Pending {
  req: ConsumeRequest
  usageA: string
  usageB: string
  months: readonly [MonthArgs, MonthArgs]
  // ms from an injected clock, or undefined for Redis TIME
  now: number | undefined
  resolve(decision: LimitDecision): void
  reject(err: unknown): void
}

// The limit decisions that arrive in one turn of the event loop go to Redis together, one call of
// consume.lua per cluster slot, decided there in arrival order.
//
// Why setImmediate and not process.nextTick or a microtask: Node drains those queues after every single
// I/O callback, and each connection's request is a callback of its own, so a batch flushed there would
// only ever hold the decisions of one socket read. setImmediate runs once per turn, right after every I/O
// callback that turn's poll delivered: the decisions of every connection whose bytes arrived together
// leave as one call, and a lone request waits only for the rest of its own turn, never for a timer
// (ioredis's auto-pipelining flushes on setImmediate for the same reason). The call itself bypasses
// ioredis's auto-pipelining (client.ts): that would hold a batch back until the connection's previous
// pipeline has been answered, adding a round trip of latency to batching that is already done here.
export class ConsumeBatcher {
  readonly #keys: RedisKeys
  readonly #send: SendBatch
  // the cluster slot of a usage hash; null on a single Redis, where one script may touch any key
  readonly #slotOf: ((key: string) => number) | null
  readonly #queues = new Map<number, Pending[]>()
  #scheduled = false

  constructor(keys: RedisKeys, send: SendBatch, cluster: boolean) {
    this.#keys = keys
    this.#send = send
    this.#slotOf = cluster ? calculateSlot : null
  }

  decide(
    req: ConsumeRequest,
    months: readonly [MonthArgs, MonthArgs],
    now: number | undefined,
  ): Promise<LimitDecision> {
    const usageA = this.#keys.usage(req.workspaceId, months[0].label, req.mode)
    const usageB = this.#keys.usage(req.workspaceId, months[1].label, req.mode)
    const { promise, resolve, reject } = Promise.withResolvers<LimitDecision>()
    // every key of a workspace carries its hash tag, so its two months share its slot
    const slot = this.#slotOf === null ? 0 : this.#slotOf(usageA)
    let queue = this.#queues.get(slot)
    if (queue === undefined) {
      queue = []
      this.#queues.set(slot, queue)
    }
    queue.push({ req, usageA, usageB, months, now, resolve, reject })
    if (queue.length >= BATCH_CAP) {
      this.#queues.delete(slot)
      this.#call(queue)
    } else if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#flush)
    }
    return promise
  }

  readonly #flush = (): void => {
    this.#scheduled = false
    for (const batch of this.#queues.values()) this.#call(batch)
    this.#queues.clear()
  }

  #call(batch: Pending[]): void {
    let call: Promise<Buffer>
    let runs: number[] = []
    try {
      const encoded = encodeBatch(batch)
      runs = encoded.runs
      call = this.#send(encoded.args)
    } catch (err) {
      call = Promise.reject(err)
    }
    call.then(
      (reply) => settle(batch, runs, reply),
      // a failed call fails each of its decisions as a failed call of one did (the caller answers 503)
      (err: unknown) => {
        for (const p of batch) p.reject(err)
      },
    )
  }
}

// consume.lua's arguments for a batch: numkeys, the usage hashes (each once), the batch's numbers as one
// string of little-endian doubles (the hashes' month bounds, 7 per subject: a key under one set of limits,
// the decisions of one key in a turn share one; then 3 per run of decisions: consecutive decisions of one
// subject at one instant: its subject, how many, the instant), then each subject's key id (see the
// script's header). A turn's requests on one key are one run, so what redis-server parses and the script
// loops over per decision is only the decision itself; the numbers are one argument, unpacked in C.
// Also the length of each run, in order: the script answers per run (settle below).
export function encodeBatch(
  batch: readonly Pick<Pending, 'req' | 'usageA' | 'usageB' | 'months' | 'now'>[],
): {
  args: BatchArgs
  runs: number[]
} {
  const keys: string[] = []
  const bounds: number[] = []
  const index = new Map<string, number>()
  const indexOf = (key: string, month: MonthArgs): number => {
    let i = index.get(key)
    if (i === undefined) {
      keys.push(key)
      bounds.push(month.start, month.end)
      i = keys.length
      index.set(key, i)
    }
    return i
  }
  const subjects: number[] = []
  const keyIds: string[] = []
  // per key id, the subjects (their first decision, and index) it has in this batch
  const byKey = new Map<string, { first: (typeof batch)[number]; index: number }[]>()
  const runs: number[] = []
  for (const p of batch) {
    const { req } = p
    const now = p.now ?? REDIS_TIME
    let known = byKey.get(req.keyId)
    let subject = known?.find(({ first: f }) => sameSubject(f, p))?.index
    if (subject === undefined) {
      keyIds.push(req.keyId)
      subject = keyIds.length
      subjects.push(
        indexOf(p.usageA, p.months[0]),
        indexOf(p.usageB, p.months[1]),
        req.keyRatePerSecond,
        req.workspaceRatePerSecond,
        req.monthlyQuota,
        req.keyMonthlyQuota ?? -1,
        req.rateOnly === true ? 0 : 1,
      )
      if (known === undefined) {
        known = []
        byKey.set(req.keyId, known)
      }
      known.push({ first: p, index: subject })
    }
    const last = runs.length - 3
    if (last >= 0 && runs[last] === subject && runs[last + 2] === now) runs[last + 1]! += 1
    else runs.push(subject, 1, now)
  }
  const lengths: number[] = []
  for (let r = 1; r < runs.length; r += 3) lengths.push(runs[r]!)
  return { args: [keys.length, keys, packDoubles(bounds, subjects, runs), keyIds], runs: lengths }
}

function packDoubles(...parts: number[][]): Buffer {
  let n = 0
  for (const part of parts) n += part.length
  const out = Buffer.allocUnsafe(n * DOUBLE)
  let at = 0
  for (const part of parts) for (const x of part) at = out.writeDoubleLE(x, at)
  return out
}

// Two decisions of one key share a subject when everything the script takes per subject is the same
// (a plan change can land between two requests of one turn).
function sameSubject(
  a: Pick<Pending, 'req' | 'usageA' | 'usageB'>,
  b: Pick<Pending, 'req' | 'usageA' | 'usageB'>,
): boolean {
  const x = a.req
  const y = b.req
  return (
    x.keyRatePerSecond === y.keyRatePerSecond &&
    x.workspaceRatePerSecond === y.workspaceRatePerSecond &&
    x.monthlyQuota === y.monthlyQuota &&
    x.keyMonthlyQuota === y.keyMonthlyQuota &&
    (x.rateOnly === true) === (y.rateOnly === true) &&
    a.usageA === b.usageA &&
    a.usageB === b.usageB
  )
}

// Each decision of the reply to the request that asked for it, in order: the reply holds RUN_STRIDE numbers
// per run of the batch (`runs`: their lengths, from encodeBatch), each run's decisions taken again from
// them (decodeRun).
export function settle(
  batch: readonly Pick<Pending, 'req' | 'resolve' | 'reject'>[],
  runs: readonly number[],
  reply: Buffer,
): void {
  const count = runs.length * RUN_STRIDE
  if (reply.length !== count * DOUBLE) {
    const err = new Error(`anvil: ${reply.length} bytes for ${runs.length} runs of ${batch.length} decisions`)
    for (const p of batch) p.reject(err)
    return
  }
  const values = new Array<number>(count)
  for (let i = 0; i < count; i++) values[i] = reply.readDoubleLE(i * DOUBLE)
  let first = 0
  for (let r = 0; r < runs.length; r++) {
    const run = batch.slice(first, first + runs[r]!)
    first += runs[r]!
    const decisions = decodeRun(
      values,
      r * RUN_STRIDE,
      run.map((p) => p.req),
    )
    for (let i = 0; i < run.length; i++) {
      const d = decisions[i]!
      if (d instanceof Error) run[i]!.reject(d)
      else run[i]!.resolve(d)
    }
  }
}
