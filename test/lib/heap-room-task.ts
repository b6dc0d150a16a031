import { collector } from '../../src/lib/gc.ts'
import { majorCollections } from '../helpers/major-collections.ts'

// A pool thread's heap after a large answer's sweep (~21 MB live, workers/memory.ts sweepAfterAnswer), then
// a large task that builds ~90 MB of live objects: how many full collections V8 ran of its own during it.
// Run on a thread the test makes (thread-heap-room-thread.ts) and, as an op, on one a pool made
// (fixtures/heap-room.op.ts).
export async function largeTaskAfterSweep(): Promise<{ majors: number; live: number; built: number }> {
  const live: unknown[] = []
  for (let i = 0; i < 150_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
  collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
  const majors = majorCollections()
  const built: unknown[] = []
  for (let i = 0; i < 600_000; i++) built.push({ a: i, b: `t${i}`, c: [i] })
  return { majors: await majors.count(), live: live.length, built: built.length }
}
