import { afterEach, describe, expect, it, vi } from 'vitest'
import { okEnvelopeBytes } from '../../src/lib/envelope.ts'
import { formatJson } from '../../src/ops/json/format/format.ts'
import type { StreamStep } from '../../src/ops/stream-step.ts'
import { envelopeOf } from '../../workers/stream.ts'
import { opNamed } from '../helpers/ops.ts'

// the op's step as a streamed body's thread makes it (OpDescriptor.stream.step), answered as JSON
function createStreamStep(op: string, options: unknown): StreamStep {
  return opNamed(op).stream!.step(options, false, {})
}

// A streamed raw body answered as one JSON envelope (Accept: application/json): the thread makes the answer
// from the op's output bytes, byte for byte what JSON.stringify and a UTF-8 encoder give, without making a
// string of the whole output first (json/format: src/ops/json/format/envelope.ts; Base64: its text needs no
// escaping).
function fed(step: StreamStep, body: Buffer): Uint8Array[] {
  const pieces: Uint8Array[] = []
  for (let at = 0; at < body.length; at += 5) pieces.push(...step.write(body.subarray(at, at + 5)))
  pieces.push(step.end())
  return pieces
}

// The Buffer toString calls made on buffers of `length` bytes while `fn` runs: a string of the whole output
function decodesOfLength(length: number, fn: () => void): unknown[] {
  const decode = vi.spyOn(Buffer.prototype, 'toString')
  fn()
  const calls = decode.mock.contexts
    .map((buffer, i) => [buffer as Buffer, decode.mock.calls[i]![0]] as const)
    .filter(([buffer]) => buffer.length === length)
    .map(([, encoding]) => encoding)
  decode.mockRestore()
  return calls
}

describe('a streamed op answered as one JSON envelope, made on the thread from its output bytes', () => {
  afterEach(() => vi.restoreAllMocks())

  it('json/format: the bytes JSON.stringify gives, without decoding the output to a string', () => {
    const input = '{"a":"é \\"q\\" 😀","a":[1,{"b":null}]}'
    const step = createStreamStep('json.format', { mode: 'pretty', indent: '\t' })
    const pieces = fed(step, Buffer.from(input, 'utf8'))
    const output = Buffer.concat(pieces)
    const expected = formatJson({ input, mode: 'pretty', indent: '\t' })
    expect(expected.warnings?.[0]?.code).toBe('duplicate_key')
    let envelope: Uint8Array | undefined
    const decodes = decodesOfLength(output.length, () => {
      ;[envelope] = [...envelopeOf(step, [output.subarray(0, 7), output.subarray(7)], input.length)]
    })
    expect(Buffer.from(envelope!).equals(Buffer.from(okEnvelopeBytes(JSON.stringify(expected))))).toBe(true)
    // read as Latin-1 to be escaped (envelope.ts), never decoded as UTF-8
    expect(decodes.filter((encoding) => encoding !== 'latin1')).toEqual([])
  })

  it('base64.encode: the bytes JSON.stringify gives, with no string of the output at all, its pieces never joined', () => {
    for (const [variant, padding] of [
      ['standard', undefined],
      ['url', false],
      ['url', true],
    ] as const) {
      for (const body of [
        Buffer.alloc(0),
        Buffer.from('a'),
        Buffer.from([0xfb, 0xff, 0xfe, 0x00, 0x41]),
        Buffer.from('several pieces: one a chunk of five bytes'),
      ]) {
        const step = createStreamStep('base64.encode', { variant, padding })
        const pieces = fed(step, body)
        const output = Buffer.concat(pieces)
        let envelope: Uint8Array | undefined
        const concat = vi.spyOn(Buffer, 'concat')
        const decodes = decodesOfLength(output.length, () => {
          ;[envelope] = [...envelopeOf(step, pieces, body.length)]
        })
        // the pieces are copied once, into the envelope: never joined into one output first
        expect(concat).not.toHaveBeenCalled()
        concat.mockRestore()
        const reference = okEnvelopeBytes(JSON.stringify({ output: output.toString('latin1'), variant }))
        expect(Buffer.from(envelope!).equals(Buffer.from(reference))).toBe(true)
        if (output.length > 0) expect(decodes).toEqual([])
      }
    }
  })
})
