import type { Hasher } from '../../ops/hash/hash.ts'
import { consumeLimited } from './consume-limited.ts'

// Feeds a request stream through a hasher chunk by chunk: memory stays flat whatever the size,
// and the body limit is enforced on the bytes actually received.
export function digestStream(stream: NodeJS.ReadableStream, hasher: Hasher, limit: number): Promise<number> {
  return consumeLimited(stream, limit, (chunk) => hasher.update(chunk))
}

export function isReadable(value: unknown): value is NodeJS.ReadableStream {
  return (
    typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function'
  )
}

// Content negotiation for binary endpoints: raw bytes only when the client asks for them.
export function wantsOctets(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*application\/octet-stream\s*(;|,|$)/i.test(accept)
}
