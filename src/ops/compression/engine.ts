import zlib from 'node:zlib'
import type { Algorithm } from './types.ts'

// One incremental, synchronous engine over Node's zlib, brotli and zstd, producing output in pieces of at
// most PIECE bytes, however much one input byte expands to. Node offers no public incremental synchronous
// API (its *Sync functions take the whole input and hold the whole output; its streams run on the libuv
// thread pool, where a pool thread's CPU budget does not see them), so this drives the native handle as
// Node's own synchronous path does (lib/zlib.js processChunkSync: handle.writeSync and the _writeState pair
// [output left, input left]), one writeSync per piece. docs/decisions.md, "Compression endpoints" says why; the
// tests pin the behaviour on the Node version package.json requires.

export const PIECE = 64 * 1024

interface NativeHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void
  onerror: (message: string, errno: number, code: string) => void
  close(): void
}

interface NodeEngine {
  _handle: NativeHandle
  _writeState: Uint32Array
}

const C = zlib.constants

// the flush flags of each library: go on, and finish
const FLUSH = {
  zlib: [C.Z_NO_FLUSH, C.Z_FINISH],
  brotli: [C.BROTLI_OPERATION_PROCESS, C.BROTLI_OPERATION_FINISH],
  zstd: [C.ZSTD_e_continue, C.ZSTD_e_end],
} as const

export interface EngineFailure {
  message: string
  code: string
}

export interface EngineOptions {
  level?: number
  // zstd decoding: the largest window a frame may ask (log2 bytes)
  windowLog?: number
}

function create(algorithm: Algorithm, compress: boolean, options: EngineOptions): unknown {
  const level = options.level
  switch (algorithm) {
    case 'gzip':
      return compress ? zlib.createGzip({ level }) : zlib.createGunzip()
    case 'deflate':
      return compress ? zlib.createDeflate({ level }) : zlib.createInflate()
    case 'deflate-raw':
      return compress ? zlib.createDeflateRaw({ level }) : zlib.createInflateRaw()
    case 'brotli':
      return compress
        ? zlib.createBrotliCompress({ params: { [C.BROTLI_PARAM_QUALITY]: level! } })
        : zlib.createBrotliDecompress()
    case 'zstd':
      // the zstd tool writes a checksum by default (its --check): so do these frames
      return compress
        ? zlib.createZstdCompress({
            params: { [C.ZSTD_c_compressionLevel]: level!, [C.ZSTD_c_checksumFlag]: 1 },
          })
        : zlib.createZstdDecompress({ params: { [C.ZSTD_d_windowLogMax]: options.windowLog! } })
  }
}

export interface Engine {
  // feeds input[from, to), yielding output pieces; `consumed` then says how much of it was taken (less than
  // all when the stream ended before it: what is left is after the end)
  feed(input: Uint8Array, from: number, to: number): Generator<Uint8Array>
  // finishes: the last output (a compressor's flush; a decoder's check that the stream is complete)
  finish(): Generator<Uint8Array>
  consumed: number
  // a decoder saw its stream's end (and took no more input)
  ended: boolean
  failure: EngineFailure | undefined
  close(): void
}

export function createEngine(algorithm: Algorithm, compress: boolean, options: EngineOptions = {}): Engine {
  const node = create(algorithm, compress, options) as NodeEngine
  const handle = node._handle
  const state = node._writeState
  const family = algorithm === 'brotli' ? 'brotli' : algorithm === 'zstd' ? 'zstd' : 'zlib'
  const [go, end] = FLUSH[family]
  const out = new Uint8Array(PIECE)
  let closed = false
  const engine: Engine = {
    consumed: 0,
    ended: false,
    failure: undefined,
    feed: (input, from, to) => run(go, input, from, to),
    finish: () => run(end, new Uint8Array(0), 0, 0),
    close() {
      if (closed) return
      closed = true
      handle.close()
    },
  }
  handle.onerror = function onEngineError(message, _errno, code) {
    engine.failure = { message, code }
  }

  function* run(flush: number, input: Uint8Array, from: number, to: number): Generator<Uint8Array> {
    let at = from
    for (;;) {
      const inLength = to - at
      handle.writeSync(flush, input, at, inLength, out, 0, PIECE)
      if (engine.failure) {
        engine.close()
        return
      }
      const produced = PIECE - state[0]!
      const taken = inLength - state[1]!
      at += taken
      engine.consumed += taken
      // a copy of its own: it leaves the thread without another (workers/stream.ts)
      if (produced > 0) yield out.slice(0, produced)
      const drained = state[0] !== 0
      if (drained && at === to) return
      // a decoder that takes nothing and gives nothing with input left has reached its stream's end
      if (drained && taken === 0 && produced === 0) {
        engine.ended = true
        return
      }
    }
  }
  return engine
}
