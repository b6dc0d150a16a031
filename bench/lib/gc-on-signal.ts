import { readFileSync } from 'node:fs'

// Preloaded into a benchmarked server (`--expose-gc --import`): on SIGUSR2 it collects garbage in full
// and prints its resident memory, so an "RSS at rest" figure is not a matter of when V8 last collected.
process.on('SIGUSR2', function collectAndReport() {
  ;(globalThis as { gc?: () => void }).gc?.()
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
  const m = process.memoryUsage()
  const mib = (n: number) => (n / 1048576).toFixed(1)
  process.stdout.write(
    `GC-RSS ${rss} kB (heap total ${mib(m.heapTotal)} MiB, used ${mib(m.heapUsed)}, external ${mib(m.external)})\n`,
  )
})
