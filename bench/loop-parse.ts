// `node bench/loop-parse.ts`: what the event loop still spends on a large JSON body of the routes that
// parse it there (custom handlers: hash, hmac, base64, json/format; docs/dispatch.md, "Bodies parsed on
// the loop"): JSON.parse plus the route's zod schema, at the business plan's max_json_bytes, per MiB.
import { z } from 'zod'
import { DEFAULT_PLANS } from '../src/limits/plans.ts'
import { hashBody } from '../src/ops/hash/schema.ts'
import { hmacBody } from '../src/ops/hmac/schema.ts'
import { formatBody } from '../src/ops/json/format/schema.ts'

const MiB = 1024 * 1024
const bytes = DEFAULT_PLANS.business.max_json_bytes
// base64's bodies are strings and enums like these (src/ops/base64/schema.ts): the string dominates
const base64Like = z.strictObject({ input: z.string(), variant: z.enum(['standard', 'url']).optional() })

// The string fields' worst content per byte: plain ASCII (one memcpy), and escapes (\" in JSON text,
// \u00e9 in text), which JSON.parse decodes one by one.
const fills: Record<string, string> = { ascii: 'x', quotes: '\\"', unicode: '\\u00e9' }

const cases = [
  { route: 'POST /v1/hash/{algorithm}', schema: hashBody, extra: {} },
  { route: 'POST /v1/hmac/{algorithm}', schema: hmacBody, extra: { key: 'k' } },
  { route: 'POST /v1/base64/encode|decode', schema: base64Like, extra: {} },
  { route: 'POST /v1/json/format', schema: formatBody, extra: {} },
]

for (const c of cases) {
  for (const [name, unit] of Object.entries(fills)) {
    const head = `{"input":"`
    const tail = `",${JSON.stringify(c.extra).slice(1, -1) || '"_":0'}}`.replace(',"_":0', '')
    const text = head + unit.repeat(Math.floor((bytes - 64) / unit.length)) + tail
    let best = Number.POSITIVE_INFINITY
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      const r = c.schema.safeParse(JSON.parse(text))
      if (!r.success) throw new Error(`${c.route}: ${r.error.message}`)
      best = Math.min(best, performance.now() - t)
    }
    const mib = text.length / MiB
    console.log(
      `${c.route} ${name}: ${mib.toFixed(1)} MiB ${best.toFixed(1)} ms, ${(best / mib).toFixed(2)} ms/MiB`,
    )
  }
}
