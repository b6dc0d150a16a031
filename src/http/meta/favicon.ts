import { crc32 } from 'node:zlib'

// The site icon, drawn here rather than kept as a binary file: an amber anvil on a dark rounded square,
// 16 × 16 cells drawn at 2 × 2 pixels (32 × 32), as a PNG inside an ICO (every browser reads a PNG in an
// ICO; /favicon.ico is where they all look).
const CELLS = [
  '................',
  '................',
  '................',
  '................',
  '..############..',
  '...###########..',
  '.....#######....',
  '......#####.....',
  '......#####.....',
  '......#####.....',
  '.....#######....',
  '....#########...',
  '....#########...',
  '................',
  '................',
  '................',
]
const SIZE = 32
const BACKGROUND = [0x1f, 0x29, 0x37, 0xff]
const ANVIL = [0xf5, 0x9e, 0x0b, 0xff]
const CLEAR = [0, 0, 0, 0]
const CORNER = 4

function inCorner(x: number, y: number): boolean {
  const dx = Math.min(x, SIZE - 1 - x)
  const dy = Math.min(y, SIZE - 1 - y)
  if (dx >= CORNER || dy >= CORNER) return false
  return (CORNER - dx - 0.5) ** 2 + (CORNER - dy - 0.5) ** 2 > CORNER ** 2
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}

// The image data as a zlib stream of one stored (uncompressed) deflate block, RFC 1950/1951: 4 KiB needs no
// compressor, and the gateway makes no synchronous zlib call (test/http/answer/compression-off-loop.tls.test.ts)
function stored(data: Buffer): Buffer {
  if (data.length > 0xffff) throw new Error('one stored block holds at most 65535 bytes')
  let a = 1
  let b = 0
  for (const byte of data) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  const out = Buffer.alloc(2 + 5 + data.length + 4)
  out.set([0x78, 0x01, 0x01], 0) // zlib header (deflate, 32 KiB window, no dictionary), final stored block
  out.writeUInt16LE(data.length, 3)
  out.writeUInt16LE(~data.length & 0xffff, 5)
  data.copy(out, 7)
  out.writeUInt32BE(((b << 16) | a) >>> 0, 7 + data.length)
  return out
}

function png(): Buffer {
  // each row: filter type 0, then RGBA pixels
  const rows = Buffer.alloc(SIZE * (1 + SIZE * 4))
  for (let y = 0; y < SIZE; y++) {
    const row = y * (1 + SIZE * 4)
    for (let x = 0; x < SIZE; x++) {
      const cell = CELLS[y >> 1]![x >> 1]
      const colour = inCorner(x, y) ? CLEAR : cell === '#' ? ANVIL : BACKGROUND
      rows.set(colour, row + 1 + x * 4)
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(SIZE, 0)
  header.writeUInt32BE(SIZE, 4)
  header.set([8, 6, 0, 0, 0], 8) // 8 bits per channel, RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', stored(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

// ICONDIR (reserved, type 1 = icon, one image) and its ICONDIRENTRY, then the PNG
export function favicon(): Buffer {
  const image = png()
  const dir = Buffer.alloc(6 + 16)
  dir.writeUInt16LE(0, 0)
  dir.writeUInt16LE(1, 2)
  dir.writeUInt16LE(1, 4)
  dir.writeUInt8(SIZE, 6)
  dir.writeUInt8(SIZE, 7)
  dir.writeUInt8(0, 8) // no palette
  dir.writeUInt8(0, 9)
  dir.writeUInt16LE(1, 10) // colour planes
  dir.writeUInt16LE(32, 12) // bits per pixel
  dir.writeUInt32LE(image.length, 14)
  dir.writeUInt32LE(dir.length, 18)
  return Buffer.concat([dir, image])
}
