import { type ChildProcess, spawn } from 'node:child_process'

export interface WorkerProcess {
  child: ChildProcess
  metricsUrl: string
  output: () => string
  exited: Promise<number | null>
  metrics(): Promise<string>
  // SIGKILL: the abrupt death (no lock released, nothing handed back); SIGTERM: a graceful stop
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const ROOT = new URL('../../', import.meta.url).pathname

// Runs `node src/main/job-worker.ts` as `npm run worker` does and waits for its banner.
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['src/main/job-worker.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, JOBS_WORKER_METRICS_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const metricsUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job worker did not start:\n${out}`)), 20_000)
    const check = () => {
      const m = /metrics: (http:\/\/\S+)\n/.exec(out)
      if (m) {
        clearTimeout(timer)
        child.stdout!.off('data', check)
        resolve(m[1]!)
      }
    }
    child.stdout!.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`job worker exited with ${code}:\n${out}`))
    })
  })
  return {
    child,
    metricsUrl,
    output: () => out,
    exited,
    metrics: async () => (await fetch(metricsUrl)).text(),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}
