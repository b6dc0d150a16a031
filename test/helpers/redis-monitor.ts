import { Redis } from 'ioredis'
import { expect } from 'vitest'

// What some work makes a real redis-server do, from MONITOR (commands inside Lua scripts included): each
// command with its arguments, whoever sent it, from just before `work` starts to just after it ends. A
// marker sent through another connection is seen before and after, so the stream covers the whole work.
export async function commandsDuring(url: string, work: () => Promise<unknown>): Promise<string[][]> {
  const client = new Redis(url)
  const probe = new Redis(url)
  const monitor = await client.monitor()
  const seen: string[][] = []
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(args))
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
    monitor.disconnect()
    client.disconnect()
    probe.disconnect()
  }
}
