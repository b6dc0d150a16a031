import { Agent, request } from 'node:https'
import { performance } from 'node:perf_hooks'
import type { PlanName } from '../src/limits/plans.ts'
import { workspaceKey } from './lib/admin.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { craftedCases, opCases, type StallCase } from './stall-cases.ts'

const CANARY_EVERY_MS = 5
const TARGET_MS = 50
const UNLIMITED = { key_rate_per_second: 1_000_000, workspace_rate_per_second: 1_000_000, monthly_quota: 2e9 }

export interface CanaryResult {
  max: number
  p99: number
  samples: number
}

// GET /healthz on its own kept-alive connection every CANARY_EVERY_MS (a new one as soon as the last
// answered, at most that often): its wait is how long the event loop was held.
export function startCanary(url: string): { count(): number; stop(): Promise<CanaryResult> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  const waits: number[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const started = performance.now()
      await new Promise<void>((resolve) => {
        const req = request(`${url}/healthz`, { agent }, (res) => {
          res.resume()
          res.on('end', resolve)
        })
        req.on('error', () => resolve())
        req.end()
      })
      const wait = performance.now() - started
      waits.push(wait)
      if (wait < CANARY_EVERY_MS) await new Promise((r) => setTimeout(r, CANARY_EVERY_MS - wait))
    }
  })()
  return {
    count: () => waits.length,
    async stop() {
      running = false
      await loop
      agent.destroy()
      // the first request opens the connection (TLS handshake): not the event loop's doing
      const steady = waits.slice(1).sort((a, b) => a - b)
      const p99 = steady[Math.min(steady.length - 1, Math.floor(steady.length * 0.99))] ?? Number.NaN
      return { max: steady[steady.length - 1] ?? Number.NaN, p99, samples: steady.length }
    },
  }
}

// Sends one request and waits for its answer (whatever its status: a 422 is the budget working).
export function send(url: string, key: string, c: StallCase, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': c.type }
    const req = request(`${url}${c.path}`, { method: 'POST', agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
    req.end(c.body)
  })
}

// Runs cases one after another while the canary runs; the worst canary wait per case.
export async function stallRun(
  url: string,
  keys: Record<PlanName, string>,
  cases: StallCase[],
): Promise<{ label: string; status: number; canaryMax: number }[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, rejectUnauthorized: false })
  const out: { label: string; status: number; canaryMax: number }[] = []
  const samples = async (canary: { count(): number }, n: number) => {
    while (canary.count() < n) await new Promise((r) => setTimeout(r, CANARY_EVERY_MS))
  }
  for (const c of cases) {
    const canary = startCanary(url)
    // connected and answering before the case is sent, and a few answers after it
    await samples(canary, 3)
    const status = await send(url, keys[c.plan], c, agent)
    await samples(canary, canary.count() + 2)
    out.push({ label: `${c.plan} ${c.label}`, status, canaryMax: (await canary.stop()).max })
  }
  agent.destroy()
  return out
}

// For every op, the worst case each plan allows, and issue 14's crafted inputs: a canary GET /healthz
// never waits more than 50 ms (before the budgets and cost models: up to 2,200 ms).
export const stall: Scenario = {
  name: 'stall',
  title: 'Worst-case inputs of every op and plan: longest canary /healthz wait',
  target: { ratio: 1, text: `max canary wait ≤ ${TARGET_MS} ms (ratio = ${TARGET_MS} ÷ max ≥ 1)` },
  async run() {
    const gateway = await startGateway({ LOG_LEVEL: 'warn' })
    try {
      const keys = {
        free: await workspaceKey(gateway, 'free', UNLIMITED),
        pro: await workspaceKey(gateway, 'pro', UNLIMITED),
        business: await workspaceKey(gateway, 'business', UNLIMITED),
      }
      const plans: PlanName[] = ['free', 'pro', 'business']
      const cases = plans.flatMap((p) => [...craftedCases(p), ...opCases(p)])
      const results = await stallRun(gateway.url, keys, cases)
      const worst = [...results].sort((a, b) => b.canaryMax - a.canaryMax)
      for (const r of worst.slice(0, 10)) {
        process.stdout.write(
          `    ${r.label.padEnd(48)} ${String(r.status).padStart(3)}  ${r.canaryMax.toFixed(1)} ms\n`,
        )
      }
      const max = worst[0]?.canaryMax ?? Number.NaN
      return {
        rows: [
          { label: 'max canary wait', value: max, unit: 'ms' },
          { label: `cases (${worst[0]?.label ?? '-'} worst)`, value: results.length, unit: 'requests' },
        ],
        ratio: TARGET_MS / max,
      }
    } finally {
      await gateway.stop()
    }
  },
}
