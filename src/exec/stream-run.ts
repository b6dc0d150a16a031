import type { Readable } from 'node:stream'
import { MessageChannel } from 'node:worker_threads'
import {
  type FromThread,
  INPUT_WINDOW,
  METER_BUSY,
  METER_SLOTS,
  type StreamJob,
  type StreamResult,
  type StreamTask,
  type ToThread,
} from '../../workers/stream-protocol.ts'
import { AppError } from '../errors.ts'
import { noteStreamedBytes } from '../lib/gc.ts'
import type { PlanLimits } from '../limits/plans.ts'
import type { Reservation } from './admission.ts'
import type { PoolMetrics } from './metrics.ts'
import { failureError } from './pool-failure.ts'
import type { PoolSet } from './pools.ts'
import { cancel as giveBack, reserve, submit, type Tenant } from './submit.ts'

export interface StreamContext {
  workspaceId: string
  limits: PlanLimits
  // body limit in bytes, enforced on the bytes actually received
  limit: number
  // aborts when the client is gone (the response closed): the task ends and its thread is freed
  signal: AbortSignal
}

export interface StreamHandle {
  // the op's output as the thread makes it; returns what the op knows about the whole body. Throws an
  // AppError (bad input, 413, 422) or the body's own error (the client hung up). Leaving it early ends
  // the task.
  output: AsyncGenerator<Uint8Array, StreamResult>
  // for Server-Timing, once the output is done: the pool, the wait for a thread, the busy time on it
  timing(): { where: string; waitMs: number; runMs: number }
}

export interface StreamRunner {
  // A place on the plan's pool (waiting, with the body unread, up to the admission wait; 503 when none
  // came), then a task on one of its threads that the body streams to.
  open(job: StreamJob, source: NodeJS.ReadableStream, ctx: StreamContext): Promise<StreamHandle>
}

// The input ring's size: the bytes in flight to the thread. Copying each TLS record (16 KiB, 2-5 µs)
// into shared memory the thread reads in place allocates nothing per chunk on either side; moving chunks
// or batches as ArrayBuffers allocated external memory at the body's rate in both isolates, which V8
// answers with full collections (docs/dispatch.md, "Streaming on the pool").
const RING = INPUT_WINDOW
// a client gone: the thread ends the task between two pieces; killed if it has not within this
const CANCEL_GRACE_MS = 250

const ignore = () => {}

function clientGone(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
}

