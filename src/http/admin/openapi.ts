import type { FastifyInstance } from 'fastify'
import { VERSION } from '../../lib/version.ts'
import type { CollectedRoute } from '../openapi/collector.ts'
import { buildOpenApi } from '../openapi/document.ts'
import { EXAMPLES_DIR, loadExamples } from '../openapi/examples.ts'
import { cachedDocument } from '../openapi/serve.ts'

const ADMIN_DESCRIPTION = `
The operator's API of Anvil, on the internal listener (\`ADMIN_HOST\`:\`ADMIN_PORT\`, plain HTTP, loopback
by default; requests naming a Host outside \`ADMIN_ALLOWED_HOSTS\` are refused). Every route needs
\`Authorization: Bearer $ADMIN_TOKEN\`; a wrong token is \`401 ERR_UNAUTHORIZED\`. The public API is described
at \`/v1/openapi.json\` on the public listener. Same envelope and error table as the public API:
\`{"ok": true, "data": …}\` or \`{"error": {"type", "message", "code", "details"?}}\`. \`npm run admin\` (the
admin CLI) calls these routes.
`.trim()

// The admin API's own OpenAPI document, generated from the admin routes the same way as the public one,
// and guarded by the same admin token (the document names every operator route).
export async function adminOpenApi(
  app: FastifyInstance,
  { routes }: { routes: CollectedRoute[] },
): Promise<void> {
  const examples = await loadExamples(EXAMPLES_DIR)
  const document = cachedDocument(() =>
    buildOpenApi(routes, {
      title: 'Anvil admin API',
      version: VERSION,
      description: ADMIN_DESCRIPTION,
      examples,
    }),
  )
  app.get('/admin/openapi.json', { config: { security: 'admin' } }, document)
}
