import { AppError } from '../../errors.ts'
import { isJsonObject } from './types.ts'

export { isJsonObject }

export type JwtPart = 'header' | 'payload' | 'signature' | 'structure'
export type PayloadFormat = 'json' | 'text' | 'base64url'

export interface DecodedJwt {
  header: Record<string, unknown>
  // a JSON object (a JWT claims set), the payload text, or the raw base64url segment: see payload_format
  payload: Record<string, unknown> | string
  payload_format: PayloadFormat
  signature: string
  signed_part: string
}

// Decoded JSON is sent back to the client and handed to jose; both recurse, so depth is bounded here.
export const MAX_JSON_DEPTH = 64

const NOT_BASE64URL = /[^A-Za-z0-9_-]/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function invalidJwt(part: JwtPart, reason: string, message: string, extra: Record<string, unknown> = {}) {
  return new AppError('ERR_INVALID_JWT', message, { part, reason, ...extra })
}

// Iterative, so a hostile value cannot overflow the stack while being measured.
export function exceedsDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== 'object' || current === null) continue
    if (depth > limit) return true
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}

function segmentBytes(segment: string, part: JwtPart, offset: number): Buffer {
  const bad = NOT_BASE64URL.exec(segment)
  if (bad) {
    const hint = bad[0] === '=' ? ' (JWS segments carry no "=" padding)' : ''
    throw invalidJwt(part, 'invalid_base64url', `The ${part} is not base64url${hint}`, {
      position: offset + bad.index,
    })
  }
  if (segment.length % 4 === 1) {
    throw invalidJwt(part, 'invalid_base64url', `The ${part} has an impossible base64url length`, {
      position: offset + segment.length - 1,
    })
  }
  return Buffer.from(segment, 'base64url')
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function decodeHeader(segment: string): Record<string, unknown> {
  if (segment.length === 0)
    throw invalidJwt('header', 'empty', 'The header segment is empty', { position: 0 })
  const text = utf8(segmentBytes(segment, 'header', 0))
  if (text === undefined) throw invalidJwt('header', 'invalid_utf8', 'The header is not UTF-8 text')
  const header = parseJson(text)
  if (!isJsonObject(header)) throw invalidJwt('header', 'not_json_object', 'The header is not a JSON object')
  if (exceedsDepth(header)) {
    throw invalidJwt('header', 'too_deep', `The header nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
  if (typeof header.alg !== 'string' || header.alg.length === 0) {
    throw invalidJwt('header', 'missing_alg', 'The header has no "alg" string (RFC 7515 §4.1.1)')
  }
  return header
}

function decodePayload(segment: string, offset: number): Pick<DecodedJwt, 'payload' | 'payload_format'> {
  const bytes = segmentBytes(segment, 'payload', offset)
  const text = utf8(bytes)
  if (text === undefined) return { payload: segment, payload_format: 'base64url' }
  const value = parseJson(text)
  if (!isJsonObject(value)) return { payload: text, payload_format: 'text' }
  if (exceedsDepth(value)) {
    throw invalidJwt('payload', 'too_deep', `The payload nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
  return { payload: value, payload_format: 'json' }
}

// JWS compact serialization (RFC 7515 §7.1) taken apart; nothing here checks the signature.
export function decodeJwt(params: { token: string }): DecodedJwt {
  const { token } = params
  const segments = token.split('.')
  if (segments.length === 5) {
    throw invalidJwt('structure', 'jwe', 'This is a JWE (encrypted) token; only JWS tokens can be decoded', {
      segments: 5,
    })
  }
  if (segments.length !== 3) {
    throw invalidJwt(
      'structure',
      'segment_count',
      `A JWS compact token has 3 dot-separated segments; this has ${segments.length}`,
      { segments: segments.length },
    )
  }
  const [head, body, signature] = segments as [string, string, string]
  const header = decodeHeader(head)
  const payload = decodePayload(body, head.length + 1)
  segmentBytes(signature, 'signature', head.length + body.length + 2)
  return { header, ...payload, signature, signed_part: `${head}.${body}` }
}
