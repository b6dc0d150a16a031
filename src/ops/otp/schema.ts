import { z } from 'zod'
import {
  MAX_COUNTER,
  MAX_OTP_TIME,
  NEW_SECRET_BYTES,
  OTP_ALGORITHMS,
  OTP_DIGITS,
  OTP_PERIOD,
  OTP_SECRET_CHARS,
  OTP_TYPES,
  OTP_WINDOW,
} from './types.ts'

// The otp family's request and response schemas. Defaults that depend on the type (a window, a counter)
// are the ops', so the schemas leave them unset.
const type = z.enum(OTP_TYPES).default('totp').describe('totp (RFC 6238, the default) or hotp (RFC 4226)')
const algorithm = z
  .enum(OTP_ALGORITHMS)
  .default('SHA1')
  .describe('The HMAC: SHA1 (the default, what most apps use), SHA256 or SHA512 (RFC 6238)')
const digits = z
  .number()
  .int()
  .min(OTP_DIGITS.min)
  .max(OTP_DIGITS.max)
  .default(OTP_DIGITS.default)
  .describe('Digits of the code, 6 to 8')
const period = z
  .number()
  .int()
  .min(OTP_PERIOD.min)
  .max(OTP_PERIOD.max)
  .optional()
  .describe('TOTP only: seconds per step (default 30)')
const counter = z
  .number()
  .int()
  .min(0)
  .max(MAX_COUNTER)
  .optional()
  .describe('HOTP only: the counter (required for hotp; an 8-byte integer, here up to 2^53 - 1)')
const at = z
  .union([z.number().min(0).max(MAX_OTP_TIME), z.iso.datetime({ offset: true })])
  .optional()
  .describe('TOTP only: the time to make the code for instead of now: Unix seconds or an ISO 8601 date-time')
const secret = z
  .string()
  .min(1)
  .max(OTP_SECRET_CHARS)
  .describe(
    'The shared secret in Base32 (RFC 4648): any case, spaces and "=" padding allowed, as apps show it',
  )

const otpFields = { type, secret, digits, algorithm, period, counter, at }

export const otpGenerateBody = z.strictObject(otpFields)

export const otpVerifyBody = z.strictObject({
  ...otpFields,
  code: z
    .string()
    .regex(/^[0-9]{6,8}$/, 'must be 6 to 8 decimal digits')
    .describe('The code to check: exactly `digits` decimal digits'),
  window: z
    .number()
    .int()
    .min(0)
    .max(OTP_WINDOW.max)
    .optional()
    .describe(
      `Steps also accepted: TOTP on each side of now (default ${OTP_WINDOW.totp}), HOTP ahead of the counter ` +
        `(default ${OTP_WINDOW.hotp}); at most ${OTP_WINDOW.max}`,
    ),
})

const label = z.string().min(1).max(256)

export const otpSecretBody = z.strictObject({
  type,
  account: label.describe('The account name of the label (an email, a user name); no colon'),
  issuer: label.optional().describe('Who issues the key (a service name), in the label and as a parameter'),
  algorithm,
  digits,
  period,
  counter: counter.describe('HOTP only: the first counter (default 0)'),
  bytes: z
    .number()
    .int()
    .min(NEW_SECRET_BYTES.min)
    .max(NEW_SECRET_BYTES.max)
    .default(NEW_SECRET_BYTES.default)
    .describe('Random bytes of the secret: 16 to 64, default 20 (160 bits, RFC 4226 §4)'),
})

export const otpUriParseBody = z.strictObject({
  uri: z.string().max(4096).describe('An otpauth:// URI (Key Uri Format)'),
})

const typeOut = z.enum(OTP_TYPES)
const algorithmOut = z.enum(OTP_ALGORITHMS)

export const otpGenerateResult = z.object({
  code: z
    .string()
    .regex(/^[0-9]{6,8}$/)
    .describe('The one-time password: `digits` decimal digits'),
  type: typeOut,
  algorithm: algorithmOut,
  digits: z.number().int(),
  counter: z.number().int().describe('The counter the code is for (TOTP: the time step)'),
  period: z.number().int().optional().describe('TOTP: seconds per step'),
  seconds_left: z.number().int().optional().describe('TOTP: seconds until the next step'),
})

export const otpVerifyResult = z.object({
  valid: z.boolean(),
  delta: z
    .number()
    .int()
    .nullable()
    .describe(
      'The step that matched, from the expected one (TOTP: -1 the previous period; HOTP: steps ahead)',
    ),
  counter: z.number().int().nullable().describe('The counter that matched (HOTP: the next one is this + 1)'),
})

const keyFields = {
  type: typeOut,
  secret: z.string().describe('Base32, upper case, unpadded'),
  account: z.string(),
  issuer: z.string().optional(),
  algorithm: algorithmOut,
  digits: z.number().int(),
  period: z.number().int().optional().describe('TOTP'),
  counter: z.number().int().optional().describe('HOTP'),
}

export const otpSecretResult = z.object({
  ...keyFields,
  uri: z.string().describe('The otpauth:// URI (Key Uri Format), every parameter written'),
})

export const otpUriParseResult = z.object({
  ...keyFields,
  label: z.string().describe('The label, percent-decoded'),
  warnings: z.array(z.string()).describe('What the format says should not be, or does not define'),
})
