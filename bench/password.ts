import { readFileSync } from 'node:fs'
import { paidSmallRequests, warmUp } from './isolation.ts'
import { UNLIMITED, workspaceKey } from './lib/admin.ts'
import { load, median } from './lib/load.ts'
import { loadInProcess } from './lib/load-process.ts'
import { type BaselineHash, baselineHashesPerSecond } from './lib/password-baseline.ts'
import { probe } from './lib/probe.ts'
import { type Gateway, startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { startCanary } from './stall.ts'

// Issue 38's benchmarks. BENCH_SECONDS sets each measured run's length, BENCH_ROUNDS how many alternate; BENCH_PASSWORD_THREADS the paid
// pool's threads and the in-process baseline's (default 2, the cores of the reference machine).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const THREADS = Number(process.env.BENCH_PASSWORD_THREADS ?? 2)
const FLOOD_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 10)
const PASSWORD = 'correct horse battery staple'

async function throughput(
  body: Record<string, unknown>,
  baseline: BaselineHash,
): Promise<{ gateway: number; inProcess: number; non2xx: number }> {
  const gateway = await startGateway({ LOG_LEVEL: 'warn', POOL_PAID_THREADS: String(THREADS) })
  const rps: number[] = []
  const inProcess: number[] = []
  let non2xx = 0
  try {
    const key = await workspaceKey(gateway, 'pro', UNLIMITED)
    const request = {
      url: `${gateway.url}/v1/password/hash`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ password: PASSWORD, ...body }),
      connections: 16,
    }
    await load({ ...request, duration: Math.min(2, SECONDS) })
    // the two alternate, round after round, so that the 2-core machine's drift falls on both alike; the
    // baseline runs while the gateway idles: the same threads, the machine to itself
    for (let round = 0; round < ROUNDS; round++) {
      const run = await load({ ...request, duration: SECONDS })
      rps.push(run.rps)
      non2xx += run.non2xx
      inProcess.push(await baselineHashesPerSecond(baseline, THREADS, SECONDS))
    }
  } finally {
    await gateway.stop()
  }
  return { gateway: median(rps), inProcess: median(inProcess), non2xx }
}

// End to end at saturation (16 connections, a pro workspace, the paid pool of THREADS threads) against the
// same hashes computed by node:crypto's argon2Sync on THREADS threads of one process.
export const passwordArgon2: Scenario = {
  name: 'password-argon2',
  title: 'argon2id hashes/s at the default end to end vs crypto.argon2 in process on the same threads',
  target: { ratio: 0.85, text: 'gateway ≥ 0.85× in-process' },
  async run() {
    const t = await throughput(
      {},
      { algorithm: 'argon2id', memoryKib: 19_456, iterations: 2, parallelism: 1 },
    )
    return {
      rows: [
        { label: `gateway, 16 conns (${t.non2xx} non-2xx)`, value: t.gateway, unit: 'hashes/s' },
        { label: `in process, ${THREADS} threads`, value: t.inProcess, unit: 'hashes/s' },
      ],
      ratio: t.gateway / Math.max(t.inProcess, 0.001),
    }
  },
}

const BCRYPT_COST = Number(process.env.BENCH_BCRYPT_COST ?? 10)

export const passwordBcrypt: Scenario = {
  name: 'password-bcrypt',
  title: `bcrypt cost ${BCRYPT_COST} hashes/s end to end vs @node-rs/bcrypt in process on the same threads`,
  target: { ratio: 0.85, text: 'gateway ≥ 0.85× in-process' },
  async run() {
    const t = await throughput(
      { algorithm: 'bcrypt', params: { cost: BCRYPT_COST } },
      { algorithm: 'bcrypt', cost: BCRYPT_COST },
    )
    return {
      rows: [
        { label: `gateway, 16 conns (${t.non2xx} non-2xx)`, value: t.gateway, unit: 'hashes/s' },
        { label: `in process, ${THREADS} threads`, value: t.inProcess, unit: 'hashes/s' },
      ],
      ratio: t.gateway / Math.max(t.inProcess, 0.001),
    }
  },
}

// The gateway's resident memory, sampled from /proc every 50 ms until stopped: the highest seen.
function sampleRss(gateway: Gateway): { stop(): number } {
  const pid = gateway.child.pid!
  let max = 0
  const read = () => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    max = Math.max(max, Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024)
  }
  read()
  const timer = setInterval(read, 50)
  return {
    stop() {
      clearInterval(timer)
      return max
    },
  }
}

const FREE_TENANTS = Number(process.env.BENCH_PASSWORD_TENANTS ?? 8)
const PER_TENANT = Number(process.env.BENCH_PASSWORD_CONNECTIONS ?? 8)

