// The id family: its tag in the OpenAPI document (src/http/openapi/tags.ts). Plain data, no imports
// (src/ops/catalog.ts checks its shape), so the folder it sits in never imports the one above it.
export default {
  tag: 'IDs',
  description: 'UUIDs (v1–v7), ULIDs and nanoids',
}
