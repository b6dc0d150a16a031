import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { createOtpSecret } from './create.ts'
import { otpSecretBody, otpSecretResult } from './schema.ts'

export default defineOp({
  name: 'otp.secret',
  family: 'otp',
  http: {
    path: '/v1/otp/secret',
    operationId: 'createOtpSecret',
    summary: 'Make a new OTP secret and its otpauth:// URI',
    description:
      'A random secret (default 20 bytes, 160 bits; Base32, unpadded) and its otpauth:// URI in the Key Uri ' +
      'Format for an authenticator app: the label "issuer:account" percent-encoded, then secret, issuer, ' +
      'algorithm, digits and period (TOTP) or counter (HOTP), every parameter written. An account or issuer ' +
      'holding a colon is ERR_VALIDATION (the label separates them with one). Nothing is kept: the secret ' +
      'exists only in this answer.',
  },
  body: otpSecretBody,
  response: otpSecretResult,
  run: (input) => createOtpSecret(input),
  cost: BODY_PARSE_COST,
  worst: (bytes) => bounded({ account: 'é'.repeat(256), issuer: 'é'.repeat(256), bytes: 64 }, bytes),
  examples: [
    {
      summary: 'A TOTP secret for an account of an issuer',
      body: { account: 'alice@example.com', issuer: 'ACME Co' },
      data: {
        type: 'totp',
        secret: '…',
        account: 'alice@example.com',
        issuer: 'ACME Co',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        uri: 'otpauth://totp/ACME%20Co:alice%40example.com?secret=…',
      },
    },
  ],
})
