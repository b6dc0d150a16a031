import { Counter, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { batchedChild } from '../../src/observability/batched-counter.ts'

describe('batched counter children', () => {
  it('report every increment at each scrape, per label set, alongside plain prom-client increments', async () => {
    const registry = new Registry()
    const counter = new Counter({ name: 't_total', help: 't', labelNames: ['a'], registers: [registry] })
    const x = batchedChild(counter, { a: 'x' })
    const y = batchedChild(counter, { a: 'y' })
    for (let i = 0; i < 5; i++) x.inc()
    y.inc()
    counter.inc({ a: 'x' }, 10)
    expect(await registry.metrics()).toContain('t_total{a="x"} 15\n')
    expect(await registry.metrics()).toContain('t_total{a="y"} 1\n')
    x.inc()
    const values = (await counter.get()).values.map((v) => [v.labels.a, v.value])
    expect(values).toEqual(
      expect.arrayContaining([
        ['x', 16],
        ['y', 1],
      ]),
    )
  })

  it('keeps a counter collect function that was already there', async () => {
    const registry = new Registry()
    let collected = 0
    const counter = new Counter({
      name: 'c_total',
      help: 'c',
      labelNames: ['a'],
      registers: [registry],
      collect() {
        collected++
      },
    })
    batchedChild(counter, { a: 'x' }).inc()
    expect(await registry.metrics()).toContain('c_total{a="x"} 1\n')
    expect(collected).toBe(1)
  })
})
