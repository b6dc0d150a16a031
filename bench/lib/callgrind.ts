import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { Agent } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postTimed } from './post-timed.ts'

// Instructions a server executes, counted by valgrind's callgrind: a figure that does not move with the
// machine's load or its caches, where CPU time on this 2-core guest swings by a quarter between rounds of
// the same code (docs/dispatch.md, "Instructions a request"). Every thread of the process is counted (the
// event loop and V8's helpers), as /proc's CPU time counts them.
export class Callgrind {
  readonly #dir: string

  private constructor(dir: string) {
    this.#dir = dir
  }

  static async open(): Promise<Callgrind> {
    try {
      execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
    } catch {
      throw new Error('valgrind is not installed (Debian: apt-get install valgrind)')
    }
    return new Callgrind(await mkdtemp(join(tmpdir(), 'anvil-callgrind-')))
  }

  // the command a server runs under (startNode's `under`): JIT code is checked for changes
  // (--smc-check), counted per function only (--dump-instr=no), controlled through vgdb in this folder
  under(): string[] {
    return [
      'valgrind',
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--dump-instr=no',
      `--callgrind-out-file=${this.#dir}/callgrind.%p`,
      `--vgdb-prefix=${this.#dir}/vgdb`,
    ]
  }

  // Instructions per request over `count` requests, counted from zero after they were sent.
  async perRequest(pid: number, send: () => Promise<void>, count: number): Promise<number> {
    const env = await this.#vgdbEnv(pid)
    const vgdb = (command: string) =>
      execFileSync('vgdb', [`--vgdb-prefix=${this.#dir}/vgdb`, `--pid=${pid}`, command], {
        env,
        stdio: 'ignore',
      })
    vgdb('zero')
    await send()
    vgdb('dump')
    const text = await readFile(join(this.#dir, `callgrind.${pid}.1`), 'utf8')
    const total = /^(?:summary|totals): (\d+)/m.exec(text)
    if (!total) throw new Error(`no instruction count in callgrind.${pid}.1`)
    return Number(total[1]) / count
  }

  // valgrind names the file vgdb finds it by after the user (LOGNAME) and the HOST variable of the process it
  // runs ("???" when unset), and vgdb looks for the name its own variables make: the gateway runs with
  // HOST=127.0.0.1, the floors without, so vgdb is given what the file says
  async #vgdbEnv(pid: number): Promise<NodeJS.ProcessEnv> {
    const prefix = `vgdb-shared-mem-vgdb-${pid}-by-`
    const file = (await readdir(this.#dir)).find((f) => f.startsWith(prefix))
    const named = file && /^(.*)-on-(.*)$/.exec(file.slice(prefix.length))
    if (!named) throw new Error(`valgrind made no vgdb file for process ${pid} in ${this.#dir}`)
    const [, user, host] = named as unknown as [string, string, string]
    return {
      PATH: process.env.PATH,
      ...(user === '???' ? {} : { LOGNAME: user }),
      ...(host === '???' ? {} : { HOST: host }),
    }
  }

  close(): Promise<void> {
    return rm(this.#dir, { recursive: true, force: true })
  }
}

// `count` POSTs over `connections` kept-alive connections, each answered 200 (a refusal or an error is no
// figure)
export async function sendCounted(
  url: string,
  options: { ca: Buffer; headers: Record<string, string>; body: string },
  count: number,
  connections = 4,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  let left = count
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (left-- > 0) {
          const r = await postTimed(url, { ...options, agent })
          if (r.status !== 200)
            throw new Error(`${url} answered ${r.status}: ${r.body.toString().slice(0, 200)}`)
        }
      }),
    )
  } finally {
    agent.destroy()
  }
}
