import { AppError } from '../../errors.ts'
import { JWS_ALGORITHM_NAMES, JWS_ALGORITHMS, type JwsAlgorithm, type KeyKind } from './types.ts'

export { JWS_ALGORITHM_NAMES, JWS_ALGORITHMS, type JwsAlgorithm, type KeyKind }

export const MIN_RSA_BITS = 2048

const BY_NAME = new Map(JWS_ALGORITHMS.map((a) => [a.name, a]))

// JWS "alg" values are case-sensitive (RFC 7515 §4.1.1), so there is no case folding here.
export function findJwsAlgorithm(name: string): JwsAlgorithm | undefined {
  return BY_NAME.get(name)
}

export function requireJwsAlgorithm(name: string, field: string): JwsAlgorithm {
  const found = BY_NAME.get(name)
  if (found) return found
  const message =
    name.toLowerCase() === 'none'
      ? 'alg "none" produces unsigned tokens and is never accepted'
      : `Unsupported JWS algorithm "${name}"; use one of ${JWS_ALGORITHM_NAMES.join(', ')}`
  throw new AppError('ERR_UNSUPPORTED_ALGORITHM', message, {
    field,
    algorithm: name,
    supported: JWS_ALGORITHM_NAMES,
  })
}
