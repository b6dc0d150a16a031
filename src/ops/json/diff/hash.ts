import { keepShape } from '../../../lib/kept-shapes.ts'
import { decimalKey, exactDouble, isRawNumber, type RawNumber } from '../number.ts'
import { isJsonObject, type Json } from './values.ts'

// Hashes decide only which array items are paired up and which pairs are worth a closer look:
// equal-looking pairs are confirmed with jsonEqual and paired items are otherwise diffed in full, so
// a collision can make a delta less tidy but never wrong.
//
// A hash is a 53-bit number made of two independently mixed 32-bit lanes (the second one cut to 21
// bits): two 100k-item arrays hold a colliding pair with odds of a few in a million, and a Map keyed
// by numbers stays cheap. Object members are combined by addition, so key order does not matter;
// array items in order.
//
// A diff asks again for the hashes of values inside array items when it descends into them. Those
// whose hashing took CACHE_WORK steps or more are cached by identity, so that descending costs
// nothing more and a diff stays linear however deeply the documents nest; smaller ones are cheaper
// to hash again than to cache (an identity Map entry per object costs more than hashing a few fields).
const CACHE_WORK = 32

const LOW = 2 ** 21
const float = new Float64Array(1)
const words = new Uint32Array(float.buffer)

function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

function join(a: number, b: number): number {
  return fmix(a) * LOW + (fmix(b) >>> 11)
}

// 32-bit inputs for the two lanes of a parent: `a`, and the low 32 bits (all of `b`, part of `a`)
const high = (h: number) => (h / LOW) | 0
const low = (h: number) => h | 0

const NULL = join(0x6e756c6c, 0x4e554c4c)
const TRUE = join(0x74727565, 0x54525545)
const FALSE = join(0x66616c73, 0x46414c53)

function numberHash(n: number): number {
  // -0 | 0 is 0, so -0 and 0 hash alike, as jsonEqual has them
  if ((n | 0) === n) return join(n ^ 0x2545f491, Math.imul(n ^ 0x68e31da4, 0x2c1b3c6d))
  float[0] = n
  const lo = words[0]!
  const hi = words[1]!
  return join(Math.imul(lo ^ 0x3c6ef372, 0xcc9e2d51) ^ hi, Math.imul(hi ^ 0xa54ff53a, 0x1b873593) ^ lo)
}

function stringHash(s: string, seed: number): number {
  let a = seed ^ 0x811c9dc5
  let b = seed ^ 0x050c5d1f
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  return join(a ^ s.length, b + s.length)
}

const STRING_SEED = 0x73747269
const NUMBER_SEED = 0x6e756d62

// Equal to the hash of the double when one holds it exactly (1.0 hashes as 1), else of its decimal value.
function rawNumberHash(n: RawNumber): number {
  const double = exactDouble(n)
  return double === undefined ? stringHash(decimalKey(n.rawJSON), NUMBER_SEED) : numberHash(double)
}
const KEY_SEED = 0x6b657973

// One per diff: its cache holds the diff's own values. A class, not closures made per diff, so that the
// compiled code of its methods outlives the diff (optimized code that called a previous diff's closures
// was dropped with them at the next full collection and compiled again, every request).
export class ItemHasher {
  readonly #arrayKey: string | undefined
  readonly #cache = new Map<object, number>()
  #work = 0 // values hashed so far, cached ones included

  constructor(arrayKey: string | undefined) {
    this.#arrayKey = arrayKey
  }

  // Equal JSON values (key order aside) get equal hashes. One stack frame per nesting level, which the
  // depth guard of keys.ts bounds.
  content(value: Json): number {
    this.#work++
    if (value === null) return NULL
    if (typeof value === 'number') return numberHash(value)
    if (typeof value === 'string') return stringHash(value, STRING_SEED)
    if (typeof value === 'boolean') return value ? TRUE : FALSE
    if (isRawNumber(value)) return rawNumberHash(value)
    const cached = this.#cache.get(value)
    if (cached !== undefined) return cached
    const started = this.#work
    let hash: number
    if (Array.isArray(value)) {
      let a = 0x61727261
      let b = 0x41525241
      for (let i = 0; i < value.length; i++) {
        const item = this.content(value[i]!)
        a = Math.imul(a ^ high(item), 0x01000193)
        b = Math.imul(b ^ low(item), 0x5bd1e995)
      }
      hash = join(a ^ value.length, b + value.length)
    } else {
      let a = 0
      let b = 0
      const keys = Object.keys(value)
      for (let i = 0; i < keys.length; i++) {
        const key = stringHash(keys[i]!, KEY_SEED)
        const member = this.content(value[keys[i]!]!)
        a = (a + fmix(high(key) ^ Math.imul(high(member), 0x9e3779b1))) | 0
        b = (b + fmix(low(key) ^ Math.imul(low(member) + 0x7f4a7c15, 0x27d4eb2f))) | 0
      }
      hash = join(a ^ 0x6f626a65 ^ keys.length, b ^ 0x4f424a45)
    }
    if (this.#work - started >= CACHE_WORK) this.#cache.set(value, hash)
    return hash
  }

  // what pairs array items: the array_key field's value when the item has it, else the content
  identity(value: Json): number {
    const arrayKey = this.#arrayKey
    if (arrayKey === undefined || !isJsonObject(value) || !Object.hasOwn(value, arrayKey))
      return this.content(value)
    const key = this.content(value[arrayKey]!)
    return join(high(key) ^ 0x6b65795f, low(key) ^ 0x4b45595f)
  }
}
keepShape(new ItemHasher('id'))
