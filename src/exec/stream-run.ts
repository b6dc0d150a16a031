import { performance } from 'node:perf_hooks'
import type { Readable } from 'node:stream'
import { MessageChannel } from 'node:worker_threads'
import { overBudget } from '../../workers/stream.ts'
import {
  type FromThread,
  INPUT_WINDOW,
  METER_BUSY,
  METER_BYTES,
  METER_SINCE,
  METER_SLOTS,
  type StreamJob,
  type StreamResult,
  type StreamTask,
  type StreamTaskResult,
  type ToThread,
} from '../../workers/stream-protocol.ts'
import { AppError, ERRORS, type ErrorCode } from '../errors.ts'
import { noteStreamedBytes } from '../lib/gc.ts'
import type { PlanLimits } from '../limits/plans.ts'
import type { PoolMetrics } from './metrics.ts'
import type { NamedPool, PoolSet } from './pools.ts'
import { BUDGET_EXCEEDED, QUEUE_TIMEOUT } from './start-board.ts'

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
// a task that waits longer than this for a thread (at least the plan's budget) is refused as overload
const MIN_QUEUE_WAIT_MS = 5_000
// A task over its budget is stopped by the thread itself between two pieces (each bounded: one input
// chunk, or 64 KiB of output). The main side kills the thread only when a single piece runs on, in wall
// time, past the CPU time left of the budget plus this grace (the budget itself, at least 50 ms): e.g.
// sort_keys printing one huge held object, or a thread stuck. Wall time runs faster than CPU time on a
// loaded machine, hence the grace.
const MIN_KILL_GRACE_MS = 50
// a client gone: the thread ends the task between two pieces; killed if it has not within this
const CANCEL_GRACE_MS = 250

const now = () => performance.timeOrigin + performance.now()
const ignore = () => {}

function overloaded(pool: string): AppError {
  return new AppError('ERR_OVERLOADED', undefined, { pool }, { 'retry-after': '1' })
}

function clientGone(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
}

