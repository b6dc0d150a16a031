import { gzipSync } from 'node:zlib'

// The compression ops' worst cases (OpDescriptor.worst): text that costs a DEFLATE encoder the most per byte
// (two letters at random: matches everywhere, each short), and a decompression bomb of any size (one gzip
// member of 64 MiB of zeros, ~64 KB, repeated: concatenated members decode to the concatenation; a smaller
// one below that).

// two letters, from a fixed linear congruential sequence: the same text on every run
export function twoLetterText(bytes: number): string {
  const out = Buffer.alloc(Math.max(1, bytes))
  let x = 12345
  for (let i = 0; i < out.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    out[i] = 97 + (x >>> 30 > 1 ? 1 : 0)
  }
  return out.toString('latin1')
}

let member: Buffer | undefined

// about `bytes` bytes of gzip that decode to ~1000 times as much: below one member's size, one member of
// that many thousand zeros
export function gzipBomb(bytes: number): Buffer {
  member ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 })
  if (bytes < member.length) return gzipSync(Buffer.alloc(Math.max(1, bytes) * 1000), { level: 9 })
  const count = Math.floor(bytes / member.length)
  return Buffer.concat(Array.from({ length: count }, () => member!))
}
