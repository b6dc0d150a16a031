import { generateKeyPairSync } from 'node:crypto'
import { inlineUpTo } from '../src/exec/costs.ts'
import { DEFAULT_PLANS, type PlanName } from '../src/limits/plans.ts'
import { CATALOG, type Catalog } from '../src/ops/catalog.ts'
import { gzipBomb, twoLetterText } from '../src/ops/compression/worst.ts'
import { aliasBomb, deepFlow, hugeTable, longCsvField, scalarAliases } from '../src/ops/data/worst.ts'
import { HELD_ANSWER_LIMIT } from '../src/ops/stream-step.ts'
import { markRuns, nestedArrays, worstRequest } from './stall-inputs.ts'

// The requests of the `stall` bench and its regression test: for every op, its worst-case body at the
// largest size a plan allows (capped by STALL_MAX_BYTES, so that a run stays within minutes), and the
// crafted inputs of issue 14 (amplification, quadratic steps, public-key work).

export interface StallCase {
  label: string
  plan: PlanName
  path: string
  type: 'application/json' | 'application/octet-stream'
  body: string | Buffer
  accept?: string
}

const MiB = 1024 * 1024
// JSON bodies up to each plan's limit (business: 20 MiB); STALL_MAX_BYTES caps them for a quicker run
const MAX_BYTES = Number(process.env.STALL_MAX_BYTES ?? Number.POSITIVE_INFINITY)
// raw bodies up to each plan's binary limit, at most this (business allows 1 GiB: hashing it proves
// nothing 256 MiB does not, and takes the bench's client seconds to send)
const RAW_MAX_BYTES = Number(process.env.STALL_RAW_MAX_BYTES ?? 256 * MiB)
// a raw body answered as JSON whose output the thread holds may be at most this (src/ops/stream-step.ts)
const BUFFERED_MAX_BYTES = HELD_ANSWER_LIMIT

function rsaJwk(e?: string): Record<string, unknown> {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' })
  return e === undefined ? jwk : { ...jwk, e }
}

function rs256Token(): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  return `${part({ alg: 'RS256' })}.${part({ sub: 'x' })}.${'A'.repeat(342)}`
}

// The crafted inputs of issue 14, at their sizes there.
export function craftedCases(plan: PlanName): StallCase[] {
  const json = (label: string, path: string, body: unknown): StallCase => ({
    label,
    plan,
    path,
    type: 'application/json',
    body: JSON.stringify(body),
  })
  const huge = Buffer.alloc(256, 0xff).toString('base64url')
  const hugeKey = rsaJwk(huge)
  return [
    json('format 5.6 KB nested, indent 8', '/v1/json/format', { input: nestedArrays(2800), indent: 8 }),
    {
      label: 'format raw 4 KB, ?indent=8',
      plan,
      path: '/v1/json/format?indent=8',
      type: 'application/octet-stream',
      body: nestedArrays(2000),
    },
    json('patch 822 B copy doubling', '/v1/json/patch', {
      document: {
        a: [
          [0, 0],
          [0, 0],
        ],
      },
      patch: Array.from({ length: 20 }, () => ({ op: 'copy', from: '/a', path: '/a/-' })),
    }),
    json('patch 29 KB → 29 MB', '/v1/json/patch', {
      document: { a: ['x'.repeat(28_000)] },
      patch: Array.from({ length: 10 }, () => ({ op: 'copy', from: '/a', path: '/a/-' })),
    }),
    json('punycode 1,024-code-point label', '/v1/text/encode', {
      input: `a.${'é'.repeat(1024)}.de`,
      format: 'punycode',
    }),
    json('normalize NFC, 20,000 marks', '/v1/text/normalize', {
      input: markRuns(40_000, 20_000),
      form: 'NFC',
    }),
    json('normalize NFKC, runs of 1,024', '/v1/text/normalize', {
      input: markRuns(Math.min(DEFAULT_PLANS[plan].max_json_bytes - 1024, 256 * 1024), 1024),
      form: 'NFKC',
    }),
    json('diff reversed, just under 16 KiB', '/v1/json/diff', {
      left: Array.from({ length: 1800 }, (_, i) => i),
      right: Array.from({ length: 1800 }, (_, i) => 1799 - i),
      output: 'both',
    }),
    {
      label: 'format raw 1 MiB sort_keys',
      plan,
      path: '/v1/json/format?sort_keys=true&mode=minify',
      type: 'application/octet-stream',
      body: `{${Array.from({ length: 60_000 }, (_, i) => `"k${(i * 7919) % 60_000}":${i}`).join(',')}}`,
    },
    json('JWKS 100 RSA keys, huge e, no kid', '/v1/jwt/verify', {
      token: rs256Token(),
      jwks: { keys: Array.from({ length: 100 }, () => hugeKey) },
    }),
    json('JWKS 4 RSA keys, no kid', '/v1/jwt/verify', {
      token: rs256Token(),
      jwks: { keys: Array.from({ length: 4 }, () => rsaJwk()) },
    }),
    // data/convert (issue 39): aliases weighed before they expand, flow nesting refused as it is lexed
    json('convert YAML billion laughs', '/v1/data/convert', aliasBomb(10)),
    json('convert YAML 200 KiB string aliased past the cap', '/v1/data/convert', scalarAliases(200 * 1024)),
    json('convert YAML 100 Ki levels of flow nesting', '/v1/data/convert', deepFlow(200 * 1024)),
    json('convert CSV field of 200 KiB of quotes', '/v1/data/convert', longCsvField(200 * 1024)),
    json('convert 200 KiB TOML table to YAML', '/v1/data/convert', hugeTable(200 * 1024)),
  ]
}

