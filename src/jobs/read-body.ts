import { AppError } from '../errors.ts'

// Reads a request body into one buffer, refusing it as soon as it passes `limit` bytes.
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
