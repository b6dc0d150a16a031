// The crypto family: its tag in the OpenAPI document (src/http/openapi/tags.ts). Plain data, no imports
// (src/ops/catalog.ts checks its shape), so the folder it sits in never imports the one above it.
export default {
  tag: 'Crypto',
  description: 'Key pairs (RSA, EC, Ed25519, X25519), PEM ⇄ JWK and JWK thumbprints',
}
