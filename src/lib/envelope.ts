// The one success envelope, `{"ok":true,"data":…}`, around the JSON text of its data: as text where the
// answer is small (inline work, a job's view) and as UTF-8 bytes where it is made on a pool thread, so
// the gateway neither concatenates, measures nor encodes a large answer on its event loop (a 4 MiB
// url.build body answers 17 MB). TextEncoder gives an ArrayBuffer of its own, which is moved, not copied.
// Nothing else builds it: test/lib/one-envelope.test.ts refuses any other spelling in src/ and workers/.

const utf8 = new TextEncoder()

export function okEnvelope(dataJson: string): string {
  return `{"ok":true,"data":${dataJson}}`
}

export function okEnvelopeBytes(dataJson: string): Uint8Array {
  return utf8.encode(okEnvelope(dataJson))
}

const OPEN = utf8.encode('{"ok":true,"data":')

// The success envelope around a value, as UTF-8 bytes, made on a pool thread: the value's JSON text from
// `jsonBytes` when the op makes it itself (OpSpec.jsonBytes: quicker than JSON.stringify for a large
// json/format output), else from JSON.stringify.
export function okEnvelopeValueBytes(
  value: unknown,
  jsonBytes?: (value: never) => Uint8Array | undefined,
): Uint8Array {
  const data = jsonBytes?.(value as never)
  if (data === undefined) return okEnvelopeBytes(JSON.stringify(value))
  return okEnvelopeAroundBytes([data])
}

// The success envelope around a value's JSON text given as UTF-8 bytes, in one piece or several (a large
// output, in the pieces it was made in, between the bytes before and after it), copied once into a buffer
// of its own.
export function okEnvelopeAroundBytes(data: readonly Uint8Array[]): Uint8Array {
  let length = OPEN.length + 1
  for (const piece of data) length += piece.length
  const out = new Uint8Array(length)
  out.set(OPEN)
  let at = OPEN.length
  for (const piece of data) {
    out.set(piece, at)
    at += piece.length
  }
  out[at] = 0x7d // }
  return out
}
