import { performance } from 'node:perf_hooks'
import { resetOldGenerationLimit } from '../src/lib/gc.ts'
import { answerBytes, parseOpBytes, withAdded } from '../src/ops/answer.ts'
import type { Catalog } from '../src/ops/catalog.ts'
import type { AnyOp } from '../src/ops/define.ts'
import { collectNow } from './memory.ts'
import type { ThreadData } from './protocol.ts'

// Warm-up of a pool thread at boot (issue 14): a fresh thread has loaded its modules but every op still
// runs in V8's interpreter, so the first heavy request after a deploy ran several times slower than the
// tenth (a 10k-item diff: 302 ms against 80-160 ms). Each op's warm inputs (OpDescriptor.warm) run a few
// times, by the paths a request takes: as parsed input, and as a raw body parsed and validated on the
// thread; the answer made as a request's would be. Inputs are small so a thread is warm in well under a
// second even on a busy machine; rounds, not size, are what the optimizing tiers count.

const ROUNDS = 4
const encoder = new TextEncoder()
const NO_CAPS = Object.freeze({})

// A warm input's fields that are not the body's own (hash's algorithm: its route adds it from the path) are
// added to the parsed body, as the route adds them.
function bodyAndAdded(op: AnyOp, input: Record<string, unknown>) {
  const own = (op.body as { shape?: Record<string, unknown> }).shape
  if (!own) return { body: input, added: undefined }
  const body: Record<string, unknown> = {}
  const added: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) (k in own ? body : added)[k] = v
  return { body, added: Object.keys(added).length > 0 ? added : undefined }
}

async function warmOne(op: AnyOp, input: Record<string, unknown>): Promise<void> {
  const context = { caps: NO_CAPS, tenant: '' }
  const { body, added } = bodyAndAdded(op, input)
  // a warm input is written as a request's body is (defaults left out): the schema fills them in, as the
  // route's validation does before an op runs
  answerBytes(op, await op.run(withAdded(op.body.parse(body), added), context), false)
  const parsed = withAdded(parseOpBytes(op, encoder.encode(JSON.stringify(body))), added)
  answerBytes(op, await op.run(parsed, context), false)
}

export interface WarmUpReport {
  ms: number
  // ops whose warm-up threw: a bug in the warm-up inputs, never a reason to refuse to start the thread
  failed: string[]
}

// Runs every op's warm inputs ROUNDS times. It never throws: a thread that could not warm one op still
// serves it.
export async function warmUpOps(catalog: Catalog): Promise<WarmUpReport> {
  const started = performance.now()
  const failed = new Set<string>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const op of catalog.ops) {
      for (const input of op.warm ?? []) await warmOne(op, input).catch(() => failed.add(op.name))
    }
  }
  return { ms: performance.now() - started, failed: [...failed] }
}

// The thread entry's top-level await: Piscina hands a thread no task before its module has loaded, so a
// request that arrives during the warm-up waits for it instead of running cold beside it. The warm-up's
// garbage is collected before the thread says it is warm, so a thread at rest holds only what it needs,
// and the old generation's limit is then set as usual (resetOldGenerationLimit, src/lib/gc.ts).
export async function prepareThread(data: Partial<ThreadData> | undefined, catalog: Catalog): Promise<void> {
  if (!data?.warmUp) return
  await warmUpOps(catalog)
  collectNow()
  resetOldGenerationLimit()
  if (data.warmed) Atomics.add(new Int32Array(data.warmed), 0, 1)
}
