import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createKeyBody,
  createWorkspaceBody,
  patchWorkspaceBody,
  rotateBody,
} from '../../src/http/admin/schemas.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

type Json = Record<string, unknown>

// Request objects whose members are the caller's data, not the API's fields: their unknown members are
// kept by design (a JWK Set may carry members beyond "keys", RFC 7517 §5).
const OPEN_DATA = new Set(['POST /v1/jwt/verify body.jwks'])

// Every object schema with declared properties, with where it is.
function* objects(schema: unknown, where: string): Generator<[string, Json]> {
  if (Array.isArray(schema)) {
    for (const [i, s] of schema.entries()) yield* objects(s, `${where}[${i}]`)
    return
  }
  if (typeof schema !== 'object' || schema === null) return
  const s = schema as Json
  if (s.properties) yield [where, s]
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties') {
      for (const [name, p] of Object.entries(v as Json)) yield* objects(p, `${where}.${name}`)
    } else if (k === 'items' || k === 'prefixItems' || k === 'anyOf' || k === 'oneOf' || k === 'allOf') {
      yield* objects(v, where)
    }
  }
}

function openObjects(schema: unknown, where: string): string[] {
  return [...objects(schema, where)]
    .filter(([w, s]) => s.additionalProperties !== false && !OPEN_DATA.has(w))
    .map(([w]) => w)
}

// The guard against a future schema written with z.object() (which drops unknown fields silently): every
// documented request body, on the API, the console and the admin API, refuses unknown fields, all the way down.
describe('request schemas are strict', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t?.close())

  it('every request body in the OpenAPI document (API and console) has additionalProperties: false', async () => {
    const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >
    }
    const open: string[] = []
    let bodies = 0
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content['application/json']?.schema
        if (!schema) continue
        bodies++
        open.push(...openObjects(schema, `${method.toUpperCase()} ${path} body`))
      }
    }
    expect(bodies).toBeGreaterThan(30)
    expect(open).toEqual([])
  })

  it('the admin API bodies too', () => {
    const open = Object.entries({
      createKeyBody,
      createWorkspaceBody,
      patchWorkspaceBody,
      rotateBody,
    }).flatMap(([name, schema]) => openObjects(z.toJSONSchema(schema, { io: 'input' }), name))
    expect(open).toEqual([])
  })
})
