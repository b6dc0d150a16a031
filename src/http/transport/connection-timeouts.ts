import type { Config } from '../../config.ts'

// Node's HTTP/1.1 timers, set on both listeners (the public HTTP/2 server's HTTP/1.1 side and the admin
// server) before they listen.
export interface ConnectionTimeouts {
  // an idle keep-alive connection is closed after this (+ Node's 1 s keepAliveTimeoutBuffer); the
  // `Keep-Alive: timeout=N` response header advertises it. Node's own default is 5 s: a load balancer
  // with a 60 s idle timeout would then reuse connections the gateway has just closed (sporadic 502s).
  keepAliveTimeout: number
  // a request's headers must arrive within this, counted from its first byte. In Node >= 18 an idle
  // keep-alive connection is not subject to it (measured on Node 24: a connection idle past headersTimeout
  // and requestTimeout is still reused), so unlike old Node it need not exceed keepAliveTimeout: it stays
  // short, a slowloris defence.
  headersTimeout: number
  // the whole request (headers and body) must arrive within this, else 408 ERR_REQUEST_TIMEOUT
  requestTimeout: number
  // how often Node checks the two deadlines above: bounds how late a 408 can be
  connectionsCheckingInterval: number
}

export function connectionTimeouts(
  config: Pick<Config, 'requestTimeoutMs' | 'keepAliveTimeoutMs'>,
): ConnectionTimeouts {
  return {
    keepAliveTimeout: config.keepAliveTimeoutMs,
    headersTimeout: Math.min(30_000, config.requestTimeoutMs),
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
  }
}
