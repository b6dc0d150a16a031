import { keepShape } from '../../../lib/kept-shapes.ts'

// A list with insertion and removal by index in O(n / chunk + chunk) steps rather than splice()'s
// O(n): the items live in chunks of at most 2 × `chunk` (split in two beyond that, dropped when
// empty), found by walking the chunk lengths. At the default size that is a few hundred steps for a
// 100k-item array, so k operations on it cost O(n + k·√n) instead of O(n·k).
export class ChunkedList<T> {
  readonly #chunks: T[][] = []
  readonly #chunk: number
  #length = 0

  constructor(items: readonly T[], chunk = 512) {
    this.#chunk = chunk
    for (let i = 0; i < items.length; i += chunk) this.#chunks.push(items.slice(i, i + chunk))
    if (this.#chunks.length === 0) this.#chunks.push([])
    this.#length = items.length
  }

  get length(): number {
    return this.#length
  }

  // the chunk holding `index` and the offset inside it; index === length gives the end of the last chunk
  #locate(index: number): [T[], number, number] {
    let c = 0
    while (c < this.#chunks.length - 1 && index >= this.#chunks[c]!.length) index -= this.#chunks[c++]!.length
    return [this.#chunks[c]!, index, c]
  }

  get(index: number): T {
    const [chunk, offset] = this.#locate(index)
    return chunk[offset]!
  }

  set(index: number, value: T): void {
    const [chunk, offset] = this.#locate(index)
    chunk[offset] = value
  }

  insert(index: number, value: T): void {
    const [chunk, offset, c] = this.#locate(index)
    chunk.splice(offset, 0, value)
    this.#length++
    if (chunk.length > 2 * this.#chunk) this.#chunks.splice(c + 1, 0, chunk.splice(this.#chunk))
  }

  remove(index: number): T {
    const [chunk, offset, c] = this.#locate(index)
    const [value] = chunk.splice(offset, 1)
    this.#length--
    if (chunk.length === 0 && this.#chunks.length > 1) this.#chunks.splice(c, 1)
    return value!
  }

  // the items, written over `target` (which keeps its identity)
  writeTo(target: T[]): void {
    target.length = 0
    for (const chunk of this.#chunks) for (const item of chunk) target.push(item)
  }
}
keepShape(new ChunkedList([]))
