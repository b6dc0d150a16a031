import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors.ts'
import { CERTIFICATE_FILE } from './curl.ts'

const FILES = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
} as const

interface Asset {
  body: Buffer
  type: string
  etag: string
}

// The console's one script and one stylesheet, read once at start and served from memory. Pages link
// them with ?v=<content hash>, so such a URL can be cached for good; any other URL is revalidated.
// the console's stylesheet and script, at addresses that change with their content (cached for good)
export interface AssetUrls {
  css: string
  js: string
}

export async function consoleAssets(app: FastifyInstance, caCertPath: string | null): Promise<AssetUrls> {
  const assets = new Map<string, Asset>()
  for (const [name, type] of Object.entries(FILES)) {
    const body = await readFile(new URL(`./assets/${name}`, import.meta.url))
    const etag = createHash('sha256').update(body).digest('base64url').slice(0, 16)
    assets.set(name, { body, type, etag })
  }

  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(
    '/assets/:name',
    { config: { security: 'none' } },
    function serveAsset(request, reply) {
      const asset = assets.get(request.params.name)
      if (!asset) throw new AppError('ERR_NOT_FOUND', `No console asset ${request.params.name}.`)
      const versioned = request.query.v === asset.etag
      reply
        .header('etag', `"${asset.etag}"`)
        .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
        .type(asset.type)
      if (request.headers['if-none-match'] === `"${asset.etag}"`) return reply.code(304).send()
      return reply.send(asset.body)
    },
  )
  // The gateway's self-signed certificate, for `curl --cacert` on whatever machine the reader uses: public
  // (every TLS handshake presents it), so it needs no session. Absent with an operator's certificate.
  if (caCertPath) {
    app.get(
      '/certificate.pem',
      { config: { security: 'none' } },
      async function serveCertificate(_request, reply) {
        const pem = await readFile(caCertPath, 'utf8')
        return reply
          .type('application/x-pem-file')
          .header('content-disposition', `attachment; filename="${CERTIFICATE_FILE}"`)
          .header('cache-control', 'no-cache')
          .send(pem)
      },
    )
  }
  const url = (name: string) => `/console/assets/${name}?v=${assets.get(name)!.etag}`
  return { css: url('console.css'), js: url('console.js') }
}
