import Fastify, { type RouteOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { v1Routes } from '../../../src/http/v1/index.ts'
import { zodCompiler } from '../../../src/http/zod-compiler.ts'
import { OPERATIONS, type OpName, type OpSpec, parsesOnWorker } from '../../../src/ops/registry.ts'

// Issue 14 follow-up: a large body of a route that is just its op is parsed and validated on the worker by
// the op's OpSpec.body, so that schema must be the route's own (same object: same fields, defaults and
// answers inline and on the pool). Routes with handlers of their own get a parsed body (docs/dispatch.md).
const PARSED_BY_GATEWAY: OpName[] = ['hash', 'hmac', 'base64.encode', 'base64.decode', 'json.format']

async function v1RouteOptions(): Promise<RouteOptions[]> {
  const app = Fastify()
  const routes: RouteOptions[] = []
  app.addHook('onRoute', function collect(route) {
    routes.push(route)
  })
  await app.register(zodCompiler)
  await app.register(v1Routes)
  await app.ready()
  await app.close()
  return routes
}

describe('pure op routes validate pooled bodies on the worker with their own schema', () => {
  it('every op route but the custom handlers declares its body schema as OpSpec.body', async () => {
    const routes = (await v1RouteOptions()).filter((r) => r.config?.op !== undefined)
    const ops = new Set(routes.map((r) => r.config!.op!))
    expect(ops).toEqual(new Set(Object.keys(OPERATIONS)))
    for (const route of routes) {
      const op = route.config!.op!
      const spec = OPERATIONS[op] as OpSpec
      if (PARSED_BY_GATEWAY.includes(op)) {
        expect(parsesOnWorker(op), op).toBe(false)
        continue
      }
      expect(parsesOnWorker(op), op).toBe(true)
      expect(spec.body, `${route.method} ${route.url}`).toBe((route.schema as { body?: unknown }).body)
    }
  })
})
