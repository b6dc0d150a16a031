// What json/validate costs, as the op tells it to exec's cost model (docs/dispatch.md#cost-models). Not the
// body's size: a schema of a few hundred bytes can ask for exponential work (anyOf references fanning out,
// properties and patternProperties applying twice at every level), which only the step budget
// (ValidateBounds.maxSteps) stops, after some hundreds of milliseconds. So every validation is heavy: it runs
// on the pool, never inline.
export function validateIsHeavy(): boolean {
  return true
}

// The worst body of about `bytes` bytes: a schema whose references fan out 2^40 ways at the first
// instance (a number, which no branch accepts, so every branch is tried), so the step budget is what ends
// the request, and instances filling the rest.
export function validateWorst(bytes: number): { schema: unknown; instances: number[] } {
  const $defs: Record<string, unknown> = { d40: { type: 'string' } }
  for (let i = 0; i < 40; i++)
    $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
  const schema = { $ref: '#/$defs/d0', $defs }
  const room = Math.max(0, bytes - JSON.stringify(schema).length - 40)
  // each instance is 0 and a comma: two bytes
  return { schema, instances: Array.from({ length: Math.max(1, Math.floor(room / 2)) }, () => 0) }
}