// Raw request bodies (json/format, base64 both ways, hashing) stream chunk by chunk to a thread of the
// plan's pool: the event loop only moves bytes. Per task, a shared ring carries the body's bytes and a
// MessageChannel the announcements, acknowledgements and the output back; the ring's size (INPUT_WINDOW)
// and OUTPUT_WINDOW bound the bytes in flight each way, for backpressure end to end; the compute budget
// counts the thread's busy time only.
export function createStreamRunner(
  pools: PoolSet,
  metrics: PoolMetrics,
  options: { admissionWaitMs: number },
): StreamRunner {
  async function admit(pool: NamedPool, job: StreamJob, ctx: StreamContext) {
    const { reservation, admitted } = pool.admission.reserve(ctx.workspaceId, options.admissionWaitMs, () =>
      metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome: 'overloaded' }),
    )
    const giveBack = () => pool.admission.cancel(reservation)
    ctx.signal.addEventListener('abort', giveBack, { once: true })
    const ok = await admitted
    ctx.signal.removeEventListener('abort', giveBack)
    if (ctx.signal.aborted) {
      pool.admission.cancel(reservation)
      throw clientGone()
    }
    if (!ok) throw overloaded(pool.name)
    if (!pool.admission.start(reservation, ctx.workspaceId)) throw overloaded(pool.name)
  }

  async function open(job: StreamJob, source: NodeJS.ReadableStream, ctx: StreamContext) {
    const pool = pools.pick(ctx.workspaceId, ctx.limits.pool)
    await admit(pool, job, ctx)
    const slot = pool.starts.acquire()
    if (slot === undefined) {
      pool.admission.finish(ctx.workspaceId)
      metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome: 'overloaded' })
      throw overloaded(pool.name)
    }
    metrics.dispatch.inc({ op: job.kind, mode: 'pool' })
    return start(pool, slot, job, source as Readable, ctx)
  }

  function start(
    pool: NamedPool,
    slot: number,
    job: StreamJob,
    source: Readable,
    ctx: StreamContext,
  ): StreamHandle {
    const budget = ctx.limits.compute_budget_ms
    const { port1: port, port2 } = new MessageChannel()
    const meterBuffer = new SharedArrayBuffer(8 * METER_SLOTS)
    const meter = new Float64Array(meterBuffer)
    const ringBuffer = new SharedArrayBuffer(RING)
    const ring = new Uint8Array(ringBuffer)
    const controller = new AbortController()
    const submitted = now()
    const task: StreamTask = {
      kind: 'stream',
      job,
      port: port2,
      ring: ringBuffer,
      budgetMs: budget,
      meter: meterBuffer,
      slot,
    }

    // what the output generator waits on
    const output: Uint8Array[] = []
    let result: StreamResult | undefined
    let failure: unknown
    let settled = false
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
        case 'error': {
          const { code, message: text, details } = message.error
          const known = (Object.hasOwn(ERRORS, code) ? code : 'ERR_INTERNAL') as ErrorCode
          fail(new AppError(known, text, details))
          break
        }
      }
      signal()
    })

    // A turn at the pool's threads, round-robin across workspaces like every other task
    // (src/exec/fair-turns.ts), held for the whole stream: the task occupies its thread until the body ends.
    // Piscina: the task ends when the thread returns; a kill (budget, cancel) or crash rejects
    let turn = false
    const finished = pool.admission.turns
      .acquire(ctx.workspaceId, controller.signal)
      .then(() => {
        turn = true
        return pool.piscina.run(task, { signal: controller.signal, transferList: [port2] as never })
      })
      .then(
        (done: StreamTaskResult) => {
          runMs = done.runMs
          waitMs = Math.max(0, done.startedAt - submitted)
          metrics.wait.observe({ pool: pool.name, op: job.kind }, waitMs / 1000)
          metrics.run.observe({ pool: pool.name, op: job.kind }, done.runMs / 1000)
          metrics.busy.inc({ pool: pool.name }, done.runMs / 1000)
          const outcome = failure instanceof AppError ? 'error' : 'ok'
          if (!done.cancelled) metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome })
        },
        (err: unknown) => {
          runMs = meter[METER_BUSY]!
          metrics.busy.inc({ pool: pool.name }, runMs / 1000)
          fail(killed(err, controller.signal.reason))
        },
      )
      .finally(() => {
        settled = true
        clearTimeout(watchdog)
        clearTimeout(cancelTimer)
        if (turn) pool.admission.turns.release()
        pool.starts.release(slot)
        pool.admission.finish(ctx.workspaceId)
        // messages the thread sent before returning are already queued on the port: let them arrive
        setImmediate(() => {
          if (result === undefined && failure === undefined) fail(new AppError('ERR_INTERNAL'))
          port.close()
        })
        signal()
      })

    function killed(err: unknown, reason: unknown): unknown {
      if (reason === QUEUE_TIMEOUT) {
        metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome: 'overloaded' })
        return overloaded(pool.name)
      }
      if (reason === BUDGET_EXCEEDED) {
        metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome: 'timeout' })
        metrics.restarts.inc({ pool: pool.name })
        return overBudget(budget, meter[METER_BYTES]!)
      }
      if (reason === 'cancelled') {
        metrics.restarts.inc({ pool: pool.name })
        return clientGone()
      }
      metrics.outcomes.inc({ pool: pool.name, op: job.kind, outcome: 'crash' })
      metrics.restarts.inc({ pool: pool.name })
      return Object.assign(new AppError('ERR_INTERNAL'), { cause: err })
    }

    // The budget watch: time queued for a thread past the wait is overload; CPU time so far plus a piece
    // still running past the budget and its grace kills the thread. Time waiting for the network costs
    // nothing.
    const maxWaitMs = Math.max(budget, MIN_QUEUE_WAIT_MS)
    let watchdog: NodeJS.Timeout
    function watch(): void {
      const at = now()
      if (pool.starts.startedAt(slot) === undefined) {
        if (at - submitted >= maxWaitMs) controller.abort(QUEUE_TIMEOUT)
        else watchdog = setTimeout(watch, Math.max(10, Math.min(budget, submitted + maxWaitMs - at)))
        return
      }
      const since = meter[METER_SINCE]!
      const busy = meter[METER_BUSY]! + (since > 0 ? at - since : 0)
      const left = budget + Math.max(MIN_KILL_GRACE_MS, budget) - busy
      if (left <= 0) controller.abort(BUDGET_EXCEEDED)
      else watchdog = setTimeout(watch, Math.max(10, left))
    }
    watchdog = setTimeout(watch, Math.min(budget, maxWaitMs))

    // the client gone: the thread ends the task between two pieces, or is killed
    let cancelTimer: NodeJS.Timeout | undefined
    function cancel(): void {
      if (settled) return
      stopReading()
      port.postMessage({ t: 'cancel' } satisfies ToThread)
      cancelTimer ??= setTimeout(() => controller.abort('cancelled'), CANCEL_GRACE_MS)
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
      timing: () => ({ where: pool.name, waitMs, runMs }),
    }
  }

  return { open }
}
