import { z } from 'zod'

// CORS_ALLOWED_ORIGINS: a comma list of browser origins (scheme://host[:port], exactly as a browser sends
// it in Origin), or "*" alone. Empty or unset: no origin at all. A path, a trailing slash or a wildcard
// inside a host never matches an Origin header, so it is refused at boot rather than silently never used.
export type AllowedOrigins = '*' | readonly string[]

export const allowedOriginsSchema = z.string().transform((text, ctx): AllowedOrigins => {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (items.includes('*')) {
    if (items.length === 1) return '*'
    ctx.addIssue({ code: 'custom', message: '"*" must be the only entry' })
    return z.NEVER
  }
  for (const item of items) {
    const problem = originProblem(item)
    if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item)} ${problem}` })
  }
  return items
})

function originProblem(item: string): string | undefined {
  let url: URL
  try {
    url = new URL(item)
  } catch {
    return 'is not an origin (scheme://host[:port])'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http: or https: origin'
  if (url.origin !== item) return `is not an origin as browsers send it; did you mean ${url.origin}?`
  return undefined
}
