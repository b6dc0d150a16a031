import { stat } from 'node:fs'
import { Piscina } from 'piscina'
import type { ThreadData, ThreadSources } from '../../workers/protocol.ts'
import { roomForThreadHeaps } from '../lib/gc.ts'
import { catalogFiles } from '../ops/catalog.ts'
import { PoolAdmission } from './admission.ts'
import { MemoryGate } from './memory-gate.ts'
import { ProgressBoard } from './progress-board.ts'
import { StartBoard } from './start-board.ts'
import { threadSources } from './thread-sources.ts'

// the plan tiers' pools (a workspace listed in DEDICATED_POOLS has one of its own)
export type Tier = 'free' | 'paid'

export interface PoolConfig {
  threads: number
  // tasks allowed to wait beyond the running ones; more get 503 ERR_OVERLOADED
  queue: number
  memoryMb: number
  // what the tasks running on the pool may hold outside the V8 heap at once (memory-gate.ts)
  offHeapMb: number
}

// The pools' settings (POOL_* and DEDICATED_POOLS, read by src/config.ts and handed down).
export interface PoolsConfig {
  free: PoolConfig
  paid: PoolConfig
  // workspace id → threads, each a pool of its own with the paid pool's queue depth and memory
  dedicated: Record<string, number>
  // start every thread at boot (production) or on first use (tests, tools)
  warm: boolean
  // how long a large body waits, unread, for a place on its full pool before a 503 (0: refuse at once)
  admissionWaitMs: number
}

export interface NamedPool {
  name: string
  piscina: Piscina
  // running + queued tasks the pool accepts, and the places held for large bodies still arriving
  admission: PoolAdmission
  // admission by memory: the off-heap bytes of its running tasks stay within the pool's budget
  memory: MemoryGate
  // when each of its tasks started running, shared with its threads (compute budgets count from there)
  starts: StartBoard
  // how far each of its tasks has got, as its operation reported (jobs' progress), same slots
  progress: ProgressBoard
  // whether every thread started at boot has loaded and warmed its ops (workers/warmup.ts)
  warm(): boolean
}

export interface PoolSet {
  all(): NamedPool[]
  // every pool's boot threads are warm (always true when threads start on first use): /readyz waits on it
  warm(): boolean
  // the pool a workspace's work runs on: its dedicated pool, else its plan tier's
  pick(workspaceId: string, tier: Tier): NamedPool
  close(): Promise<void>
}

// A thread starts in boot.mjs, which loads the entry's modules from the JavaScript handed to it
// (thread-sources.ts: pool threads run no WebAssembly)
const BOOT = new URL('../../workers/boot.mjs', import.meta.url).href
const ENTRY = new URL('../../workers/entry.ts', import.meta.url).href

// Every pool thread asks for SCHED_IDLE (Linux, workers/policy.ts): it runs on CPU nothing else
// wants and yields the moment the event loop needs a core, so pool work of any tier never delays the
// requests the event loop answers for every tenant. Nice values alone were not enough: a niced paid thread
// keeps its core until its slice ends, and two pro streams on a 2-core machine raised other tenants'
// small-request p99 from 2.6 to 8.4 ms (bench isolation-stream); under SCHED_IDLE, 2.3 to 3.3 ms. Between
// pools, SCHED_IDLE threads share the CPU equally per busy thread, so the paid tier's larger pool gets the
// larger share (docs/decisions.md). The nice values are the fallback where SCHED_IDLE is not available.
const NICE = { free: 10, paid: 5 } as const

// A runaway operation kills its own thread, never the process (old generation: the plan tier's memory).
// The young generation is capped at 32 MiB (it was 64): what a thread keeps committed after a burst of
// allocation is bounded by it, and the 100k-item diff of bench/diff-memory.ts still runs within budget.
function threadLimits(memoryMb: number) {
  return { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 8 }
}

