import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { CollectedRoute } from '../../../src/http/openapi/collector.ts'
import { buildOpenApi } from '../../../src/http/openapi/document.ts'
import { parseExamples } from '../../../src/http/openapi/examples.ts'

// The generator takes whatever zod schemas a route declares: names them from the operation id, types
// the headers from the route's config, and attaches the examples that call it.
describe('buildOpenApi, generically', () => {
  const shared = z.enum(['red', 'green']).meta({ id: 'Colour' })
  const route: CollectedRoute = {
    method: 'POST',
    url: '/v1/things/:kind',
    family: 'things',
    binary: false,
    idempotent: true,
    body: z.strictObject({ name: z.string(), colour: shared.default('red') }),
    querystring: z.strictObject({ dry_run: z.coerce.boolean().optional() }),
    params: z.object({ kind: z.string() }),
    doc: {
      operationId: 'createThing',
      summary: 'Create a thing',
      description: 'A thing of a kind, red unless said otherwise.',
      tags: ['Things'],
      status: 201,
      security: 'apiKey',
      response: z.object({ id: z.string(), colour: shared }),
      errors: ['ERR_CONFLICT'],
    },
  }
  const examples = parseExamples(
    'things.md',
    [
      'Make a red one:',
      '',
      '```sh',
      `curl https://localhost:8443/v1/things/box?dry_run=true -H "Idempotency-Key: k1" -d '{"name":"a"}'`,
      '```',
      '',
      '```json',
      '{"ok":true,"data":{"id":"thg_…","colour":"red"}}',
      '```',
    ].join('\n'),
  )
  const listener = {
    crossOrigin: (path: string) => path.startsWith('/v1/'),
    tracing: true,
    compression: true,
  }
  const doc = buildOpenApi([route], { title: 'T', version: '1', description: 'd', examples, listener }) as {
    paths: Record<string, Record<string, Record<string, never>>>
    components: Record<string, Record<string, unknown>>
  }
  const op = doc.paths['/v1/things/{kind}']!.post! as unknown as {
    description: string
    parameters: Record<string, unknown>[]
    requestBody: {
      content: Record<string, { schema: unknown; examples: Record<string, { value: unknown }> }>
    }
    responses: Record<
      string,
      {
        description: string
        headers: Record<string, unknown>
        content: Record<string, { examples?: object }>
      }
    >
  }

  it('names request and response after the operation, and keeps .meta ids', () => {
    expect(op.requestBody.content['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/CreateThingRequest',
    })
    expect(Object.keys(doc.components.schemas!)).toEqual(
      expect.arrayContaining(['CreateThingRequest', 'CreateThingResult', 'Colour', 'Error', 'ErrorCode']),
    )
    expect(JSON.stringify(doc.components.schemas!.CreateThingResult)).toContain('#/components/schemas/Colour')
    expect(doc.components.schemas!.CreateThingQuery).toBeUndefined()
  })

  it('an idempotent route documents Idempotency-Key, its 409 and 422, and Idempotent-Replayed on a replay', () => {
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' })
    expect(doc.components.parameters).toHaveProperty('IdempotencyKey')
    expect(Object.keys(op.responses['201']!.headers)).toEqual(
      expect.arrayContaining(['Request-Id', 'RateLimit', 'Location', 'Idempotent-Replayed']),
    )
    const responses = op.responses
    // the route's own 409 (a replayable ERR_CONFLICT) and the key's own refusals
    expect(responses['409']!.description).toContain('ERR_CONFLICT')
    expect(responses['409']!.description).toContain('ERR_IDEMPOTENCY_IN_PROGRESS')
    expect(Object.keys(responses['409']!.headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'Idempotent-Replayed']),
    )
    expect(responses['422']!.description).toContain('ERR_IDEMPOTENCY_MISMATCH')
    expect(responses['400']!.description).toContain('ERR_VALIDATION')
    // never a replay: the key's own refusals, what is refused before the create runs, what is not kept
    for (const status of ['400', '401', '403', '413', '415', '422', '429', '500', '503']) {
      expect(Object.keys(responses[status]!.headers), status).not.toContain('Idempotent-Replayed')
    }
    expect(doc.components.headers).toHaveProperty('Idempotent-Replayed')
  })

  it('a route that does not honour Idempotency-Key documents none of it', () => {
    const plain = buildOpenApi([{ ...route, idempotent: false, doc: { ...route.doc, errors: [] } }], {
      title: 'T',
      version: '1',
      description: 'd',
      examples: [],
    }) as { paths: Record<string, Record<string, { parameters: unknown[]; responses: object }>> }
    const { parameters, responses } = plain.paths['/v1/things/{kind}']!.post!
    expect(parameters).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' })
    expect(Object.keys(responses)).not.toContain('409')
    expect(JSON.stringify(responses)).not.toMatch(/IDEMPOTENCY|Idempotent-Replayed/)
  })

  it("documents what the listener adds to every answer, and a route's own headers on its success", () => {
    for (const [status, response] of Object.entries(op.responses)) {
      expect(Object.keys(response.headers), status).toEqual(
        expect.arrayContaining([
          'Traceresponse',
          'Content-Encoding',
          'Vary',
          'Access-Control-Allow-Origin',
          'Access-Control-Expose-Headers',
        ]),
      )
    }
    const polled = buildOpenApi(
      [{ ...route, doc: { ...route.doc, status: 200, headers: { 'Retry-After': 'Poll again after this' } } }],
      { title: 'T', version: '1', description: 'd', examples: [] },
    ) as { paths: Record<string, Record<string, { responses: Record<string, { headers: object }> }>> }
    const responses = polled.paths['/v1/things/{kind}']!.post!.responses
    expect(responses['200']!.headers).toHaveProperty('Retry-After', {
      $ref: '#/components/headers/Retry-After',
      description: 'Poll again after this',
    })
    expect(responses['400']!.headers).not.toHaveProperty('Retry-After')
    // without a listener, none of its headers
    expect(responses['200']!.headers).not.toHaveProperty('Traceresponse')
    expect(responses['200']!.headers).not.toHaveProperty('Access-Control-Allow-Origin')
  })

  it('takes its description from the route and its examples from the example that calls it', () => {
    expect(op.description).toBe('A thing of a kind, red unless said otherwise.')
    expect(Object.values(op.requestBody.content['application/json']!.examples)[0]!.value).toEqual({
      name: 'a',
    })
    expect(op.responses['201']!.content['application/json']!.examples).toBeDefined()
    expect(op.parameters).toContainEqual(
      expect.objectContaining({ name: 'kind', in: 'path', example: 'box' }),
    )
    expect(op.parameters).toContainEqual(
      expect.objectContaining({ name: 'dry_run', in: 'query', example: 'true' }),
    )
  })
})
