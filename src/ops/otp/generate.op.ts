import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { generateOtp } from './generate.ts'
import { otpGenerateBody, otpGenerateResult } from './schema.ts'

// RFC 6238 Appendix B's SHA-1 seed, "12345678901234567890", in Base32
const RFC_SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'

export default defineOp({
  name: 'otp.generate',
  family: 'otp',
  http: {
    path: '/v1/otp/generate',
    operationId: 'generateOtp',
    summary: 'Make a TOTP or HOTP code',
    description:
      'TOTP (RFC 6238: the code of the time step of `at`, default now, with the seconds left in it) or HOTP ' +
      '(RFC 4226: the code of `counter`), from a Base32 secret, 6 to 8 digits, HMAC-SHA1, -SHA256 or ' +
      '-SHA512. An option of the other type (a counter for TOTP, a period or `at` for HOTP) is ERR_VALIDATION; ' +
      'a secret that is not Base32 is ERR_INVALID_ENCODING with its position (the character is never named: ' +
      'it is part of the secret).',
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: otpGenerateBody,
  response: otpGenerateResult,
  run: generateOtp,
  cost: BODY_PARSE_COST,
  worst: (bytes) => bounded({ secret: 'A'.repeat(1024), algorithm: 'SHA512' as const, digits: 8 }, bytes),
  examples: [
    {
      summary: 'TOTP of RFC 6238 Appendix B (SHA-1, 8 digits, at T = 59 s)',
      body: { secret: RFC_SEED, digits: 8, at: 59 },
      data: {
        code: '94287082',
        type: 'totp',
        algorithm: 'SHA1',
        digits: 8,
        counter: 1,
        period: 30,
        seconds_left: 1,
      },
    },
    {
      summary: 'HOTP of RFC 4226 Appendix D (counter 0)',
      body: { type: 'hotp', secret: RFC_SEED, counter: 0 },
      data: { code: '755224', type: 'hotp', algorithm: 'SHA1', digits: 6, counter: 0 },
    },
  ],
})
