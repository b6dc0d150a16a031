import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import type { Catalog } from '../../ops/catalog.ts'
import { declareScopeSecurity } from '../hooks/access.ts'
import type { CollectedRoute } from '../openapi/collector.ts'
import { API_DESCRIPTION } from '../openapi/description.ts'
import { buildOpenApi } from '../openapi/document.ts'
import { EXAMPLES_DIR, loadExamples, opExamples } from '../openapi/examples.ts'
import type { ListenerHeaders } from '../openapi/headers.ts'
import { cachedDocument } from '../openapi/serve.ts'
import { defineRoute } from '../route/define-route.ts'
import { docsRoutes } from './docs-renderer.ts'

export interface MetaOptions {
  routes: CollectedRoute[]
  // the ops, whose own examples the document shows (src/ops/define.ts)
  catalog: Catalog
  version: string
  ready: () => Promise<boolean>
  // what the listener adds to every answer, for the document
  headers: ListenerHeaders
}

// The reference page of a self-hosted product: no button that sends the document to a hosted service
// (the agent's "Ask AI", "Generate MCP", the developer tools' "Share" and "Deploy"), no telemetry, no
// fonts from a CDN; "Try it" is preset to the API key scheme, so pasting a key is all it needs.
const DOCS_PAGE = {
  url: '/v1/openapi.json',
  title: 'Anvil API',
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  telemetry: false,
  withDefaultFonts: false,
  isEditable: false,
  documentDownloadType: 'json',
  authentication: { preferredSecurityScheme: 'apiKey' },
} as const

// Keyless endpoints: liveness, readiness, the OpenAPI document and the page that renders it.
export async function metaRoutes(app: FastifyInstance, options: MetaOptions): Promise<void> {
  const examples = [...opExamples(options.catalog), ...(await loadExamples(EXAMPLES_DIR))]

  defineRoute(app, {
    method: 'GET',
    url: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness: the process is up',
    description:
      'Answers 200 as long as the process serves requests, whatever the state of the store and the pools ' +
      '(that is /readyz): for a process supervisor or a liveness probe. Needs no key.',
    tags: ['Meta'],
    security: 'none',
    response: z.object({ status: z.literal('ok') }),
    handler: () => ({ status: 'ok' as const }),
  })

  defineRoute(app, {
    method: 'GET',
    url: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: the store and the worker pools can take traffic',
    description:
      'For a load balancer or a readiness probe: 200 when the store answers and the worker pools are up, ' +
      'else 503 ERR_UNAVAILABLE with Retry-After, so traffic goes to another gateway meanwhile. Needs no key.',
    tags: ['Meta'],
    security: 'none',
    response: z.object({ status: z.literal('ready') }),
    errors: ['ERR_UNAVAILABLE'],
    handler: async function readiness() {
      const ok = await options.ready().catch(() => false)
      if (!ok) throw new AppError('ERR_UNAVAILABLE', 'Not ready.', undefined, { 'retry-after': '1' })
      return { status: 'ready' as const }
    },
  })

  // compressed once and cached (src/http/openapi/serve.ts): the response compressor leaves an answer that
  // already has a Content-Encoding alone
  const openapiDocument = cachedDocument(() =>
    buildOpenApi(options.routes, {
      title: 'Anvil API',
      version: options.version,
      description: API_DESCRIPTION,
      examples,
      listener: options.headers,
    }),
  )
  app.get('/v1/openapi.json', { config: { security: 'none' } }, openapiDocument)

  // the reference page is public; its renderer is loaded on the first request (src/http/meta/docs-renderer.ts)
  await app.register(async function publicDocs(scope) {
    declareScopeSecurity(scope, 'none')
    docsRoutes(scope, { configuration: DOCS_PAGE })
  })
}
