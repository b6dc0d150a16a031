import { AppError } from '../../../errors.ts'
import { type CompiledSchema, type CompileOptions, compile } from './compile.ts'
import { Context } from './context.ts'
import type { Dialect, OutputUnit, ValidateBounds } from './types.ts'

// POST /v1/json/validate: one schema, compiled once, against one instance or many.

export interface ValidateInput {
  schema: unknown
  instance?: unknown
  instances?: unknown[]
  format_assertion?: boolean
  dialect?: Dialect
}

export interface InstanceResult {
  valid: boolean
  errors: OutputUnit[]
  // output units past the plan's cap, not listed
  errors_omitted: number
}

export type ValidateResult =
  | InstanceResult
  | { valid: boolean; results: InstanceResult[]; errors_omitted: number }

// Where a compiled schema may be kept between requests (cache.ts), keyed by its text.
export interface CompiledSchemas {
  get(schema: unknown, options: CompileOptions): CompiledSchema
}

// What every valid instance without output units answers: one object for all of them (10k results of a
// batch were 10k objects and 10k arrays to allocate, and collect, for the same JSON).
const VALID: InstanceResult = Object.freeze({
  valid: true,
  errors: Object.freeze([]) as unknown as OutputUnit[],
  errors_omitted: 0,
})

// One instance; its output units are at most what `cx` has left of the request's maxErrors.
export function validateOne(compiled: CompiledSchema, instance: unknown, cx: Context): InstanceResult {
  const context = cx
  // context.errors is empty here: a result that lists units took the array (below)
  context.dropped = 0
  let valid: boolean
  try {
    valid = compiled.root.check(instance, context, undefined)
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep()
    throw err
  }
  if (valid && context.errors.length === 0 && context.dropped === 0) return VALID
  const errors = context.errors
  context.errors = []
  return { valid, errors, errors_omitted: context.dropped }
}

function tooDeep(): AppError {
  return new AppError('ERR_COMPUTE_LIMIT', 'The schema and instance nest too deeply to evaluate.', {
    reason: 'depth',
  })
}

export function validateJson(
  input: ValidateInput,
  bounds: ValidateBounds,
  schemas: CompiledSchemas = { get: compile },
): ValidateResult {
  const hasOne = Object.hasOwn(input, 'instance')
  if (hasOne === (input.instances !== undefined)) {
    throw new AppError('ERR_VALIDATION', 'Send exactly one of `instance` and `instances`.', {
      issues: [{ path: 'instance', message: 'exactly one of instance and instances is required' }],
    })
  }
  if (input.instances !== undefined && input.instances.length > bounds.maxInstances) {
    throw new AppError(
      'ERR_VALIDATION',
      `At most ${bounds.maxInstances} instances per request on this plan.`,
      {
        issues: [{ path: 'instances', message: `more than ${bounds.maxInstances} instances` }],
        max_instances: bounds.maxInstances,
      },
    )
  }
  let compiled: CompiledSchema
  try {
    compiled = schemas.get(input.schema, {
      formatAssertion: input.format_assertion === true,
      dialect: input.dialect,
    })
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep()
    throw err
  }
  // one context for all the instances: the step budget is the request's
  const cx = new Context(bounds.maxErrors, bounds.maxSteps, compiled.resource)
  if (hasOne) return validateOne(compiled, input.instance, cx)
  const results = input.instances!.map((instance) => {
    const result = validateOne(compiled, instance, cx)
    cx.maxErrors -= result.errors.length
    return result
  })
  return {
    valid: results.every((r) => r.valid),
    results,
    errors_omitted: results.reduce((n, r) => n + r.errors_omitted, 0),
  }
}
