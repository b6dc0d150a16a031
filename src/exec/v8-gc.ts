import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

export type Gc = (options?: {
  type?: 'major' | 'minor'
  execution?: 'sync' | 'async'
  flavor?: 'regular' | 'last-resort'
}) => void

let gc: Gc | undefined

// V8's own `gc`, exposed only to a new context: the flag is V8-wide, but only contexts created after it
// see the function, so nothing else in the process gains a global `gc`. Used where the process knows
// better than V8's heuristics when memory is garbage: a pool thread after a large task
// (thread-memory.ts), the event loop while bodies stream through it (stream-memory.ts).
export function collector(): Gc {
  if (!gc) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as Gc
  }
  return gc
}
