import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import { h1Request } from '../helpers/tls-client.ts'

const MODULE_TRACE = new URL('../helpers/module-trace.ts', import.meta.url).pathname

// [package, what loaded it]
function loads(output: string): [string, string][] {
  return [...output.matchAll(/^module-trace: (\S+) <- (\S+)$/gm)].map((m) => [m[1]!, m[2]!])
}

// Tracing off (no OTLP endpoint) must cost nothing: a real gateway, with every package it loads reported
// by a module hook, serves traced-looking traffic without ever loading an OpenTelemetry package.
describe('tracing off: the gateway never loads OpenTelemetry', () => {
  let dataDir: string
  let server: ServerProcess
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-trace-off-'))
    server = await startServerProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      POOL_WARM: 'false',
      NODE_OPTIONS: `--import=${MODULE_TRACE}`,
    })
  })
  afterAll(async () => {
    await server?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('answers a request that carries a traceparent, with no traceresponse and no @opentelemetry module', async () => {
    const r = await h1Request(server.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: {
        authorization: `Bearer ${server.firstKey}`,
        'content-type': 'application/json',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      body: JSON.stringify({ input: 'hello' }),
      ca: server.ca,
    })
    expect(r.status).toBe(200)
    expect(r.headers.traceresponse).toBeUndefined()
    const loaded = loads(server.output())
    // the hook works: it sees the gateway's own dependencies, and who loads them
    expect(loaded).toContainEqual(['fastify', 'src/http/app.ts'])
    expect(loaded).toContainEqual(['piscina', 'src/exec/pools.ts'])
    // No OpenTelemetry package is loaded by Anvil's code, in the gateway or any of its threads. The one
    // exception predates tracing: prom-client requires the (no-op, SDK-less) @opentelemetry/api for its
    // exemplars; no SDK, exporter or resource package is loaded by anyone.
    const otel = loaded.filter(([pkg]) => pkg.startsWith('@opentelemetry/'))
    expect(otel.filter(([pkg, by]) => !(pkg === '@opentelemetry/api' && by === 'prom-client'))).toEqual([])
  })
})
