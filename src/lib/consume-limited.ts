import { AppError } from '../errors.ts'

// Hands a request body to `onChunk` as it arrives and resolves with its size, refusing it with 413 as soon as
// it passes `limit` bytes. Listeners are removed rather than the stream destroyed, so the 413 can still be
// sent on the same connection.
export function consumeLimited(
  stream: NodeJS.ReadableStream,
  limit: number,
  onChunk: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0
    function onData(chunk: Buffer): void {
      size += chunk.length
      if (size > limit) {
        cleanup()
        reject(new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit }))
        return
      }
      onChunk(chunk)
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

// The whole body in one buffer, within the limit.
export async function readLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  const size = await consumeLimited(stream, limit, (chunk) => chunks.push(chunk))
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
}
