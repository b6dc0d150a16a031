import { AppError } from '../../errors.ts'

export type TimestampField = 'value' | 'at'

const ECHO_LIMIT = 64

// Echo enough of the input to recognise it, never the whole of a huge string.
function echo(value: string): string {
  const points = Array.from(value)
  return points.length <= ECHO_LIMIT ? value : `${points.slice(0, ECHO_LIMIT).join('')}…`
}

export function invalidTimestamp(
  field: TimestampField,
  value: string | number,
  reason: string,
  position?: number,
): AppError {
  const details: Record<string, unknown> = { field, value: typeof value === 'string' ? echo(value) : value }
  if (position !== undefined) details.position = position
  details.reason = reason
  const where = position === undefined ? '' : ` at position ${position}`
  return new AppError('ERR_INVALID_TIMESTAMP', `Invalid \`${field}\`${where}: ${reason}`, details)
}
