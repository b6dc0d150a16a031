import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../src/errors.ts'
import { parseOpBody, parseOpBytes } from '../../../src/ops/answer.ts'
import diffOp from '../../../src/ops/json/diff/diff.op.ts'
import { inspectDocument, MAX_DEPTH } from '../../../src/ops/json/diff/keys.ts'
import type { Json } from '../../../src/ops/json/diff/values.ts'
import { placeExactNumbers } from '../../../src/ops/json/exact-numbers.ts'
import { parseJsonExact } from '../../../src/ops/json/number.ts'
import { namesPrototypeMember, PROTOTYPE_NAMES, parsedShape } from '../../../src/ops/json/shape.ts'

const SEED = { seed: 24_2026 }

// inspectDocument's answer, or the error it refuses the document with
function inspected(value: unknown, field: string): unknown {
  try {
    return inspectDocument(value as Json, field)
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    return { code: (err as AppError).code, details: (err as AppError).details }
  }
}

// `levels` containers, objects (one member, `key`) and arrays in turn, around `leaf`
function nestedText(levels: number, leaf: string, key: string): string {
  let open = ''
  let close = ''
  for (let i = 0; i < levels; i++) {
    open += i % 2 === 0 ? `{${key}:` : '['
    close = (i % 2 === 0 ? '}' : ']') + close
  }
  return open + leaf + close
}

const keyOf = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom('id', 'name', 'price', 'valueOff', 'toStrin', 'constructors', '_proto_', 'hasOwnPropertyX'),
  // escapes: some decode to a prototype name ("\u0063onstructor"), some do not
  fc.constantFrom('\\u0063onstructor', '\\u005f_proto__', 'a\\"b', '\\u0069d', '\\\\'),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s).slice(1, -1)),
)

describe('what the exact parse notes about a body (src/ops/json/shape.ts)', () => {
  it('knows a prototype member from its key text alone, as the Set does', () => {
    for (const name of PROTOTYPE_NAMES)
      expect(namesPrototypeMember(`"${name}"`, 1, name.length + 1)).toBe(true)
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (key) => {
        expect(namesPrototypeMember(`"${key}"`, 1, key.length + 1)).toBe(PROTOTYPE_NAMES.has(key))
      }),
      { ...SEED, numRuns: 2000 },
    )
  })

  it("notes the body's members with the text's deepest container and whether a key may need escaping", () => {
    const text = '{"left":{"a":[{"b":1}]},"right":[1,{"c":{}}],"output":"both","n":1.0}'
    const placed = placeExactNumbers(text, JSON.parse(text))!
    expect([placed.deepest, placed.prototypeKeys]).toEqual([3, false])
    const body = parseJsonExact(text) as Record<string, unknown>
    expect(parsedShape(body.left)).toEqual({ deepest: 2, prototypeKeys: false })
    expect(parsedShape(body.right)).toEqual({ deepest: 2, prototypeKeys: false })
    expect(parsedShape(body.output)).toBeUndefined()
    expect(parsedShape(JSON.parse(text).left)).toBeUndefined()
    for (const key of ['"constructor"', '"\\u0063onstructor"', '"x\\n"']) {
      const withKey = `{"left":{"a":{${key}:1}},"right":{}}`
      expect(placeExactNumbers(withKey, JSON.parse(withKey))!.prototypeKeys).toBe(true)
    }
    // a text the pass gives up on (a duplicate key above a number to keep) is parsed again, noting nothing
    const dup = '{"left":{"x":1.0},"left":{"x":2},"right":{}}'
    expect(parsedShape((parseJsonExact(dup) as Record<string, unknown>).left)).toBeUndefined()
  })

  it('spares json/diff its walk: a noted document is taken at the parse’s word', () => {
    const body = parseJsonExact('{"left":{"a":{"b":1}},"right":{}}') as Record<string, object>
    // put a key the walk would find after the parse: the noted facts answer, so no walk happened
    Object.assign(body.left!, JSON.parse('{"constructor":1}'))
    expect(inspectDocument(body.left as Json, 'left')).toEqual({ reservedKeys: false })
    expect(inspectDocument(JSON.parse(JSON.stringify(body.left)), 'left')).toEqual({ reservedKeys: true })
  })

  it("json/diff's body, parsed as a pool thread parses it, arrives with its documents noted", () => {
    const bytes = new TextEncoder().encode('{"left":{"a":[{"b":1.0}]},"right":{"a":[]}}')
    const body = parseOpBytes(diffOp, bytes)
    expect(parsedShape(body.left)).toEqual({ deepest: 2, prototypeKeys: false })
    // a bound from the whole text's deepest container, for each member
    expect(parsedShape(body.right)).toEqual({ deepest: 2, prototypeKeys: false })
    // an exact parse without parsedShapes notes nothing (json/diff would walk each document)
    expect(
      parsedShape(
        (parseOpBody({ ...diffOp, parsedShapes: false }, '{"left":{}}') as Record<string, unknown>).left,
      ),
    ).toBe(undefined)
  })

  it('gives inspectDocument the same answer and the same refusal as the walk, at every depth near the bound', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_DEPTH - 3, max: MAX_DEPTH + 3 }),
        fc.integer({ min: 0, max: MAX_DEPTH + 3 }),
        keyOf,
        keyOf,
        fc.boolean(),
        (leftLevels, rightLevels, leftKey, rightKey, swap) => {
          const left = nestedText(leftLevels, '1', `"${leftKey}"`)
          const right = nestedText(rightLevels, '"x"', `"${rightKey}"`)
          const text = swap ? `{"right":${right},"left":${left}}` : `{"left":${left},"right":${right}}`
          const noted = parseJsonExact(text) as Record<string, unknown>
          const walked = JSON.parse(text) as Record<string, unknown>
          for (const side of ['left', 'right']) {
            expect(inspected(noted[side], side)).toEqual(inspected(walked[side], side))
          }
        },
      ),
      { ...SEED, numRuns: 400 },
    )
  })
})
