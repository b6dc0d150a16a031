import { AppError } from '../../errors.ts'

interface FrameworkError {
  code?: string
  statusCode?: number
  message?: string
}

// Fastify's and Node's own failures, translated into rows of the one error table.
export function toAppError(err: unknown, bodyLimit: number): AppError {
  if (err instanceof AppError) return err
  const e = (err ?? {}) as FrameworkError
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send Content-Type: application/json.')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: bodyLimit })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('ERR_INVALID_JSON', 'The body is empty.', { line: 1, column: 1, offset: 0 })
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('ERR_BAD_REQUEST', 'Content-Length does not match the body.')
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_INVALID_URL':
      return new AppError('ERR_BAD_REQUEST', 'The URL is malformed.')
    case 'FST_ERR_VALIDATION':
      return new AppError('ERR_VALIDATION', undefined, {
        issues: [{ path: '', message: e.message ?? 'invalid' }],
      })
    case 'FST_ERR_HANDLER_TIMEOUT':
      return new AppError('ERR_UNAVAILABLE', 'The request took too long to handle.', undefined, {
        'retry-after': '1',
      })
  }
  if (e.statusCode === 408) return new AppError('ERR_REQUEST_TIMEOUT')
  if (e.statusCode === 413)
    return new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: bodyLimit })
  if (e.statusCode === 415) return new AppError('ERR_UNSUPPORTED_MEDIA_TYPE')
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)
    return new AppError('ERR_BAD_REQUEST')
  return new AppError('ERR_INTERNAL')
}
