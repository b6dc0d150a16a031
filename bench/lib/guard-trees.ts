import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Tree } from './guard-compare.ts'
import { type Gateway, startGateway, waitReady } from './processes.ts'

// The two trees the guard compares: base (another commit's tree, extracted by bench/lib/base-tree.ts)
// and head (this one). `tree` is where a base's gateway runs from; head runs from this checkout.
export interface GuardTree {
  name: Tree
  // what the report calls it: the commit, short
  label: string
  tree?: { gateway: string; dir: string }
}

export type GuardTrees = Record<Tree, GuardTree>

export interface GuardGateway extends Gateway {
  // the gateway's self-signed certificate, to trust in requests
  ca: Buffer
}

// Gateways started and not yet stopped: killed when the guard exits, whatever happened (a gateway left
// running would keep a CI job, or the next run's CPU, busy)
const live = new Set<Gateway>()
process.once('exit', () => {
  for (const g of live) g.child.kill('SIGKILL')
})

// Starts a tree's gateway and waits until /readyz says its pools are warm. A gateway that does not start
// fails the guard with the tree named: a base that cannot run must not pass as "no regression".
export async function startTreeGateway(t: GuardTree, env: Record<string, string>): Promise<GuardGateway> {
  let gateway: Gateway
  try {
    gateway = await startGateway(env, t.tree)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    throw new Error(`the ${t.name} tree's gateway (${t.label}) did not start: ${message.slice(0, 2000)}`)
  }
  try {
    const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'))
    await waitReady(gateway.url, ca)
    live.add(gateway)
    return {
      ...gateway,
      ca,
      stop: async () => {
        // a stopped (SIGSTOP) process takes no SIGTERM until it is continued
        gateway.child.kill('SIGCONT')
        await gateway.stop()
        live.delete(gateway)
      },
    }
  } catch (err) {
    await gateway.stop()
    const message = err instanceof Error ? err.message : String(err)
    throw new Error(`the ${t.name} tree's gateway (${t.label}) did not become ready: ${message}`)
  }
}

// Runs `active` and freezes (SIGSTOP) every other gateway of `all` until its turn: the tree not being
// measured takes no CPU from the one that is. Without this, a head whose gateways burn CPU even when idle
// (a busy timer, a spinning thread) slows base's rounds as much as its own, and head ÷ base hides it: a
// planted 2 ms-every-4 ms busy loop measured base's small-request CPU at 4.8× its usual value.
export function focus(active: GuardGateway[], all: GuardGateway[]): void {
  for (const g of all) if (!active.includes(g)) g.child.kill('SIGSTOP')
  for (const g of active) g.child.kill('SIGCONT')
}

// What became of a gateway, for an error message: still running, or how it ended, and its last output.
export function gatewayState(g: GuardGateway): string {
  const c = g.child
  const state =
    c.exitCode === null && c.signalCode === null
      ? 'still running'
      : `exited (${c.signalCode ? `signal ${c.signalCode}` : `code ${c.exitCode}`})`
  return `its gateway (pid ${c.pid}) ${state}; its last output: ${g.output().slice(-1500)}`
}

// The base the guard compares against: BENCH_BASE_REF when set (a commit, tag or ref), else the commit
// pinned in bench/guard-base (its first line; the file holds one).
export function chooseBase(
  envRef: string | undefined,
  pinned: string | undefined,
): { ref: string; from: 'BENCH_BASE_REF' | 'bench/guard-base' } {
  if (envRef?.trim()) return { ref: envRef.trim(), from: 'BENCH_BASE_REF' }
  const line = pinned?.split('\n')[0]?.trim()
  if (!line)
    throw new Error('no base: set BENCH_BASE_REF or write a commit on the first line of bench/guard-base')
  return { ref: line, from: 'bench/guard-base' }
}
