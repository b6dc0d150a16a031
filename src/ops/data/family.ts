// The data family: its tag in the OpenAPI document (src/http/openapi/tags.ts). Plain data, no imports
// (src/ops/catalog.ts checks its shape), so the folder it sits in never imports the one above it.
export default {
  tag: 'Data',
  description: 'Lossless conversion between JSON, YAML 1.2, TOML 1.0 and CSV',
}
