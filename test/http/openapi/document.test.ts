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
  const doc = buildOpenApi([route], { title: 'T', version: '1', description: 'd', examples }) as {
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
      { headers: Record<string, unknown>; content: Record<string, { examples?: object }> }
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

  it('an idempotent route documents Idempotency-Key and Idempotent-Replayed; 201 carries Location', () => {
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' })
    expect(doc.components.parameters).toHaveProperty('IdempotencyKey')
    expect(Object.keys(op.responses['201']!.headers)).toEqual(
      expect.arrayContaining(['Request-Id', 'RateLimit', 'Location', 'Idempotent-Replayed']),
    )
    expect(Object.keys(op.responses['409']!.headers)).not.toContain('Idempotent-Replayed')
    expect(doc.components.headers).toHaveProperty('Idempotent-Replayed')
  })

  it('takes its description and examples from the example that calls it', () => {
    expect(op.description).toBe('Make a red one')
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
