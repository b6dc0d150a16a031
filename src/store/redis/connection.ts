import type { Cluster, Redis } from 'ioredis'
import { describeTarget, type RedisTarget } from './client.ts'

export type StoreLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  detail: Record<string, unknown>,
) => void

// Auto-pipelining keeps one batch in flight per connection, so a command queued behind a batch that
// hangs would wait for that batch's timeout before its own even starts: calls on the request path get
// an overall deadline of one command timeout instead.
export function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (err: unknown) => {
        clearTimeout(timer)
        reject(err)
      },
    )
  })
}

export function waitReady(client: Redis | Cluster, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady)
      reject(new Error(`not ready within ${ms} ms`))
    }, ms)
    const onReady = () => {
      clearTimeout(timer)
      resolve()
    }
    client.once('ready', onReady)
  })
}

// One log line per transition (lost / restored), not one per reconnection attempt.
export function watchConnection(
  client: Redis | Cluster,
  target: RedisTarget,
  log: StoreLog | undefined,
): void {
  let up = false
  let everUp = false
  let lastError = ''
  const where = describeTarget(target)
  client.on('error', (err: Error) => {
    lastError = err.message
  })
  client.on('ready', () => {
    if (everUp && !up) log?.('info', 'redis connection restored', { redis: where })
    up = true
    everUp = true
  })
  const lost = () => {
    if (up)
      log?.('warn', 'redis connection lost; answering 503 until it is back', {
        redis: where,
        error: lastError,
      })
    up = false
  }
  client.on('close', lost)
  client.on('end', lost)
}
