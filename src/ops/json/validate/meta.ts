// The meta-schemas of the five dialects, bundled (json-schema-org/json-schema-spec: branches 2020-12,
// 2019-09, draft-07, draft-06, draft-04; BSD-3-Clause, meta/LICENSE): a schema's `$ref` to one of them resolves
// here, and nothing is ever fetched. Loaded once per thread, on first use.
import { readFileSync } from 'node:fs'

const FILES: Record<string, string> = {
  'https://json-schema.org/draft/2019-09/meta/applicator': '2019-09/meta/applicator.json',
  'https://json-schema.org/draft/2019-09/meta/content': '2019-09/meta/content.json',
  'https://json-schema.org/draft/2019-09/meta/core': '2019-09/meta/core.json',
  'https://json-schema.org/draft/2019-09/meta/format': '2019-09/meta/format.json',
  'https://json-schema.org/draft/2019-09/meta/meta-data': '2019-09/meta/meta-data.json',
  'https://json-schema.org/draft/2019-09/meta/validation': '2019-09/meta/validation.json',
  'https://json-schema.org/draft/2019-09/schema': '2019-09/schema.json',
  'https://json-schema.org/draft/2020-12/meta/applicator': '2020-12/meta/applicator.json',
  'https://json-schema.org/draft/2020-12/meta/content': '2020-12/meta/content.json',
  'https://json-schema.org/draft/2020-12/meta/core': '2020-12/meta/core.json',
  'https://json-schema.org/draft/2020-12/meta/format-annotation': '2020-12/meta/format-annotation.json',
  'https://json-schema.org/draft/2020-12/meta/format-assertion': '2020-12/meta/format-assertion.json',
  'https://json-schema.org/draft/2020-12/meta/meta-data': '2020-12/meta/meta-data.json',
  'https://json-schema.org/draft/2020-12/meta/unevaluated': '2020-12/meta/unevaluated.json',
  'https://json-schema.org/draft/2020-12/meta/validation': '2020-12/meta/validation.json',
  'https://json-schema.org/draft/2020-12/schema': '2020-12/schema.json',
  'http://json-schema.org/draft-04/schema': 'draft-04.json',
  'http://json-schema.org/draft-06/schema': 'draft-06.json',
  'http://json-schema.org/draft-07/schema': 'draft-07.json',
}

let loaded: Map<string, unknown> | undefined

// Meta-schema documents by URI (no fragment).
export function metaSchemas(): ReadonlyMap<string, unknown> {
  loaded ??= new Map(
    Object.entries(FILES).map(([uri, file]) => [
      uri,
      JSON.parse(readFileSync(new URL(`./meta/${file}`, import.meta.url), 'utf8')) as unknown,
    ]),
  )
  return loaded
}
