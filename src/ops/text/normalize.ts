import { AppError } from '../../errors.ts'
import type { NormalForm } from './types.ts'

export type { NormalForm }

export interface NormalizeInput {
  input: string
  form?: NormalForm
}

export interface NormalizeResult {
  output: string
  form: NormalForm
  changed: boolean
}

// Budget: normalization reorders each run of combining marks by canonical combining class, which costs
// the square of the run's length (ICU: 0.45 ms for a run of 1,024 marks, 6 ms for 4,096, 360 ms for
// 32,768). Unicode's stream-safe format (UAX #15 §13) allows 30 non-starters in a row: runs up to 30 run
// inline, longer ones on the pool (nonStarterRun, used by the op's cost model in src/exec/costs.ts), and
// runs longer than MAX_NON_STARTER_RUN are refused, never cut or broken with U+034F CGJ: the answer is
// exact or it is a 422. Marks are counted as written (General_Category M), before decomposition.
export const STREAM_SAFE_RUN = 30
export const MAX_NON_STARTER_RUN = 1024

const MARK_RUN = /\p{M}+/gu

// The longest run of combining marks, in code points; it stops looking once a run passes `stop`.
export function nonStarterRun(input: string, stop = MAX_NON_STARTER_RUN): number {
  let longest = 0
  MARK_RUN.lastIndex = 0
  for (let m = MARK_RUN.exec(input); m !== null; m = MARK_RUN.exec(input)) {
    const units = m[0].length
    // a run's UTF-16 length is at most twice its code points: count them only when it may matter
    const run = units > STREAM_SAFE_RUN ? codePoints(m[0]) : units
    if (run > longest) longest = run
    if (longest > stop) break
  }
  return longest
}

function codePoints(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) i++
    n++
  }
  return n
}

// Lone surrogates are not code points of any character; String#normalize leaves them in place.
export function normalizeText(params: NormalizeInput): NormalizeResult {
  const form = params.form ?? 'NFC'
  const run = nonStarterRun(params.input)
  if (run > MAX_NON_STARTER_RUN) {
    throw new AppError(
      'ERR_COMPUTE_LIMIT',
      `The text holds a run of more than ${MAX_NON_STARTER_RUN} combining marks in a row; normalizing it costs the square of its length.`,
      { reason: 'non_starter_run', limit: MAX_NON_STARTER_RUN },
    )
  }
  const output = params.input.normalize(form)
  return { output, form, changed: output !== params.input }
}
