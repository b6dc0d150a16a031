import { randomBytes } from 'node:crypto'
import { expect, it } from 'vitest'
import { textDecode, textEncode } from '../../../src/ops/text/codecs.ts'
import type { ByteFormat } from '../../../src/ops/text/types.ts'
import { describePython, runPython } from '../../helpers/python-oracle.ts'

// The byte formats against an independent implementation: Python's base64 (b32encode, b32hexencode,
// a85encode and their decoders) and the base58 module, on random bytes of every length up to 80, some with
// leading zero bytes (base58's '1's) and zero groups (Ascii85's 'z').
const PROGRAM = `
import base64, base58, json, sys
out = {}
for h in json.load(sys.stdin):
    b = bytes.fromhex(h)
    out[h] = {
        'base32': base64.b32encode(b).decode(),
        'base32hex': base64.b32hexencode(b).decode(),
        'ascii85': base64.a85encode(b).decode(),
        'base58': base58.b58encode(b).decode(),
    }
print(json.dumps(out))
`
const DECODE = `
import base64, base58, json, sys
out = []
for case in json.load(sys.stdin):
    f, text = case['format'], case['text']
    if f == 'base32': b = base64.b32decode(text, casefold=True)
    elif f == 'base32hex': b = base64.b32hexdecode(text, casefold=True)
    elif f == 'ascii85': b = base64.a85decode(text)
    else: b = base58.b58decode(text)
    out.append(b.hex())
print(json.dumps(out))
`

function samples(): string[] {
  const out: string[] = []
  for (let n = 0; n <= 80; n++) {
    out.push(randomBytes(n).toString('hex'))
    out.push(Buffer.concat([Buffer.alloc(Math.min(n, 3)), randomBytes(n)]).toString('hex'))
    out.push(Buffer.concat([randomBytes(n % 5), Buffer.alloc(8), randomBytes(n % 3)]).toString('hex'))
  }
  return out
}

const FORMATS = ['base32', 'base32hex', 'ascii85', 'base58'] as const satisfies readonly ByteFormat[]

describePython('byte formats against Python (base64, base58)', ['base64', 'base58'], () => {
  it('encodes as Python does, and decodes what Python encodes', () => {
    const hexes = samples()
    const python = runPython<Record<string, Record<(typeof FORMATS)[number], string>>>(PROGRAM, hexes)
    for (const hex of hexes) {
      for (const format of FORMATS) {
        const theirs = python[hex]![format]
        expect(textEncode({ input: hex, input_encoding: 'hex', format }).output, `${format} ${hex}`).toBe(
          theirs,
        )
        expect(textDecode({ input: theirs, format, strict: true, output_encoding: 'hex' }).output).toBe(hex)
      }
    }
  })

  it('Python decodes what is encoded here, unpadded and lower-case base32 included', () => {
    const cases = samples().flatMap((hex) =>
      FORMATS.map((format) => {
        let text = textEncode({ input: hex, input_encoding: 'hex', format }).output
        // what lenient decoding takes, as Python's casefold takes it (Python needs the padding)
        if (format === 'base32' || format === 'base32hex') text = text.toLowerCase()
        return { format, text, hex }
      }),
    )
    const decoded = runPython<string[]>(DECODE, cases)
    cases.forEach((c, i) => {
      expect(decoded[i], `${c.format} ${c.text}`).toBe(c.hex)
      expect(textDecode({ input: c.text, format: c.format, output_encoding: 'hex' }).output).toBe(c.hex)
    })
  })
})
