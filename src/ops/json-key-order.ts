import { ARR_OPEN, keyOf, OBJ_OPEN, type TokenList, valueEnd } from './json-tokens.ts'

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff
}

// Unicode code point order, which is also UTF-8 byte order. JavaScript's default sort compares UTF-16
// units and puts U+10000 and above before U+E000–U+FFFF; this does not. Lone surrogates (from \u
// escapes) count as their own code point.
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x < 0xd800 && y < 0xd800) return x - y
    // both strings share the unit before i; when it opens a pair, a low surrogate here completes it
    if (i > 0 && isHigh(a.charCodeAt(i - 1))) {
      if (isLow(x) && isLow(y)) return x - y
      if (isLow(x)) return 1
      if (isLow(y)) return -1
    }
    return a.codePointAt(i)! - b.codePointAt(i)!
  }
  return a.length - b.length
}

// Key tokens of one object, sorted by key; Array.prototype.sort is stable, so duplicates keep their order.
function sortedMembers(text: string, tokens: TokenList, open: number): number[] {
  const close = tokens.link[open]!
  const members: { key: string; index: number }[] = []
  for (let k = open + 1; k < close; k = valueEnd(tokens, k + 1) + 1) {
    members.push({ key: keyOf(text, tokens, k), index: k })
  }
  if (members.length > 1) members.sort((m, n) => compareCodePoints(m.key, n.key))
  return members.map((m) => m.index)
}

interface Frame {
  // sorted key tokens for an object; null for an array, whose values are walked in place
  members: number[] | null
  pos: number
  close: number
}

// The order in which to print the tokens so that every object's members are sorted; an explicit
// stack of frames instead of recursion, so depth never threatens the call stack.
export function sortedOrder(text: string, tokens: TokenList): Int32Array {
  const order = new Int32Array(tokens.count)
  const stack: Frame[] = []
  let o = 0
  let next = 0
  for (;;) {
    if (next >= 0) {
      order[o++] = next
      const kind = tokens.kind[next]
      if (kind === ARR_OPEN) stack.push({ members: null, pos: next + 1, close: tokens.link[next]! })
      else if (kind === OBJ_OPEN) {
        stack.push({ members: sortedMembers(text, tokens, next), pos: 0, close: tokens.link[next]! })
      }
      next = -1
    }
    const top = stack[stack.length - 1]
    if (top === undefined) return order
    if (top.members === null) {
      if (top.pos === top.close) {
        order[o++] = top.close
        stack.pop()
      } else {
        next = top.pos
        top.pos = valueEnd(tokens, next) + 1
      }
    } else if (top.pos === top.members.length) {
      order[o++] = top.close
      stack.pop()
    } else {
      const key = top.members[top.pos++]!
      order[o++] = key
      next = key + 1
    }
  }
}
