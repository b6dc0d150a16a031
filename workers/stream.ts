import { performance } from 'node:perf_hooks'
import { errorValue, isAppError } from '../src/errors.ts'
import { ownBytes } from '../src/lib/own-bytes.ts'
import type { Catalog } from '../src/ops/catalog.ts'
import type { StreamStep } from '../src/ops/stream-step.ts'
import {
  type FromThread,
  METER_BUSY,
  METER_BYTES,
  METER_SINCE,
  OUTPUT_WINDOW,
  type StreamTask,
  type StreamTaskResult,
  type ToThread,
} from './stream-protocol.ts'

const now = () => performance.timeOrigin + performance.now()
const SLICE = 64 * 1024
const ACK_EVERY = 256 * 1024
// this thread's CPU time in ms (user + system): what the op costs, whatever else the machine runs
function cpuMs(): number {
  const { user, system } = process.threadCpuUsage()
  return (user + system) / 1000
}

// Thread side of a streamed body (the op thread calls it for a task of kind 'stream'): reads the body's
// bytes in place from the task's ring as the main side announces them on the task's port, runs them through
// the op piece by piece, sends the output back (moved, not copied, where the thread owns the bytes) and
// acknowledges what it has read, which gives the main side its room back. The op never keeps a view of
// the ring past a write (the formatter, encoders and hashers copy what they carry over). It waits
// while the main side holds OUTPUT_WINDOW bytes it has not handed on. Only the time spent processing
// counts towards the compute budget; the thread is idle, and charged nothing, while the body is in transit.
export async function runStreamTask(
  catalog: Catalog,
  task: StreamTask,
  startedAt: number,
): Promise<StreamTaskResult> {
  const { port, budgetMs } = task
  const meter = new Float64Array(task.meter)
  const inbox: ToThread[] = []
  let outstanding = 0
  let cancelled = false
  let wake: (() => void) | undefined
  port.on('message', function onMessage(message: ToThread) {
    if (message.t === 'credit') outstanding -= message.bytes
    else if (message.t === 'cancel') cancelled = true
    else inbox.push(message)
    const resume = wake
    wake = undefined
    resume?.()
  })
  async function until(ready: () => boolean): Promise<void> {
    while (!ready() && !cancelled) await new Promise<void>((resolve) => (wake = resolve))
  }
  function post(message: FromThread, transfer?: ArrayBuffer[]): void {
    port.postMessage(message, transfer)
  }
  // an answer built as one envelope keeps the output here until the end (bounded by the op's own output
  // budget: src/ops/json/format/format.ts outputCap; and by the buffered body limit for Base64)
  let held: Uint8Array[] | undefined = task.job.octets ? undefined : []
  function send(piece: Uint8Array): void {
    if (piece.length === 0) return
    if (held) {
      held.push(ownBytes(piece))
      return
    }
    outstanding += piece.length
    // a view of a larger buffer is copied once into one of its own, which then moves (not cloned again)
    const owned = ownBytes(piece)
    post({ t: 'out', chunk: owned }, [owned.buffer as ArrayBuffer])
  }
  // One piece at a time: the budget counts the thread's CPU time while the op works (on a loaded machine
  // wall time would charge the tenant for other work), checked between pieces. The main side kills the
  // thread if a single piece runs on far past it (src/exec/stream-run.ts), from the wall-clock start the
  // thread notes here.
  async function run(pieces: Iterable<Uint8Array>): Promise<void> {
    const iterator = pieces[Symbol.iterator]()
    for (;;) {
      meter[METER_SINCE] = now()
      const from = cpuMs()
      let next: IteratorResult<Uint8Array>
      try {
        next = iterator.next()
      } finally {
        meter[METER_BUSY]! += cpuMs() - from
        meter[METER_SINCE] = 0
      }
      if (meter[METER_BUSY]! > budgetMs) throw new OverBudget()
      if (next.done) return
      send(next.value)
      if (outstanding >= OUTPUT_WINDOW) await until(() => outstanding < OUTPUT_WINDOW)
      if (cancelled) return
    }
  }
  const finished = (): StreamTaskResult => ({ ok: true, startedAt, runMs: meter[METER_BUSY]!, cancelled })
  const ring = new Uint8Array(task.ring)
  // the body's bytes read from the ring so far, and those not yet acknowledged
  let readTo = 0
  let unacked = 0
  try {
    const step = stepOf(catalog, task.job)
    for (;;) {
      await until(() => inbox.length > 0)
      if (cancelled) return finished()
      const message = inbox.shift()!
      if (message.t === 'data') {
        // read in place, in slices that do not wrap, so that the budget is checked, and the bytes
        // processed counted, at least every 64 KiB; acknowledged every ACK_EVERY bytes so that the main
        // side refills the ring while this thread works
        while (readTo < message.end) {
          const at = readTo % ring.length
          const n = Math.min(message.end - readTo, ring.length - at, SLICE)
          await run(step.write(ring.subarray(at, at + n)))
          if (cancelled) return finished()
          meter[METER_BYTES]! += n
          readTo += n
          unacked += n
          if (unacked >= ACK_EVERY || readTo === message.end) {
            post({ t: 'ack', bytes: unacked })
            unacked = 0
          }
        }
        continue
      }
      await run([step.end()])
      if (cancelled) return finished()
      const bytes = meter[METER_BYTES]!
      if (held) {
        const output = held
        held = undefined
        // metered like any piece: the envelope of a large answer is real work (escaping, encoding)
        await run(envelopeOf(step, output, bytes))
      }
      post({ t: 'done', result: { bytes } })
      return finished()
    }
  } catch (err) {
    // stopped at the budget: answered by the one failure table as a task killed there would be
    // (src/exec/pool-failure.ts), with the bytes it had processed
    const runMs = meter[METER_BUSY]!
    if (err instanceof OverBudget)
      return { ok: false, overBudget: true, bytesProcessed: meter[METER_BYTES]!, startedAt, runMs }
    // an expected failure (bad input, a limit) is the task's answer; anything else is a bug and rejects it
    if (!isAppError(err)) throw err
    return { ok: false, error: errorValue(err), startedAt, runMs: meter[METER_BUSY]! }
  } finally {
    port.removeAllListeners('message')
    port.close()
  }
}

// The whole answer of an envelope job as one piece: the success envelope around what the op made of the
// body, serialized and UTF-8 encoded here (a 100 MiB Base64 answer held the event loop for hundreds of ms
// when concatenated, decoded, escaped and encoded there; the op's StreamStep.answer makes it from the output's bytes).
// Its ArrayBuffer is its own: it moves, uncopied.
export function* envelopeOf(step: StreamStep, held: Uint8Array[], bytes: number): Generator<Uint8Array> {
  const answer = step.answer(held, bytes)
  held.length = 0
  yield answer
}

// Stopped by this thread at the budget (its CPU time, checked between pieces).
class OverBudget extends Error {}

// The op's step for this body (OpDescriptor.stream.step).
function stepOf(catalog: Catalog, job: StreamTask['job']): StreamStep {
  const stream = catalog.named(job.op)?.stream
  if (!stream) throw new Error(`${job.op} takes no streamed body`)
  return stream.step(job.options, job.octets, job.caps)
}
