import { performance } from 'node:perf_hooks'
import { parseAndValidate } from '../src/lib/raw-json.ts'
import { parseJsonExact } from '../src/ops/json/number.ts'
import { OPERATIONS, type OpName } from '../src/ops/registry.ts'
import { collectNow } from './memory.ts'
import type { ThreadData } from './protocol.ts'

// Warm-up of a pool thread at boot (issue 14): a fresh thread has loaded its modules but every op still
// runs in V8's interpreter, so the first heavy request after a deploy ran several times slower than the
// tenth (a 10k-item diff: 302 ms against 80-160 ms). Running each hot op a few times on small inputs, by
// the same path a request takes (raw bodies parsed and validated on the thread, results serialized),
// lets V8 compile the hot functions before a tenant waits on them. Inputs are small so a thread is warm
// in well under a second even on a busy machine; rounds, not size, are what the optimizing tiers count.

const ROUNDS = 4

function items(count: number, shift: number): { id: number; name: string; price: number; tags: string[] }[] {
  return Array.from({ length: count }, (_, i) => {
    const id = i + shift
    return {
      id,
      name: `item ${id}`,
      price: (id % 97) / 10 + (i % 7 === 0 ? 1 : 0),
      tags: ['a', `t${id % 5}`],
    }
  })
}

const LEFT = items(600, 0)
const RIGHT = items(600, 8)
const DOC = {
  name: 'anvil',
  nested: { list: [1, 2, 3], flag: true, text: 'héllo wörld' },
  items: LEFT.slice(0, 50),
}
const encoder = new TextEncoder()
const raw = (value: unknown) => encoder.encode(JSON.stringify(value))

interface WarmCase {
  op: OpName
  // input for the op, or a raw body (bytes) parsed and validated as the thread does for large bodies
  input?: unknown
  raw?: Uint8Array
}

const SECRET = 'warm-up-secret-0123456789abcdef0123456789'
const CASES: WarmCase[] = [
  { op: 'hash', input: { algorithm: 'sha256', input: 'x'.repeat(4096) } },
  { op: 'hmac', input: { algorithm: 'sha256', input: 'x'.repeat(4096), key: 'k' } },
  { op: 'json.format', input: { input: JSON.stringify(DOC), indent: 2, sort_keys: true } },
  { op: 'json.format', input: { input: JSON.stringify(DOC), mode: 'minify' } },
  {
    op: 'json.diff',
    raw: raw({ left: { items: LEFT }, right: { items: RIGHT }, array_key: 'id', output: 'both' }),
  },
  { op: 'json.diff', input: { left: DOC, right: { ...DOC, name: 'anvil 2' } } },
  {
    op: 'json.patch',
    raw: raw({
      document: DOC,
      patch: [
        { op: 'replace', path: '/name', value: 'x' },
        { op: 'add', path: '/items/-', value: { id: 1 } },
        { op: 'copy', from: '/nested', path: '/copy' },
        { op: 'remove', path: '/items/0' },
      ],
    }),
  },
  { op: 'base64.encode', input: { input: 'x'.repeat(4096) } },
  { op: 'base64.decode', input: { input: Buffer.from('x'.repeat(4096)).toString('base64') } },
  { op: 'text.normalize', input: { input: 'é'.normalize('NFD').repeat(200), form: 'NFC' } },
  { op: 'text.inspect', input: { input: 'héllo wörld 👋🏽 '.repeat(50) } },
  { op: 'url.parse', input: { url: 'https://user@example.com:8443/a/b?x=1&y=2#frag' } },
]

async function runCase(c: WarmCase): Promise<void> {
  const spec = OPERATIONS[c.op]
  if (c.raw) {
    if (!('body' in spec) || !spec.body) throw new Error(`${c.op} takes no raw body`)
    const value = await spec.run(parseAndValidate(c.raw, spec.body, parseJsonExact) as never)
    JSON.stringify(value)
    return
  }
  JSON.stringify(await spec.run(c.input as never))
}

async function jwtRoundTrip(): Promise<void> {
  const { token } = await OPERATIONS['jwt.sign'].run({
    payload: { sub: 'warm' },
    algorithm: 'HS256',
    secret: SECRET,
  })
  await OPERATIONS['jwt.verify'].run({ token, secret: SECRET, algorithms: ['HS256'] })
  await OPERATIONS['jwt.decode'].run({ token })
}

export interface WarmUpReport {
  ms: number
  // ops whose warm-up threw: a bug in the warm-up inputs, never a reason to refuse to start the thread
  failed: string[]
}

// Runs every case ROUNDS times. It never throws: a thread that could not warm one op still serves it.
export async function warmUpOps(): Promise<WarmUpReport> {
  const started = performance.now()
  const failed = new Set<string>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of CASES) await runCase(c).catch(() => failed.add(c.op))
    await jwtRoundTrip().catch(() => failed.add('jwt'))
  }
  return { ms: performance.now() - started, failed: [...failed] }
}

// The thread entry's top-level await: Piscina hands a thread no task before its module has loaded, so a
// request that arrives during the warm-up waits for it instead of running cold beside it. The warm-up's
// garbage is collected before the thread says it is warm, so a thread at rest holds only what it needs.
export async function prepareThread(data: Partial<ThreadData> | undefined): Promise<void> {
  if (!data?.warmUp) return
  await warmUpOps()
  collectNow()
  if (data.warmed) Atomics.add(new Int32Array(data.warmed), 0, 1)
}
