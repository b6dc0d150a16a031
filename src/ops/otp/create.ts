import { AppError } from '../../errors.ts'
import { newSecret, secretText } from './secret.ts'
import { NEW_SECRET_BYTES, OTP_DIGITS, OTP_PERIOD, type OtpAlgorithm, type OtpType } from './types.ts'
import { buildOtpUri, type OtpUri } from './uri.ts'

export interface OtpSecretParams {
  type?: OtpType
  account: string
  issuer?: string
  algorithm?: OtpAlgorithm
  digits?: number
  period?: number
  counter?: number
  bytes?: number
}

export interface OtpSecretResult extends OtpUri {
  uri: string
}

function refuse(field: string, message: string): AppError {
  return new AppError('ERR_VALIDATION', `\`${field}\` ${message}`, { issues: [{ path: field, message }] })
}

// A new random secret (the operating system's CSPRNG) and its otpauth:// URI, which an authenticator app
// reads from a QR code.
export function createOtpSecret(params: OtpSecretParams, random = newSecret): OtpSecretResult {
  const type = params.type ?? 'totp'
  for (const field of ['account', 'issuer'] as const) {
    if (params[field]?.includes(':')) {
      throw refuse(field, 'must not hold a colon: the label separates issuer and account with one')
    }
  }
  if (type === 'hotp' && params.period !== undefined) throw refuse('period', 'applies to TOTP only')
  if (type === 'totp' && params.counter !== undefined) throw refuse('counter', 'applies to HOTP only')
  const key: OtpUri = {
    type,
    secret: secretText(random(params.bytes ?? NEW_SECRET_BYTES.default)),
    account: params.account,
    issuer: params.issuer,
    algorithm: params.algorithm ?? 'SHA1',
    digits: params.digits ?? OTP_DIGITS.default,
  }
  if (type === 'totp') key.period = params.period ?? OTP_PERIOD.default
  else key.counter = params.counter ?? 0
  return { ...key, uri: buildOtpUri(key) }
}
