import { AppError } from '../../errors.ts'
import { createEngine, type Engine } from './engine.ts'
import {
  type Algorithm,
  JSON_OUTPUT_LIMIT,
  LEVEL_CAPS,
  LEVELS,
  OUTPUT_BYTES_CAP,
  RATIO_CAP,
  RATIO_GRACE_BYTES,
  ZSTD_WINDOW_CAP,
} from './types.ts'

// A compression or decompression fed in chunks (a JSON body's bytes at once, a raw body as it arrives): the
// plan's caps, the refusals and where they happened. Both yield their output in pieces of at most 64 KiB.

export interface Session {
  write(chunk: Uint8Array): Generator<Uint8Array>
  end(): Generator<Uint8Array>
}

type Caps = Readonly<Record<string, number>>

function capOf(caps: Caps, name: string, fallback: number): number {
  return caps[name] ?? fallback
}

function planCap(
  cap: string,
  max: number,
  requested: number | undefined,
  message: string,
  extra = {},
): AppError {
  const details: Record<string, unknown> = { cap, max, ...extra }
  if (requested !== undefined) details.requested = requested
  return new AppError('ERR_PLAN_CAP', message, details)
}

// The level asked for, within the algorithm's range (ERR_VALIDATION) and the plan's cap (ERR_PLAN_CAP).
export function levelFor(algorithm: Algorithm, level: number | undefined, caps: Caps): number {
  const range = LEVELS[algorithm]
  const chosen = level ?? range.default
  if (!Number.isInteger(chosen) || chosen < range.min || chosen > range.max) {
    const message = `${algorithm} levels are ${range.min}–${range.max}`
    throw new AppError('ERR_VALIDATION', `\`level\`: ${message}`, { issues: [{ path: 'level', message }] })
  }
  const cap = LEVEL_CAPS[algorithm]
  const max = capOf(caps, cap, range.max)
  if (chosen > max) {
    throw planCap(
      cap,
      max,
      chosen,
      `This plan compresses ${algorithm} at levels up to ${max}; ${chosen} was asked`,
    )
  }
  return chosen
}

// slices fed to a compressor: between two, the pool thread checks its budget (a piece of gzip -9 of
// adversarial input costs ~6 ms a KiB)
const COMPRESS_SLICE = 16 * 1024

export function compressSession(algorithm: Algorithm, level: number): Session {
  const engine = createEngine(algorithm, true, { level })
  return {
    *write(chunk) {
      for (let at = 0; at < chunk.length; at += COMPRESS_SLICE) {
        yield* engine.feed(chunk, at, Math.min(at + COMPRESS_SLICE, chunk.length))
        yield NOTHING
      }
    },
    *end() {
      try {
        yield* engine.finish()
      } finally {
        engine.close()
      }
    },
  }
}

const NOTHING = new Uint8Array(0)

// Decoders are fed this much at a time, so that a refusal says where the stream failed to within it
// (a decoder reads ahead, and zstd decodes whole blocks: the offset is where it noticed, at or after the
// damage). ~25% slower than 64 KiB slices for inflate, measured.
export const DECODE_SLICE = 256

export interface DecompressLimits {
  // the answer holds the whole output (JSON): it may be at most JSON_OUTPUT_LIMIT bytes
  held: boolean
}

function corrupt(algorithm: Algorithm, offset: number, reason: string, detail?: string): AppError {
  const messages: Record<string, string> = {
    truncated: `the ${algorithm} data ends early, at byte ${offset}: it is truncated`,
    corrupt: `the ${algorithm} data is not valid at or before byte ${offset}${detail ? ` (${detail})` : ''}`,
    trailing_data: `the ${algorithm} data ends at byte ${offset}, and more bytes follow it`,
  }
  return new AppError('ERR_INVALID_COMPRESSED_DATA', `Position ${offset}: ${messages[reason]}`, {
    algorithm,
    offset,
    reason,
  })
}

