import { describe, expect, it } from 'vitest'
import { closestName, editDistance } from '../../src/lib/did-you-mean.ts'

describe('did-you-mean', () => {
  it('edit distance counts an adjacent transposition as one edit', () => {
    expect(editDistance('outptu', 'output')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('same', 'same')).toBe(0)
    // capped: gives up once every alignment costs the cap
    expect(editDistance('abcdefgh', 'zyxwvuts', 3)).toBe(3)
  })

  it('suggests the closest known name within two edits, case-insensitively', () => {
    const known = ['input', 'input_encoding', 'output_encoding', 'length']
    expect(closestName('outptu_encoding', known)).toBe('output_encoding')
    expect(closestName('lenght', known)).toBe('length')
    expect(closestName('Input_Encodng', known)).toBe('input_encoding')
    expect(closestName('inptu', known)).toBe('input')
  })

  it('does not guess at names too far from any known one, or short names from other short names', () => {
    const known = ['input', 'output_encoding', 'at', 'set']
    expect(closestName('colour', known)).toBeUndefined()
    expect(closestName('outputencodingx', known)).toBe('output_encoding')
    expect(closestName('xy', known)).toBeUndefined()
    expect(closestName('ab', known)).toBeUndefined()
    expect(closestName('sets', known)).toBe('set')
    expect(closestName('x'.repeat(1000), known)).toBeUndefined()
  })
})
