import { registerHooks } from 'node:module'
import { workerData } from 'piscina'

// A pool thread's first module, plain JavaScript so that loading it strips nothing. Every TypeScript module
// the thread loads is served from the JavaScript the event loop stripped and shares with every thread
// (src/exec/thread-sources.ts), so Node never starts amaro, its WebAssembly type stripper, on a pool
// thread: V8's collection of that shared WebAssembly code raced with thread terminations and took the whole
// process down. A module not handed over (none: test/workers/no-wasm.test.ts) still loads the usual way.
const { text, at } = workerData?.sources ?? {}
registerHooks({
  load(url, context, nextLoad) {
    const span = at?.get(url)
    if (span === undefined) return nextLoad(url, context)
    const source = Buffer.from(text, span[0], span[1] - span[0]).toString('utf8')
    return { format: 'module', source, shortCircuit: true }
  },
})

export default (await import('./entry.ts')).default
