import { describe } from 'vitest'
import { idempotencySuite } from './idempotency-suite.ts'

describe('Idempotency-Key on the embedded store', () => {
  idempotencySuite({ env: () => ({}) })
})
