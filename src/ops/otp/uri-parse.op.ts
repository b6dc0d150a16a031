import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { otpUriParseBody, otpUriParseResult } from './schema.ts'
import { parseOtpUri } from './uri.ts'

export default defineOp({
  name: 'otp.uri.parse',
  family: 'otp',
  http: {
    path: '/v1/otp/uri/parse',
    operationId: 'parseOtpUri',
    summary: 'Read an otpauth:// URI',
    description:
      "Reads a Key Uri Format URI: type, label (issuer and account), secret and parameters with the format's " +
      'defaults (SHA1, 6 digits, 30 s). What the format requires is refused with ERR_INVALID_OTP_URI and ' +
      'details {part, position, reason, parameter?}: another scheme or type, no secret or one that is not ' +
      'Base32, no counter for HOTP, a parameter twice or out of range. What it only advises against is a ' +
      'warning: an issuer parameter that differs from the label (the parameter wins), parameters it does not ' +
      'define.',
    errors: ['ERR_INVALID_OTP_URI'],
  },
  body: otpUriParseBody,
  response: otpUriParseResult,
  run: (input) => parseOtpUri(input.uri),
  cost: BODY_PARSE_COST,
  worst: (bytes) =>
    bounded({ uri: `otpauth://totp/${'%C3%A9'.repeat(600)}?secret=${'A'.repeat(400)}&issuer=x` }, bytes),
  examples: [
    {
      summary: "Read the Key Uri Format's own example",
      body: { uri: 'otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example' },
      data: {
        type: 'totp',
        label: 'Example:alice@google.com',
        issuer: 'Example',
        account: 'alice@google.com',
        secret: 'JBSWY3DPEHPK3PXP',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
        warnings: [],
      },
    },
    {
      summary: 'An HOTP URI without its counter',
      body: { uri: 'otpauth://hotp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP' },
      error: {
        type: 'invalid_request',
        message: 'Position 63: counter is required for HOTP',
        code: 'ERR_INVALID_OTP_URI',
        details: {
          part: 'parameter',
          position: 63,
          reason: 'counter is required for HOTP',
          parameter: 'counter',
        },
      },
    },
  ],
})