// Free tenants saturating the free pool with the most memory a free request may ask (scrypt N·r = 2^20,
// 128 MiB; FREE_TENANTS × PER_TENANT = 64 in flight by default), while a paid tenant's small requests are
// timed and the gateway's RSS and event loop watched. Admission by memory keeps the hashes running at
// once within the free tier's off-heap budget: the rest wait or are refused (503 with Retry-After).
export const passwordIsolation: Scenario = {
  name: 'password-isolation',
  title:
    'Paid small-request p99 while free tenants flood max-memory hashes vs without (RSS and stall watched)',
  target: { ratio: 0.5, text: 'p99 with flood ≤ 2× p99 without (ratio = without ÷ with ≥ 0.5)' },
  async run() {
    const gateway = await startGateway({ LOG_LEVEL: 'warn' })
    const quiet: number[] = []
    const loud: number[] = []
    let stall = 0
    let rss = 0
    let flood = { rps: 0, non2xx: 0 }
    const floorP99: number[] = []
    let floorRps = 0
    let floorStall = 0
    try {
      const paid = await workspaceKey(gateway, 'pro', UNLIMITED)
      const frees = await Promise.all(
        Array.from({ length: FREE_TENANTS }, () => workspaceKey(gateway, 'free', UNLIMITED)),
      )
      const steady = paidSmallRequests(gateway, paid, SECONDS)
      const body = JSON.stringify({
        password: PASSWORD,
        algorithm: 'scrypt',
        params: { log2_n: 17, block_size: 8 },
      })
      // the paid tenant's small requests timed while each key's PER_TENANT connections flood the hash
      const floodWith = (keys: string[]) =>
        Promise.all([
          probe(steady),
          ...keys.map((key) =>
            loadInProcess(
              {
                url: `${gateway.url}/v1/password/hash`,
                headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
                body,
                connections: PER_TENANT,
                duration: SECONDS,
              },
              FLOOD_NICE,
            ),
          ),
        ])
      await warmUp(steady, 2)
      const canary = await startCanary(gateway.url)
      for (let round = 0; round < 2; round++) {
        quiet.push((await probe(steady)).p99)
        await canary.read()
        const memory = sampleRss(gateway)
        const [underFlood, ...each] = await floodWith(frees)
        loud.push(underFlood!.p99)
        rss = Math.max(rss, memory.stop())
        stall = Math.max(stall, (await canary.read()).max)
        flood = {
          rps: each.reduce((a, f) => a + f.rps, 0),
          non2xx: each.reduce((a, f) => a + f.non2xx, 0),
        }
      }
      // the floor, in the same gateway: the same flood (tenants, connections, niceness, length) with a key
      // that does not exist, refused 401 at the lane's first step before any work, so what it costs the
      // paid tenant is the 2-core machine's share of answering that many refusals and running their clients
      for (let round = 0; round < 2; round++) {
        await canary.read()
        const [underFloor, ...each] = await floodWith(frees.map(() => `anvil_live_${'x'.repeat(32)}`))
        floorP99.push(underFloor!.p99)
        floorRps = each.reduce((a, f) => a + f.rps, 0)
        floorStall = Math.max(floorStall, (await canary.read()).max)
      }
      await canary.stop()
    } finally {
      await gateway.stop()
    }
    const without = median(quiet)
    const withFlood = median(loud)
    const floor = median(floorP99)
    process.stdout.write(
      `  paid p99 ${withFlood.toFixed(1)} ms under the hash flood = ${(withFlood / without).toFixed(2)}× quiet; ` +
        `under the same flood of 401s (floor) ${floor.toFixed(1)} ms = ${(floor / without).toFixed(2)}× quiet, ` +
        `at ${floorRps.toFixed(0)} refusals/s\n`,
    )
    return {
      rows: [
        { label: 'paid p99, quiet', value: without, unit: 'ms' },
        { label: 'paid p99, under free flood', value: withFlood, unit: 'ms' },
        { label: `free flood (${flood.non2xx} non-2xx)`, value: flood.rps, unit: 'hashes/s' },
        { label: 'gateway RSS, highest', value: rss / 2 ** 20, unit: 'MiB' },
        { label: 'event loop, longest stall', value: stall, unit: 'ms' },
        { label: 'floor: paid p99 under the same flood of 401s', value: floor, unit: 'ms' },
        { label: 'floor: longest canary wait under the same flood of 401s', value: floorStall, unit: 'ms' },
      ],
      ratio: without / Math.max(withFlood, 0.001),
    }
  },
}
