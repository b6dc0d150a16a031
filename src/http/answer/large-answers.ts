import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'

// An answer larger than this leaves in SLICE-byte pieces, one per turn of the event loop.
export const SLICE_ABOVE = 256 * 1024
const SLICE = 64 * 1024

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

// A write to a TLS socket encrypts everything it is given before it returns: one 50 MB answer written
// whole held this machine's event loop 90 ms, and every other request waited. Written as 64 KiB pieces,
// one per turn of the event loop, each write encrypts 64 KiB (~0.05 ms) and other requests are served
// between them (a plain stream of pieces would still write as many as the kernel takes at once: several
// MiB on loopback). The pieces are views of the answer, not copies. Large answers arrive here as bytes,
// made on the pool thread that ran the op (docs/dispatch.md, "Large answers").
async function* slices(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    if (at > 0) await nextTurn()
    yield bytes.subarray(at, Math.min(bytes.byteLength, at + SLICE))
  }
}

// An answer of bytes larger than SLICE_ABOVE, as a stream of its slices (its Content-Length set); any
// other payload as it is.
export function sliced(reply: FastifyReply, payload: unknown): unknown {
  if (!(payload instanceof Uint8Array) || payload.byteLength <= SLICE_ABOVE) return payload
  reply.header('content-length', payload.byteLength)
  return Readable.from(slices(payload), { objectMode: false })
}
