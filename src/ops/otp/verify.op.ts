import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { otpVerifyBody, otpVerifyResult } from './schema.ts'
import { verifyOtp } from './verify.ts'

const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'

export default defineOp({
  name: 'otp.verify',
  family: 'otp',
  http: {
    path: '/v1/otp/verify',
    operationId: 'verifyOtp',
    summary: 'Check a TOTP or HOTP code',
    description:
      'Compares the code, in constant time, with the code of every step in `window` (TOTP: each side of the ' +
      'step of `at`, default ±1; HOTP: ahead of `counter`, default 0; at most 5) and answers whether one ' +
      'matched and which (`delta`, `counter`). A code that is not `digits` decimal digits is ERR_VALIDATION.',
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: otpVerifyBody,
  response: otpVerifyResult,
  run: verifyOtp,
  cost: BODY_PARSE_COST,
  worst: (bytes) =>
    bounded(
      { secret: 'A'.repeat(1024), algorithm: 'SHA512' as const, digits: 8, code: '00000000', window: 5 },
      bytes,
    ),
  examples: [
    {
      summary: "The previous period's code still passes with the default window of 1 (delta -1)",
      body: { secret: RFC_SEED, digits: 8, code: '94287082', at: 89 },
      data: { valid: true, delta: -1, counter: 1 },
    },
    {
      summary: 'A wrong code',
      body: { secret: RFC_SEED, code: '000000', at: 59 },
      data: { valid: false, delta: null, counter: null },
    },
  ],
})
