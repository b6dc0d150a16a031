import { createServer, type Server } from 'node:http'
import { prepareBaseTree } from './lib/base-tree.ts'
import { type Gateway, startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { alternate, Target } from './small-hash-redis.ts'

// An OTLP/HTTP endpoint that takes every export and keeps nothing (the collector's cost is not ours).
async function otlpSink(): Promise<{ endpoint: string; server: Server }> {
  const server = createServer(function discard(req, res) {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

// What observability costs per request, as CPU time of the gateway process (small sha256, embedded store,
// same rounds, alternating): tracing off against a reference, tracing on (every request sampled, and 1%),
// and the access line (LOG_LEVEL=info writes it, warn drops it). The reference is the gateway of
// BENCH_BASE_REF (a commit, tag or branch: the commit before tracing, say; BENCH_BASE_COMMIT is the older
// name), extracted from git into a scratch directory for the run (bench/lib/base-tree.ts) and removed
// after; without one, a second tracing-off gateway of this tree, which measures only the noise.
export const tracingCost: Scenario = {
  name: 'tracing-cost',
  title: 'Tracing and access-line cost: gateway CPU per small sha256 request',
  target: { ratio: 0.95, text: 'tracing off ≥ 0.95× the reference (CPU per request, within noise)' },
  async run() {
    const baseRef = process.env.BENCH_BASE_REF || process.env.BENCH_BASE_COMMIT
    const base = baseRef ? await prepareBaseTree(baseRef) : undefined
    let sink: { endpoint: string; server: Server } | undefined
    const gateways: Gateway[] = []
    try {
      sink = await otlpSink()
      const otel = {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
        // a queue deep enough for the load (the default 2048 spans would drop most of them)
        OTEL_BSP_MAX_QUEUE_SIZE: '65536',
        OTEL_BSP_SCHEDULE_DELAY: '1000',
      }
      const start = async (env: Record<string, string>, tree?: { gateway: string; dir: string }) => {
        const g = await startGateway(env, tree)
        gateways.push(g)
        return g
      }
      const reference = await start({ LOG_LEVEL: 'info' }, base)
      const off = await start({ LOG_LEVEL: 'info' })
      const quiet = await start({ LOG_LEVEL: 'warn' })
      const on = await start({ LOG_LEVEL: 'info', ...otel })
      const sampled = await start({
        LOG_LEVEL: 'info',
        ...otel,
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
      })
      const json = { 'content-type': 'application/json' }
      const target = (label: string, g: Gateway) =>
        new Target(label, g.url, { ...json, authorization: `Bearer ${g.key}` }, [g.child.pid])
      const targets = [
        target(
          base
            ? `reference: ${base.commit.slice(0, 7)}${base.commit.startsWith(baseRef!) ? '' : ` (${baseRef})`}`
            : 'reference: this tree, off',
          reference,
        ),
        target('tracing off', off),
        target('tracing off, no access line', quiet),
        target('tracing on, all sampled', on),
        target('tracing on, 1% sampled', sampled),
      ]
      await alternate(targets, JSON.stringify({ input: 'hello world' }))
      const [ref, offT, quietT, onT, sampledT] = targets as [Target, Target, Target, Target, Target]
      return {
        rows: [
          ...ref.rows(['gateway']),
          ...offT.rows(['gateway']),
          ...quietT.rows(['gateway']),
          ...onT.rows(['gateway']),
          ...sampledT.rows(['gateway']),
        ],
        ratio: ref.cpu() / offT.cpu(),
      }
    } finally {
      await Promise.all(gateways.map((g) => g.stop()))
      sink?.server.close()
      // the base tree goes with the run, whatever happened
      await base?.remove()
    }
  },
}
