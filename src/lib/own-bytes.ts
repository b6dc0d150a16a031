// Bytes that move to another thread (transferred, not cloned) must own their whole ArrayBuffer: a view of
// Node's shared 8 KiB pool, of a larger read buffer or of a printer's reused buffer would take the rest of
// that memory with it, or leave the sender reading a detached buffer. The one test and the one copy.

export function ownsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
}

// `bytes` when they own their buffer, else a copy of them in a buffer of its own
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return ownsBuffer(bytes) ? bytes : new Uint8Array(bytes)
}
