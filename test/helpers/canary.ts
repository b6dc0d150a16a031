import { spawn } from 'node:child_process'
import { once } from 'node:events'
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
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c
  })
  const exited = once(child, 'exit')
  // a child that could not start rejects it: the wait for its first probe below says so
  exited.catch(() => {})
  child.stdin.write(
    `${JSON.stringify({ url: server.url, ca: server.ca, trace: !!process.env.CANARY_TRACE })}\n`,
  )
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = () => out.includes('ready\n') && resolve()
      child.stdout.on('data', onData)
      child.once('exit', (code) => reject(new Error(`canary child exited ${code} before its first probe`)))
      child.once('error', reject)
    })
    const result = await work()
    child.stdin.end()
    const [code] = await exited
    if (code !== 0) throw new Error(`canary child exited ${code}`)
    const { worstMs } = JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as { worstMs: number }
    return { result, worstMs }
  } finally {
    if (child.exitCode === null) child.kill()
  }
}
