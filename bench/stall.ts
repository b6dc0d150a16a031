import { spawn } from 'node:child_process'
import { Agent, request } from 'node:https'
import { getPriority, setPriority } from 'node:os'
import { createInterface } from 'node:readline'
import type { PlanName } from '../src/limits/plans.ts'
import { UNLIMITED, workspaceKey } from './lib/admin.ts'
import { startGateway } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'
import { craftedCases, opCases, rawCases, type StallCase } from './stall-cases.ts'

const CANARY_EVERY_MS = 5
const PIECE = 64 * 1024
const SENDER_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 10)
const TARGET_MS = 50
const CANARY = new URL('./lib/canary-child.ts', import.meta.url).pathname

export interface Canary {
  // the longest wait, and how many answers came, since the last call
  read(): Promise<{ max: number; count: number }>
  stop(): Promise<void>
}

// A GET /healthz every CANARY_EVERY_MS on its own connection, from a process of its own
// (bench/lib/canary-child.ts): its wait is how long the gateway's event loop was held.
export async function startCanary(url: string): Promise<Canary> {
  const child = spawn(process.execPath, [CANARY, url, String(CANARY_EVERY_MS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const read = async () => {
    child.stdin!.write('\n')
    const next = await lines.next()
    if (next.done) throw new Error('the canary process ended')
    return JSON.parse(next.value) as { max: number; count: number }
  }
  // connected and answering
  while ((await read()).count === 0) await new Promise((r) => setTimeout(r, CANARY_EVERY_MS))
  return {
    read,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.stdin!.end()
      }),
  }
}

// What a case was answered: the status, and when it was refused the error code and the reason its details
// give (a 422 ERR_COMPUTE_LIMIT is a budget working; its reason says which).
export interface Answer {
  status: number
  code?: string
  reason?: string
}

// An error envelope is small; a success may be large and is not kept.
const ERROR_BODY_MAX = 64 * 1024

// Sends one request and waits for its answer (whatever its status).
export function send(url: string, key: string, c: StallCase, agent: Agent): Promise<Answer> {
  return new Promise((resolve) => {
    const headers = {
      authorization: `Bearer ${key}`,
      'content-type': c.type,
      ...(c.accept ? { accept: c.accept } : {}),
    }
    const req = request(`${url}${c.path}`, { method: 'POST', agent, headers }, (res) => {
      const status = res.statusCode ?? 0
      const chunks: Buffer[] = []
      let kept = 0
      res.on('data', (chunk: Buffer) => {
        if (status < 400 || kept >= ERROR_BODY_MAX) return
        chunks.push(chunk)
        kept += chunk.length
      })
      res.on('end', () => {
        // answered before the whole body was sent (a 413 or 422 found early): the rest is not sent, and
        // the connection, its upload cut short, is not used again
        if (!req.writableFinished) req.destroy()
        resolve(status < 400 ? { status } : { status, ...refusal(Buffer.concat(chunks)) })
      })
    })
    req.on('error', () => resolve({ status: 0 }))
    // written in pieces as the connection takes them: one write of 256 MiB would hold the sender's own
    // event loop while it encrypts, and time the sender rather than the gateway
    const body = typeof c.body === 'string' ? Buffer.from(c.body) : c.body
    let at = 0
    const pump = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + PIECE)
        at += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}

function refusal(body: Buffer): { code?: string; reason?: string } {
  try {
    const { error } = JSON.parse(body.toString('utf8')) as {
      error?: { code?: string; details?: { reason?: unknown } }
    }
    const reason = error?.details?.reason
    return { code: error?.code, ...(typeof reason === 'string' ? { reason } : {}) }
  } catch {
    return {}
  }
}

// Runs cases one after another while the canary runs; the worst canary wait per case.
// senderNice: the sender (this thread, which encrypts and decrypts hundreds of MiB) stands in for clients
// on other machines, so it runs below the gateway and the canary (as the isolation bench's floods do); 0
// where the gateway shares this process (the regression test).
export async function stallRun(
  url: string,
  keys: Record<PlanName, string>,
  cases: StallCase[],
  senderNice = 0,
): Promise<({ label: string; canaryMax: number } & Answer)[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, rejectUnauthorized: false })
  const out: ({ label: string; canaryMax: number } & Answer)[] = []
  const canary = await startCanary(url)
  const nice = getPriority()
  if (senderNice) setPriority(nice + senderNice)
  const settle = () => new Promise((r) => setTimeout(r, 3 * CANARY_EVERY_MS))
  try {
    for (const c of cases) {
      // a few quiet answers before the case is sent, and after it
      await settle()
      await canary.read()
      const answer = await send(url, keys[c.plan], c, agent)
      await settle()
      let seen = await canary.read()
      let max = seen.max
      // at least two answers after the case: one held by it has come back
      while (seen.count < 2) {
        await settle()
        seen = await canary.read()
        max = Math.max(max, seen.max)
      }
      out.push({ label: `${c.plan} ${c.label}`, ...answer, canaryMax: max })
    }
  } finally {
    // raising a thread's priority back needs the privilege to (CI runs as root); otherwise it stays low
    if (senderNice) {
      try {
        setPriority(nice)
      } catch {}
    }
    await canary.stop()
    agent.destroy()
  }
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
      const cases = plans.flatMap((p) => [...craftedCases(p), ...opCases(p), ...rawCases(p)])
      const results = await stallRun(gateway.url, keys, cases, SENDER_NICE)
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
