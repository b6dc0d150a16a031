import { v1, v3, v4, v5, v6, v7 } from 'uuid'
import { AppError } from '../../errors.ts'
import { type ByteEncoding, decodeInput } from '../encoding.ts'
import type { UuidFormat, UuidVersion } from './types.ts'
import { parseUuid } from './uuid-parse.ts'

export type { UuidFormat, UuidVersion }

// RFC 9562 §6.6, Table 3.
export const NAMESPACES = {
  dns: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
  url: '6ba7b811-9dad-11d1-80b4-00c04fd430c8',
  oid: '6ba7b812-9dad-11d1-80b4-00c04fd430c8',
  x500: '6ba7b814-9dad-11d1-80b4-00c04fd430c8',
} as const

export interface UuidInput {
  version?: UuidVersion
  count?: number
  namespace?: string
  name?: string
  name_encoding?: ByteEncoding
  format?: UuidFormat
}

export interface UuidResult {
  uuids: string[]
}

function invalidField(path: string, message: string): AppError {
  return new AppError('ERR_VALIDATION', `\`${path}\` ${message}`, { issues: [{ path, message }] })
}

function namespaceBytes(namespace: string): Uint8Array {
  const key = namespace.toLowerCase()
  const known = Object.hasOwn(NAMESPACES, key) ? NAMESPACES[key as keyof typeof NAMESPACES] : undefined
  return parseUuid(known ?? namespace, 'namespace').bytes
}

// v3/v5 are deterministic, so they need a name and a namespace and make exactly one UUID; the other
// versions take neither.
function checkOptions(version: UuidVersion, input: UuidInput, count: number): void {
  const named = version === 3 || version === 5
  if (named) {
    if (input.namespace === undefined) throw invalidField('namespace', 'is required for versions 3 and 5')
    if (input.name === undefined) throw invalidField('name', 'is required for versions 3 and 5')
    if (count !== 1)
      throw invalidField('count', 'must be 1 for versions 3 and 5 (the result is deterministic)')
    return
  }
  if (input.namespace !== undefined) throw invalidField('namespace', 'applies only to versions 3 and 5')
  if (input.name !== undefined) throw invalidField('name', 'applies only to versions 3 and 5')
}

const GENERATORS: Record<1 | 4 | 6 | 7, () => string> = {
  1: () => v1(),
  4: () => v4(),
  6: () => v6(),
  7: () => v7(),
}

function present(uuid: string, format: UuidFormat): string {
  switch (format) {
    case 'standard':
      return uuid
    case 'compact':
      return uuid.replaceAll('-', '')
    case 'urn':
      return `urn:uuid:${uuid}`
    case 'upper':
      return uuid.toUpperCase()
  }
}

// v1, v6 and v7 come from the uuid package's per-thread generator state, which keeps every UUID of
// one thread strictly increasing: v7 uses RFC 9562 §6.2 method 1 (a 32-bit counter seeded at random
// for each new millisecond, incremented within one), so the UUIDs of a single request always sort
// in generation order.
export function generateUuids(input: UuidInput): UuidResult {
  const version = input.version ?? 4
  const count = input.count ?? 1
  const format = input.format ?? 'standard'
  checkOptions(version, input, count)
  if (version === 3 || version === 5) {
    const namespace = namespaceBytes(input.namespace!)
    const name = decodeInput(input.name!, input.name_encoding ?? 'utf8', 'name')
    const uuid = version === 3 ? v3(name, namespace) : v5(name, namespace)
    return { uuids: [present(uuid, format)] }
  }
  const make = GENERATORS[version]
  const uuids: string[] = []
  for (let i = 0; i < count; i++) uuids.push(present(make(), format))
  return { uuids }
}
