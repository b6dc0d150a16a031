import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Callgrind, sendCounted } from './lib/callgrind.ts'
import { type Running, startGateway, startNode } from './lib/processes.ts'
import type { Scenario } from './lib/scenario.ts'

const WARM = Number(process.env.BENCH_INSTRUCTIONS_WARM ?? 4000)
const COUNT = Number(process.env.BENCH_INSTRUCTIONS_COUNT ?? 2000)

// small-hash's four servers (bare Fastify, the floor, the contract floor, the gateway on its embedded
// store) with small-hash's request, but counted in instructions a request (valgrind's callgrind) instead of
// CPU time: each server runs under callgrind, serves WARM requests (V8 has optimized the path by then),
// then COUNT more, counted from zero. The count is the same from run to run within ~2% where this machine's
// CPU time per request moves by a quarter between rounds of the same code; what it does not see is what an
// instruction costs (caches, TLB, the host), which is what CPU time adds (docs/dispatch.md, "Instructions a
// request"). The gateway's pool threads are not warmed: a small sha256 runs inline, and a warm-up under
// valgrind takes minutes.
export const instructions: Scenario = {
  name: 'instructions',
  title: 'Instructions per small keyed request (callgrind): the gateway against the contract floor',
  // issue 41: gateway ≤ 1.1× the contract floor, here in instructions
  target: {
    ratio: 1 / 1.1,
    text: 'gateway ≤ 1.1× the contract floor (ratio = contract floor ÷ gateway ≥ 0.909)',
  },
  async run() {
    const callgrind = await Callgrind.open()
    const under = callgrind.under()
    const body = JSON.stringify({ input: 'hello world' })
    const json = { 'content-type': 'application/json' }
    const started: Running[] = []
    try {
      const gateway = await startGateway({ LOG_LEVEL: 'info', POOL_WARM: 'false' }, undefined, under)
      started.push(gateway)
      const dataDir = /data dir:\s+(\S+)/.exec(gateway.output())![1]!
      const tls = {
        TLS_CERT_FILE: join(dataDir, 'tls', 'cert.pem'),
        TLS_KEY_FILE: join(dataDir, 'tls', 'key.pem'),
      }
      const ca = await readFile(tls.TLS_CERT_FILE)
      const withKey = { ...json, authorization: `Bearer ${gateway.key}` }
      const count = async (server: Running, headers: Record<string, string>) => {
        const options = { ca, headers, body }
        const url = `${server.url}/v1/hash/sha256`
        await sendCounted(url, options, WARM)
        return callgrind.perRequest(server.child.pid!, () => sendCounted(url, options, COUNT), COUNT)
      }
      const g = await count(gateway, withKey)
      // the floors one at a time, while the gateway idles (its certificate is theirs)
      const floor = async (script: string, headers: Record<string, string>) => {
        const server = await startNode(
          script,
          { ...tls, API_KEY: gateway.key },
          /READY (https:\/\/\S+)/,
          undefined,
          under,
        )
        started.push(server)
        return count(server, headers)
      }
      const b = await floor('bench/baselines/bare-fastify.ts', json)
      const f = await floor('bench/baselines/floor.ts', withKey)
      const k = await floor('bench/baselines/floor-contract.ts', withKey)
      const per = (label: string, value: number) => ({
        label,
        value: value / 1000,
        unit: 'k instructions a request',
      })
      return {
        rows: [
          per('bare Fastify TLS', b),
          per('floor: bare + key lookup + contract headers', f),
          per('contract floor: + validation, limits, metrics, log', k),
          per('Anvil gateway', g),
          { label: 'floor ÷ bare', value: f / b, unit: '×' },
          { label: 'contract floor ÷ floor', value: k / f, unit: '×' },
          { label: 'gateway ÷ bare', value: g / b, unit: '×' },
          { label: 'gateway ÷ contract floor', value: g / k, unit: '× (target ≤ 1.1)' },
        ],
        ratio: k / g,
      }
    } finally {
      await Promise.all(started.map((s) => s.stop()))
      await callgrind.close()
    }
  },
}
