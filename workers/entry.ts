import { performance } from 'node:perf_hooks'
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina'
import { errorValue, isAppError } from '../src/errors.ts'
import { okEnvelopeValueBytes } from '../src/lib/envelope.ts'
import { parseAndValidate } from '../src/lib/raw-json.ts'
import { parseJsonExact } from '../src/ops/json/number.ts'
import { exactNumbers, isOpName, OPERATIONS, type OpSpec } from '../src/ops/registry.ts'
import { markStarted, reportProgress } from './boards.ts'
import { afterTask } from './memory.ts'
import { idleSchedulingForThisThread } from './policy.ts'
import type { StreamTask, StreamTaskResult, Task, TaskReply, ThreadData } from './protocol.ts'
import { runStreamTask } from './stream.ts'
import { isStreamTask } from './stream-protocol.ts'
import { prepareThread } from './warmup.ts'

// a pool thread, of any tier, yields the CPU to the event loop the moment it is wanted (src/exec/pools.ts)
idleSchedulingForThisThread()
// a pool started warm: load and warm every hot op before the first task (workers/warmup.ts)
// (outside a pool, e.g. a test calling the entry directly, there is no thread data)
const thread = workerData as Partial<ThreadData> | undefined
await prepareThread(thread)

function spec(op: string): OpSpec {
  if (!isOpName(op)) throw new Error(`unknown operation ${op}`)
  return OPERATIONS[op] as OpSpec
}

// The progress callback of a task's operation: into the task's slot of the pool's progress board, read by
// whoever waits for it (src/exec/progress-board.ts). None outside a pool (tests call the entry directly).
function progressOf(slot: number | undefined): ((fraction: number) => void) | undefined {
  const board = thread?.progress
  if (!board || slot === undefined) return undefined
  return (fraction) => reportProgress(board, slot, fraction)
}

// What a task does, by kind; `bytes` replies are a response body the gateway sends without touching it.
async function work(task: Task): Promise<{ value?: unknown; json?: string; bytes?: Uint8Array }> {
  switch (task.kind) {
    case 'op': {
      const op = spec(task.op)
      const value = await op.run(task.input)
      return task.envelope ? { bytes: okEnvelopeValueBytes(value, op.jsonBytes) } : { value }
    }
    case 'raw': {
      const op = spec(task.op)
      if (!op.body) throw new Error(`${task.op} takes no raw body`)
      const parse = exactNumbers(task.op) ? parseJsonExact : JSON.parse
      const body = parseAndValidate(task.raw, op.body, parse) as Record<string, unknown>
      const value = await op.run(task.with ? { ...body, ...task.with } : body)
      if (!task.octets) return { bytes: okEnvelopeValueBytes(value, op.jsonBytes) }
      if (!op.octets) throw new Error(`${task.op} has no raw-bytes answer`)
      return { bytes: op.octets(value) }
    }
    // loaded on a thread's first job task: a thread that only serves requests boots without it
    case 'job.prepare':
      return { value: (await import('./jobs.ts')).prepareBody(task.raw) }
    case 'job.run': {
      const { runBody } = await import('./jobs.ts')
      return { json: await runBody(task.raw, task.maxResultBytes, progressOf(task.slot)) }
    }
  }
}

// A reply whose bytes move to the main thread instead of being copied there: a copy of a large answer
// (17 MB for a 4 MiB url.build body) would be the event loop's to make.
function transferred(reply: TaskReply, bytes: Uint8Array): TaskReply {
  return move({ [transferableSymbol]: bytes.buffer, [valueSymbol]: reply }) as unknown as TaskReply
}

// The one Piscina entry, for requests and jobs alike: a pure function of a plain object. It notes on the
// pool's start board when it picked the task up (the compute budget counts from there). Expected failures
// come back as values (AppError does not survive the thread boundary); anything else is a bug and rejects.
export default async function runTask(task: Task | StreamTask): Promise<TaskReply | StreamTaskResult> {
  const startedAt = performance.timeOrigin + performance.now()
  const board = thread?.starts
  if (board && task.slot !== undefined) markStarted(board, task.slot, startedAt)
  if (isStreamTask(task)) return runStreamTask(task, startedAt)
  const elapsed = () => performance.timeOrigin + performance.now() - startedAt
  try {
    const reply: TaskReply = { ok: true, ...(await work(task)), startedAt, runMs: elapsed() }
    return reply.bytes ? transferred(reply, reply.bytes) : reply
  } catch (err) {
    if (!isAppError(err)) throw err
    return { ok: false, error: errorValue(err), startedAt, runMs: elapsed() }
  } finally {
    // a large task's heap is given back once the thread is idle (workers/memory.ts)
    afterTask(elapsed())
  }
}
