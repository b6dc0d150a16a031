import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stallRun } from '../../bench/stall.ts'
import { craftedCases, opCases, rawCases } from '../../bench/stall-cases.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'

// The `stall` bench's heaviest cases against a real gateway (its own process, TLS on a loopback port) on
// the free plan: a canary GET /healthz on its own connection never waits more than 250 ms (the bench's
// target is 50 ms; this bound is generous so that a shared CI machine stays green). Before the budgets and
// cost models, the first of these held the event loop 2.2 s. The gateway is a process of its own, as the
// bench's is: in the shared test process a collection of the heap the files before this one left (and the
// sender's own work) held the loop the canary times — CI read 343 ms for a case the gateway answers in 5-77.
const BOUND_MS = 250
// Each case's own answer: a budget refusal names its reason; the diff runs on the pool and succeeds; the
// JWKS of huge-exponent keys is refused as key material before any signature is checked.
const budget = (reason: string) => ({ status: 422, code: 'ERR_COMPUTE_LIMIT', reason })
const HEAVIEST: Record<string, { status: number; code?: string; reason?: string }> = {
  'format 5.6 KB nested, indent 8': budget('output_size'),
  'format raw 4 KB, ?indent=8': budget('output_size'),
  'patch 822 B copy doubling': budget('copied_bytes'),
  'punycode 1,024-code-point label': budget('label_length'),
  'normalize NFC, 20,000 marks': budget('non_starter_run'),
  'diff reversed, just under 16 KiB': { status: 200 },
  'JWKS 100 RSA keys, huge e, no kid': { status: 400, code: 'ERR_INVALID_KEY_MATERIAL' },
  'convert YAML billion laughs': budget('output_size'),
  'convert YAML 100 Ki levels of flow nesting': budget('depth'),
}

let server: ServerProcess
let dataDir: string
let key: string

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'anvil-stall-'))
  server = await startServerProcess({
    DATA_DIR: dataDir,
    DEFAULT_PLAN: 'free',
    LOG_LEVEL: 'warn',
    POOL_WARM: 'false',
    POOL_FREE_THREADS: '1',
    PLANS: JSON.stringify({ free: { key_rate_per_second: 1000, workspace_rate_per_second: 1000 } }),
  })
  key = server.firstKey!
}, 120_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

describe('stall: worst-case inputs never hold the event loop', () => {
  it('the heaviest crafted cases keep a canary /healthz under 250 ms', async () => {
    const cases = craftedCases('free').filter((c) => Object.hasOwn(HEAVIEST, c.label))
    expect(cases.map((c) => c.label).sort()).toEqual(Object.keys(HEAVIEST).sort())
    const keys = { free: key, pro: key, business: key }
    // a first pass starts the free pool's thread and loads each op on it (tests run with POOL_WARM off)
    await stallRun(server.url, keys, cases)
    const results = await stallRun(server.url, keys, cases)
    expect(results).toHaveLength(cases.length)
    for (const [i, r] of results.entries()) {
      const { label, status, code, reason } = r
      expect({ label, status, code, reason }).toEqual({
        label: `free ${cases[i]!.label}`,
        ...HEAVIEST[cases[i]!.label],
      })
      expect(r.canaryMax, r.label).toBeLessThan(BOUND_MS)
    }
  }, 120_000)

  // issue 40: a decompression bomb and compression at the plan's top level, raw and as JSON bodies (at the
  // free plan's limits and just under their inline bounds): each answered as its caps say, the loop free
  it("compression's worst cases keep a canary /healthz under 250 ms", async () => {
    const expected: Record<string, { status: number; code?: string; reason?: string }> = {
      'decompress raw 1 MiB gzip bomb, raw answer': { status: 422, code: 'ERR_PLAN_CAP' },
      'compress raw 1 MiB gzip at level 6, raw answer': { status: 200 },
      'compression.compress 2 KiB': { status: 200 },
      'compression.compress 252 KiB': { status: 200 },
      // ~320 KB of zeros: under the 512 KiB before the ratio applies
      'compression.decompress 1 KiB': { status: 200 },
      'compression.decompress 252 KiB': { status: 422, code: 'ERR_PLAN_CAP' },
    }
    const cases = [...rawCases('free'), ...opCases('free')].filter((c) => Object.hasOwn(expected, c.label))
    expect(cases.map((c) => c.label).sort()).toEqual(Object.keys(expected).sort())
    const keys = { free: key, pro: key, business: key }
    await stallRun(server.url, keys, cases)
    const results = await stallRun(server.url, keys, cases)
    for (const [i, r] of results.entries()) {
      const { label, status, code } = r
      const want = expected[cases[i]!.label]!
      expect({ label, status, code }).toEqual({
        label: `free ${cases[i]!.label}`,
        status: want.status,
        code: want.code,
      })
      expect(r.canaryMax, r.label).toBeLessThan(BOUND_MS)
    }
  }, 120_000)
})
