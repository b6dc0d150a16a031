import http2 from 'node:http2'
import https from 'node:https'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  json<T = unknown>(): T
}

export interface TlsRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  ca: string
}

function wrap(status: number, headers: RawResponse['headers'], body: Buffer): RawResponse {
  return { status, headers, body, json: <T>() => JSON.parse(body.toString('utf8')) as T }
}

// A real HTTPS/1.1 request over TLS against the test CA (the self-signed certificate).
export function h1Request(base: string, req: TlsRequest): Promise<RawResponse> {
  const url = new URL(req.path, base)
  return new Promise((resolve, reject) => {
    const r = https.request(
      url,
      { method: req.method ?? 'GET', headers: req.headers, ca: req.ca, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve(wrap(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))))
        res.on('error', reject)
      },
    )
    r.on('error', reject)
    r.end(req.body)
  })
}

// The same over HTTP/2 (negotiated by ALPN).
export function h2Request(base: string, req: TlsRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(base, { ca: req.ca })
    session.on('error', reject)
    const stream = session.request({ ':method': req.method ?? 'GET', ':path': req.path, ...req.headers })
    const chunks: Buffer[] = []
    let status = 0
    let headers: RawResponse['headers'] = {}
    stream.on('response', (h) => {
      status = Number(h[':status'])
      headers = h as RawResponse['headers']
    })
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.on('end', () => {
      session.close()
      resolve(wrap(status, headers, Buffer.concat(chunks)))
    })
    stream.on('error', reject)
    stream.end(req.body)
  })
}