function createPool(
  name: string,
  config: PoolConfig,
  warm: boolean,
  nice: number,
  opModules: readonly string[],
  sources: ThreadSources,
): NamedPool {
  const capacity = config.threads + config.queue
  const starts = new StartBoard(capacity)
  const progress = new ProgressBoard(capacity)
  // each thread adds one here once its ops are loaded and warm (a replacement thread adds again: the count
  // only says the boot threads got there, and a replaced thread does not make the gateway unready)
  const warmed = new Int32Array(new SharedArrayBuffer(4))
  // requests on the pool (arriving, waiting or running) and requests come to it so far: admission keeps
  // them, threads read them (workers/memory.ts)
  const busy = new Int32Array(new SharedArrayBuffer(8))
  const piscina = new Piscina({
    filename: BOOT,
    // warm: every thread exists from boot and warms up before /readyz says ready (issue 14)
    minThreads: warm ? config.threads : 0,
    maxThreads: config.threads,
    maxQueue: config.queue,
    idleTimeout: 60_000,
    // 'async': an idle thread waits with Atomics.waitAsync, so its event loop runs and it can collect
    // its garbage between tasks ('sync' blocks the thread's loop while it waits for work)
    atomics: 'async',
    resourceLimits: threadLimits(config.memoryMb),
    workerData: {
      pool: name,
      starts: starts.buffer,
      progress: progress.buffer,
      warmUp: warm,
      warmed: warmed.buffer,
      busy: busy.buffer,
      ...(opModules.length > 0 ? { opModules } : {}),
      sources,
    } satisfies ThreadData,
    closeTimeout: 5_000,
    niceIncrement: nice,
  })
  // a worker that dies between tasks surfaces here; the task-level error is handled by the dispatcher
  piscina.on('error', () => {})
  return {
    name,
    piscina,
    admission: new PoolAdmission(capacity, config.threads, busy),
    memory: new MemoryGate(config.offHeapMb * 1024 * 1024),
    starts,
    progress,
    warm: () => !warm || Atomics.load(warmed, 0) >= config.threads,
  }
}

// libuv's threadpool (fs, crypto, zlib, DNS for the whole process, event loop included) starts its threads
// when work is first queued on it, from the thread that queued it, and Linux threads inherit the creating
// thread's policy: started by a pool thread under SCHED_IDLE (workers/policy.ts), every threadpool thread
// would run idle too, and the event loop's compression and file work with it. So the event loop queues a
// trivial job before any pool thread exists (createPools), which starts the threadpool from here.
function startThreadpoolOnThisThread(): void {
  stat('.', () => {})
}

// Created at boot, destroyed on close: a free pool, a paid pool, and one pool per dedicated workspace.
// `opModules`: modules declaring ops beyond the built-in ones, loaded by every thread (a test's ops).
export function createPools(config: PoolsConfig, opModules: readonly string[] = []): PoolSet {
  startThreadpoolOnThisThread()
  // before any thread is made: V8 reads it when it creates a thread's heap
  roomForThreadHeaps()
  const sources = threadSources([ENTRY, ...catalogFiles(), ...opModules])
  const free = createPool('free', config.free, config.warm, NICE.free, opModules, sources)
  const paid = createPool('paid', config.paid, config.warm, NICE.paid, opModules, sources)
  // named by position, not by workspace id: pool names are metric labels and must stay few and anonymous
  const dedicated = new Map(
    Object.entries(config.dedicated).map(([workspaceId, threads], i) => [
      workspaceId,
      createPool(
        `dedicated-${i + 1}`,
        { ...config.paid, threads },
        config.warm,
        NICE.paid,
        opModules,
        sources,
      ),
    ]),
  )
  const all = [free, paid, ...dedicated.values()]
  return {
    all: () => all,
    warm: () => all.every((p) => p.warm()),
    pick(workspaceId, tier) {
      return dedicated.get(workspaceId) ?? (tier === 'free' ? free : paid)
    },
    async close() {
      await Promise.all(all.map((p) => p.piscina.close()))
    },
  }
}
