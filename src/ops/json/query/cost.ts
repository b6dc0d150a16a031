// What json/query costs, as the op tells it to exec's cost model (docs/dispatch.md#cost-models). A path of
// names, indices, wildcards and slices visits at most what it selects, each once: its cost follows the
// document's size. A filter (`?`) runs queries per element, and a descendant segment (`..`) walks whole
// subtrees per node it starts from: their cost follows the product, which only the step budget
// (QueryBounds.maxSteps) stops. Such a path is heavy (always the pool). One look at the path, no parse: a
// `?` or `..` inside a quoted name makes a path heavy that is not, which costs it a trip to the pool only.
export function queryIsHeavy(input: { path?: unknown }): boolean {
  return typeof input.path !== 'string' || input.path.includes('?') || input.path.includes('..')
}

// The worst body of about `bytes` bytes: chains of arrays nested 500 deep (the deepest a document may be)
// and a path that walks every subtree from every node (`$..*..*`): a chain of depth d costs d²/2 visits
// for 2d bytes, which the step budget ends.
export function queryWorst(bytes: number): { document: unknown; path: string } {
  const depth = Math.max(1, Math.min(500, Math.floor((bytes - 40) / 2)))
  const chains = Math.max(1, Math.floor((bytes - 40) / (2 * depth + 1)))
  const chain = (): unknown => {
    let value: unknown = []
    for (let i = 1; i < depth; i++) value = [value]
    return value
  }
  return { document: Array.from({ length: chains }, chain), path: '$..*..*' }
}
