// The incremental form of hash, for a body hashed as it streams (src/http/body/stream-digest.ts): a hasher
// fed chunk by chunk, its algorithm's description, the digest's encoding, and the algorithm list.

export { encodeOutput } from '../encoding.ts'
export { ALGORITHMS, type AlgorithmInfo, algorithmInfo, createHasher, type Hasher } from './hash.ts'
