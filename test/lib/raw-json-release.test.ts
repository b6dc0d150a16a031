import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { parseAndValidate } from '../../src/lib/raw-json.ts'

const schema = z.strictObject({ left: z.unknown(), right: z.unknown() })
const encoder = new TextEncoder()

// A pool task's message holds its body's pieces until the task ends; parseAndValidate lets them go before
// the parse, which is when a large body's parse and its document need the memory (src/lib/raw-json.ts).
describe('parseAndValidate and the body it is given', () => {
  it("lets the body's pieces go before the text is parsed, one piece or several", () => {
    const text = JSON.stringify({ left: [1, 2, 3], right: { a: 'é' } })
    const cut = text.indexOf('é')
    const bytes = encoder.encode(text)
    // several pieces, one of them cut inside a two-byte character
    const several = [bytes.subarray(0, cut + 1), bytes.subarray(cut + 1)]
    for (const parts of [[bytes.slice()], several]) {
      let piecesAtParse = -1
      const parsed = parseAndValidate(parts, schema, (t) => {
        piecesAtParse = parts.length
        return JSON.parse(t)
      })
      expect(parsed).toEqual({ left: [1, 2, 3], right: { a: 'é' } })
      expect(piecesAtParse).toBe(0)
      expect(parts).toEqual([])
    }
  })

  it('still says where invalid JSON is wrong, as it does for the same body in one buffer', () => {
    const text = '{"left": 1, "right": ]}'
    const details = (body: Uint8Array | Uint8Array[]) => {
      try {
        parseAndValidate(body, schema)
      } catch (err) {
        return { code: (err as { code?: string }).code, details: (err as { details?: unknown }).details }
      }
      throw new Error('parsed')
    }
    const parts = [encoder.encode(text.slice(0, 11)), encoder.encode(text.slice(11))]
    const whole = details(encoder.encode(text))
    expect(whole).toMatchObject({ code: 'ERR_INVALID_JSON', details: { line: 1 } })
    expect(details(parts)).toEqual(whole)
    expect(parts).toEqual([])
  })

  it("reads a single buffer given alone, which is the caller's to keep", () => {
    const bytes = encoder.encode('{"left": 1, "right": 2}')
    expect(parseAndValidate(bytes, schema)).toEqual({ left: 1, right: 2 })
    expect(bytes.byteLength).toBe(23)
  })
})
