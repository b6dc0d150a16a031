import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { ServerProcess } from './server-process.ts'

const CHILD = new URL('./canary-child.ts', import.meta.url).pathname

// GET /healthz on its own keep-alive connection, one after another, for as long as `work` runs: the
// longest any of them waited is how long the gateway's event loop was held. The probes run in a child
// process (canary-child.ts): a pause of the test's own process (a collection of the heap the files before
// it left, in the shared test process) would otherwise read as the gateway's. CANARY_TRACE=1 logs each
// slow probe with its time, to line it up with the gateway's log.
export async function canary<T>(
  server: ServerProcess,
  work: () => Promise<T>,
): Promise<{ result: T; worstMs: number }> {
  const child = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'inherit'] })
  // the child's lines: `ready` once its first probe has answered, then {worstMs} when its stdin ends
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  // 'close' comes after the child's stdout has ended; a child that cannot start rejects it ('error')
  const closed = once(child, 'close')
  closed.catch(() => {})
  child.stdin.write(
    `${JSON.stringify({ url: server.url, ca: server.ca, trace: !!process.env.CANARY_TRACE })}\n`,
  )
  try {
    const ready = await Promise.race([lines.next(), closed])
    if (Array.isArray(ready) || ready.value !== 'ready')
      throw new Error('canary child ended before its first probe')
    const result = await work()
    child.stdin.end()
    const report = await lines.next()
    const [code] = await closed
    if (code !== 0 || report.done) throw new Error(`canary child exited ${code}`)
    const { worstMs } = JSON.parse(report.value) as { worstMs: number }
    return { result, worstMs }
  } finally {
    if (child.exitCode === null) child.kill()
  }
}
