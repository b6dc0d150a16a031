import { performance } from 'node:perf_hooks'
import { Gauge, type Registry } from 'prom-client'

// Event-loop utilization (share of wall time the loop spent running callbacks rather than idle in the
// poller) since the previous scrape. prom-client's default metrics already give the lag percentiles.
export function registerEventLoopUtilization(registry: Registry): void {
  let previous = performance.eventLoopUtilization()
  new Gauge({
    name: 'anvil_event_loop_utilization_ratio',
    help: 'Share of time the event loop was busy since the previous scrape (0-1)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization()
      this.set(performance.eventLoopUtilization(now, previous).utilization)
      previous = now
    },
  })
}
