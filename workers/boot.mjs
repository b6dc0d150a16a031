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

// A task's bytes reach a thread, and its answer leaves it, as transferred ArrayBuffers, and a transfer
// detaches the sender's buffer. V8 compiles typed-array code on the assumption that no buffer of the
// isolate was ever detached (its ArrayBufferDetaching protector) and drops all of it at the first detach:
// the first request on each thread, whose answer was the thread's first transfer, threw away ~30 functions
// the warm-up had optimized (workers/warmup.ts: the diff's match, the byte scanners), and a fresh gateway's
// first 10k-item diffs ran 105-145 ms on their thread against 60-90 from the fourth on. So a thread detaches
// one buffer before it loads its modules (test/workers/first-transfer.test.ts).
new ArrayBuffer(1).transfer()

export default (await import('./entry.ts')).default
