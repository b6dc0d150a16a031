import type { FastifyInstance } from 'fastify'
import { okEnvelope } from '../../lib/envelope.ts'
import { favicon } from './favicon.ts'

// What a person who opens the gateway's address finds: where the reference and the console are, instead
// of a JSON 404; and the site icon every browser asks for (its 404 was an error in /docs' console).
// Neither is part of the API, so neither is in the OpenAPI document.
export interface LandingOptions {
  version: string
}

const LINKS = {
  docs: '/docs',
  console: '/console',
  openapi: '/v1/openapi.json',
  health: '/healthz',
}

function page(version: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Anvil</title>
<link rel="icon" href="/favicon.ico">
</head>
<body>
<h1>Anvil</h1>
<p>A JSON-over-HTTPS API of developer utilities, version ${version}.</p>
<ul>
<li><a href="${LINKS.docs}">API reference</a>: every endpoint, with examples and a client to try them.</li>
<li><a href="${LINKS.console}">Console</a>: sign up or sign in, create API keys, watch usage.</li>
<li><a href="${LINKS.openapi}">OpenAPI document</a>, for generating a client.</li>
</ul>
</body>
</html>
`
}

export async function landingRoutes(app: FastifyInstance, options: LandingOptions): Promise<void> {
  const html = page(options.version)
  const json = okEnvelope(JSON.stringify({ name: 'Anvil', version: options.version, ...LINKS }))
  const icon = favicon()

  // a browser (it asks for text/html) gets the page; a program gets the same links as JSON
  app.get('/', { config: { security: 'none' } }, function landing(request, reply) {
    reply.header('vary', 'Accept')
    if (request.headers.accept?.includes('text/html')) {
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; img-src 'self'")
        .header('x-content-type-options', 'nosniff')
        .send(html)
    }
    return reply.type('application/json; charset=utf-8').send(json)
  })

  app.get('/favicon.ico', { config: { security: 'none' } }, function siteIcon(_request, reply) {
    return reply
      .type('image/x-icon')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(icon)
  })
}
