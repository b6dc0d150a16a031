import type { z } from 'zod'
import { closestName } from './did-you-mean.ts'

export interface InputIssue {
  path: string
  message: string
  // the known field a refused unknown one is most likely a typo of
  did_you_mean?: string
}

// What the schema at an unknown field's place knows, kept on the raw zod issue by the error map below
// (zod copies an issue's own properties into the final one): known[i] is the closest known name to keys[i].
interface UnknownKeysIssue {
  code: 'unrecognized_keys'
  keys: string[]
  path: PropertyKey[]
  closest?: (string | undefined)[]
}

// Per-parse error map: an unknown field is reported with the closest known field of the object it was
// found in (every request object schema is strict: unknown fields are refused, never dropped).
function namesUnknownFields(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined
  const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape
  const known = shape ? Object.keys(shape) : []
  const keys = (issue as unknown as UnknownKeysIssue).keys
  ;(issue as unknown as UnknownKeysIssue).closest = keys.map((k) => closestName(k, known))
  return `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.map((k) => JSON.stringify(k)).join(', ')}`
}

// Request input is parsed with this rather than schema.safeParse, on the event loop and on workers alike,
// so the details of a refusal are the same wherever the body was parsed.
export function parseInput<T>(schema: z.ZodType<T>, data: unknown) {
  return schema.safeParse(data, { error: namesUnknownFields })
}

function joinPath(parts: unknown[]): string {
  return parts.filter((p) => p !== undefined && p !== '').join('.')
}

// the unknown field's own name, for the error's message (a dotted path cannot be split back into names)
const unknownNames = new WeakMap<InputIssue, string>()

function unknownField(path: string, name: string, closest: string | undefined): InputIssue {
  const quoted = JSON.stringify(name)
  const issue: InputIssue =
    closest === undefined
      ? { path, message: `Unknown field ${quoted}.` }
      : {
          path,
          message: `Unknown field ${quoted}. Did you mean ${JSON.stringify(closest)}?`,
          did_you_mean: closest,
        }
  unknownNames.set(issue, name)
  return issue
}

// ERR_VALIDATION details from a zod error: at most 20 issues, each with a dotted path; an unknown field
// is one issue per field, at the field's own path.
export function issuesOf(error: z.ZodError, prefix?: string): InputIssue[] {
  const out: InputIssue[] = []
  for (const i of error.issues) {
    const path = [prefix, ...i.path.map(String)]
    if (i.code === 'unrecognized_keys') {
      const closest = (i as unknown as UnknownKeysIssue).closest
      i.keys.forEach((key, n) => {
        out.push(unknownField(joinPath([...path, key]), key, closest?.[n]))
      })
    } else {
      out.push({ path: joinPath(path), message: i.message })
    }
    if (out.length >= 20) break
  }
  return out.slice(0, 20)
}

// The error's message: the first unknown field when there is one (the mistake a client most needs to
// see), else the generic one of the error table.
export function validationMessage(issues: InputIssue[], prefix?: string): string | undefined {
  const unknown = issues.find((i) => unknownNames.has(i))
  if (!unknown) return undefined
  const name = unknownNames.get(unknown)!
  const part = prefix === undefined ? 'body' : prefix === 'query' ? 'query string' : prefix
  const top = unknown.path === (prefix === undefined ? name : `${prefix}.${name}`)
  const where = top ? '' : ` at ${unknown.path}`
  const hint =
    unknown.did_you_mean === undefined ? '' : ` (did you mean ${JSON.stringify(unknown.did_you_mean)}?)`
  return `Unknown field ${JSON.stringify(name)} in the ${part}${where}${hint}.`
}
