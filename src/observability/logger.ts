import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'
import { LogDestination } from './log-destination.ts'
import { errorSerializers } from './log-errors.ts'

export interface LogSink {
  stream: NodeJS.WritableStream
  flush(): Promise<void>
}

// Log lines are written to stdout asynchronously in batches (src/observability/log-destination.ts): a
// synchronous write per line would cost a syscall per request at full load. A quiet process still shows every
// line within a second (a warning must not wait for a batch of traffic behind it), and everything is flushed
// at shutdown.
export function openLogSink(): LogSink {
  const destination = new LogDestination(1)
  return {
    stream: destination as unknown as NodeJS.WritableStream,
    flush: () => destination.drain(),
  }
}

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    // an error is written as its message, type, code and stack, never its other properties
    serializers: errorSerializers,
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

type LogMethod = (...args: unknown[]) => void

// Fastify gives every request a child logger bound to its id; building a pino child per request costs more
// than most requests ever log. This one builds the child on first use, so a request that logs nothing
// (the access line goes through the root logger with the id in it) allocates nothing for logging.
class LazyChildLogger {
  #parent: FastifyBaseLogger
  #bindings: Bindings
  #options: ChildLoggerOptions
  #child: FastifyBaseLogger | undefined

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }

  #write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const logger = this.#logger()
    ;(logger[level] as LogMethod).apply(logger, args)
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level
  }

  set level(level: string) {
    this.#logger().level = level
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args)
  }
  error(...args: unknown[]): void {
    this.#write('error', args)
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args)
  }
  info(...args: unknown[]): void {
    this.#write('info', args)
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args)
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options)
  }
}

export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger
}
