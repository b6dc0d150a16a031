import { type ChildProcess, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface ServerProcess {
  child: ChildProcess
  output: () => string
  url: string
  adminUrl: string
  firstKey: string | undefined
  // DATA_DIR/first-start.txt as this start wrote it (undefined when it wrote none)
  firstStart: string | undefined
  firstStartPath: string | undefined
  ca: string
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const ROOT = new URL('../../', import.meta.url).pathname

// Runs `node src/main/gateway.ts` as `npm start` does, on ephemeral ports, and waits for its banner; from
// `cwd` (default: the checkout), where an unset DATA_DIR is ./.data. A variable given as undefined is unset
// (HOST, which is otherwise 127.0.0.1 here).
export async function startServerProcess(
  env: Record<string, string | undefined>,
  options: { cwd?: string } = {},
): Promise<ServerProcess> {
  const cwd = options.cwd ?? ROOT
  const child = spawn(process.execPath, ['src/main/gateway.ts'], {
    cwd,
    env: Object.fromEntries(
      Object.entries({
        PATH: process.env.PATH,
        PORT: '0',
        ADMIN_PORT: '0',
        HOST: '127.0.0.1',
        ...env,
      }).filter(([, value]) => value !== undefined),
    ),
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
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000)
    const check = () => {
      // the banner is one write, so one chunk: its lines after metrics/admin up to a blank line. Log lines
      // written before it may arrive after it (the logger writes asynchronously), so not "ends with".
      if (/metrics\/admin: .*\n(?:.+\n)*\n/.test(out)) {
        clearTimeout(timer)
        child.stdout!.off('data', check)
        resolve()
      }
    }
    child.stdout!.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${out}`))
    })
  })
  const url = /listening on (https:\/\/\S+)/.exec(out)![1]!.replace('localhost', '127.0.0.1')
  const adminUrl = /metrics\/admin: (http:\/\/\S+)\/metrics/.exec(out)![1]!
  // stdout is a pipe here, so first-start secrets are in the file the banner names, not in the output
  const secretsPath = /secrets \(.*\) written to (.+) \(mode 0600\)\.$/m.exec(out)?.[1]
  const firstStart = secretsPath ? await readFile(secretsPath, 'utf8') : undefined
  const firstKey = /^\s+(anvil_live_[0-9A-Za-z]{36})$/m.exec(firstStart ?? out)?.[1]
  const ca = await readFile(join(env.DATA_DIR ?? join(cwd, '.data'), 'tls', 'cert.pem'), 'utf8')
  return {
    child,
    output: () => out,
    url,
    adminUrl,
    firstKey,
    firstStart,
    firstStartPath: secretsPath,
    ca,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}
