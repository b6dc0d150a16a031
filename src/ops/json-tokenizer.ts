import { closeScope, createKeyScopes, isDuplicateKey, type KeyScopes, openScope } from './json-duplicates.ts'
import { scanLiteral, scanNumber, scanString, skipWhitespace } from './json-scan.ts'
import {
  ARR_OPEN,
  createTokenList,
  ESCAPED,
  KEY,
  keyOf,
  LITERAL,
  NUMBER,
  OBJ_OPEN,
  pushToken,
  STRING,
  syntaxError,
  type TokenList,
  unexpected,
} from './json-tokens.ts'

export interface DuplicateKey {
  key: string
  offset: number
}

export interface Tokenized {
  tokens: TokenList
  duplicates: DuplicateKey[]
  duplicate_count: number
}

// Listing every duplicate of a hostile document would make the answer larger than the input.
export const MAX_LISTED_DUPLICATES = 100

// What the grammar allows next.
const S_VALUE = 0
const S_VALUE_OR_CLOSE = 1
const S_KEY = 2
const S_KEY_OR_CLOSE = 3
const S_COLON = 4
const S_AFTER_VALUE = 5
const S_END = 6

// Explicit stack, no recursion: nesting depth is bounded by memory, never by the call stack.
function closeContainer(tokens: TokenList, open: number[], scopes: KeyScopes, at: number): number {
  const openIndex = open.pop()!
  if (tokens.kind[openIndex] === OBJ_OPEN) closeScope(scopes)
  const closeIndex = pushToken(tokens, tokens.kind[openIndex]! + 1, at, at + 1)
  tokens.link[openIndex] = closeIndex
  tokens.link[closeIndex] = openIndex
  return open.length === 0 ? S_END : S_AFTER_VALUE
}

function isCloser(tokens: TokenList, open: number[], c: number): boolean {
  return c === (tokens.kind[open[open.length - 1]!] === OBJ_OPEN ? 0x7d : 0x5d)
}

// Validates the whole text against RFC 8259 and records its tokens; `from` skips a byte order mark.
export function tokenize(text: string, from: number): Tokenized {
  const tokens = createTokenList(text.length)
  const open: number[] = []
  const scopes = createKeyScopes()
  const duplicates: DuplicateKey[] = []
  let duplicateCount = 0
  let state = S_VALUE
  const n = text.length
  let i = skipWhitespace(text, from)
  while (i < n) {
    const c = text.charCodeAt(i)
    if (state === S_AFTER_VALUE) {
      if (c === 0x2c) {
        state = tokens.kind[open[open.length - 1]!] === OBJ_OPEN ? S_KEY : S_VALUE
        i++
      } else if (isCloser(tokens, open, c)) {
        state = closeContainer(tokens, open, scopes, i++)
      } else {
        throw unexpected(text, i, isCloser(tokens, open, 0x7d) ? "',' or '}'" : "',' or ']'")
      }
    } else if (state === S_VALUE || state === S_VALUE_OR_CLOSE) {
      if (c === 0x5d && state === S_VALUE_OR_CLOSE) {
        state = closeContainer(tokens, open, scopes, i++)
      } else if (c === 0x7b || c === 0x5b) {
        open.push(pushToken(tokens, c === 0x7b ? OBJ_OPEN : ARR_OPEN, i, i + 1))
        if (c === 0x7b) openScope(scopes)
        state = c === 0x7b ? S_KEY_OR_CLOSE : S_VALUE_OR_CLOSE
        i++
      } else {
        if (c === 0x5d && open.length > 0 && isCloser(tokens, open, c)) {
          throw syntaxError(text, i, 'Trailing comma before ]')
        }
        let end: number
        let kind: number
        if (c === 0x22) {
          const scanned = scanString(text, i)
          end = scanned >> 1
          kind = scanned & 1 ? STRING | ESCAPED : STRING
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          end = scanNumber(text, i)
          kind = NUMBER
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          end = scanLiteral(text, i)
          kind = LITERAL
        } else {
          throw unexpected(text, i, 'a value')
        }
        pushToken(tokens, kind, i, end)
        i = end
        state = open.length === 0 ? S_END : S_AFTER_VALUE
      }
    } else if (state === S_KEY || state === S_KEY_OR_CLOSE) {
      if (c === 0x22) {
        const scanned = scanString(text, i)
        const end = scanned >> 1
        const index = pushToken(tokens, scanned & 1 ? KEY | ESCAPED : KEY, i, end)
        if (isDuplicateKey(scopes, text, tokens, index)) {
          duplicateCount++
          if (duplicates.length < MAX_LISTED_DUPLICATES) {
            duplicates.push({ key: keyOf(text, tokens, index), offset: i })
          }
        }
        i = end
        state = S_COLON
      } else if (c === 0x7d && state === S_KEY_OR_CLOSE) {
        state = closeContainer(tokens, open, scopes, i++)
      } else if (c === 0x7d) {
        throw syntaxError(text, i, 'Trailing comma before }')
      } else {
        throw unexpected(text, i, 'a key in double quotes')
      }
    } else if (state === S_COLON) {
      if (c !== 0x3a) throw unexpected(text, i, "':' after the key")
      state = S_VALUE
      i++
    } else {
      throw unexpected(text, i, 'end of input after the top-level value')
    }
    i = skipWhitespace(text, i)
  }
  if (state !== S_END) {
    if (tokens.count === 0) throw syntaxError(text, n, 'The JSON text is empty')
    const unclosed = open.length > 0 ? ` (${open.length} unclosed)` : ''
    throw syntaxError(text, n, `Unexpected end of input${unclosed}`)
  }
  return { tokens, duplicates, duplicate_count: duplicateCount }
}
