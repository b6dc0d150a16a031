import { describe } from 'vitest'
import { idempotencyBoundsSuite } from './idempotency-bounds-suite.ts'

describe('Idempotency-Key kept only once a create ran, and bounded: embedded store', () => {
  idempotencyBoundsSuite({ env: () => ({}) })
})
