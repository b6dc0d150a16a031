import { z } from 'zod'
import { closestName } from './did-you-mean.ts'

export interface InputIssue {
  path: string
  message: string
  // the known field a refused unknown one is most likely a typo of
  did_you_mean?: string
}

// What a refusal reports, and so all the work it may cost: a hostile body can carry thousands of unknown
// fields or wrong values, and every issue is built on the event loop (docs/decisions.md, Strict input).
export const MAX_ISSUES = 20
// a field name the client sent is echoed cut to this many characters, with an ellipsis
export const MAX_ECHOED_NAME = 64
// the allowed values a message lists for a missing field, at most
const MAX_LISTED_VALUES = 12

export function echoName(name: string): string {
  if (name.length <= MAX_ECHOED_NAME) return name
  // never half a surrogate pair
  const last = name.charCodeAt(MAX_ECHOED_NAME - 1)
  const end = last >= 0xd800 && last <= 0xdbff ? MAX_ECHOED_NAME - 1 : MAX_ECHOED_NAME
  return `${name.slice(0, end)}…`
}

// What the schema at an unknown field's place knows, kept on the raw zod issue by the error map below
// (zod copies an issue's own properties into the final one): the object's own field names, so that the
// did-you-mean of the few issues reported is computed for those alone, never for every unknown key.
interface UnknownKeysIssue {
  code: 'unrecognized_keys'
  keys: string[]
  path: PropertyKey[]
  known?: readonly string[]
}

const knownNames = new WeakMap<object, readonly string[]>()

function namesOf(inst: unknown): readonly string[] {
  if (typeof inst !== 'object' || inst === null) return []
  let names = knownNames.get(inst)
  if (!names) {
    const shape = (inst as { _zod?: { def?: { shape?: object } } })._zod?.def?.shape
    names = shape ? Object.keys(shape) : []
    knownNames.set(inst, names)
  }
  return names
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  bigint: 'an integer',
}

const listed = (values: readonly unknown[]) => {
  const shown = values.slice(0, MAX_LISTED_VALUES).map((v) => JSON.stringify(v))
  return `${values.length === 1 ? '' : 'one of '}${shown.join(', ')}${values.length > MAX_LISTED_VALUES ? ', …' : ''}`
}

// A field the input lacks, by name, and what it must be: "Missing required field "input" (a string)."
// rather than zod's "Invalid input: expected string, received undefined", which says neither which field
// nor that it is absent.
interface MissingField {
  name: string
  what: string
}

function missingField(issue: z.core.$ZodRawIssue): MissingField | undefined {
  if (issue.input !== undefined || !issue.path || issue.path.length === 0) return undefined
  const name = issue.path.map((p) => echoName(String(p))).join('.')
  let what: string | undefined
  if (issue.code === 'invalid_type') what = EXPECTED[issue.expected] ?? issue.expected
  else if (issue.code === 'invalid_value') what = listed(issue.values)
  else if (issue.code === 'invalid_union' && Array.isArray((issue as { options?: unknown }).options))
    what = listed((issue as unknown as { options: unknown[] }).options)
  return what === undefined ? undefined : { name, what }
}

// Per-parse error map, run by zod for the issues we finalize (at most MAX_ISSUES): an unknown field is
// reported with the field names of the object it was found in (every request object schema is strict:
// unknown fields are refused, never dropped); a missing field by name (kept on the issue, which zod copies
// into the final one, for the error's message).
function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'unrecognized_keys') {
    ;(issue as unknown as UnknownKeysIssue).known = namesOf(issue.inst)
    // never shown: issuesOf makes one issue per unknown field, each with its own message
    return 'Unknown field'
  }
  const missing = missingField(issue)
  if (missing === undefined) return undefined
  ;(issue as { missing?: MissingField }).missing = missing
  return `Missing required field ${JSON.stringify(missing.name)} (${missing.what}).`
}

export type Validated<T> = { success: true; data: T } | { success: false; issues: z.core.$ZodIssue[] }

