import { timingSafeEqual } from 'node:crypto'
import { AppError } from '../../errors.ts'
import { type OtpParams, resolve } from './generate.ts'
import { hotp } from './hotp.ts'
import { MAX_COUNTER, OTP_WINDOW } from './types.ts'

export interface OtpVerifyParams extends OtpParams {
  code: string
  window?: number
}

export interface OtpVerifyResult {
  valid: boolean
  // the step that matched, relative to the expected one (TOTP: -1 is the previous period; HOTP: how far
  // ahead of `counter`), null when none did
  delta: number | null
  counter: number | null
}

// The code of every step in the window is made and compared in constant time, all of them whatever
// matches, so the time taken says nothing about which step (or whether one) matched. Steps are tried
// nearest first: a code that two steps share (1 in 10^digits) is reported at the nearer.
export function verifyOtp(params: OtpVerifyParams): OtpVerifyResult {
  const r = resolve(params)
  if (params.code.length !== r.digits || !/^[0-9]+$/.test(params.code)) {
    throw new AppError('ERR_VALIDATION', `\`code\` must be ${r.digits} decimal digits`, {
      issues: [{ path: 'code', message: `must be ${r.digits} decimal digits (digits is ${r.digits})` }],
    })
  }
  const window = params.window ?? OTP_WINDOW[r.type]
  const given = Buffer.from(params.code, 'latin1')
  const deltas =
    r.type === 'hotp'
      ? Array.from({ length: window + 1 }, (_, i) => i)
      : [0, ...Array.from({ length: window }, (_, i) => [-(i + 1), i + 1]).flat()]
  let matched: number | null = null
  for (const delta of deltas) {
    const counter = r.counter + delta
    if (counter < 0 || counter > MAX_COUNTER) continue
    const expected = Buffer.from(hotp(r.secret, counter, r.digits, r.algorithm), 'latin1')
    if (timingSafeEqual(expected, given) && matched === null) matched = delta
  }
  return {
    valid: matched !== null,
    delta: matched,
    counter: matched === null ? null : r.counter + matched,
  }
}
