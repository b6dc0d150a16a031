// The jwt family: its tag in the OpenAPI document (src/http/openapi/tags.ts). Plain data, no imports
// (src/ops/catalog.ts checks its shape), so the folder it sits in never imports the one above it.
export default {
  tag: 'JWT',
  description: 'Decode, inspect, verify and sign JSON Web Tokens',
}
