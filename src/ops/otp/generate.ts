import { AppError } from '../../errors.ts'
import { referenceSeconds } from '../jwt/time.ts'
import { hotp } from './hotp.ts'
import { secretBytes } from './secret.ts'
import { OTP_DIGITS, OTP_PERIOD, type OtpAlgorithm, type OtpType } from './types.ts'

export interface OtpParams {
  type?: OtpType
  secret: string
  digits?: number
  algorithm?: OtpAlgorithm
  period?: number
  counter?: number
  at?: number | string
}

export interface OtpResult {
  code: string
  type: OtpType
  algorithm: OtpAlgorithm
  digits: number
  counter: number
  period?: number
  seconds_left?: number
}

function misplaced(field: string, type: OtpType): AppError {
  const message = type === 'hotp' ? 'applies to TOTP only' : 'applies to HOTP only'
  return new AppError('ERR_VALIDATION', `\`${field}\` ${message}`, { issues: [{ path: field, message }] })
}

// The counter a code is made for, and how the options fit the type: HOTP takes `counter` (required),
// TOTP takes `period` and `at` (the counter is the time step of `at`, default now).
export interface Resolved {
  type: OtpType
  secret: Buffer
  digits: number
  algorithm: OtpAlgorithm
  counter: number
  period?: number
  // TOTP: the seconds of `at` into its step
  into?: number
}

export function resolve(params: OtpParams): Resolved {
  const type = params.type ?? 'totp'
  const digits = params.digits ?? OTP_DIGITS.default
  const algorithm = params.algorithm ?? 'SHA1'
  if (type === 'hotp') {
    if (params.period !== undefined) throw misplaced('period', type)
    if (params.at !== undefined) throw misplaced('at', type)
    if (params.counter === undefined) {
      throw new AppError('ERR_VALIDATION', '`counter` is required for HOTP', {
        issues: [{ path: 'counter', message: 'is required for HOTP' }],
      })
    }
    return { type, secret: secretBytes(params.secret), digits, algorithm, counter: params.counter }
  }
  if (params.counter !== undefined) throw misplaced('counter', type)
  const period = params.period ?? OTP_PERIOD.default
  const seconds = referenceSeconds(params.at)
  if (seconds < 0) {
    throw new AppError('ERR_VALIDATION', '`at` is before 1970', {
      issues: [{ path: 'at', message: 'must not be before 1970-01-01T00:00:00Z (T0 of RFC 6238)' }],
    })
  }
  const counter = Math.floor(seconds / period)
  return {
    type,
    secret: secretBytes(params.secret),
    digits,
    algorithm,
    counter,
    period,
    into: seconds - counter * period,
  }
}

export function generateOtp(params: OtpParams): OtpResult {
  const r = resolve(params)
  const result: OtpResult = {
    code: hotp(r.secret, r.counter, r.digits, r.algorithm),
    type: r.type,
    algorithm: r.algorithm,
    digits: r.digits,
    counter: r.counter,
  }
  if (r.period !== undefined) {
    result.period = r.period
    result.seconds_left = r.period - r.into!
  }
  return result
}
