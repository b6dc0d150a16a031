import type { FastifyServerOptions } from 'fastify'
import pino from 'pino'

export interface LogSink {
  stream: NodeJS.WritableStream
  flush(): void
}

// Log lines are written to stdout asynchronously in 4 KiB batches: a synchronous write per line would
// cost a syscall per request at full load. Flushed at shutdown.
export function openLogSink(): LogSink {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  return {
    stream: destination as unknown as NodeJS.WritableStream,
    flush() {
      destination.flushSync()
    },
  }
}

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    // belt and braces: nothing logs headers or bodies, and these paths are cut if anything ever does
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'headers.cookie',
        'body',
        'req.body',
      ],
      censor: '[redacted]',
    },
  }
}
