import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Every hook function Fastify calls for each route, as the router has them once the app is ready (the route's
// own and every inherited one): `(onRequest) ["enterLane()"]` lines under each route of printRoutes.
function hooksByRoute(printed: string): Map<string, string[]> {
  const routes = new Map<string, string[]>()
  // the path of each depth of the printed tree: a child line prints only its own part
  const prefixes: string[] = []
  let current: string[] = []
  for (const line of printed.split('\n')) {
    // `├── /v1/jobs (POST)`, and for the same path's other methods `│   /v1/jobs (GET)`
    const route = /^([│├└─ ]*?)(\S+) \(([A-Z, ]+)\)$/.exec(line)
    if (route) {
      const tree = route[1]!
      const depth = tree.includes('──') ? Math.floor(tree.indexOf('──') / 4) : tree.length / 4 - 1
      prefixes.length = depth
      prefixes[depth] = route[2]!
      const path = prefixes.join('')
      current = []
      for (const method of route[3]!.split(', ')) routes.set(`${method} ${path}`, current)
      continue
    }
    const hook = /• \((\w+)\) (\[.*\])$/.exec(line)
    // Fastify's own onSend on the HEAD twin of a GET route (it drops the body)
    if (hook && hook[1] !== 'errorHandler') {
      for (const name of JSON.parse(hook[2]!) as string[]) {
        if (name !== 'headRouteOnSendHandler()') current.push(`${hook[1]}:${name.replace('()', '')}`)
      }
    }
  }
  return routes
}

describe('one lane per request: the hooks a route runs', () => {
  let t: TestApp
  let routes: Map<string, string[]>
  beforeAll(async () => {
    t = await startTestApp()
    await t.app.ready()
    routes = hooksByRoute(t.app.printRoutes({ includeHooks: true, commonPrefix: false }))
  })
  afterAll(() => t.close())

  it('a small keyed inline request runs two hooks, the lane: at most 4', async () => {
    const hooks = routes.get('POST /v1/hash/:algorithm')
    expect(hooks).toEqual(['onRequest:enterLane', 'onResponse:leaveLane'])
    expect(hooks!.length).toBeLessThanOrEqual(4)
    // and the request it stands for is served by them (the lane is not bypassed)
    const res = await t.post('/v1/hash/sha256', { input: 'hello world' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['request-id']).toBeTruthy()
  })

  it('every /v1 route: the lane, plus only what the route declares', () => {
    const v1 = [...routes].filter(([route]) => route.split(' ')[1]!.startsWith('/v1/'))
    expect(v1.length).toBeGreaterThan(35)
    for (const [route, hooks] of v1) {
      const declared = hooks.filter((h) => h !== 'onRequest:enterLane' && h !== 'onResponse:leaveLane')
      // jobs: the paid-plan gate; POST /v1/jobs: idempotency
      const allowed = route.includes('/v1/jobs')
        ? [
            'onRequest:paidPlansAndJobLimit',
            'preHandler:enforceIdempotencyKey',
            'onSend:keepIdempotentResponse',
            'onSend:shapeAnswer',
            'onResponse:freeUnsettledKey',
          ]
        : []
      expect(hooks.slice(0, 1), route).toEqual(['onRequest:enterLane'])
      for (const h of declared) expect(allowed, `${route}: ${h}`).toContain(h)
      if (route === 'POST /v1/jobs') expect(declared).toContain('preHandler:enforceIdempotencyKey')
      else expect(declared, route).not.toContain('preHandler:enforceIdempotencyKey')
    }
  })
})
