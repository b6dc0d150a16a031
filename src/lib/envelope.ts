// The one success envelope, `{"ok":true,"data":…}`, around the JSON text of its data: as text where the
// answer is small (inline work, a job's view) and as UTF-8 bytes where it is made on a pool thread, so
// the gateway neither concatenates, measures nor encodes a large answer on its event loop (a 4 MiB
// url.build body answers 17 MB). TextEncoder gives an ArrayBuffer of its own, which is moved, not copied.
// (Routes with a response schema answer `{ ok: true, data }` as an object, serialized by that schema:
// src/http/define-route.ts.)

const utf8 = new TextEncoder()

export function okEnvelope(dataJson: string): string {
  return `{"ok":true,"data":${dataJson}}`
}

export function okEnvelopeBytes(dataJson: string): Uint8Array {
  return utf8.encode(okEnvelope(dataJson))
}
