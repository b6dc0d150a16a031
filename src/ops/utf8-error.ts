// Where a byte sequence stops being UTF-8 (RFC 3629: no overlongs, no surrogates, nothing past
// U+10FFFF), as the index of the first byte of the bad sequence, or -1 when it is all valid.
// Only run once the fast native check (buffer.isUtf8) has already said no.
export function invalidUtf8At(bytes: Uint8Array): number {
  const n = bytes.length
  let i = 0
  while (i < n) {
    const c = bytes[i]!
    if (c < 0x80) {
      i++
      continue
    }
    let need: number
    let low = 0x80
    let high = 0xbf
    if (c >= 0xc2 && c <= 0xdf) need = 1
    else if (c === 0xe0) {
      need = 2
      low = 0xa0
    } else if (c === 0xed) {
      need = 2
      high = 0x9f
    } else if (c >= 0xe1 && c <= 0xef) need = 2
    else if (c === 0xf0) {
      need = 3
      low = 0x90
    } else if (c === 0xf4) {
      need = 3
      high = 0x8f
    } else if (c >= 0xf1 && c <= 0xf3) need = 3
    else return i
    const second = bytes[i + 1]
    if (second === undefined || second < low || second > high) return i
    for (let k = 2; k <= need; k++) {
      const b = bytes[i + k]
      if (b === undefined || b < 0x80 || b > 0xbf) return i
    }
    i += need + 1
  }
  return -1
}
