// The thread of thread-heap-room-child.ts: a pool thread's heap after a large answer's sweep (~21 MB live,
// workers/memory.ts sweepAfterAnswer), then a large task that builds ~90 MB of live objects; posts how many
// full collections V8 ran during it.
import { parentPort } from 'node:worker_threads'
import { collector } from '../../src/lib/gc.ts'
import { majorCollections } from '../helpers/major-collections.ts'

const live: unknown[] = []
for (let i = 0; i < 150_000; i++) live.push({ a: i, b: `s${i}`, c: [i, i + 1] })
collector()({ type: 'major', execution: 'sync', flavor: 'regular' })
const majors = majorCollections()
const built: unknown[] = []
for (let i = 0; i < 600_000; i++) built.push({ a: i, b: `t${i}`, c: [i] })
parentPort!.postMessage({ majors: await majors.count(), live: live.length, built: built.length })