// Request input is parsed with this rather than schema.safeParse, on the event loop and on workers alike,
// so the details of a refusal are the same wherever the body was parsed, and bounded: only the first
// MAX_ISSUES issues are finalized (zod's own `error` would build every one, each with its message). What
// remains proportional to the body is zod's one pass over an object's keys, which costs what JSON.parse
// already spent making them (docs/decisions.md, Strict input).
// what safeParse hands zod: synchronous (`async: false` is what lets zod run an object schema's compiled fast
// path instead of its generic one: 1.8 µs of a small request went to validation without it)
const CTX: z.core.ParseContext<z.core.$ZodIssue> & { async: false } = { error: describeIssue, async: false }

export function parseInput<T>(schema: z.ZodType<T>, data: unknown): Validated<T> {
  const ctx = CTX
  // what safeParse runs, minus the error it would build from every issue
  const result = schema._zod.run({ value: data, issues: [] }, ctx)
  if (result instanceof Promise) throw new Error('request schemas are synchronous')
  if (result.issues.length === 0) return { success: true, data: result.value as T }
  const config = z.core.config()
  const issues = result.issues.slice(0, MAX_ISSUES).map((i) => z.core.util.finalizeIssue(i, ctx, config))
  return { success: false, issues }
}

function joinPath(parts: unknown[]): string {
  return parts
    .filter((p) => p !== undefined && p !== '')
    .map((p) => echoName(String(p)))
    .join('.')
}

// the unknown field's own name, for the error's message (a dotted path cannot be split back into names)
const unknownNames = new WeakMap<InputIssue, string>()
const missingFields = new WeakMap<InputIssue, MissingField>()

function unknownField(path: string, name: string, closest: string | undefined): InputIssue {
  const quoted = JSON.stringify(echoName(name))
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

// ERR_VALIDATION details: at most MAX_ISSUES issues, each with a dotted path; an unknown field is one
// issue per field, at the field's own path, its name cut to MAX_ECHOED_NAME characters.
export function issuesOf(issues: readonly z.core.$ZodIssue[], prefix?: string): InputIssue[] {
  const out: InputIssue[] = []
  for (const i of issues) {
    if (out.length >= MAX_ISSUES) break
    const path = [prefix, ...i.path]
    if (i.code === 'unrecognized_keys') {
      const known = (i as unknown as UnknownKeysIssue).known ?? []
      for (const key of i.keys) {
        if (out.length >= MAX_ISSUES) break
        out.push(unknownField(joinPath([...path, key]), key, closestName(key, known)))
      }
    } else {
      const issue = { path: joinPath(path), message: i.message }
      const missing = (i as { missing?: MissingField }).missing
      if (missing) missingFields.set(issue, missing)
      out.push(issue)
    }
  }
  return out
}

// Where the issues are, for a person: the part of the request, by the prefix of their paths.
function partOf(prefix: string | undefined): string {
  if (prefix === undefined) return 'body'
  if (prefix === 'query') return 'query string'
  if (prefix === 'params') return 'path'
  return prefix
}

const sentence = (text: string) => (/[.?!]$/.test(text) ? text : `${text}.`)

// The error's message, naming the part of the request (body, query string, path) and the first issue
// that matters most: the first unknown field when there is one (the mistake a client most needs to see),
// else the first missing field, else the first issue as it stands.
export function validationMessage(issues: InputIssue[], prefix?: string): string {
  const part = partOf(prefix)
  const unknown = issues.find((i) => unknownNames.has(i))
  if (unknown) {
    const name = unknownNames.get(unknown)!
    const top = unknown.path === joinPath([prefix, name])
    const where = top ? '' : ` at ${unknown.path}`
    const hint =
      unknown.did_you_mean === undefined ? '' : ` (did you mean ${JSON.stringify(unknown.did_you_mean)}?)`
    return `Unknown field ${JSON.stringify(echoName(name))} in the ${part}${where}${hint}.`
  }
  const missingIssue = issues.find((i) => missingFields.has(i))
  if (missingIssue) {
    const { name, what } = missingFields.get(missingIssue)!
    return `Missing required field ${JSON.stringify(name)} in the ${part} (${what}).`
  }
  const first = issues[0]
  if (!first) return `The ${part} does not match the schema.`
  const field =
    prefix !== undefined && first.path.startsWith(`${prefix}.`)
      ? first.path.slice(prefix.length + 1)
      : first.path
  if (field === '' || field === prefix) return sentence(`The ${part} is not valid: ${first.message}`)
  return sentence(`Invalid ${JSON.stringify(field)} in the ${part}: ${first.message}`)
}
