import { type Agent, request } from 'node:https'
import { performance } from 'node:perf_hooks'

// a gateway that stops answering fails the bench instead of holding it
const REQUEST_TIMEOUT_MS = 120_000

export interface Posted {
  status: number
  body: Buffer
  // from the first byte written to the last byte of the answer read
  ms: number
}

// One request on a kept-alive connection (the agent's), timed end to end as a client sees it.
export function postTimed(
  url: string,
  options: { ca: Buffer; agent: Agent; headers: Record<string, string>; body: Buffer | string },
): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const headers = { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) }
    const req = request(url, { method: 'POST', ca: options.ca, agent: options.agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          ms: performance.now() - started,
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    )
    req.end(options.body)
  })
}
