export const NORMAL_FORMS = ['NFC', 'NFD', 'NFKC', 'NFKD'] as const
export type NormalForm = (typeof NORMAL_FORMS)[number]

export interface NormalizeInput {
  input: string
  form?: NormalForm
}

export interface NormalizeResult {
  output: string
  form: NormalForm
  changed: boolean
}

// Lone surrogates are not code points of any character; String#normalize leaves them in place.
export function normalizeText(params: NormalizeInput): NormalizeResult {
  const form = params.form ?? 'NFC'
  const output = params.input.normalize(form)
  return { output, form, changed: output !== params.input }
}
