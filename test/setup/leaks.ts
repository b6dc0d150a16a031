import { afterAll } from 'vitest'

// Test files of the shared process (vitest.config.ts) run one after another in one process, so what a file
// leaves behind reaches every file after it: a server or a client still connected (an ioredis client
// retried 127.0.0.1:6379 for the rest of one run), a child process, a timer that keeps running, an
// environment variable changed. This runs before each file of that project and fails the file that ends
// with more of any of them than it started with, or with `process.env` changed. Closing is asynchronous,
// so it waits up to SETTLE_MS for what the file closed to go, and for what ends by itself: a free socket
// of Node's global HTTP agent is kept 5 s, undici's (fetch) 4 s, and an OTLP exporter retries a collector
// that has gone for up to its 10 s export timeout. A file that leaves nothing does not wait. The check's
// own test (test/setup/leaks.test.ts, LEAK_CHECK_PLANTED) waits 500 ms: its planted server never closes.
const SETTLE_MS = process.env.LEAK_CHECK_PLANTED ? 500 : 10_000

const counts = (): Map<string, number> => {
  const by = new Map<string, number>()
  for (const kind of process.getActiveResourcesInfo()) by.set(kind, (by.get(kind) ?? 0) + 1)
  return by
}

function grown(before: Map<string, number>): string[] {
  return [...counts()]
    .filter(([kind, n]) => n > (before.get(kind) ?? 0))
    .map(([kind, n]) => `${n - (before.get(kind) ?? 0)} more ${kind}`)
}

function envChanges(before: Record<string, string | undefined>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(process.env)])
  return [...names].filter((name) => before[name] !== process.env[name]).sort()
}

const resourcesAtStart = counts()
const envAtStart = { ...process.env }

afterAll(async () => {
  const deadline = performance.now() + SETTLE_MS
  while (grown(resourcesAtStart).length > 0 && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 25))
  const left = grown(resourcesAtStart)
  const env = envChanges(envAtStart)
  if (left.length > 0 || env.length > 0)
    throw new Error(
      'this file left behind what the files after it in the shared process would meet: ' +
        [...left, ...(env.length > 0 ? [`process.env changed: ${env.join(', ')}`] : [])].join('; '),
    )
}, SETTLE_MS + 5_000)