// Raw request bodies (json/format, base64 both ways, hashing) stream chunk by chunk to a thread of the
// plan's pool: the event loop only moves bytes. Per task, a shared ring carries the body's bytes and a
// MessageChannel the announcements, acknowledgements and the output back; the ring's size (INPUT_WINDOW)
// and OUTPUT_WINDOW bound the bytes in flight each way, for backpressure end to end. The task reaches the
// pool like any other (src/exec/submit.ts: admission, fair turns, Piscina, the budget watch: here the CPU
// time its thread meters), and its failures are answered by the one table (src/exec/pool-failure.ts).
export function createStreamRunner(
  pools: PoolSet,
  metrics: PoolMetrics,
  options: { admissionWaitMs: number },
): StreamRunner {
  // a place on the pool, waiting with the body unread; the client gone while it waits gives it back
  async function admit(tenant: Tenant, job: StreamJob, ctx: StreamContext) {
    const count = { metrics, op: job.op }
    const { reservation, admitted, pool } = reserve(pools, tenant, options.admissionWaitMs, count)
    const onGone = () => giveBack(pools, tenant, reservation)
    ctx.signal.addEventListener('abort', onGone, { once: true })
    const ok = await admitted
    ctx.signal.removeEventListener('abort', onGone)
    if (ctx.signal.aborted) {
      giveBack(pools, tenant, reservation)
      throw clientGone()
    }
    if (!ok) throw failureError({ kind: 'overloaded' }, { subject: 'The operation', pool })
    return reservation
  }

  async function open(job: StreamJob, source: NodeJS.ReadableStream, ctx: StreamContext) {
    const tenant = { workspaceId: ctx.workspaceId, tier: ctx.limits.pool }
    const reservation = await admit(tenant, job, ctx)
    return start(tenant, reservation, job, source as Readable, ctx)
  }

  function start(
    tenant: Tenant,
    reservation: Reservation,
    job: StreamJob,
    source: Readable,
    ctx: StreamContext,
  ): StreamHandle {
    const budget = ctx.limits.compute_budget_ms
    const { port1: port, port2 } = new MessageChannel()
    const meter = new Float64Array(new SharedArrayBuffer(8 * METER_SLOTS))
    const ringBuffer = new SharedArrayBuffer(RING)
    const ring = new Uint8Array(ringBuffer)
    // the client gone and the thread not ending the task within the grace: the task is aborted
    const kill = new AbortController()
    const task: StreamTask = {
      kind: 'stream',
      job,
      port: port2,
      ring: ringBuffer,
      budgetMs: budget,
      meter: meter.buffer as SharedArrayBuffer,
    }

    // what the output generator waits on
    const output: Uint8Array[] = []
    let result: StreamResult | undefined
    let failure: unknown
    let settled = false
    // the pool the task runs on: known before it runs (a trace's span names it at once)
    const where = pools.pick(tenant.workspaceId, tenant.tier).name
    let runMs = 0
    let waitMs = 0
    let wake: (() => void) | undefined
    function signal(): void {
      const resume = wake
      wake = undefined
      resume?.()
    }
    function fail(err: unknown): void {
      if (failure !== undefined || result !== undefined) return
      failure = err
      stopReading()
      signal()
    }

    // the thread: output, acknowledgements, the end
    port.on('message', function onThreadMessage(message: FromThread) {
      switch (message.t) {
        case 'ack':
          onAck(message.bytes)
          return
        case 'out':
          output.push(message.chunk)
          break
        case 'done':
          result = message.result
          break
      }
      signal()
    })

    // The task holds its place, its start-board slot, its turn at the pool's threads and its thread for
    // the whole stream: it ends when the thread returns, after the body ends (or the client is gone).
    const finished = submit(pools, task, {
      ...tenant,
      budgetMs: budget,
      reservation,
      stop: kill.signal,
      meter,
      count: { metrics, op: job.op },
    })
      .then((outcome) => {
        if (outcome.ok) {
          ;({ waitMs, runMs } = outcome)
          return
        }
        runMs = meter[METER_BUSY]!
        // the client gone: the task was stopped for it, and the answer is the body's own error
        if (outcome.failure.kind === 'stopped') fail(clientGone())
        else fail(failureError(outcome.failure, { subject: 'The operation', pool: outcome.pool }))
      })
      .finally(() => {
        settled = true
        clearTimeout(cancelTimer)
        // messages the thread sent before returning are already queued on the port: let them arrive
        setImmediate(() => {
          if (result === undefined && failure === undefined) fail(new AppError('ERR_INTERNAL'))
          port.close()
        })
        signal()
      })

    // the client gone: the thread ends the task between two pieces, or is killed
    let cancelTimer: NodeJS.Timeout | undefined
    function cancel(): void {
      if (settled) return
      stopReading()
      port.postMessage({ t: 'cancel' } satisfies ToThread)
      cancelTimer ??= setTimeout(() => kill.abort(), CANCEL_GRACE_MS)
    }
    function onClientGone(): void {
      fail(clientGone())
      cancel()
    }
    ctx.signal.addEventListener('abort', onClientGone, { once: true })

    // The request: each chunk copied into the ring as it arrives (what does not fit waits, and the
    // request is paused, until the thread frees room), announced once per turn of the event loop.
    let received = 0
    let written = 0
    let announced = 0
    let acked = 0
    const waiting: Buffer[] = []
    let paused = false
    let ended = false
    let flushing = false
    // copies what fits of the chunk into the ring; returns the bytes copied
    function copyIn(chunk: Buffer): number {
      const room = RING - (written - acked)
      const n = Math.min(room, chunk.length)
      const at = written % RING
      const first = Math.min(n, RING - at)
      ring.set(first === chunk.length ? chunk : chunk.subarray(0, first), at)
      if (n > first) ring.set(chunk.subarray(first, n), 0)
      written += n
      return n
    }
    // the chunks that waited for room, in order, as far as the room goes; then what the ring holds is
    // announced, and the body's end once nothing waits
    function refill(): void {
      while (waiting.length > 0) {
        const chunk = waiting[0]!
        const n = copyIn(chunk)
        if (n < chunk.length) {
          waiting[0] = chunk.subarray(n)
          break
        }
        waiting.shift()
      }
      if (paused && waiting.length === 0 && written - acked < RING / 2) {
        paused = false
        source.resume()
      }
      flush()
    }
    function flush(): void {
      flushing = false
      if (failure !== undefined) return
      if (written > announced) {
        announced = written
        port.postMessage({ t: 'data', end: written } satisfies ToThread)
      }
      if (ended && waiting.length === 0) {
        ended = false
        port.postMessage({ t: 'end' } satisfies ToThread)
      }
    }
    function onAck(bytes: number): void {
      acked += bytes
      refill()
    }
    function onData(chunk: Buffer): void {
      received += chunk.length
      noteStreamedBytes(chunk.length)
      if (received > ctx.limit) {
        fail(new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: ctx.limit }))
        cancel()
        return
      }
      const n = waiting.length === 0 ? copyIn(chunk) : 0
      if (n < chunk.length) {
        waiting.push(n === 0 ? chunk : chunk.subarray(n))
        if (!paused) {
          paused = true
          source.pause()
        }
      }
      if (!flushing) {
        flushing = true
        setImmediate(flush)
      }
    }
    function onEnd(): void {
      stopReading()
      ended = true
      flush()
    }
    function onError(err: Error): void {
      fail(err)
      cancel()
    }
    // listeners are removed rather than the stream destroyed, so a 413 can still be answered
    function stopReading(): void {
      source.removeListener('data', onData)
      source.removeListener('end', onEnd)
      if (source.listeners('error').includes(onError)) {
        source.removeListener('error', onError)
        // the rest of the body is left unread: a later error of it (the client hanging up) is no one's
        source.on('error', ignore)
      }
      ctx.signal.removeEventListener('abort', onClientGone)
    }
    source.on('data', onData)
    source.on('end', onEnd)
    source.on('error', onError)

    async function* pieces(): AsyncGenerator<Uint8Array, StreamResult> {
      let complete = false
      try {
        for (;;) {
          const piece = output.shift()
          if (piece) {
            noteStreamedBytes(piece.length)
            port.postMessage({ t: 'credit', bytes: piece.length } satisfies ToThread)
            yield piece
            continue
          }
          if (failure !== undefined) throw failure
          if (result !== undefined) {
            complete = true
            await finished
            return result
          }
          await new Promise<void>((resolve) => (wake = resolve))
        }
      } finally {
        // left early (an error, the response destroyed): the task ends now
        if (!complete) {
          stopReading()
          cancel()
        }
      }
    }

    return {
      output: pieces(),
      timing: () => ({ where, waitMs, runMs }),
    }
  }

  return { open }
}
