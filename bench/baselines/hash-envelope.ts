import { createHash } from 'node:crypto'

// The handler every baseline shares: the gateway's answer to POST /v1/hash/{algorithm} with {input}, the
// same envelope and fields, without anything else the gateway does.
export function hashEnvelope(algorithm: string, input: string) {
  const bytes = Buffer.from(input, 'utf8')
  return {
    ok: true,
    data: {
      algorithm,
      digest: createHash(algorithm).update(bytes).digest('hex'),
      output_encoding: 'hex',
      input_bytes: bytes.length,
    },
  }
}
