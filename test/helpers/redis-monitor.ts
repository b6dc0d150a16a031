import { connect, type Socket } from 'node:net'
import { Redis } from 'ioredis'
import { expect } from 'vitest'

// One MONITOR line's arguments: `+1795708753.620565 [0 127.0.0.1:48550] "hget" "key" "field"`, each argument
// a double-quoted string escaped as redis-server's sdscatrepr escapes it (\\ \" \n \r \t \a \b \xHH).
export function monitorArgs(line: string): string[] {
  const args: string[] = []
  let i = line.indexOf('] ')
  if (i < 0) return args
  i += 2
  while (i < line.length) {
    if (line[i] !== '"') {
      i++
      continue
    }
    i++
    // the bytes of the argument (escapes are per byte; the rest is printable ASCII), read as UTF-8
    const bytes: number[] = []
    while (i < line.length && line[i] !== '"') {
      const c = line[i]!
      if (c !== '\\') {
        bytes.push(c.charCodeAt(0))
        i++
        continue
      }
      const e = line[i + 1] ?? ''
      if (e === 'x') {
        bytes.push(Number.parseInt(line.slice(i + 2, i + 4), 16))
        i += 4
        continue
      }
      const escapes: Record<string, number> = { n: 10, r: 13, t: 9, a: 7, b: 8 }
      bytes.push(escapes[e] ?? e.charCodeAt(0))
      i += 2
    }
    const arg = Buffer.from(bytes).toString('utf8')
    args.push(arg)
    i++
  }
  return args
}

// MONITOR on a plain socket of its own. ioredis's monitor() mode can take a monitor line for a reply to a
// command of its own queue and fail with "Command queue state error" (redis/ioredis#1981; seen once in CI
// here, on a line for another client's PING): a raw reader of the line protocol has no queue to confuse.
async function openMonitor(url: string, onArgs: (args: string[]) => void): Promise<Socket> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port || 6379), hostname)
  let buffered = ''
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      buffered += chunk
      let end = buffered.indexOf('\r\n')
      while (end >= 0) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        if (line === '+OK') resolve()
        else if (line.startsWith('-')) reject(new Error(`MONITOR refused: ${line}`))
        else if (line.startsWith('+')) onArgs(monitorArgs(line))
        end = buffered.indexOf('\r\n')
      }
    })
    socket.write('MONITOR\r\n')
  })
  return socket
}

// What some work makes a real redis-server do, from MONITOR (commands inside Lua scripts included): each
// command with its arguments, whoever sent it, from just before `work` starts to just after it ends. A
// marker sent through another connection is seen before and after, so the stream covers the whole work.
export async function commandsDuring(url: string, work: () => Promise<unknown>): Promise<string[][]> {
  const seen: string[][] = []
  const probe = new Redis(url)
  const monitor = await openMonitor(url, (args) => seen.push(args))
  const marker = async (name: string) => {
    await probe.echo(name)
    await expect.poll(() => seen.some((a) => a[0]?.toLowerCase() === 'echo' && a[1] === name)).toBe(true)
  }
  try {
    await marker('monitor-start')
    seen.length = 0
    await work()
    await marker('monitor-end')
    return seen
  } finally {
    monitor.destroy()
    probe.disconnect()
  }
}
