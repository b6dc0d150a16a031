import { AppError } from '../../../errors.ts'
import type { Place, Resource } from './resources.ts'
import { MAX_INSTANCE_DEPTH, MAX_REF_CHAIN, type OutputUnit } from './types.ts'
import { escapeToken, writtenUri } from './uri.ts'

// What one evaluation carries: where it is in the instance (a stack of tokens), the schema resources it
// went through (the dynamic scope, and the $ref hops that keyword locations are written through), the
// output units so far, and the steps taken against the budget.

export interface Hop {
  resource: Resource
  // for a reference: the referring schema's document pointer and keyword, and the target's document pointer
  from?: string
  keyword?: string
  to?: string
}

// Annotations that unevaluatedProperties and unevaluatedItems read: which members and items of the
// instance at hand some successful keyword evaluated.
export class Evaluated {
  props: Set<string> | undefined
  allProps = false
  items = 0
  allItems = false
  itemSet: Set<number> | undefined

  prop(name: string): void {
    this.props ??= new Set()
    this.props.add(name)
  }

  item(index: number): void {
    this.itemSet ??= new Set()
    this.itemSet.add(index)
  }

  hasProp(name: string): boolean {
    return this.allProps || (this.props?.has(name) ?? false)
  }

  hasItem(index: number): boolean {
    return this.allItems || index < this.items || (this.itemSet?.has(index) ?? false)
  }

  merge(other: Evaluated): void {
    if (other.allProps) this.allProps = true
    else if (other.props) for (const p of other.props) this.prop(p)
    if (other.allItems) this.allItems = true
    if (other.items > this.items) this.items = other.items
    if (other.itemSet) for (const i of other.itemSet) this.item(i)
  }
}

export class Context {
  readonly path: (string | number)[] = []
  readonly hops: Hop[] = []
  // the instance depth at each reference taken (hops that are references, innermost last)
  private readonly refDepths: number[] = []
  errors: OutputUnit[] = []
  // output units not kept (over maxErrors), counted as errors are
  dropped = 0
  steps = 0

  // output units left to keep (the request's cap, less what earlier instances kept)
  maxErrors: number
  readonly maxSteps: number

  constructor(maxErrors: number, maxSteps: number, root: Resource) {
    this.maxErrors = maxErrors
    this.maxSteps = maxSteps
    this.hops.push({ resource: root })
  }

  step(): void {
    if (++this.steps > this.maxSteps) {
      throw new AppError(
        'ERR_COMPUTE_LIMIT',
        `Validation took more than ${this.maxSteps} schema evaluation steps.`,
        {
          reason: 'steps',
          max_steps: this.maxSteps,
        },
      )
    }
  }

  enter(token: string | number): void {
    if (this.path.length >= MAX_INSTANCE_DEPTH) {
      throw new AppError(
        'ERR_VALIDATION',
        `The instance is nested deeper than ${MAX_INSTANCE_DEPTH} levels.`,
        {
          issues: [
            {
              path: 'instance',
              message: `nesting deeper than ${MAX_INSTANCE_DEPTH} levels is not supported`,
            },
          ],
        },
      )
    }
    this.path.push(token)
  }

  leave(): void {
    this.path.pop()
  }

  // A schema resource entered, by a reference (`from` set) or by nesting. More than MAX_REF_CHAIN
  // references in a row that read nothing further into the instance are a loop, and refused.
  hop(hop: Hop): void {
    if (hop.from !== undefined) {
      const n = this.refDepths.length
      if (n >= MAX_REF_CHAIN && this.refDepths[n - MAX_REF_CHAIN] === this.path.length) {
        throw new AppError(
          'ERR_INVALID_SCHEMA',
          `The schema's references loop: more than ${MAX_REF_CHAIN} of them in a row read nothing further into the instance.`,
          { reason: 'ref_cycle', keyword_location: this.keywordLocation(hop.from, hop.keyword ?? '') },
        )
      }
      this.refDepths.push(this.path.length)
    }
    this.hops.push(hop)
  }

  unhop(): void {
    if (this.hops.pop()?.from !== undefined) this.refDepths.pop()
  }

  // Where the error count stands: an evaluation whose failure does not count (an anyOf branch, `not`,
  // `if`, contains) puts it back with `restore`.
  mark(): number {
    return this.errors.length * 2 ** 20 + this.dropped
  }

  restore(mark: number): void {
    const kept = Math.floor(mark / 2 ** 20)
    this.errors.length = kept
    this.dropped = mark - kept * 2 ** 20
  }

  fail(place: Place, keyword: string, message: string): false {
    if (this.errors.length >= this.maxErrors) {
      if (this.dropped < 2 ** 20 - 1) this.dropped++
      return false
    }
    const suffix = keyword === '' ? '' : `/${keyword}`
    this.errors.push({
      instance_location: this.path.map((t) => `/${escapeToken(t)}`).join(''),
      keyword_location: this.keywordLocation(place.doc, keyword),
      absolute_keyword_location: writtenUri(place.resource.uri, place.pointer + suffix),
      message,
    })
    return false
  }

  // The evaluation path: from the root, through each reference taken, to the keyword.
  private keywordLocation(doc: string, keyword: string): string {
    let out = ''
    let entry = ''
    for (const hop of this.hops) {
      if (hop.from === undefined) continue
      out += `${hop.from.slice(entry.length)}/${hop.keyword}`
      entry = hop.to!
    }
    return `${out}${doc.slice(entry.length)}${keyword === '' ? '' : `/${keyword}`}`
  }
}
