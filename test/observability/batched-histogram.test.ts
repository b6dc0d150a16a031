import fc from 'fast-check'
import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { batchedHistogramChild } from '../../src/observability/batched-histogram.ts'

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

// the exposition's samples, in order of their series; a `_sum` to 1e-9 of its value: a batch is summed
// before it is added, so the last bits of a float sum may differ from one added observation by observation
function samples(text: string): (string | number)[] {
  return text
    .split('\n')
    .sort()
    .flatMap((line) => {
      const sum = /^(h_sum\S*) (\S+)$/.exec(line)
      return sum ? [sum[1]!, Number(sum[2]).toPrecision(10)] : [line]
    })
}

function pair() {
  const make = () => {
    const registry = new Registry()
    const histogram = new Histogram({
      name: 'h',
      help: 'h',
      labelNames: ['route', 'plan'] as const,
      buckets: BUCKETS,
      registers: [registry],
    })
    return { registry, histogram }
  }
  return { plain: make(), batched: make() }
}

// A batched child counts in plain numbers and hands them to prom-client when the registry collects: the
// exposition must be exactly what prom-client's own observe gives for the same observations, across
// several scrapes, label sets zeroed before or not, and values on, between and past the bucket bounds.
describe('batchedHistogramChild', () => {
  it('exposes what prom-client observe would, scrape after scrape', async () => {
    const value = fc.oneof(
      fc.constantFrom(...BUCKETS, 0, 31, 1e9),
      fc.double({ min: 0, max: 40, noNaN: true }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), value), { maxLength: 40 }), {
          maxLength: 4,
        }),
        async (scrapes) => {
          const { plain, batched } = pair()
          const sets = [
            { route: '/v1/a', plan: 'pro' },
            { route: '/v1/a', plan: 'free' },
            { route: '/v1/b', plan: 'pro' },
          ]
          // the first label set exists from boot (zeroed), as the gateway's 2xx series do
          plain.histogram.zero(sets[0]!)
          batched.histogram.zero(sets[0]!)
          const children = sets.map((labels) => batchedHistogramChild(batched.histogram, labels))
          for (const observations of scrapes) {
            for (const [i, v] of observations) {
              plain.histogram.observe(sets[i]!, v)
              children[i]!.observe(v)
            }
            // (a label set first seen by the flush is listed in the flush's order: the samples are compared)
            expect(samples(await batched.registry.metrics())).toEqual(samples(await plain.registry.metrics()))
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
