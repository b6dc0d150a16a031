import { AppError } from '../../../errors.ts'
import { locate } from '../../../lib/json-error.ts'
import type { DataFormat } from './formats.ts'

// The errors of data/convert, one maker each, so that every refusal of a kind has one shape.

const INVALID = {
  json: 'ERR_INVALID_JSON',
  yaml: 'ERR_INVALID_YAML',
  toml: 'ERR_INVALID_TOML',
  csv: 'ERR_INVALID_CSV',
} as const

const NAMES: Record<DataFormat, string> = { json: 'JSON', yaml: 'YAML', toml: 'TOML', csv: 'CSV' }

// The input is not valid in its format: where (line and column from 1, offset from 0, in UTF-16 units of
// `input`) and why.
export function invalidInput(format: DataFormat, text: string, offset: number, reason: string): AppError {
  const at = locate(text, offset)
  return new AppError(
    INVALID[format],
    `Invalid ${NAMES[format]} at line ${at.line}, column ${at.column}: ${reason}.`,
    { ...at, reason },
  )
}

// A path in a document as an RFC 6901 JSON Pointer ("" is the root), the one way every error names a place.
export function pointer(path: readonly (string | number)[]): string {
  let out = ''
  for (const part of path) out += `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`
  return out
}

// A mapping with a key twice: YAML and TOML forbid it, and the value model holds one value per key.
export function duplicateKey(format: DataFormat, path: readonly (string | number)[], key: string): AppError {
  return new AppError(
    'ERR_DUPLICATE_KEY',
    `The ${NAMES[format]} input has the key ${JSON.stringify(key)} twice.`,
    {
      path: pointer(path),
      key,
    },
  )
}

export const UNREPRESENTABLE_REASONS = [
  'root',
  'null',
  'integer_range',
  'float_range',
  'non_finite',
  'key',
  'nested',
  'lone_surrogate',
  'mixed_rows',
  'alias_cycle',
  'documents',
] as const
export type UnrepresentableReason = (typeof UNREPRESENTABLE_REASONS)[number]

// A value the target format cannot hold (a 20-digit integer in TOML, NaN in JSON, null in TOML); without
// `to`, one no format's value model holds (a YAML collection as a key, an alias inside its own anchor).
export function unrepresentable(
  to: DataFormat | undefined,
  path: readonly (string | number)[],
  reason: UnrepresentableReason,
  what: string,
): AppError {
  const subject = to ? NAMES[to] : 'The conversion'
  return new AppError('ERR_UNREPRESENTABLE', `${subject} cannot hold ${what} (at "${pointer(path)}").`, {
    path: pointer(path),
    reason,
    ...(to ? { to } : {}),
  })
}

export function tooDeep(maxDepth: number): AppError {
  return new AppError('ERR_COMPUTE_LIMIT', `The input nests deeper than ${maxDepth} levels.`, {
    reason: 'depth',
    limit: maxDepth,
    max_depth: maxDepth,
  })
}

export function outputTooLarge(maxBytes: number): AppError {
  return new AppError('ERR_COMPUTE_LIMIT', `The converted output would exceed ${maxBytes} bytes.`, {
    reason: 'output_size',
    limit: maxBytes,
    max_bytes: maxBytes,
  })
}
