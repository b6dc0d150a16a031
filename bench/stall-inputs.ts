import type { AnyOp } from '../src/ops/define.ts'

// The worst-case requests of the ops (OpDescriptor.worst, src/ops/define.ts): the shapes that cost the most
// per byte within each op's budgets (docs/dispatch.md#cost-models). bench/cost-models.ts times them at each
// op's inline bound; bench/stall.ts sends them at each plan's limit while a canary measures the event loop.

export { markRuns, nestedArrays } from '../src/ops/worst-case.ts'

export interface WorstRequest {
  path: string
  body: Record<string, unknown>
  // what the route adds to the body from its path (hash, hmac: the algorithm)
  fromPath: Record<string, unknown>
}

// The worst case of an op at about `bytes` bytes of body, as a request: a path parameter takes the worst
// case's field of the same name (hash's and hmac's algorithm), which then leaves the body.
export function worstRequest(op: AnyOp, bytes: number): WorstRequest {
  const body = { ...(op.worst(bytes) as Record<string, unknown>) }
  const fromPath: Record<string, unknown> = {}
  const path = op.http.path.replace(/:(\w+)/g, (_, name: string) => {
    fromPath[name] = body[name]
    delete body[name]
    return encodeURIComponent(String(fromPath[name]))
  })
  return { path, body, fromPath }
}
