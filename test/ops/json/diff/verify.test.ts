import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChunkedList } from '../../../../src/ops/json/diff/sequence.ts'
import {
  isJsonObject,
  type Json,
  type JsonPatchOp,
  pointerToken,
} from '../../../../src/ops/json/diff/values.ts'
import { patchGives, patchResult } from '../../../../src/ops/json/diff/verify.ts'
import { applyJsonPatch } from '../../../../src/ops/json/patch/patch.ts'
import { jsonDocument, RESERVED_KEYS, SAFE_KEYS } from './helpers.ts'

interface Place {
  pointer: string
  length: number // of the array there, else 0
}

function placesOf(document: Json): Place[] {
  const found: Place[] = []
  const stack: [Json, string][] = [[document, '']]
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!
    found.push({ pointer, length: Array.isArray(value) ? value.length : 0 })
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push([value[i]!, `${pointer}/${i}`])
    } else if (isJsonObject(value)) {
      for (const key of Object.keys(value)) stack.push([value[key]!, `${pointer}/${pointerToken(key)}`])
    }
  }
  return found
}

// Paths of the document, some of them bent: "-", just past the end and beyond, other indices,
// unknown members, leading zeros.
function bend({ pointer, length }: Place, twist: number): string {
  if (twist === 0) return `${pointer}/-`
  if (twist === 1) return `${pointer}/${length}`
  if (twist === 2) return `${pointer}/${length + 1}`
  if (twist <= 5) return `${pointer}/${twist - 3}`
  if (twist === 6) return `${pointer}/zz`
  if (twist === 7) return pointer.replace(/\/[^/]*$/, '/01')
  return pointer
}

const keys = [...SAFE_KEYS, ...RESERVED_KEYS]
const patchCase = jsonDocument(keys).chain((document) => {
  const places = placesOf(document)
  const op = fc
    .record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move'),
      path: fc.nat(),
      from: fc.nat(),
      twist: fc.nat({ max: 14 }),
      fromTwist: fc.nat({ max: 14 }),
      value: jsonDocument(keys),
    })
    .map(({ op, path, from, twist, fromTwist, value }): JsonPatchOp => {
      const target = bend(places[path % places.length]!, twist)
      if (op === 'remove') return { op, path: target }
      if (op === 'move') return { op, from: bend(places[from % places.length]!, fromTwist), path: target }
      return { op, path: target, value } as JsonPatchOp
    })
  return fc.tuple(fc.constant(document), fc.array(op, { maxLength: 4 }))
})

describe('ChunkedList', () => {
  it('behaves as an array under insertions, removals and writes, across chunk splits and merges', () => {
    const command = fc.tuple(fc.constantFrom('insert', 'remove', 'set'), fc.nat(), fc.integer())
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(command, { maxLength: 60 }),
        (initial, chunk, commands) => {
          const model = [...initial]
          const list = new ChunkedList(initial, chunk)
          for (const [kind, at, value] of commands) {
            if (kind === 'insert') {
              const index = at % (model.length + 1)
              model.splice(index, 0, value)
              list.insert(index, value)
            } else if (model.length > 0) {
              const index = at % model.length
              if (kind === 'remove') expect(list.remove(index)).toBe(model.splice(index, 1)[0])
              else {
                model[index] = value
                list.set(index, value)
              }
            }
            expect(list.length).toBe(model.length)
            if (model.length > 0) expect(list.get(at % model.length)).toBe(model[at % model.length])
          }
          const out = [1, 2, 3]
          list.writeTo(out)
          expect(out).toEqual(model)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('patchGives', () => {
  it('agrees with /v1/json/patch on valid and invalid patches, and never changes left', () => {
    fc.assert(
      fc.property(patchCase, ([document, ops]) => {
        const before = JSON.stringify(document)
        let result: Json | undefined
        try {
          result = applyJsonPatch({ document, patch: ops }).result as Json
        } catch {
          result = undefined
        }
        const ours = patchResult(document, ops)
        if (result === undefined) expect(ours).toBeUndefined()
        else expect(JSON.stringify(ours)).toBe(JSON.stringify(result))
        expect(JSON.stringify(document)).toBe(before)
      }),
      { numRuns: 500 },
    )
  })

  it('rejects a patch whose result differs from right', () => {
    expect(patchGives({ a: [1, 2] }, [{ op: 'add', path: '/a/1', value: 9 }], { a: [1, 9, 2] })).toBe(true)
    expect(patchGives({ a: [1, 2] }, [{ op: 'add', path: '/a/1', value: 9 }], { a: [1, 2, 9] })).toBe(false)
    expect(patchGives([1], [{ op: 'move', from: '/0', path: '/0' }], [1])).toBe(true)
    expect(patchGives([1], [{ op: 'move', from: '/1', path: '/1' }], [1])).toBe(false)
    expect(patchGives({ a: {} }, [{ op: 'move', from: '/a', path: '/a/b' }], { a: {} })).toBe(false)
  })
})
