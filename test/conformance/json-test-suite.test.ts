import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// nst/JSONTestSuite test_parsing, vendored under test/fixtures/conformance/ (PROVENANCE.md). Every file goes through
// POST /v1/json/format as raw bytes (which also covers the n_ files that are not UTF-8), and every file that
// decodes as UTF-8 also goes as the `input` string of a JSON body.
const SUITE = fileURLToPath(new URL('../fixtures/conformance/json-test-suite/test_parsing/', import.meta.url))

const files = readdirSync(SUITE)
  .filter((f) => f.endsWith('.json'))
  .sort()
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function asText(bytes: Buffer): string | undefined {
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

function expectVerdict(file: string, res: LightMyRequestResponse): void {
  const kind = file[0]
  if (kind === 'y') {
    expect(res.statusCode, `${file}: ${res.body.slice(0, 300)}`).toBe(200)
    expect(res.json().data.output).toBeTypeOf('string')
  } else if (kind === 'n') {
    expect(res.statusCode, `${file}: ${res.body.slice(0, 300)}`).toBe(400)
    const error = res.json().error
    expect(error.code).toBe('ERR_INVALID_JSON')
    expect(error.details).toMatchObject({
      line: expect.any(Number),
      column: expect.any(Number),
      offset: expect.any(Number),
      reason: expect.any(String),
    })
  } else {
    expect([200, 400], `${file}: ${res.body.slice(0, 300)}`).toContain(res.statusCode)
    if (res.statusCode === 400) expect(res.json().error.code).toBe('ERR_INVALID_JSON')
  }
}

describe('JSONTestSuite test_parsing through POST /v1/json/format', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('holds the whole suite: 95 y_, 188 n_, 35 i_', () => {
    const count = (p: string) => files.filter((f) => f.startsWith(p)).length
    expect([count('y_'), count('n_'), count('i_')]).toEqual([95, 188, 35])
  })

  for (const file of files) {
    it(file, async () => {
      const bytes = readFileSync(join(SUITE, file))
      const raw = await t.app.inject({
        method: 'POST',
        url: '/v1/json/format',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
        // a copy: the gateway moves a large chunk's memory to the pool thread that streams it, which
        // detaches the buffer handed to inject (a socket's chunks belong to no one else)
        payload: Buffer.from(bytes),
      })
      expectVerdict(file, raw)
      if (raw.statusCode === 400 && file[0] !== 'y') {
        expect(raw.json().error.details.byte_offset).toBeLessThanOrEqual(bytes.length)
      }
      const text = asText(bytes)
      if (text === undefined) {
        expect(file[0], `${file} is not UTF-8`).not.toBe('y')
        return
      }
      const json = await t.post('/v1/json/format', { input: text, mode: 'minify' })
      expectVerdict(file, json)
      // both forms agree
      expect(json.statusCode).toBe(raw.statusCode)
      if (json.statusCode === 400) {
        const { byte_offset: _, ...details } = raw.json().error.details
        expect(json.json().error.details).toEqual(details)
      }
    })
  }

  it('formats 100,000 nested arrays and objects', async () => {
    const arrays = '['.repeat(100_000) + ']'.repeat(100_000)
    const objects = '{"":'.repeat(100_000) + '{}' + '}'.repeat(100_000)
    for (const input of [arrays, objects]) {
      const res = await t.post('/v1/json/format', { input, mode: 'minify' })
      expect(res.statusCode).toBe(200)
      expect(res.json().data.output).toBe(input)
    }
    const unclosed = await t.post('/v1/json/format', { input: '['.repeat(100_000) })
    expect(unclosed.json().error).toMatchObject({
      code: 'ERR_INVALID_JSON',
      details: {
        line: 1,
        column: 100_001,
        offset: 100_000,
        reason: 'Unexpected end of input (100000 unclosed)',
      },
    })
  })
})
