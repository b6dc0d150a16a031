// The hmac family's constant lists, for the op and its route alike.
import { ALGORITHMS } from '../hash/hash.ts'

// HMAC (RFC 2104) needs a fixed-size block hash: the extendable-output shake* and the CRC are excluded.
export const HMAC_ALGORITHMS: readonly string[] = ALGORITHMS.filter((a) => !a.xof && a.name !== 'crc32').map(
  (a) => a.name,
)
