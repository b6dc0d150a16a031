import { AppError } from '../errors.ts'

// Buffers a raw request body, refusing it as soon as the bytes received pass the limit, so an
// undeclared (chunked) oversized body is cut off instead of filling memory.
export function readBody(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    function onData(chunk: Buffer): void {
      size += chunk.length
      if (size > limit) {
        cleanup()
        reject(new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit }))
        return
      }
      chunks.push(chunk)
    }
    function onEnd(): void {
      cleanup()
      resolve(Buffer.concat(chunks, size))
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
