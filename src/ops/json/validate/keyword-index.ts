import type { KeywordCompiler } from './compile.ts'
import { ARRAY_KEYWORDS } from './keyword-arrays.ts'
import { LOGIC_KEYWORDS } from './keyword-logic.ts'
import { OBJECT_KEYWORDS } from './keyword-objects.ts'
import { REF_KEYWORDS } from './keyword-refs.ts'
import { VALUE_KEYWORDS } from './keyword-values.ts'

// Every keyword that asserts or applies, by name; which of them a schema uses is its dialect's (and
// vocabularies') choice (dialects.ts). Annotation-only keywords (title, default, contentMediaType ...) have
// no entry: they never change validity.
export const KEYWORDS: Record<string, KeywordCompiler> = {
  ...REF_KEYWORDS,
  ...LOGIC_KEYWORDS,
  ...OBJECT_KEYWORDS,
  ...ARRAY_KEYWORDS,
  ...VALUE_KEYWORDS,
}

// Run after the other keywords of their schema: they read what those evaluated.
export const LAST: ReadonlySet<string> = new Set(['unevaluatedProperties', 'unevaluatedItems'])