// A decompression: refused, not expanded, past the plan's caps (the output's bytes, its ratio to the input
// read once past RATIO_GRACE_BYTES, a zstd window); refused with the offset at a truncated or corrupt
// stream or bytes after its end (a gzip file's zero padding aside, as gzip and Python take it); concatenated
// gzip members and zstd frames (skippable ones included) decode to the concatenation.
export function decompressSession(algorithm: Algorithm, caps: Caps, limits: DecompressLimits): Session {
  // without a cap, zstd's own default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 128 MiB)
  const windowLog = capOf(caps, ZSTD_WINDOW_CAP, 27)
  const engine: Engine = createEngine(algorithm, false, { windowLog })
  const maxBytes = Math.min(capOf(caps, OUTPUT_BYTES_CAP, Number.POSITIVE_INFINITY), Number.MAX_SAFE_INTEGER)
  const maxRatio = capOf(caps, RATIO_CAP, Number.POSITIVE_INFINITY)
  let inputBytes = 0
  let outputBytes = 0
  // the stream has ended: what follows is only read to be refused (or, in gzip, to be zero padding)
  let ended = false

  function failed(offset: number): AppError {
    const failure = engine.failure!
    if (failure.code === 'ZSTD_error_frameParameter_windowTooLarge') {
      return planCap(
        ZSTD_WINDOW_CAP,
        windowLog,
        undefined,
        `The zstd frame needs a window over 2^${windowLog} bytes, this plan's cap`,
        { offset },
      )
    }
    if (failure.message === 'unexpected end of file') return corrupt(algorithm, offset, 'truncated')
    return corrupt(algorithm, offset, 'corrupt', `${failure.message}; ${failure.code}`)
  }

  function* checked(pieces: Generator<Uint8Array>, offset: number) {
    for (const piece of pieces) {
      outputBytes += piece.length
      if (outputBytes > maxBytes) {
        engine.close()
        throw planCap(
          OUTPUT_BYTES_CAP,
          maxBytes,
          undefined,
          `The decompressed output is over ${maxBytes} bytes, this plan's cap; it was stopped, not expanded`,
          { offset: engine.consumed },
        )
      }
      if (outputBytes > RATIO_GRACE_BYTES && outputBytes > maxRatio * Math.max(1, engine.consumed)) {
        engine.close()
        throw planCap(
          RATIO_CAP,
          maxRatio,
          undefined,
          `The data expands more than ${maxRatio} times (past the first ${RATIO_GRACE_BYTES / 1024} KiB), this plan's cap; it was stopped, not expanded`,
          { offset: engine.consumed, output_bytes: outputBytes },
        )
      }
      if (limits.held && outputBytes > JSON_OUTPUT_LIMIT) {
        engine.close()
        throw new AppError(
          'ERR_COMPUTE_LIMIT',
          `The decompressed output is over ${JSON_OUTPUT_LIMIT} bytes, the most a JSON answer holds; ask for the raw bytes (Accept: application/octet-stream)`,
          { reason: 'output_size', limit: JSON_OUTPUT_LIMIT, max_bytes: JSON_OUTPUT_LIMIT },
        )
      }
      yield piece
    }
    if (engine.failure) throw failed(offset)
  }

  // bytes after the stream's end, chunk[from..] at input offset `start`: a gzip file's zero padding, or a
  // refusal at the first of them
  function after(chunk: Uint8Array, from: number, start: number): void {
    for (let i = from; i < chunk.length; i++) {
      if (algorithm !== 'gzip' || chunk[i] !== 0) {
        engine.close()
        throw corrupt(algorithm, start + i, 'trailing_data')
      }
    }
  }

  return {
    *write(chunk) {
      const start = inputBytes
      inputBytes += chunk.length
      if (ended) return after(chunk, 0, start)
      for (let at = 0; at < chunk.length; at += DECODE_SLICE) {
        const to = Math.min(at + DECODE_SLICE, chunk.length)
        const before = engine.consumed
        yield* checked(engine.feed(chunk, at, to), start + to)
        if (engine.ended) {
          ended = true
          return after(chunk, at + engine.consumed - before, start)
        }
      }
    },
    *end() {
      try {
        yield* checked(engine.finish(), inputBytes)
      } finally {
        engine.close()
      }
    },
  }
}
