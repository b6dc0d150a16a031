import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

// Whatever the input, a response is below 500 and is either the success envelope or the error wrapper.
export function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(body.ok).toBe(true)
    expect(body.data).toBeTypeOf('object')
  } else {
    expect(body.error).toMatchObject({
      type: expect.any(String),
      message: expect.any(String),
      code: expect.any(String),
    })
  }
}
