import type { Counter, Histogram, LabelValues } from 'prom-client'

// Series created at 0 at boot, so a dashboard panel or an alert on a failure that has not happened yet
// reads 0 rather than "no data" (rate() and increase() need the series to exist before the first event).
// Only for bounded label sets: docs/operations.md states the cardinality.
export function zeroCounter<T extends string>(counter: Counter<T>, sets: Iterable<LabelValues<T>>): void {
  for (const labels of sets) counter.inc(labels, 0)
}

export function zeroHistogram<T extends string>(
  histogram: Histogram<T>,
  sets: Iterable<LabelValues<T>>,
): void {
  for (const labels of sets) histogram.zero(labels)
}

// Every combination of the given label values: cross({a: [1, 2], b: ['x']}) → [{a: 1, b: 'x'}, {a: 2, b: 'x'}].
export function cross<T extends string>(values: Record<T, readonly string[]>): LabelValues<T>[] {
  let sets: Record<string, string>[] = [{}]
  for (const [name, list] of Object.entries(values) as [string, readonly string[]][]) {
    sets = sets.flatMap((s) => list.map((v) => ({ ...s, [name]: v })))
  }
  return sets as LabelValues<T>[]
}
