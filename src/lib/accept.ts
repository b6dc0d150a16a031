import Negotiator from 'negotiator'
import { HEADER_BOUNDS, headerTooLarge, withinBound } from './header-bounds.ts'

// Proactive negotiation (RFC 9110 §12.5.1) for the endpoints that answer either the JSON envelope or raw
// bytes. negotiator does the parsing and ranking: each offer takes the q of the most specific media range
// that matches it (type/subtype with parameters > type/subtype > type/* > */*), q=0 excludes, a higher q
// wins, then the more specific match, then the client's order, then ours: JSON first, so a tie (*/*,
// application/*) answers JSON. JSON is offered with the charset it is sent with, so a range naming
// charset=utf-8 matches it and another charset does not.
export type AnswerFormat = 'json' | 'octets'

const JSON_TYPE = 'application/json; charset=utf-8'
const OCTETS_TYPE = 'application/octet-stream'
const OFFERS = [JSON_TYPE, OCTETS_TYPE]

export const ANSWER_MEDIA_TYPES = ['application/json', OCTETS_TYPE] as const

// 'json' | 'octets', or undefined when the client accepts neither (answer 406). No Accept header means
// anything is acceptable (§12.5.1): JSON, without parsing anything. The values clients send most are
// answered without the parser; every other value is parsed (a few microseconds), once it is known to be
// within its bound (1 KiB, 32 ranges: Negotiator took ~30 ms for a 60 KB one); over it, 431
// ERR_HEADER_TOO_LARGE (the lane refuses it before the body is read; this is the parser's own guard).
export function answerFormat(accept: string | undefined): AnswerFormat | undefined {
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return 'json'
  if (accept === OCTETS_TYPE) return 'octets'
  if (!withinBound(accept, HEADER_BOUNDS.accept)) throw headerTooLarge('accept')
  const best = new Negotiator({ headers: { accept } }).mediaType(OFFERS)
  if (best === undefined) return undefined
  return best === OCTETS_TYPE ? 'octets' : 'json'
}
