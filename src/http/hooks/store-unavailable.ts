import { AppError } from '../../errors.ts'

// The key and limit store did not answer in time (Redis down or slow): the request is refused, retryable.
export function storeUnavailable(): AppError {
  return new AppError(
    'ERR_UNAVAILABLE',
    'The key and limit store is unreachable; retry shortly.',
    undefined,
    {
      'retry-after': '1',
    },
  )
}
