import { DIALECT_URIS, type Dialect } from './types.ts'

// Which keywords each dialect knows, and which of them hold subschemas (and how).

const V2020 = 'https://json-schema.org/draft/2020-12/vocab/'
const V2019 = 'https://json-schema.org/draft/2019-09/vocab/'

const VOCABULARIES: Record<string, readonly string[]> = {
  [`${V2020}core`]: [
    '$id',
    '$schema',
    '$ref',
    '$anchor',
    '$dynamicRef',
    '$dynamicAnchor',
    '$vocabulary',
    '$defs',
  ],
  [`${V2020}applicator`]: [
    'prefixItems',
    'items',
    'contains',
    'additionalProperties',
    'properties',
    'patternProperties',
    'dependentSchemas',
    'propertyNames',
    'if',
    'then',
    'else',
    'allOf',
    'anyOf',
    'oneOf',
    'not',
  ],
  [`${V2020}unevaluated`]: ['unevaluatedItems', 'unevaluatedProperties'],
  [`${V2020}validation`]: [
    'type',
    'const',
    'enum',
    'multipleOf',
    'maximum',
    'exclusiveMaximum',
    'minimum',
    'exclusiveMinimum',
    'maxLength',
    'minLength',
    'pattern',
    'maxItems',
    'minItems',
    'uniqueItems',
    'maxContains',
    'minContains',
    'maxProperties',
    'minProperties',
    'required',
    'dependentRequired',
  ],
  [`${V2020}format-annotation`]: ['format'],
  [`${V2020}format-assertion`]: ['format'],
  [`${V2020}meta-data`]: [],
  [`${V2020}content`]: [],
  [`${V2019}core`]: [
    '$id',
    '$schema',
    '$anchor',
    '$ref',
    '$recursiveRef',
    '$recursiveAnchor',
    '$vocabulary',
    '$defs',
  ],
  [`${V2019}applicator`]: [
    'additionalItems',
    'unevaluatedItems',
    'items',
    'contains',
    'additionalProperties',
    'unevaluatedProperties',
    'properties',
    'patternProperties',
    'dependentSchemas',
    'propertyNames',
    'if',
    'then',
    'else',
    'allOf',
    'anyOf',
    'oneOf',
    'not',
  ],
  [`${V2019}validation`]: [],
  [`${V2019}format`]: ['format'],
  [`${V2019}meta-data`]: [],
  [`${V2019}content`]: [],
}
VOCABULARIES[`${V2019}validation`] = VOCABULARIES[`${V2020}validation`]!

export const FORMAT_ASSERTION_VOCABULARY = `${V2020}format-assertion`

const DRAFT4 = [
  'id',
  '$schema',
  '$ref',
  'definitions',
  'type',
  'enum',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'items',
  'additionalItems',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'format',
]
const DRAFT6 = [
  ...DRAFT4.filter((k) => k !== 'id'),
  '$id',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'const',
  'contains',
  'propertyNames',
]
const DRAFT7 = [...DRAFT6, 'if', 'then', 'else']

export function vocabulariesOf(dialect: '2020-12' | '2019-09'): string[] {
  const prefix = dialect === '2020-12' ? V2020 : V2019
  // format-assertion is not in the 2020-12 meta-schema's vocabularies: format annotates by default
  return Object.keys(VOCABULARIES).filter((v) => v.startsWith(prefix) && v !== FORMAT_ASSERTION_VOCABULARY)
}

export function isKnownVocabulary(uri: string): boolean {
  return Object.hasOwn(VOCABULARIES, uri)
}

// The keywords a dialect applies, given its vocabularies (2019-09 and 2020-12 only).
export function keywordsOf(dialect: Dialect, vocabularies?: readonly string[]): ReadonlySet<string> {
  if (dialect === 'draft-04') return new Set(DRAFT4)
  if (dialect === 'draft-06') return new Set(DRAFT6)
  if (dialect === 'draft-07') return new Set(DRAFT7)
  const set = new Set<string>()
  for (const vocabulary of vocabularies ?? vocabulariesOf(dialect)) {
    for (const keyword of VOCABULARIES[vocabulary] ?? []) set.add(keyword)
  }
  return set
}

const BY_URI = new Map<string, Dialect>(
  Object.entries(DIALECT_URIS).flatMap(([dialect, uri]) => [
    [uri, dialect as Dialect],
    [`${uri}#`, dialect as Dialect],
  ]),
)

// The dialect a `$schema` value names, if it is one of the five meta-schemas.
export function dialectOf(uri: string): Dialect | undefined {
  return BY_URI.get(uri)
}

export function isModern(dialect: Dialect): boolean {
  return dialect === '2020-12' || dialect === '2019-09'
}

// Keywords whose value is one subschema, an array of them, or an object of them, per dialect.
export const ONE_SCHEMA = new Set([
  'additionalItems',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
])
export const SCHEMA_ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
export const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
])
