import { AppError } from '../errors.ts'
import type { Hasher } from '../ops/hash.ts'

// Feeds a request stream through a hasher chunk by chunk: memory stays flat whatever the size,
// and the body limit is enforced on the bytes actually received.
export function digestStream(stream: NodeJS.ReadableStream, hasher: Hasher, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0
    function onData(chunk: Buffer): void {
      size += chunk.length
      if (size > limit) {
        cleanup()
        reject(new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit }))
        return
      }
      hasher.update(chunk)
    }
    function onEnd(): void {
      cleanup()
      resolve(size)
    }
    function onError(err: Error): void {
      cleanup()
      reject(err)
    }
    function cleanup(): void {
      stream.removeListener('data', onData)
      stream.removeListener('end', onEnd)
      stream.removeListener('error', onError)
    }
    stream.on('data', onData)
    stream.on('end', onEnd)
    stream.on('error', onError)
  })
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
