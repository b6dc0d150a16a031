import { performance } from 'node:perf_hooks'
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina'
import { errorValue, isAppError, overMemoryBudget } from '../src/errors.ts'
import { answerBytes, parseOpBytes, withAdded } from '../src/ops/answer.ts'
import { catalogWith } from '../src/ops/catalog.ts'
import type { AnyOp } from '../src/ops/define.ts'
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
// the ops this thread runs: the built-in ones, and those of the modules its pool names (a test's)
const catalog = await catalogWith(thread?.opModules ?? [])
await prepareThread(thread, catalog)

function opNamed(name: string): AnyOp {
  const op = catalog.named(name)
  if (!op) throw new Error(`unknown operation ${name}`)
  return op
}

// A body parsed here was admitted by the most its caps allow, clamped to the pool's budget
// (src/exec/submit.ts): the request it turned out to be may not ask for more than was taken.
function holdToMemory(op: AnyOp, input: unknown, taken: number): void {
  const needs = op.cost.memoryBytes?.(input) ?? 0
  if (needs > taken) throw overMemoryBudget('The operation', needs, taken)
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
      const op = opNamed(task.op)
      const body = task.raw === undefined ? task.input : parseOpBytes(op, task.raw)
      const input = withAdded(body, task.with)
      if (task.memoryBytes !== undefined) holdToMemory(op, input, task.memoryBytes)
      const value = await op.run(input, { caps: task.caps, tenant: task.tenant })
      return { bytes: answerBytes(op, value, task.octets) }
    }
    // loaded on a thread's first job task: a thread that only serves requests boots without it
    case 'job.prepare':
      return { value: (await import('./jobs.ts')).prepareBody(catalog, task.raw) }
    case 'job.run': {
      const { runBody } = await import('./jobs.ts')
      const progress = progressOf(task.slot)
      return {
        json: await runBody(catalog, task.raw, task.maxResultBytes, {
          caps: task.caps,
          tenant: task.tenant,
          progress,
        }),
      }
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
  if (isStreamTask(task)) return runStreamTask(catalog, task, startedAt)
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
