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

// A POST whose body is declared (Content-Length) but never sent, over HTTPS/1.1: it is answered only when
// the gateway refuses it at the door (a full pool, a body over the plan's limit) or admits it and then
// times it out; the socket is dropped once the answer has arrived.
export function declaredBodyOnly(
  base: string,
  req: { path: string; ca: string; key: string; length: number },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(`${base}${req.path}`, {
      method: 'POST',
      ca: req.ca,
      agent: false,
      headers: {
        authorization: `Bearer ${req.key}`,
        'content-type': 'application/json',
        'content-length': String(req.length),
      },
    })
    request.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        request.destroy()
        resolve(wrap(res.statusCode ?? 0, res.headers, Buffer.concat(chunks)))
      })
    })
    request.on('error', reject)
    request.flushHeaders()
  })
}
