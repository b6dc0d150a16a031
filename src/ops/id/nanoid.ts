import { randomFillSync } from 'node:crypto'
import { urlAlphabet } from 'nanoid'
import { AppError } from '../../errors.ts'
import { loneSurrogateAt } from '../encoding.ts'
import { NANOID_ALPHABET, NANOID_SIZE } from './types.ts'

export { NANOID_ALPHABET, NANOID_SIZE }

export interface NanoidInput {
  size?: number
  alphabet?: string
  count?: number
}

export interface NanoidResult {
  ids: string[]
}

export type RandomBytes = (length: number) => Uint8Array

function alphabetIssue(message: string, position?: number): AppError {
  const issue =
    position === undefined ? { path: 'alphabet', message } : { path: 'alphabet', message, position }
  return new AppError('ERR_VALIDATION', `\`alphabet\` ${message}`, { issues: [issue] })
}

// The alphabet as code points (so "😀" is one symbol), refusing duplicates at their UTF-16 position.
export function alphabetSymbols(alphabet: string): string[] {
  const lone = loneSurrogateAt(alphabet)
  if (lone >= 0) {
    throw new AppError('ERR_INVALID_ENCODING', '`alphabet` holds a lone UTF-16 surrogate', {
      field: 'alphabet',
      encoding: 'utf8',
      position: lone,
    })
  }
  const symbols = Array.from(alphabet)
  if (symbols.length < NANOID_ALPHABET.min || symbols.length > NANOID_ALPHABET.max) {
    throw alphabetIssue(
      `must have ${NANOID_ALPHABET.min}–${NANOID_ALPHABET.max} characters (code points); it has ${symbols.length}`,
    )
  }
  const seen = new Map<string, number>()
  let position = 0
  for (const symbol of symbols) {
    const first = seen.get(symbol)
    if (first !== undefined) {
      throw alphabetIssue(`repeats "${symbol}" at position ${position} (first at ${first})`, position)
    }
    seen.set(symbol, position)
    position += symbol.length
  }
  return symbols
}

// Smallest all-ones bit mask covering every index of an alphabet of `size` symbols (size ≤ 256).
export function maskFor(size: number): number {
  return (2 << (31 - Math.clz32((size - 1) | 1))) - 1
}

// Masked random bytes, with values ≥ size rejected: every index is equally likely (no modulo bias),
// and at worst about half of the bytes are thrown away.
export function randomIndices(size: number, needed: number, random: RandomBytes): number[] {
  const mask = maskFor(size)
  const indices: number[] = []
  while (indices.length < needed) {
    const batch = random(Math.ceil(((needed - indices.length) * (mask + 1) * 1.2) / size) + 8)
    for (const byte of batch) {
      const index = byte & mask
      if (index < size) {
        indices.push(index)
        if (indices.length === needed) break
      }
    }
  }
  return indices
}

function cryptoBytes(length: number): Uint8Array {
  return randomFillSync(new Uint8Array(length))
}

export function generateNanoids(input: NanoidInput, random: RandomBytes = cryptoBytes): NanoidResult {
  const size = input.size ?? NANOID_SIZE.default
  const count = input.count ?? 1
  const symbols = input.alphabet === undefined ? Array.from(urlAlphabet) : alphabetSymbols(input.alphabet)
  const indices = randomIndices(symbols.length, size * count, random)
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    ids.push(
      indices
        .slice(i * size, (i + 1) * size)
        .map((index) => symbols[index])
        .join(''),
    )
  }
  return { ids }
}
