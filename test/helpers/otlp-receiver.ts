import { createServer, type Server } from 'node:http'

// A minimal OTLP/HTTP trace receiver (JSON encoding, what @opentelemetry/exporter-trace-otlp-http
// sends): POST /v1/traces on 127.0.0.1, every span kept with its resource's service.name.

export interface ReceivedSpan {
  service: string
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: number
  startMs: number
  endMs: number
  status: number
  attributes: Record<string, string | number | boolean>
}

export interface OtlpReceiver {
  // OTEL_EXPORTER_OTLP_ENDPOINT for it (the exporter appends /v1/traces)
  endpoint: string
  spans: ReceivedSpan[]
  // resolves once `ready(spans)` is true, or rejects after timeoutMs with what arrived
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>
  close(): Promise<void>
}

interface AnyValue {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
  boolValue?: boolean
}
interface KeyValue {
  key: string
  value: AnyValue
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string | number
  endTimeUnixNano: string | number
  status?: { code?: number }
  attributes?: KeyValue[]
}
interface ExportRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[]
}

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue
  if (v.intValue !== undefined) return Number(v.intValue)
  if (v.doubleValue !== undefined) return v.doubleValue
  return v.boolValue ?? ''
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]))
}

// the JSON encoding carries ids as hex strings and times as decimal nanoseconds
const ms = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000

function collect(request: ExportRequest, into: ReceivedSpan[]): void {
  for (const rs of request.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '')
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        into.push({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          name: s.name,
          kind: s.kind,
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          status: s.status?.code ?? 0,
          attributes: attributes(s.attributes),
        })
      }
    }
  }
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const server: Server = createServer(function receive(req, res) {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      try {
        collect(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest, spans)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      } catch {
        res.writeHead(400).end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    async waitFor(ready, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs
      while (!ready(spans)) {
        if (Date.now() > until) {
          const seen = spans.map((s) => `${s.service} ${s.name}`).join(', ')
          throw new Error(`spans did not arrive in ${timeoutMs} ms; received: ${seen}`)
        }
        await new Promise((r) => setTimeout(r, 50))
      }
      return spans
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