// Raw application/octet-stream bodies at the plan's binary limit: streamed to a pool thread chunk by chunk,
// answered raw (streamed back) or as JSON (the whole output in one envelope, built on the thread).
export function rawCases(plan: PlanName): StallCase[] {
  const binary = Math.min(DEFAULT_PLANS[plan].max_binary_bytes, RAW_MAX_BYTES)
  const buffered = Math.min(DEFAULT_PLANS[plan].max_binary_bytes, BUFFERED_MAX_BYTES)
  const mib = (n: number) => `${Math.round(n / MiB)} MiB`
  const topGzip = (DEFAULT_PLANS[plan] as unknown as Record<string, number>).compression_deflate_max_level
  const pretty = (bytes: number) => {
    const record = '{"id": 12345678901234567890, "name": "caf\\u00e9", "tags": ["a", "b"], "ok": true},\n'
    const count = Math.max(1, Math.floor((bytes - 16) / record.length))
    return Buffer.from(`[\n${record.repeat(count)}null]\n`)
  }
  const raw = (label: string, path: string, body: Buffer, accept?: string): StallCase => ({
    label,
    plan,
    path,
    type: 'application/octet-stream',
    body,
    ...(accept ? { accept } : {}),
  })
  return [
    raw(`hash raw ${mib(binary)}`, '/v1/hash/sha512', Buffer.alloc(binary, 0x61)),
    raw(`base64 encode raw ${mib(buffered)}, JSON answer`, '/v1/base64/encode', Buffer.alloc(buffered, 0xe9)),
    raw(
      `base64 decode raw ${mib(binary)}, raw answer`,
      '/v1/base64/decode',
      Buffer.from('QUJD'.repeat(Math.floor(binary / 4))),
      'application/octet-stream',
    ),
    raw(`format raw ${mib(buffered)} ?indent=8, JSON answer`, '/v1/json/format?indent=8', pretty(buffered)),
    raw(
      `format raw ${mib(binary)} minify, raw answer`,
      '/v1/json/format?mode=minify',
      pretty(binary),
      'application/octet-stream',
    ),
    // a decompression bomb (refused at the plan's ratio cap), and compression at the plan's highest gzip level
    // of the text that costs DEFLATE the most (up to 16 MiB: past it the plan's compute budget ends it anyway)
    raw(
      `decompress raw ${mib(binary)} gzip bomb, raw answer`,
      '/v1/decompress/gzip',
      gzipBomb(binary),
      'application/octet-stream',
    ),
    raw(
      `compress raw ${mib(Math.min(binary, 16 * MiB))} gzip at level ${topGzip}, raw answer`,
      `/v1/compress/gzip?level=${topGzip}`,
      Buffer.from(twoLetterText(Math.min(binary, 16 * MiB))),
      'application/octet-stream',
    ),
  ]
}

// Every op's worst case (OpDescriptor.worst) at the plan's JSON body limit (or STALL_MAX_BYTES), and just
// under its inline bound: the catalog's ops, a test's own included.
export function opCases(plan: PlanName, catalog: Catalog = CATALOG): StallCase[] {
  const limit = Math.min(DEFAULT_PLANS[plan].max_json_bytes, MAX_BYTES) - 4096
  const cases: StallCase[] = []
  for (const op of catalog.ops) {
    const bound = inlineUpTo(op)
    const sizes = Number.isFinite(bound) ? [bound - 512, limit] : [1024]
    for (const bytes of sizes) {
      const { path, body } = worstRequest(op, bytes)
      cases.push({
        label: `${op.name} ${Math.round(bytes / 1024)} KiB`,
        plan,
        path,
        type: 'application/json',
        body: JSON.stringify(body),
      })
    }
  }
  return cases
}
