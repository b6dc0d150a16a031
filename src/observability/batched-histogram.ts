import type { Histogram, LabelValues } from 'prom-client'

export interface HistogramChild {
  observe(value: number): void
}

interface Pending {
  labels: LabelValues<string>
  sum: number
  count: number
  // observations per bucket, in the histogram's upper bounds' order (the last: above every bound)
  buckets: Float64Array
  // prom-client's record of this label set, once found
  target: Entry | undefined
}

// prom-client's internal record of one label set (lib/histogram.js): what a flush adds to
interface Entry {
  labels: Record<string, string | number>
  sum: number
  count: number
  bucketValues: Record<number, number>
}
interface Internals {
  upperBounds: readonly number[]
  hashMap: Record<string, Entry>
  collect?: () => unknown
}

const batches = new WeakMap<object, Pending[]>()

// As batchedChild (batched-counter.ts) for a histogram: prom-client's observe validates and hashes the label
// set, and builds a closure and two objects, on every call (~0.5 KB and a microsecond on the request path). A
// child made here keeps its bucket counts, sum and count in plain numbers and adds them to the histogram's
// own record when the registry collects it (on scrape), so Prometheus sees the same series and values
// (test/observability/batched-histogram.test.ts compares the exposition with prom-client's own observe).
// The flush adds to prom-client's internal record of the label set (an entry of its `hashMap`, found by its
// labels once): the test fails if a prom-client upgrade changes it. Make each child once per label set.
export function batchedHistogramChild<T extends string>(
  histogram: Histogram<T>,
  labels: LabelValues<T>,
): HistogramChild {
  const internals = histogram as unknown as Internals
  let pending = batches.get(histogram)
  if (!pending) {
    const list: Pending[] = []
    pending = list
    batches.set(histogram, list)
    const collect = internals.collect
    internals.collect = function flushBatched(this: unknown) {
      for (const p of list) if (p.count > 0) flush(internals, histogram, p)
      return collect?.call(this)
    }
  }
  const bounds = internals.upperBounds
  const entry: Pending = {
    labels: labels as LabelValues<string>,
    sum: 0,
    count: 0,
    buckets: new Float64Array(bounds.length + 1),
    target: undefined,
  }
  pending.push(entry)
  return {
    observe(value: number) {
      let i = 0
      while (i < bounds.length && value > bounds[i]!) i++
      entry.buckets[i]!++
      entry.sum += value
      entry.count++
    },
  }
}

function flush<T extends string>(internals: Internals, histogram: Histogram<T>, p: Pending): void {
  p.target ??= find(internals, p.labels)
  if (p.target === undefined) {
    histogram.zero(p.labels as LabelValues<T>)
    p.target = find(internals, p.labels)!
  }
  const target = p.target
  const bounds = internals.upperBounds
  for (let i = 0; i < bounds.length; i++) target.bucketValues[bounds[i]!]! += p.buckets[i]!
  target.sum += p.sum
  target.count += p.count
  p.buckets.fill(0)
  p.sum = 0
  p.count = 0
}

function find(internals: Internals, labels: LabelValues<string>): Entry | undefined {
  const names = Object.keys(labels)
  return Object.values(internals.hashMap).find(
    (e) =>
      Object.keys(e.labels).length === names.length &&
      names.every((n) => String(e.labels[n]) === String(labels[n])),
  )
}
