import { AppError } from '../../errors.ts'

type Done<T> = (err: Error | null, value?: T) => void

// Hands a request body to `onChunk` as it arrives and calls back with its size, refusing it with 413 as
// soon as it passes `limit` bytes. Listeners are removed rather than the stream destroyed, so the 413 can
// still be sent on the same connection. Callback-style: the JSON body parser runs on every request.
export function consumeLimitedCallback(
  stream: NodeJS.ReadableStream,
  limit: number,
  onChunk: (chunk: Buffer) => void,
  done: Done<number>,
): void {
  let size = 0
  function onData(chunk: Buffer): void {
    size += chunk.length
    if (size > limit) {
      cleanup()
      done(new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit }))
      return
    }
    onChunk(chunk)
  }
  function onEnd(): void {
    cleanup()
    done(null, size)
  }
  function onError(err: Error): void {
    cleanup()
    done(err)
  }
  function cleanup(): void {
    stream.removeListener('data', onData)
    stream.removeListener('end', onEnd)
    stream.removeListener('error', onError)
  }
  stream.on('data', onData)
  stream.on('end', onEnd)
  stream.on('error', onError)
}

export function consumeLimited(
  stream: NodeJS.ReadableStream,
  limit: number,
  onChunk: (chunk: Buffer) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    consumeLimitedCallback(stream, limit, onChunk, (err, size) => (err ? reject(err) : resolve(size!)))
  })
}

// The whole body in one buffer, within the limit. With the size declared (Content-Length, within the
// limit) the buffer is allocated once and each chunk copied in as it arrives, so a large body costs no
// copy at its end (a 20 MiB Buffer.concat is milliseconds of the event loop in one go) and the buffer is
// its own ArrayBuffer (it can be moved to a thread). A body that turns out longer than declared is gathered
// whole as well, for the caller to refuse it as not matching its Content-Length.
export function readLimitedCallback(
  stream: NodeJS.ReadableStream,
  limit: number,
  done: Done<Buffer>,
  expected?: number,
): void {
  let into =
    expected !== undefined && expected > 0 && expected <= limit ? Buffer.allocUnsafeSlow(expected) : undefined
  let filled = 0
  let first: Buffer | undefined
  let chunks: Buffer[] | undefined
  consumeLimitedCallback(
    stream,
    limit,
    (chunk) => {
      if (into !== undefined && filled + chunk.length <= into.length) {
        chunk.copy(into, filled)
        filled += chunk.length
        return
      }
      if (into !== undefined) {
        // more than declared: keep what came, in order
        first = into.subarray(0, filled)
        into = undefined
      }
      if (first === undefined) {
        first = chunk
        return
      }
      chunks ??= [first]
      chunks.push(chunk)
    },
    (err, size) => {
      if (err) return done(err)
      if (into !== undefined) return done(null, filled === into.length ? into : into.subarray(0, filled))
      done(null, chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)))
    },
  )
}

export function readLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    readLimitedCallback(stream, limit, (err, bytes) => (err ? reject(err) : resolve(bytes!)))
  })
}
