import type { FastifyInstance } from 'fastify'
import { afterEach } from 'vitest'
import { buildAdminApp } from '../../../src/http/admin-app.ts'
import type { Store } from '../../../src/store/types.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'

// The apps the Idempotency-Key suites run against (idempotency-suite.ts, idempotency-bounds-suite.ts): the
// gateway on its TLS listener and its admin API on a plain one, closed after each test. `wrap`: the admin
// routes run on this store instead (a slow store, to hold a create open). `admin` posts to the admin API,
// with an Idempotency-Key when given one, and answers the body as text and as parsed JSON. A test that builds
// its own apps hands them to `closeAfter` (apps built on a runtime close before the runtime's test app).
export function idempotencyApps<Json>(
  env: () => Record<string, string>,
  options: { unthrottled?: boolean } = {},
) {
  const open: TestApp[] = []
  const rebuilt: FastifyInstance[] = []
  afterEach(async () => {
    await Promise.all(rebuilt.splice(0).map((a) => a.close()))
    await Promise.all(open.splice(0).map((t) => t.close()))
  })

  const closeAfter = {
    testApp: (t: TestApp) => open.push(t),
    app: (app: FastifyInstance) => rebuilt.push(app),
  }

  async function start(extra: Record<string, string> = {}, wrap?: (store: Store) => Store) {
    const t = await startTestApp({
      listen: true,
      unthrottled: options.unthrottled,
      env: { ...env(), ...extra },
    })
    open.push(t)
    if (wrap)
      rebuilt.push(
        await buildAdminApp({ ...t.runtime, store: wrap(t.runtime.store) }, { adminToken: ADMIN_TOKEN }),
      )
    const adminApp = rebuilt.at(-1) ?? t.admin
    await adminApp.listen({ port: 0, host: '127.0.0.1' })
    const adminUrl = `http://127.0.0.1:${(adminApp.server.address() as { port: number }).port}`
    const admin = async (path: string, body: unknown, key?: string) => {
      const r = await fetch(adminUrl + path, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: JSON.stringify(body),
      })
      const text = await r.text()
      return { status: r.status, headers: r.headers, text, json: JSON.parse(text) as Json }
    }
    return { t, admin }
  }
  return { start, closeAfter }
}
