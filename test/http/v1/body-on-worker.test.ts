import Fastify, { type RouteOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineRoute } from '../../../src/http/route/define-route.ts'
import { zodCompiler } from '../../../src/http/route/zod-compiler.ts'
import { v1Routes } from '../../../src/http/v1/index.ts'
import { CATALOG } from '../../../src/ops/catalog.ts'
import type { AnyOp } from '../../../src/ops/define.ts'
import { opNamed } from '../../helpers/ops.ts'

// Issue 14: a large body of every op route is parsed and validated on the worker by the op's
// OpDescriptor.body, so that schema must be the route's own (same object: same fields, defaults and answers
// inline and on the pool). What a route adds to the body is the descriptor's `with`, the same inline and on
// the worker.

async function v1RouteOptions(): Promise<RouteOptions[]> {
  const app = Fastify()
  const routes: RouteOptions[] = []
  app.addHook('onRoute', function collect(route) {
    routes.push(route)
  })
  await app.register(zodCompiler)
  await app.register(v1Routes, { catalog: CATALOG })
  await app.ready()
  await app.close()
  return routes
}

describe('pure op routes validate pooled bodies on the worker with their own schema', () => {
  it('every op route declares its body schema as OpDescriptor.body', async () => {
    const routes = (await v1RouteOptions()).filter((r) => r.config?.op !== undefined)
    const ops = new Set(routes.map((r) => (r.config!.op as AnyOp).name))
    expect(ops).toEqual(new Set(CATALOG.ops.map((op) => op.name)))
    for (const route of routes) {
      const op = route.config!.op as AnyOp
      expect(op.body, `${route.method} ${route.url}`).toBe((route.schema as { body?: unknown }).body)
    }
  })

  it("an op route has no handler (what it adds to the body is its op's `with`, the same inline and on the worker)", () => {
    const app = Fastify()
    const route = {
      method: 'POST' as const,
      url: '/v1/x',
      security: 'apiKey' as const,
      family: 'hash',
      op: opNamed('hash'),
      operationId: 'x',
      summary: 'x',
      description: 'y',
      tags: ['x'],
      response: z.object({}),
      handler: () => ({}),
    }
    expect(() => defineRoute(app, route)).toThrow(/an op route has no handler/)
    const { handler: _handler, ...withoutHandler } = route
    expect(() => defineRoute(app, { ...withoutHandler, binary: true })).not.toThrow()
  })
})
