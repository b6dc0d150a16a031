import { argon2Sync, randomBytes } from 'node:crypto'
import { parentPort, workerData } from 'node:worker_threads'
import { hashSync } from '@node-rs/bcrypt'
import type { BaselineHash } from './password-baseline.ts'

// One thread of the in-process baseline (password-baseline.ts): the same hash, back to back, until told.
const { hash, until } = workerData as { hash: BaselineHash; until: number }
let done = 0
while (Date.now() < until) {
  const salt = randomBytes(16)
  if (hash.algorithm === 'argon2id') {
    argon2Sync('argon2id', {
      message: 'correct horse battery staple',
      nonce: salt,
      memory: hash.memoryKib,
      passes: hash.iterations,
      parallelism: hash.parallelism,
      tagLength: 32,
    })
  } else {
    hashSync('correct horse battery staple', { salt, cost: hash.cost, version: '2b' })
  }
  done++
}
parentPort!.postMessage(done)
