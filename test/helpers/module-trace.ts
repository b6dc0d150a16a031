import { registerHooks } from 'node:module'

// Preloaded into a process under test (NODE_OPTIONS=--import=<this file>): writes one stderr line,
// `module-trace: <package> <- <importer>`, for each package of node_modules the process loads (by import
// or require) and each package or source file that loads it. The tracing tests read it to prove what a
// gateway loads (no OpenTelemetry SDK, and nothing of OpenTelemetry from Anvil's code, when tracing is off).
const PACKAGE = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//
const seen = new Set<string>()

function importer(parentURL: string | undefined): string {
  if (!parentURL) return '(entry)'
  const pkg = PACKAGE.exec(parentURL)
  if (pkg) return pkg[1]!
  const src = /\/((?:src|test|bench)\/.*)$/.exec(parentURL)
  return src ? src[1]! : parentURL
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context)
    const m = PACKAGE.exec(result.url)
    const by = importer(context.parentURL)
    // a package's own files loading each other say nothing new
    if (m && by !== m[1]) {
      const line = `${m[1]} <- ${by}`
      if (!seen.has(line)) {
        seen.add(line)
        process.stderr.write(`module-trace: ${line}\n`)
      }
    }
    return result
  },
})
