import { describe, expect, it } from 'vitest'
import { okEnvelopeBytes } from '../../src/lib/envelope.ts'
import { envelopeOf } from '../../workers/stream.ts'
import { createStreamStep } from '../../workers/stream-steps.ts'

// A streamed raw body answered as one JSON envelope (Accept: application/json): json/format's answer is
// made from its output's bytes (src/ops/json/format/envelope.ts), never from the output string, and is
// byte for byte what JSON.stringify and a UTF-8 encoder give.
describe('the streamed json/format step answers its envelope from the output bytes', () => {
  it('the same bytes as JSON.stringify, without reading the output string', () => {
    const step = createStreamStep({
      kind: 'json.format',
      options: { mode: 'pretty', indent: '\t', warnings: true, buffered: true },
      envelope: true,
    })
    const body = Buffer.from('{"a":"é \\"q\\" 😀","a":[1,{"b":null}]}', 'utf8')
    const pieces: Uint8Array[] = []
    for (let at = 0; at < body.length; at += 5) pieces.push(...step.write(body.subarray(at, at + 5)))
    pieces.push(step.end())
    const output = Buffer.concat(pieces)
    const reference = Buffer.from(okEnvelopeBytes(JSON.stringify(step.data!(output))))
    expect(JSON.parse(reference.toString('utf8')).data.warnings[0].code).toBe('duplicate_key')
    // the thread's envelope of the held output, with a result whose output string throws when read
    const watched = {
      ...step,
      data: (bytes: Buffer) =>
        Object.defineProperty(step.data!(bytes) as object, 'output', {
          get() {
            throw new Error('the output string was read')
          },
        }),
    }
    const [envelope] = [...envelopeOf(watched, [output.subarray(0, 7), output.subarray(7)])]
    expect(Buffer.from(envelope!).equals(reference)).toBe(true)
  })
})
