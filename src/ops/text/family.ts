// The text family: its tag in the OpenAPI document (src/http/openapi/tags.ts). Plain data, no imports
// (src/ops/catalog.ts checks its shape), so the folder it sits in never imports the one above it.
export default {
  tag: 'Text',
  description: 'Encodings (Base32, Base58, Ascii85, Punycode…), Unicode normalization and inspection',
}
