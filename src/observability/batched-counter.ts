import type { Counter, LabelValues } from 'prom-client'

export interface CounterChild {
  inc(): void
}

interface Pending<T extends string> {
  labels: LabelValues<T>
  count: number
}

const batches = new WeakMap<object, Pending<string>[]>()

// prom-client hashes and validates a counter's label set on every inc, labels() children included: about
// half a microsecond, several times per request on the hot path. A child made here counts in a plain number
// and hands its total to the counter when the registry collects it (on scrape: prom-client calls a metric's
// collect() before reading it), so Prometheus sees the same values. Make each child once per label set.
export function batchedChild<T extends string>(counter: Counter<T>, labels: LabelValues<T>): CounterChild {
  let pending = batches.get(counter) as Pending<T>[] | undefined
  if (!pending) {
    const list: Pending<T>[] = []
    pending = list
    batches.set(counter, list as Pending<string>[])
    const target = counter as unknown as { collect?: () => unknown }
    const collect = target.collect
    target.collect = function flushBatched(this: unknown) {
      for (const p of list) {
        if (p.count === 0) continue
        counter.inc(p.labels, p.count)
        p.count = 0
      }
      return collect?.call(this)
    }
  }
  const entry: Pending<T> = { labels, count: 0 }
  pending.push(entry)
  return {
    inc() {
      entry.count++
    },
  }
}
