import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import Fastify from 'fastify'
import { answerBytes } from '../answer/answer.ts'

const PREFIX = '/docs'
const FORWARDED = [
  'content-type',
  'content-disposition',
  'location',
  'cache-control',
  'etag',
  'last-modified',
]

// The API reference page, loaded on its first request (issue 18: RSS at rest). The renderer's package
// carries its 4 MB browser bundle as one JavaScript string, ~19 MiB of RSS in a process that loads it, and
// most gateways never serve /docs. So the page's routes are registered at boot (every route exists before
// `listen`) and the renderer is imported once, asynchronously, into a private Fastify instance that never
// listens; requests are answered from it by `inject`. The first request waits for the import (once per
// process, off no other request's path); later ones cost an in-memory round trip.
let renderer: Promise<FastifyInstance> | undefined

function loadRenderer(configuration: Record<string, unknown>): Promise<FastifyInstance> {
  renderer ??= (async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference')
    const inner = Fastify({ logger: false })
    await inner.register(scalar, {
      routePrefix: PREFIX,
      configuration,
      logLevel: 'silent',
    })
    await inner.ready()
    return inner
  })().catch((err: unknown) => {
    // a failed import is retried by the next request instead of being remembered
    renderer = undefined
    throw err
  })
  return renderer
}

export function docsRoutes(
  scope: FastifyInstance,
  options: { configuration: Record<string, unknown> },
): void {
  async function docsPage(request: FastifyRequest, reply: FastifyReply) {
    const inner = await loadRenderer(options.configuration)
    const res = await inner.inject({ method: 'GET', url: request.url })
    for (const name of FORWARDED) {
      const value = res.headers[name]
      if (value !== undefined) reply.header(name, value)
    }
    // (its type forwarded above; the 4 MB bundle leaves in slices)
    return answerBytes(reply.code(res.statusCode), res.rawPayload, null)
  }
  for (const url of [PREFIX, `${PREFIX}/`, `${PREFIX}/*`]) scope.get(url, docsPage)
}
