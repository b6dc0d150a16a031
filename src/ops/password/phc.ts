// The PHC string format (P-H-C/phc-string-format, its specification):
//   $<id>[$v=<version>][$<param>=<value>(,<param>=<value>)*][$<salt>[$<hash>]]
// read into its parts, and the errors every hash reader answers with. A hash is never echoed in an error:
// details say what is wrong and where, by field name.
import { AppError } from '../../errors.ts'
import { b64Decode, b64Encode } from './b64.ts'
import { MAX_HASH_BYTES, MAX_SALT_BYTES, MIN_HASH_BYTES, PASSWORD_ALGORITHMS } from './types.ts'

export interface PhcString {
  id: string
  version: string | undefined
  params: [name: string, value: string][]
  salt: string | undefined
  hash: string | undefined
}

export function malformed(reason: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('ERR_INVALID_HASH', `The hash is malformed: ${reason}.`, details)
}

export function unsupported(
  algorithm: string,
  reason: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError('ERR_UNSUPPORTED_ALGORITHM', `${reason}.`, {
    algorithm,
    supported: PASSWORD_ALGORITHMS,
    ...details,
  })
}

const ID = /^[a-z0-9-]{1,32}$/
const PARAM_NAME = /^[a-z0-9-]{1,32}$/
const PARAM_VALUE = /^[a-zA-Z0-9/+.-]*$/
const SALT = /^[a-zA-Z0-9/+.-]*$/

export function parsePhc(text: string): PhcString {
  const parts = text.split('$')
  if (parts[0] !== '' || parts.length < 2) throw malformed('a PHC string starts with "$" and an identifier')
  const id = parts[1]!
  if (!ID.test(id)) throw malformed('the identifier is 1 to 32 characters of a-z, 0-9 and "-"')
  let i = 2
  let version: string | undefined
  if (parts[i]?.startsWith('v=')) {
    version = parts[i]!.slice(2)
    if (!/^[0-9]+$/.test(version)) throw malformed('the version is decimal digits', { field: 'v' })
    i++
  }
  const params: PhcString['params'] = []
  if (parts[i]?.includes('=')) {
    for (const pair of parts[i]!.split(',')) {
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (eq < 0 || !PARAM_NAME.test(name) || !PARAM_VALUE.test(value)) {
        throw malformed('parameters are name=value pairs separated by commas', { field: 'params' })
      }
      params.push([name, value])
    }
    i++
  }
  const salt = parts[i]
  const hash = parts[i + 1]
  if (parts.length > i + 2) throw malformed('there are more "$"-separated fields than a PHC string has')
  if (salt !== undefined && !SALT.test(salt))
    throw malformed('the salt has a character outside B64', { field: 'salt' })
  return { id, version, params, salt, hash }
}

// A PHC decimal: "0" or digits without a leading zero, no sign (the specification's "Decimal Encoding").
export function decimal(value: string | undefined, field: string, max: number): number {
  if (value === undefined || !/^(0|[1-9][0-9]*)$/.test(value) || value.length > 16) {
    throw malformed(`${field} is a decimal integer without leading zeros`, { field })
  }
  const n = Number(value)
  if (n > max) throw malformed(`${field} is at most ${max}`, { field })
  return n
}

// The parameters, in exactly the order and with exactly the names given (the spec's producers may not
// reorder them, and libargon2 and passlib read them positionally).
export function expectParams(phc: PhcString, names: readonly string[]): string[] {
  const got = phc.params.map(([name]) => name)
  if (got.length !== names.length || got.some((name, i) => name !== names[i])) {
    throw malformed(`the parameters are ${names.map((n) => `${n}=`).join(',')} in that order`, {
      field: 'params',
      expected: names,
    })
  }
  return phc.params.map(([, value]) => value)
}

export function saltBytes(encoded: string | undefined, min: number, decode = b64Decode): Buffer {
  if (encoded === undefined) throw malformed('the salt is missing', { field: 'salt' })
  const salt = decode(encoded)
  if (salt === undefined) throw malformed('the salt is not canonical unpadded Base64', { field: 'salt' })
  if (salt.length < min || salt.length > MAX_SALT_BYTES) {
    throw malformed(`the salt is ${min} to ${MAX_SALT_BYTES} bytes`, { field: 'salt', min_bytes: min })
  }
  return salt
}

export function hashBytes(encoded: string | undefined, decode = b64Decode): Buffer {
  if (encoded === undefined || encoded === '')
    throw malformed('the hash output is missing', { field: 'hash' })
  const hash = decode(encoded)
  if (hash === undefined)
    throw malformed('the hash output is not canonical unpadded Base64', { field: 'hash' })
  if (hash.length < MIN_HASH_BYTES || hash.length > MAX_HASH_BYTES) {
    throw malformed(`the hash output is ${MIN_HASH_BYTES} to ${MAX_HASH_BYTES} bytes`, { field: 'hash' })
  }
  return hash
}

export function formatPhc(
  id: string,
  version: number | undefined,
  params: [string, number][],
  salt: Uint8Array,
  hash: Uint8Array,
): string {
  const v = version === undefined ? '' : `$v=${version}`
  const p = params.map(([name, value]) => `${name}=${value}`).join(',')
  return `$${id}${v}$${p}$${b64Encode(salt)}$${b64Encode(hash)}`
}
