import { constants, PerformanceObserver } from 'node:perf_hooks'

// Counts the full (major) collections V8 runs in this thread from now on. `count()` resolves on a later
// turn, since gc entries are delivered there.
export function majorCollections(): { count(): Promise<number> } {
  let majors = 0
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++
  }).observe({ entryTypes: ['gc'] })
  return {
    async count() {
      await new Promise((resolve) => setTimeout(resolve, 50))
      return majors
    },
  }
}
