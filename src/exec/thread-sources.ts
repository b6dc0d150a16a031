import { existsSync, readFileSync } from 'node:fs'
import { stripTypeScriptTypes } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { ThreadSources } from '../../workers/protocol.ts'

// Pool threads run no WebAssembly. Node strips a TypeScript module's types with amaro, a WebAssembly
// module, in every thread that loads one, and V8 shares its compiled code between threads. A pool thread
// is terminated by design (its compute budget, a cancelled job, a pool closed), and V8's collection of
// that shared code raced with it: the whole process died of a SIGSEGV in NativeModule::FreeCode, under
// Runtime_TierUpWasmToJSWrapper on a pool thread running amaro (core dumps of test forks running
// test/jobs/embedded.test.ts; the counts are in docs/dispatch.md). So the event loop strips the modules a
// pool thread loads, once, and shares their JavaScript with every thread; the thread's loader
// (workers/boot.mjs) serves it and never starts amaro (test/workers/no-wasm.test.ts).

// the relative specifiers of static imports, re-exports and literal dynamic imports, in JavaScript
const SPECIFIER = /\b(?:from|import)\s*\(?\s*(['"])(\.{1,2}\/[^'"\n]+)\1/g

// Node's own strip (strip-only: every type becomes spaces, so lines and columns, and stack traces, are the
// file's), which says so in an ExperimentalWarning on its first call: a line on every start's stderr that
// tells an operator nothing, so not said.
function stripped(typescript: string): string {
  const emitWarning = process.emitWarning
  process.emitWarning = () => {}
  try {
    return stripTypeScriptTypes(typescript)
  } finally {
    process.emitWarning = emitWarning
  }
}

let made: { roots: string; sources: ThreadSources } | undefined

// Every TypeScript module reachable from these (file URLs), stripped. Made once per process for the same
// roots: every pool gets the same.
export function threadSources(roots: readonly string[]): ThreadSources {
  const key = roots.join('\n')
  if (made?.roots === key) return made.sources
  const modules = new Map<string, string>()
  const queue = [...roots]
  for (let url = queue.pop(); url !== undefined; url = queue.pop()) {
    if (modules.has(url) || !url.endsWith('.ts')) continue
    const js = stripped(readFileSync(fileURLToPath(url), 'utf8'))
    modules.set(url, js)
    for (const [, , specifier] of js.matchAll(SPECIFIER)) {
      const next = new URL(specifier!, url).href
      if (next.endsWith('.ts') && !modules.has(next) && existsSync(fileURLToPath(next))) queue.push(next)
    }
  }
  const bytes = Buffer.from([...modules.values()].join(''))
  const text = new SharedArrayBuffer(bytes.length)
  bytes.copy(Buffer.from(text))
  const at = new Map<string, readonly [number, number]>()
  let start = 0
  for (const [url, js] of modules) {
    const end = start + Buffer.byteLength(js)
    at.set(url, [start, end])
    start = end
  }
  made = { roots: key, sources: { text, at } }
  return made.sources
}
